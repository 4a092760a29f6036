"""`./run X` runs `mjref X` in the caller's folder: relative paths typed there mean what they say.

Only runs where `./run` would install nothing (a .venv stamped for this pyproject.toml, the
system packages present), so the test never builds a virtualenv.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from referee.game.sim import Simulator

ROOT = Path(__file__).resolve().parents[1]
VENV = ROOT / ".venv"


def _ready() -> str | None:
    """Why `./run` would install something here, or None when it is ready."""
    digest = hashlib.sha1((ROOT / "pyproject.toml").read_bytes()).hexdigest()[:12]
    if not (VENV / "bin" / "mjref").exists():
        return f"no {VENV}: `./run` would create it"
    if not list(VENV.glob(f".installed-{digest}-*")):
        return "`./run` would reinstall (pyproject.toml changed since .venv was stamped)"
    if shutil.which("g++") is None or shutil.which("dpkg") is None:
        return "`./run` would install system packages"
    if subprocess.run(["dpkg", "-s", "libportaudio2"], capture_output=True).returncode != 0:
        return "`./run` would install libportaudio2"
    return None


def _run(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}  # this checkout's code, whatever .venv holds
    return subprocess.run(
        [str(ROOT / "run"), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )


@pytest.mark.skipif(_ready() is not None, reason=str(_ready()))
@pytest.mark.slow
def test_relative_paths_are_the_callers(tmp_path: Path) -> None:
    log = tmp_path / "game.jsonl"
    log.write_text("".join(e.model_dump_json() + "\n" for e in Simulator("wmc", 2).run(1)))
    replay = _run(tmp_path, "replay", "game.jsonl")
    assert replay.returncode == 0, replay.stderr
    assert "table T1 session S1" in replay.stdout
    assert "installing" not in replay.stderr  # the stamp held: nothing was reinstalled

    assert not (ROOT / "half.jsonl").exists()
    made = _run(tmp_path, "simulate", "--hands", "1", "--out", "half.jsonl")
    assert made.returncode == 0, made.stderr
    assert (tmp_path / "half.jsonl").stat().st_size > 0
    assert not (ROOT / "half.jsonl").exists()
