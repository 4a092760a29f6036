"""The committed ONNX models load from models/, find the right tiles on committed synthetic
images, and fail clearly on a bad file; images of any size and mode go through."""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

from vision.classes import class_of_label
from vision.dataset import Box
from vision.detect import (
    CLASSIFIER_FILE,
    DETECTOR_FILE,
    MAX_TILES,
    MAX_WINDOWS,
    MODELS_DIR,
    SURE,
    TileRecognizer,
    tile_crop,
    windows,
)
from vision.image_io import load_image, to_rgb
from vision.metrics import evaluate

FIXTURES = Path(__file__).resolve().parent / "fixtures"

# Regression floors, a little under what the committed models reach on the three fixtures
# (30 tiles: detection recall 1.0, tile accuracy 1.0 at the default confidence; MODELS.md).
MIN_FIXTURE_RECALL = 0.9
MIN_FIXTURE_ACCURACY = 0.9


def test_models_are_committed_and_small() -> None:
    for name in (DETECTOR_FILE, CLASSIFIER_FILE):
        size = (MODELS_DIR / name).stat().st_size
        assert 10_000 < size < 20_000_000, name


def test_recognizer_reads_the_synthetic_fixtures(
    recognizer: TileRecognizer, fixture_labels: Callable[[str], Any]
) -> None:
    samples = []
    for name in ("hand_row", "turned_row", "mixed"):
        img = load_image(FIXTURES / f"{name}.jpg")
        gt = [Box(r[0], r[1], r[2], r[3], cls=class_of_label(r[4])) for r in fixture_labels(name)]
        dets = recognizer.detect(img)
        samples.append((gt, [(d.x1, d.y1, d.x2, d.y2, d.cls, d.conf) for d in dets]))
    result = evaluate(samples, conf=0.0)
    assert result.detection_recall >= MIN_FIXTURE_RECALL, result
    assert result.tile_accuracy >= MIN_FIXTURE_ACCURACY, result


def test_corrupt_model_names_the_file_and_what_was_expected(tmp_path: Path) -> None:
    bad = tmp_path / DETECTOR_FILE
    bad.write_bytes(b"\x08\x07garbage, not protobuf" * 10)
    with pytest.raises(Exception) as info:
        TileRecognizer(detector=bad)
    text = str(info.value)
    assert str(bad) in text and "not a valid ONNX model" in text and "tile detector" in text


def test_missing_model_names_the_file(tmp_path: Path) -> None:
    with pytest.raises(Exception, match="no such model file") as info:
        TileRecognizer(models_dir=tmp_path)
    assert str(tmp_path / DETECTOR_FILE) in str(info.value)


def test_a_classifier_is_not_taken_for_a_detector() -> None:
    with pytest.raises(Exception, match="not a tile detector"):
        TileRecognizer(detector=MODELS_DIR / CLASSIFIER_FILE)


@pytest.mark.parametrize(
    "image",
    [
        Image.new("RGBA", (300, 200), (10, 120, 40, 128)),
        Image.new("L", (200, 300), 90),
        Image.fromarray(np.full((120, 160), 40000, dtype=np.uint16)),
        Image.new("RGB", (1, 1)),
        Image.new("RGB", (7, 300)),
    ],
    ids=["rgba", "gray", "16bit", "1x1", "sliver"],
)
def test_any_mode_and_size(recognizer: TileRecognizer, image: Image.Image) -> None:
    rgb = to_rgb(image)
    for d in recognizer.detect(rgb):
        assert 0 <= d.x1 <= d.x2 <= rgb.width and 0 <= d.y1 <= d.y2 <= rgb.height


@pytest.mark.parametrize("size", [(1600, 1200), (3200, 2400)])
@pytest.mark.slow
def test_small_tiles_in_a_large_image_are_found(
    recognizer: TileRecognizer, size: tuple[int, int]
) -> None:
    """A table with the hand row pasted at native size (50 px tiles): at 3200 px they are
    4 % of a whole view, too small to see, and windows find them."""
    row = load_image(FIXTURES / "hand_row.jpg")
    w, h = size
    big = Image.new("RGB", size, (120, 30, 30))
    big.paste(row, (w // 2 - 100, h * 3 // 4))
    dets = recognizer.detect(big)
    inside = [d for d in dets if d.y1 >= h * 3 // 4 and d.x1 >= w // 2 - 100]
    assert len(inside) >= 12
    assert all(0 <= d.x1 <= d.x2 <= w and 0 <= d.y1 <= d.y2 <= h for d in dets)


def _row_order(dets: list[Any], scale: float = 1.0) -> list[tuple[str, int, int]]:
    """Labels with their centres in original pixels (to 10 px), in reading order."""
    return sorted(
        (d.label, round((d.x1 + d.x2) / 2 / scale / 10), round((d.y1 + d.y2) / 2 / scale / 10))
        for d in dets
    )


@pytest.mark.parametrize("factor", [3, 4])
@pytest.mark.parametrize("name", ["hand_row", "turned_row", "mixed"])
def test_an_upscaled_photo_reads_exactly_the_tiles_of_the_original(
    recognizer: TileRecognizer, name: str, factor: int
) -> None:
    """A close-up is a large photo of large tiles: the whole view sees them, and windows (which
    cut tiles into pieces that look like tiles) are not used."""
    img = load_image(FIXTURES / f"{name}.jpg")
    big = img.resize((img.width * factor, img.height * factor), Image.Resampling.BICUBIC)
    original = recognizer.detect(img)
    assert len(original) >= 7
    assert [d[0] for d in _row_order(recognizer.detect(big), factor)] == [
        d[0] for d in _row_order(original)
    ]


def test_windows_are_bounded_for_any_image_size(recognizer: TileRecognizer) -> None:
    none = np.zeros((0, 6), np.float32)
    for w, h in [(4000, 3000), (20000, 20000), (100_000, 50)]:
        scale = recognizer.window_scale(none, w, h)
        assert scale is not None and 0 < scale <= 1
        assert len(windows(round(w * scale), round(h * scale), recognizer.side, 0.25)) <= (
            MAX_WINDOWS
        )
    big_tiles = np.array([[0, 0, 300, 400, 0.9, 0]], np.float32)  # a close-up: no windows
    assert recognizer.window_scale(big_tiles, 4000, 3000) is None
    small_tiles = np.array([[0, 0, 60, 80, 0.9, 0]], np.float32)  # shown at 24 px
    assert recognizer.window_scale(small_tiles, 4000, 3000) == pytest.approx(24 / np.sqrt(4800))


@pytest.mark.slow
def test_noise_gives_a_bounded_answer(recognizer: TileRecognizer) -> None:
    """Texture everywhere, every box kept down to the floor: the boxes kept before NMS, the
    crops classified and the tiles returned are capped, and so is the memory (numpy and Pillow
    allocations, as tracemalloc sees them; bench/tiles_large.py measures whole processes)."""
    rng = np.random.default_rng(1)
    img = Image.fromarray(rng.integers(0, 256, (1200, 1600, 3), np.uint8))
    tracemalloc.start()
    try:
        dets = recognizer.detect(img, min_conf=0.0, tiled=True)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(dets) <= MAX_TILES
    assert peak < 300 * 2**20, peak


@pytest.mark.parametrize("turned", [False, True], ids=["row", "column"])
def test_a_strip_stretched_to_a_square_is_read(
    recognizer: TileRecognizer, fixture_labels: Callable[[str], Any], turned: bool
) -> None:
    """The hand row cut to a 70 px strip and resized 8× taller (tiles 30×336 px, as in photos
    that an upload tool squared): the plain pass finds nothing, the squashed view reads it."""
    top, bottom, stretch = 25, 95, 8
    strip = load_image(FIXTURES / "hand_row.jpg").crop((0, top, 700, bottom))
    img = strip.resize((700, (bottom - top) * stretch))
    gt = [
        Box(x1, (y1 - top) * stretch, x2, (y2 - top) * stretch, cls=class_of_label(label))
        for x1, y1, x2, y2, label in fixture_labels("hand_row")
    ]
    if turned:  # a quarter turn to the left: (x, y) → (y, width − x)
        img = img.transpose(Image.Transpose.ROTATE_90)
        gt = [Box(b.y1, 700 - b.x2, b.y2, 700 - b.x1, cls=b.cls) for b in gt]

    def read(unstretch: bool) -> Any:
        dets = recognizer.detect(img, unstretch=unstretch)
        return evaluate([(gt, [(d.x1, d.y1, d.x2, d.y2, d.cls, d.conf) for d in dets])], conf=0.0)

    assert read(unstretch=False).detection_recall < 0.5
    result = read(unstretch=True)
    assert result.detection_recall >= MIN_FIXTURE_RECALL, result
    assert result.tile_accuracy >= MIN_FIXTURE_ACCURACY, result


@pytest.mark.slow
def test_ordinary_photos_are_not_unstretched(recognizer: TileRecognizer) -> None:
    """The squashed views only replace the plain one when they find far more: on the fixtures
    (ordinary photos) the result is the same with and without them."""
    for name in ("hand_row", "turned_row", "mixed"):
        img = load_image(FIXTURES / f"{name}.jpg")
        assert recognizer.detect(img) == recognizer.detect(img, unstretch=False), name


def test_only_unsure_crops_get_a_second_opinion_from_other_quarter_turns(
    recognizer: TileRecognizer, fixture_labels: Callable[[str], Any]
) -> None:
    one_turn = TileRecognizer(turns=1)
    img = load_image(FIXTURES / "hand_row.jpg")
    crops = [tile_crop(img, r[:4], one_turn.crop) for r in fixture_labels("hand_row")]
    crops.append(Image.new("RGB", (one_turn.crop, one_turn.crop), (128, 128, 128)))  # no tile
    plain, turned = one_turn.classify_crops(crops), recognizer.classify_crops(crops)
    sure = plain.max(1) >= SURE
    assert sure.any() and not sure.all()
    assert np.array_equal(turned[sure], plain[sure])
    for i in np.flatnonzero(~sure):
        quarter = [crops[i].rotate(90 * k) for k in range(4)]
        expected = one_turn.classify_crops(quarter).mean(0)
        assert np.allclose(turned[i], expected, atol=1e-5)


def test_a_sure_tile_with_an_unsure_name_is_kept_and_flagged(
    recognizer: TileRecognizer,
    monkeypatch: pytest.MonkeyPatch,
    fixture_labels: Callable[[str], Any],
) -> None:
    """Dropping a tile the detector is sure of is as wrong as misnaming it: a name at 30 %
    keeps the tile (conf = detector score × √0.3), at a lower confidence than a sure name."""
    img = load_image(FIXTURES / "hand_row.jpg")
    sure = recognizer.detect(img)
    real = recognizer.classify_crops

    def unsure(crops: Any) -> np.ndarray:
        probs = real(crops)
        top = probs.argmax(1)
        flat = np.full_like(probs, 0.7 / (probs.shape[1] - 1))
        flat[np.arange(len(top)), top] = 0.3
        return flat

    monkeypatch.setattr(recognizer, "classify_crops", unsure)
    doubtful = recognizer.detect(img)
    assert len(doubtful) >= len(fixture_labels("hand_row")) * MIN_FIXTURE_RECALL
    by_place = sorted(doubtful, key=lambda d: d.x1), sorted(sure, key=lambda d: d.x1)
    assert [d.cls for d in by_place[0]] == [d.cls for d in by_place[1]]
    assert all(d.conf < s.conf for d, s in zip(*by_place, strict=True))


def test_squashed_views_are_skipped_when_they_cannot_win(
    recognizer: TileRecognizer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A photo whose plain view already found many tiles costs one detector pass, not three."""
    img = load_image(FIXTURES / "hand_row.jpg")
    strip = img.crop((0, 25, 700, 95)).resize((700, 560))
    runs: list[int] = []
    real = recognizer.detector.run

    def counted(batch: np.ndarray) -> np.ndarray:
        runs.append(len(batch))
        return real(batch)

    monkeypatch.setattr(recognizer.detector, "run", counted)
    recognizer.detect(img)
    assert len(runs) == 1
    runs.clear()
    recognizer.detect(strip)
    assert len(runs) == 3
