"""A photo profile's own classifier (vision/enrol_classifier.py), gated: saved and loaded with
the gate; the crops the shipped features gate in are read by its own file, the known styles by
the shipped one; a damaged own file is refused; without torch, enrolment says what it skipped;
with torch, the fine-tuned network reads an unseen, small and dim style better; the crops of
pasted scenes it trains on too."""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from tile_kit import jade_sheet_photo, skip_without_fonts

from vision.detect import CLASSIFIER_FILE, MODELS_DIR, TileRecognizer
from vision.enrol import Photo, crops_array, enrol, read_photos
from vision.enrol_classifier import choose_classifier, classifier_held_back, gated, tile_crops
from vision.enrol_detector import readings, rendered_photos
from vision.enrol_scenes import empty_table, named_crops
from vision.metrics import evaluate
from vision.onnx_model import ModelError
from vision.profile import CLASSIFIER_ONNX, ProfileError, VenueProfile, softmax
from vision.synth.scene import DIM_LOOK

TORCH = importlib.util.find_spec("torch") is not None

skip_without_fonts("jade")


def _accuracy(rec: TileRecognizer, photos: list[Photo]) -> float:
    return evaluate(readings(rec, photos), rec.min_conf).tile_accuracy


@pytest.fixture(scope="module")
def copied(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A gated profile of the jade sheet photos whose own classifier is a copy of the shipped
    one, saved."""
    rec = TileRecognizer()
    photos = [jade_sheet_photo(1), jade_sheet_photo(2)]
    reads = read_photos(rec, photos)
    folder = tmp_path_factory.mktemp("gated")
    own = folder / "tuned.onnx"
    shutil.copyfile(MODELS_DIR / CLASSIFIER_FILE, own)
    gated(rec, enrol(rec, photos, "jade", reads=reads), own, reads).save(folder / "profile")
    return folder / "profile"


def test_a_gated_profile_reads_its_venue_with_its_own_classifier_and_known_styles_as_shipped(
    copied: Path,
) -> None:
    meta = json.loads((copied / "profile.json").read_text())
    assert meta["classifier"] == {
        "file": CLASSIFIER_ONNX,
        "sha256": meta["classifier"]["sha256"],
        "gated": True,
    }
    rec, shipped = TileRecognizer(profile=copied), TileRecognizer()
    profile = rec.profile
    assert profile is not None and profile.gated and len(profile.known) > 0  # the gate is on
    assert rec.classifier is not None and rec.classifier.path == MODELS_DIR / CLASSIFIER_FILE
    assert rec.own is not None and rec.own.path == copied / CLASSIFIER_ONNX

    jade = jade_sheet_photo(3)
    x = crops_array(jade.image, [(b.x1, b.y1, b.x2, b.y2) for b in jade.boxes], rec.crop)
    probs, inside = rec._venue_read(x)
    assert inside.all()  # the venue's faces are gated in, taken together …
    emb = rec.own.run_named(np.ascontiguousarray(x[inside]), ["embedding"])[0]
    want = softmax(emb @ profile.weight.T + profile.bias)
    assert np.abs(probs[inside] - want).max() < 1e-5  # … and read by its own file's layer

    known = rendered_photos(range(8100, 8102), "text") + rendered_photos(range(8102, 8104), "glyph")
    for photo in known:  # the known styles: not one crop in, every crop read as shipped
        x = crops_array(photo.image, [(b.x1, b.y1, b.x2, b.y2) for b in photo.boxes], rec.crop)
        probs, inside = rec._venue_read(x)
        assert not inside.any()
        assert np.abs(probs - shipped.run_with_embedding(x)[0]).max() < 1e-6


def test_a_damaged_own_classifier_of_a_gated_profile_is_refused(
    copied: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "profile"
    shutil.copytree(copied, folder)
    own = folder / CLASSIFIER_ONNX
    own.write_bytes(own.read_bytes()[:4000])
    with pytest.raises(ModelError, match="classifier file was changed or damaged"):
        TileRecognizer(profile=folder)
    own.unlink()
    with pytest.raises(ProfileError, match=r"names its own classifier 'classifier\.onnx'"):
        VenueProfile.load(folder)


def test_the_tiles_are_cut_as_the_run_time_cuts_them_jittered_and_as_detected() -> None:
    photo, rec = jade_sheet_photo(1), TileRecognizer()
    x, y = tile_crops([photo], read_photos(rec, [photo]), 48)
    n = len(photo.boxes)
    assert x.dtype == np.uint8 and x.shape[1:] == (48, 48, 3)
    assert 3 * n + 0.9 * n <= len(x) <= 3 * n + 2 * n  # its box, two jittered, the detector's
    assert list(y[:n]) == [b.cls for b in photo.boxes]
    assert list(y[n : 3 * n : 2]) == list(y[:n])


def test_pasted_scenes_give_more_crops_of_the_venue_tiles_at_their_own_size() -> None:
    photo = jade_sheet_photo(1)
    x, y = named_crops([(photo.image, photo.boxes)], 2, seed=0, side=48)
    assert x.dtype == np.uint8 and x.shape == (len(y), 48, 48, 3) and len(y) >= 20
    assert set(y.tolist()) <= {b.cls for b in photo.boxes}  # only the classes it was shown
    # each crop is one tile filling it, as the run time's crop of a box: its middle is no felt
    middle = x[:, 16:32, 16:32].astype(np.float32)
    felt = np.asarray(empty_table(photo.image, photo.boxes), np.float32).reshape(-1, 3)
    assert np.mean(np.abs(middle.mean((1, 2)) - np.median(felt, 0)).sum(1) > 40) > 0.8
    again_x, again_y = named_crops([(photo.image, photo.boxes)], 2, seed=0, side=48)
    assert np.array_equal(again_x, x) and np.array_equal(again_y, y)


@pytest.mark.skipif(TORCH, reason="torch installed: enrolment fine-tunes")
def test_without_torch_photo_enrolment_says_the_classifier_was_not_fine_tuned_and_how_to(
    tmp_path: Path,
) -> None:
    rec = TileRecognizer()
    photos = [jade_sheet_photo(1), jade_sheet_photo(2)]
    reads = read_photos(rec, photos)
    refitted = enrol(rec, photos, "jade", reads=reads)
    profile = choose_classifier(rec, rec, photos, reads, refitted, tmp_path)
    said = profile.info["fitted"]["classifier"]
    assert profile.classifier is None and said.startswith("shipped: torch")
    assert "./run train-setup" in said


@pytest.mark.slow
@pytest.mark.skipif(not TORCH, reason="fine-tuning needs torch (./run train-setup)")
def test_the_classifier_fine_tuned_on_small_dim_photos_reads_others_better(tmp_path: Path) -> None:
    rec = TileRecognizer()
    pool = rendered_photos(range(4000, 4005), "jade", DIM_LOOK)
    test = rendered_photos(range(5000, 5004), "jade", DIM_LOOK)
    reads = read_photos(rec, pool)
    refitted = enrol(rec, pool, "dim", reads=reads)
    before = _accuracy(TileRecognizer(profile=refitted), test)
    tuned = choose_classifier(rec, rec, pool, reads, enrol(rec, pool, "dim", reads=reads), tmp_path)
    assert tuned.classifier is not None and tuned.gated, tuned.info["fitted"]["classifier"]
    assert tuned.classifier.parent == tmp_path
    tuned.save(tmp_path / "profile")
    after = _accuracy(TileRecognizer(profile=tmp_path / "profile"), test)
    print(f"small, dim jade: refitted {before:.3f}, fine-tuned {after:.3f}")
    assert after > before


def test_the_classifier_is_checked_on_two_photos_from_four() -> None:
    assert classifier_held_back(1) == [] and classifier_held_back(2) == [1]
    assert classifier_held_back(3) == [2] and classifier_held_back(4) == [2, 3]
    assert classifier_held_back(5) == [3, 4] and classifier_held_back(9) == [3, 4]
    assert classifier_held_back(10) == [4, 9]  # the detector's: two already
