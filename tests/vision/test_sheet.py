"""The tile sheet: the committed files are what the script makes, and a photo of the sheet with
tiles on it is read by position (every cell, its tile's box and name) with no labelling."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from tile_kit import skip_without_fonts

from rig.cli import main as mjref
from vision.classes import NUM_CLASSES
from vision.detect import TileRecognizer
from vision.metrics import iou_matrix
from vision.sheet import SheetError, cells, pdf, read_sheet, svg
from vision.synth.sheet_photo import render_sheet_photo

HARDWARE = Path(__file__).resolve().parents[2] / "hardware"

skip_without_fonts("text")


def test_the_committed_sheet_is_what_the_script_makes(tmp_path: Path) -> None:
    assert (HARDWARE / "tile-sheet.svg").read_text() == svg()
    pdf(tmp_path / "tile-sheet.pdf")
    assert (tmp_path / "tile-sheet.pdf").read_bytes() == (HARDWARE / "tile-sheet.pdf").read_bytes()


def test_the_sheet_holds_every_class_once() -> None:
    assert sorted(cls for cls, _ in cells()) == list(range(NUM_CLASSES))


@pytest.mark.parametrize(("style", "seed"), [("text", 11), ("jade", 12)])
def test_a_sheet_photo_is_read_by_position(
    recognizer: TileRecognizer, style: str, seed: int
) -> None:
    img, truth = render_sheet_photo(style, seed)
    boxes = read_sheet(img, recognizer.candidates(img, 0.05))
    assert [b.cls for b in boxes] == [b.cls for b in truth]
    ious = iou_matrix(
        np.array([[b.x1, b.y1, b.x2, b.y2] for b in boxes]),
        np.array([[b.x1, b.y1, b.x2, b.y2] for b in truth]),
    )
    assert ious.diagonal().min() >= 0.5


def test_a_photo_without_the_sheet_is_refused(
    recognizer: TileRecognizer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    img, _ = render_sheet_photo("text", 13)
    crop = img.crop((img.width // 2, 0, img.width, img.height // 3))  # one marker at most
    with pytest.raises(SheetError, match=r"sheet markers .* not seen"):
        read_sheet(crop, recognizer.candidates(crop, 0.05))
    crop.save(tmp_path / "part.jpg")
    code = mjref(
        ["tiles", "enrol", "--sheet", str(tmp_path / "part.jpg"), "--out", str(tmp_path / "p")]
    )
    assert code == 2 and "part.jpg: sheet markers" in capsys.readouterr().err


@pytest.mark.slow
def test_enrol_from_one_sheet_photo(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    img, _ = render_sheet_photo("jade", 14)
    img.save(tmp_path / "sheet.jpg", quality=92)
    sheet, out = str(tmp_path / "sheet.jpg"), str(tmp_path / "p")
    code = mjref(["tiles", "enrol", "--sheet", sheet, "--out", out, "--shipped-detector"])
    assert code == 0 and "43 classes" in capsys.readouterr().out
