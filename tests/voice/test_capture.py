"""Live capture through PortAudio with no sound card: ALSA's ``file`` plugin, configured in a
temporary HOME's .asoundrc, plays a raw file into the capture side of the default device. The
capture runs in a subprocess because PortAudio reads the ALSA configuration once at start-up."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from voice.audio_io import SR

ASOUNDRC = """
pcm.filein {{
    type file
    slave.pcm "null"
    file "/dev/null"
    infile "{raw}"
    format "raw"
}}
pcm.!default {{
    type plug
    slave {{ pcm "filein" format S16_LE rate {sr} channels {ch} }}
}}
"""

CHILD = """
import json, sys
import numpy as np
from voice.clock import ManualClock
from voice.sources import LiveSource, list_devices, level_dbfs
devs = list_devices()
src = LiveSource("default", channels=int(sys.argv[1]), clock=ManualClock(100.0))
src.start()
got, starts = [], []
for block in src:
    got.append(block.data)
    starts.append(block.start)
    if block.start + len(block.data) >= 16000:
        break
src.stop()
x = np.concatenate(got)
print(json.dumps({"devices": [d["name"] for d in devs], "shape": list(x.shape),
                  "level": level_dbfs(x), "starts": starts[:3], "t0": src.t0,
                  "ring": src.ring.written}))
"""


def _has_portaudio() -> bool:
    import ctypes.util

    return ctypes.util.find_library("portaudio") is not None


@pytest.mark.skipif(not _has_portaudio(), reason="Debian libportaudio2 not installed")
def test_sounddevice_capture_from_alsa_file_plugin(tmp_path: Path) -> None:
    ch = 2
    t = np.arange(2 * SR) / SR
    left = 0.5 * np.sin(2 * np.pi * 440 * t)
    right = 0.05 * np.sin(2 * np.pi * 440 * t)
    pcm = (np.stack([left, right], axis=1) * 32767).astype("<i2")
    raw = tmp_path / "in.raw"
    raw.write_bytes(pcm.tobytes())
    home = tmp_path / "home"
    home.mkdir()
    (home / ".asoundrc").write_text(ASOUNDRC.format(raw=raw, sr=SR, ch=ch))
    env = {**os.environ, "HOME": str(home)}
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(ch)],
        capture_output=True,
        text=True,
        env=env,
        timeout=30,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert out.returncode == 0, out.stderr[-2000:]
    res = json.loads(out.stdout.strip().splitlines()[-1])
    assert "default" in res["devices"]
    assert res["shape"][1] == ch and res["shape"][0] >= SR
    assert res["starts"][:2] == [0, 1280]  # sample counter, not wall time
    assert res["t0"] == pytest.approx(100.0 - 1280 / SR)  # from the injected clock
    left_db, right_db = res["level"]
    assert -12 < left_db < -6 and right_db < left_db - 15  # both channels, in order
    assert res["ring"] >= SR


LISTEN = """
import sys
from rig.cli import main
sys.exit(main(["voice", "listen", "--device", "default", "--seconds", sys.argv[1]]))
"""


@pytest.mark.skipif(not _has_portaudio(), reason="Debian libportaudio2 not installed")
@pytest.mark.slow
def test_listen_prints_a_call_heard_live(tmp_path: Path, say, spotter_head) -> None:  # type: ignore[no-untyped-def]
    from .conftest import place

    # ALSA's file plugin over the "null" device is unpaced and loses part of each period, so
    # the word arrives clipped (~70 % of it, measured); this checks the live path, not accuracy.
    x = place([(1.0, say("chi1", "cmn-latn-pinyin") * 0.5)], 3.0, noise_db=-62)
    raw = tmp_path / "in.raw"
    raw.write_bytes((x * 32767).astype("<i2").tobytes())
    home = tmp_path / "home"
    home.mkdir()
    (home / ".asoundrc").write_text(ASOUNDRC.format(raw=raw, sr=SR, ch=1))
    out = subprocess.run(
        [sys.executable, "-c", LISTEN, "2.8"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "HOME": str(home)},
        cwd=Path(__file__).resolve().parents[2],
    )
    assert out.returncode == 0, out.stderr[-2000:]
    calls = [json.loads(line) for line in out.stdout.splitlines()]
    assert [(c["word"], c["lang"], c["seat"], c["engine"]) for c in calls] == [
        ("chow", "cmn", None, "spotter")
    ]
