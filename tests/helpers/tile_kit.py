"""Rendered tile photos for the vision tests, and the skip where the renderer's fonts are absent."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from vision.enrol import Photo
from vision.synth.faces import FontMissing, procedural_tile
from vision.synth.sheet_photo import render_sheet_photo


def skip_without_fonts(style: str | None = None) -> None:
    """Skip the calling test module when Debian's fonts are not installed."""
    try:
        procedural_tile(random.Random(0), 0, 40, style)
    except FontMissing as exc:  # pragma: no cover - ./run installs the fonts
        pytest.skip(str(exc), allow_module_level=True)


def jade_sheet_photo(seed: int) -> Photo:
    """A rendered photo of the tile sheet laid with the unseen ``jade`` faces, labelled."""
    img, boxes = render_sheet_photo("jade", seed)
    return Photo(Path(f"jade-{seed}"), img, boxes)
