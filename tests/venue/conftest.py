"""The demo's fixtures: one media cache for all its tests, on every xdist worker (the first
hand's video is rendered once per run, not once per worker). A live demo's test that needs only
the first hand says ``--hands 1``: the next hand is not made while it plays."""

from __future__ import annotations

import fcntl
import os
import shutil
from pathlib import Path

import pytest

from venue.demo import SEED
from venue.demo_media import hand_media


@pytest.fixture(scope="session")
def demo_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The media cache, the first hand (the smoke's and the first table's) made in it."""
    if shutil.which("espeak-ng") is None:
        pytest.skip("espeak-ng not installed (Debian package espeak-ng)")
    shared = "PYTEST_XDIST_WORKER" in os.environ  # the workers' temp folders share a parent
    root = tmp_path_factory.getbasetemp()
    cache = root.parent / "demo-cache" if shared else root / "demo-cache"
    cache.mkdir(exist_ok=True)
    with (cache / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one worker renders, the others wait for it
        hand_media(cache, SEED, 0)
    return cache
