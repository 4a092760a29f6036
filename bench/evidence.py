"""Evidence recording: storage per table-hour and the CPU of encoding, on rendered table video.

A simulated hand is rendered at 1080p (vision/synth, the ``glyph`` style, arms over the table;
rendering not timed), then recorded through the rig's recorder exactly as on a rig — 10 s H.264
MP4 segments (PyAV libx264, one encoder thread) at the camera's frame rate, and four microphones
of table noise as 16 kHz FLAC segments. Printed: bytes per table-hour of video and of audio,
and the CPU seconds of encoding per second of session as a share of one core, against the
targets (≤ 2 GB per table-hour, ≤ 15 % of a core). One command::

    python bench/evidence.py [--seconds 60] [--fps 10] [--json]
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from referee.game.sim import Simulator  # noqa: E402
from rig.evidence import Budget, Recorder  # noqa: E402
from vision.synth.video import RenderSpec, frames  # noqa: E402

TARGET_GB_PER_HOUR = 2.0
TARGET_CORE_SHARE = 0.15
RENDERED = 120  # distinct frames rendered, played in a loop (rendering 1080p is slow here)


def cpu_s() -> float:
    """CPU seconds of this process, every thread (the encoders') included."""
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def rendered(fps: float) -> list[np.ndarray]:
    events = list(Simulator(seed=21).run(1))
    deal = next(e.ts for e in events if e.type == "deal")
    spec = RenderSpec(1920, 1080, fps=fps, style="glyph", pose="top", seed=21, hovers=1)
    spec = RenderSpec(**{**spec.__dict__, "start": deal, "end": deal + RENDERED / fps})
    return [cv2.cvtColor(f, cv2.COLOR_RGB2BGR) for f, _ in frames(events, spec)]


def measure(seconds: float, fps: float) -> dict[str, Any]:
    shots = rendered(fps)
    rng = np.random.default_rng(3)
    block = 1600  # 0.1 s at 16 kHz
    noise = (rng.normal(0, 10 ** (-50 / 20), (16000 * 4, 4))).astype(np.float32)
    with tempfile.TemporaryDirectory() as tmp:
        rec = Recorder(Path(tmp), "BENCH", Budget())
        n = round(seconds * fps)
        c0 = cpu_s()
        w0 = time.perf_counter()
        for i in range(n):
            rec.record_frame(i / fps, shots[i % len(shots)])
        rec.video_done()
        video_cpu, video_wall = cpu_s() - c0, time.perf_counter() - w0
        c0 = cpu_s()
        for j in range(round(seconds * 16000 / block)):
            k = (j * block) % (len(noise) - block)
            rec.record_audio(j * block / 16000, noise[k : k + block], 16000)
        rec.flush()
        audio_cpu = cpu_s() - c0
        segments = {k: rec.ring.find(k, 0.0, 1e9) for k in ("video", "audio")}
        rec.close()
    per_hour = {k: sum(s.bytes for s in v) * 3600 / seconds for k, v in segments.items()}
    total_gb = sum(per_hour.values()) / 1e9
    share = (video_cpu + audio_cpu) / seconds
    return {
        "resolution": "1920x1080",
        "fps": fps,
        "session_s": seconds,
        "video_segments": len(segments["video"]),
        "video_gb_per_table_hour": round(per_hour["video"] / 1e9, 3),
        "audio_gb_per_table_hour": round(per_hour["audio"] / 1e9, 3),
        "gb_per_table_hour": round(total_gb, 3),
        "video_encode_core_share": round(video_cpu / seconds, 3),
        "audio_encode_core_share": round(audio_cpu / seconds, 3),
        "encode_core_share": round(share, 3),
        "video_encode_ms_per_frame": round(1000 * video_cpu / n, 1),
        "video_wall_s": round(video_wall, 1),
        "storage_ok": total_gb <= TARGET_GB_PER_HOUR,
        "cpu_ok": share <= TARGET_CORE_SHARE,
    }


def main() -> int:
    parser = argparse.ArgumentParser(prog="bench/evidence.py", description=__doc__)
    parser.add_argument("--seconds", type=float, default=60.0, help="session seconds recorded")
    parser.add_argument("--fps", type=float, default=10.0, help="the camera's frame rate")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    r = measure(args.seconds, args.fps)
    if args.json:
        print(json.dumps(r))
    else:
        print(
            f"evidence at {r['resolution']} {r['fps']:g} fps over {r['session_s']:g} s "
            f"({r['video_segments']} video segments):\n"
            f"  storage {r['gb_per_table_hour']:.2f} GB per table-hour "
            f"(video {r['video_gb_per_table_hour']:.2f}, audio {r['audio_gb_per_table_hour']:.2f};"
            f" target ≤ {TARGET_GB_PER_HOUR:g}) {'OK' if r['storage_ok'] else 'OVER'}\n"
            f"  encoding {100 * r['encode_core_share']:.1f} % of a core "
            f"(video {100 * r['video_encode_core_share']:.1f} %, "
            f"{r['video_encode_ms_per_frame']:.1f} ms/frame; audio "
            f"{100 * r['audio_encode_core_share']:.1f} %; target ≤ {100 * TARGET_CORE_SHARE:g} %) "
            f"{'OK' if r['cpu_ok'] else 'OVER'}"
        )
    return 0 if r["storage_ok"] and r["cpu_ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
