"""Rig fixtures: a private mosquitto on a free port (skipped cleanly where it is not installed)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from rig.bus.broker import BrokerUnavailable, LocalBroker


@pytest.fixture
def broker() -> Iterator[LocalBroker]:
    try:
        b = LocalBroker().start()
    except BrokerUnavailable as exc:
        pytest.skip(str(exc))
    try:
        yield b
    finally:
        b.close()


@pytest.fixture(scope="session")
def demo_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One media cache for the demo's tests (a hand's video is rendered once)."""
    if shutil.which("espeak-ng") is None:
        pytest.skip("espeak-ng not installed (Debian package espeak-ng)")
    return tmp_path_factory.mktemp("demo-cache")
