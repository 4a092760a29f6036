"""Rig fixtures: a private mosquitto on a free port (skipped cleanly where it is not installed)."""

from __future__ import annotations

from collections.abc import Iterator

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
