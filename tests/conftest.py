"""Suite-wide settings: hypothesis runs derandomized in CI so a red build is reproducible; the
longest tests start first; a private mosquitto on a free port for the tests that go through a
real broker (skipped cleanly where it is not installed)."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, settings

from rig.bus.broker import BrokerUnavailable, LocalBroker

settings.register_profile(
    "ci", derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


# The tests that take a minute or more (they play a hand in real time, or run every command):
# started first, so that no worker is left alone with one at the end.
LONGEST = ("tests/venue/", "tests/test_hostile_cli.py", "tests/rig/test_rig_voice.py")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The longest tests first, then the other slow ones, then the quick ones that fill the
    gaps: `./run test` gives each worker a share in this order, and a worker out of work takes
    the end of another's share (`--dist worksteal`)."""

    def rank(item: pytest.Item) -> int:
        if item.nodeid.startswith(LONGEST):
            return 0
        return 1 if item.get_closest_marker("slow") is not None else 2

    items.sort(key=rank)


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
