"""Where ../shared (rules, test data, real recordings) is: beside the repo, or $MJREF_SHARED."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def shared_path(*parts: str) -> Path:
    """A path under shared/; fails the test clearly when shared/ is not where CI lays it."""
    root = Path(os.environ.get("MJREF_SHARED", REPO.parent / "shared"))
    path = root.joinpath(*parts)
    if not path.exists():
        pytest.fail(f"{path} not found: expected shared/ beside the repo (or set MJREF_SHARED)")
    return path
