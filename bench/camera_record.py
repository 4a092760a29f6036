"""The camera worker's speed with and without recording (MP4 segments and stills on its thread).

A simulated hand is rendered (vision/synth, rendering not timed) and read by
``python -m rig.camera_worker`` twice, as the rig runs it: once as it is, once with ``--record``
(H.264 segments and a still at each settled change, rig/evidence/tee.py). Printed for each run:
the frames/s of the pipeline (first frame to the file's end) and the worker's CPU seconds per
frame (every thread; the models' loading included), and what recording costs. One command::

    python bench/camera_record.py [--seconds 30] [--width 1280 --height 720] [--fps 5] [--json]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from referee.game.sim import Simulator  # noqa: E402
from vision.synth.video import RenderSpec, render_video  # noqa: E402

SEED = 3  # the camera tests' hand (chows, pungs, a kong)


def children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_worker(clip: Path, setup: list[str], record: Path | None) -> dict[str, Any]:
    argv = [sys.executable, "-m", "rig.camera_worker", "--source", str(clip), "--now", "0"]
    if record is not None:
        argv += ["--record", str(record / "video"), "--stills", str(record / "stills")]
    cpu0 = children_cpu()
    proc = subprocess.Popen(
        argv, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write("".join(setup))
    proc.stdin.flush()  # kept open: the worker stops when the rig goes away
    first = end = None
    frames = segments = stills = actions = 0
    for line in proc.stdout:
        msg = json.loads(line)
        if "alive" in msg and msg["alive"] > 0 and first is None:
            first = time.perf_counter(), int(msg["alive"])
        elif "segment" in msg:
            segments += msg["segment"]["kind"] == "video"
            stills += msg["segment"]["kind"] == "still"
        elif "event" in msg:
            actions += 1
        elif "end" in msg:
            end, frames = time.perf_counter(), int(msg["end"])
            break
    proc.stdin.close()
    proc.wait(timeout=30)
    cpu = children_cpu() - cpu0
    if first is None or end is None:
        raise SystemExit(f"the worker did not read the clip (exit {proc.returncode})")
    return {
        "frames": frames,
        "fps": round((frames - first[1]) / (end - first[0]), 2),
        "cpu_s_per_frame": round(cpu / frames, 4),
        "actions": actions,
        "video_segments": segments,
        "stills": stills,
    }


def measure(seconds: float, width: int, height: int, fps: float) -> dict[str, Any]:
    events = list(Simulator(seed=SEED).run(1))
    deal = next(i for i, e in enumerate(events) if e.type == "deal")
    setup = [e.to_json() + "\n" for e in events[: deal + 1]]
    spec = RenderSpec(width, height, fps=fps, style="text", pose="low", seed=11, hovers=0)
    spec = RenderSpec(**{**spec.__dict__, "end": events[deal].ts + seconds})
    with tempfile.TemporaryDirectory() as tmp:
        where = Path(tmp)
        render_video(events, where / "clip.mp4", where / "truth.jsonl", spec)
        plain = run_worker(where / "clip.mp4", setup, None)
        recorded = run_worker(where / "clip.mp4", setup, where / "evidence")
        size = sum(p.stat().st_size for p in (where / "evidence").rglob("*") if p.is_file())
    return {
        "clip": f"{width}x{height} at {fps:g} fps, {seconds:g} s",
        "plain": plain,
        "recording": recorded,
        "fps_lost": round(1 - recorded["fps"] / plain["fps"], 3),
        "cpu_s_per_frame_added": round(recorded["cpu_s_per_frame"] - plain["cpu_s_per_frame"], 4),
        "recorded_bytes": size,
    }


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seconds", type=float, default=30.0)
    p.add_argument("--width", type=int, default=1280)
    p.add_argument("--height", type=int, default=720)
    p.add_argument("--fps", type=float, default=5.0)
    p.add_argument("--json", action="store_true")
    args = p.parse_args()
    out = measure(args.seconds, args.width, args.height, args.fps)
    if args.json:
        print(json.dumps(out))
        return 0
    print(out["clip"])
    for name in ("plain", "recording"):
        r = out[name]
        print(
            f"  {name:<9} {r['fps']:6.2f} frames/s, {r['cpu_s_per_frame'] * 1000:6.1f} ms CPU a "
            f"frame, {r['actions']} actions, {r['video_segments']} segments, {r['stills']} stills"
        )
    print(
        f"  recording: {out['fps_lost']:.1%} fewer frames/s, "
        f"+{out['cpu_s_per_frame_added'] * 1000:.1f} ms CPU a frame, "
        f"{out['recorded_bytes'] / 1e6:.1f} MB written"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
