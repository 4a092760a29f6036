"""Shared fixtures: one recognizer per session (loading the ONNX models costs ~0.2 s)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from vision.detect import TileRecognizer

FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture(scope="session")
def recognizer() -> TileRecognizer:
    return TileRecognizer()


Labels = list[tuple[float, float, float, float, str]]


def read_fixture_labels(name: str) -> Labels:
    """The exact labels the renderer wrote for ``fixtures/NAME.jpg``."""
    rows = json.loads((FIXTURES / f"{name}.json").read_text())
    return [(r[0], r[1], r[2], r[3], r[4]) for r in rows]


@pytest.fixture
def fixture_labels() -> Callable[[str], Labels]:
    return read_fixture_labels
