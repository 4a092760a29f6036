"""Fixtures for the duties tests (``duty_kit`` lives in tests/helpers, on pytest's path)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from duty_kit import Duty, dealt


@pytest.fixture
def deal() -> Callable[..., Duty]:
    """``deal(S="…")``: a table dealt at DEAL_TS with HANDS (overridden per seat)."""
    return dealt
