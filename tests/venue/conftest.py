"""The demo's fixtures: one media cache for all its tests (a hand's video is rendered once)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def demo_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One media cache for the demo's tests (a hand's video is rendered once)."""
    if shutil.which("espeak-ng") is None:
        pytest.skip("espeak-ng not installed (Debian package espeak-ng)")
    return tmp_path_factory.mktemp("demo-cache")
