"""`tiles detect` on large inputs: time and peak memory per image, each in its own process.

Cases: a 4000×3000 noise photo (the 12 MP image that once ran for minutes and took 17 GB), a
hand photographed close up at 4000×3000 (the committed hand row scaled 5.7×: must read as the
original, with no windows), a 10000×10000 noise image (100 MP, the largest accepted) and a
20000×20000 PNG (400 MP: refused from its header). Each case runs ``load_image`` and
``TileRecognizer.detect`` in a fresh Python process and reports its wall time and peak RSS
(``VmHWM``, Linux); the target is < 2 GB each, in bounded time. From the repository root::

    python bench/tiles_large.py [--json] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import struct
import subprocess
import sys
import tempfile
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
from PIL import Image  # noqa: E402

LIMIT_MB = 2048

CHILD = """
import json, sys, time
sys.path.insert(0, {root!r})
from vision.detect import TileRecognizer
from vision.image_io import ImageError, load_image
rec = TileRecognizer()
start = time.perf_counter()
try:
    img = load_image({path!r})
    dets = rec.detect(img)
    out = {{"tiles": len(dets), "labels": sorted(d.label for d in dets)}}
except ImageError as exc:
    out = {{"error": str(exc)}}
out["seconds"] = round(time.perf_counter() - start, 2)
# VmHWM: this process's own peak (ru_maxrss would start from the parent's size at the fork)
hwm = [l for l in open("/proc/self/status") if l.startswith("VmHWM")][0].split()[1]
out["peak_rss_mb"] = round(int(hwm) / 1024)
print(json.dumps(out))
"""


def noise(path: Path, w: int, h: int) -> None:
    rng = np.random.default_rng(0)
    rows = [rng.integers(0, 256, (min(1000, h - y), w, 3), np.uint8) for y in range(0, h, 1000)]
    Image.fromarray(np.concatenate(rows)).save(path, quality=90)


def close_up(path: Path) -> None:
    """The committed hand row (700×120, 14 tiles) as a 4000×3000 close-up on green felt."""
    row = Image.open(ROOT / "tests/vision/fixtures/hand_row.jpg").convert("RGB")
    big = row.resize((4000, round(120 * 4000 / 700)), Image.Resampling.BICUBIC)
    canvas = Image.new("RGB", (4000, 3000), (30, 110, 60))
    canvas.paste(big, (0, (3000 - big.height) // 2))
    canvas.save(path, quality=92)


def blank_png(path: Path, w: int, h: int) -> None:
    """A valid w×h grey PNG written row by row (never all in memory)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    comp = zlib.compressobj(9)
    row = b"\0" + b"\x80" * (w * 3)
    idat = b"".join(comp.compress(row) for _ in range(h)) + comp.flush()
    with path.open("wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)))
        f.write(chunk(b"IDAT", idat) + chunk(b"IEND", b""))


def run(path: Path) -> dict[str, object]:
    code = CHILD.format(root=str(ROOT), path=str(path))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=900)
    if done.returncode != 0:
        return {"crashed": done.returncode, "stderr": done.stderr.strip().splitlines()[-1:]}
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--json", action="store_true")
    p.add_argument("--keep", type=Path, help="write the test images here (default: a temp dir)")
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        cases = {
            "noise 4000x3000": (folder / "noise_12mp.jpg", lambda f: noise(f, 4000, 3000)),
            "close-up hand 4000x3000": (folder / "hand_12mp.jpg", close_up),
            "noise 10000x10000": (folder / "noise_100mp.jpg", lambda f: noise(f, 10000, 10000)),
            "grey 20000x20000 png": (
                folder / "grey_400mp.png",
                lambda f: blank_png(f, 20000, 20000),
            ),
        }
        report: dict[str, object] = {}
        for name, (path, make) in cases.items():
            make(path)
            report[name] = run(path)
        original = run(ROOT / "tests/vision/fixtures/hand_row.jpg")
    hand = report["close-up hand 4000x3000"]
    assert isinstance(hand, dict)
    report["close-up reads as the original"] = hand.get("labels") == original.get("labels")
    over = [
        n for n, r in report.items() if isinstance(r, dict) and r.get("peak_rss_mb", 0) > LIMIT_MB
    ]
    report["all under 2 GB"] = not over and all(
        "crashed" not in r for r in report.values() if isinstance(r, dict)
    )
    if args.json:
        print(json.dumps(report))
    else:
        for name, r in report.items():
            if isinstance(r, dict):
                r = {k: v for k, v in r.items() if k != "labels"}
            print(f"{name}: {r}")
    return 0 if report["all under 2 GB"] else 1


if __name__ == "__main__":
    sys.exit(main())
