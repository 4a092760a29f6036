"""A camera profile's own classifier (the shipped one fine-tuned on the camera's crops,
vision/enrol_tune.py): saved with its hash, loaded and read through its own last layer with every
crop the venue's, a damaged file refused; without torch, enrolment says what it skipped; with
torch, the fine-tuned network names a dim camera's faces better than the refitted layer."""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from vision.camera import TableReader
from vision.detect import CLASSIFIER_FILE, DETECTOR_FILE, MODELS_DIR, TileRecognizer, crop_array
from vision.embedding import HEAD_BIAS, HEAD_WEIGHT
from vision.enrol_camera import RoundCrops, enrol_camera, plan, round_crops
from vision.onnx_model import ModelError
from vision.profile import CLASSIFIER_ONNX, ProfileError, VenueProfile, model_hash, unit
from vision.synth.video import RenderSpec, plan_frames

TORCH = importlib.util.find_spec("torch") is not None


def _cellar(seed: int) -> RenderSpec:
    """The bench's cellar: dim, warm, soft, small faces (bench/table_vision.py)."""
    return RenderSpec(1920, 1080, 5, "text", "cellar", seed, look="cellar")


def _round(recognizer: TileRecognizer, r: int, seed: int) -> RoundCrops:
    frames = plan_frames(_cellar(seed), plan(r), 1.0)
    return round_crops(TableReader(recognizer), frames, r, f"round {r + 1}")


@pytest.fixture(scope="module")
def rounds(recognizer: TileRecognizer) -> list[RoundCrops]:
    return [_round(recognizer, r, 0) for r in range(2)]


def _copy_as_own(recognizer: TileRecognizer, folder: Path, crops: np.ndarray) -> Path:
    """A profile whose own classifier is a copy of the shipped one, read with its own layer."""
    assert recognizer.classifier is not None
    own = folder / "tuned.onnx"
    shutil.copyfile(recognizer.classifier.path, own)
    w, b = recognizer.classifier.run_named(crops[:1], [HEAD_WEIGHT, HEAD_BIAS])
    emb = recognizer.embed(crops)
    profile = VenueProfile(
        "copy",
        w,
        b,
        np.zeros_like(w),
        np.zeros(len(b), bool),
        0.0,
        1.0,
        unit(emb),
        -2.0,
        None,
        0.4,
        {
            DETECTOR_FILE: model_hash(recognizer.detector.path),
            CLASSIFIER_FILE: model_hash(recognizer.classifier.path),
        },
        classifier=own,
    )
    profile.save(folder / "profile")
    return folder / "profile"


def test_a_profile_with_its_own_classifier_reads_every_crop_with_it(
    recognizer: TileRecognizer, rounds: list[RoundCrops], tmp_path: Path
) -> None:
    crops = crop_array(rounds[0].crops[::7])
    folder = _copy_as_own(recognizer, tmp_path, crops)
    meta = json.loads((folder / "profile.json").read_text())
    assert meta["classifier"]["file"] == CLASSIFIER_ONNX and meta["detector"] is None
    read = TileRecognizer(profile=folder)
    assert read.classifier is not None and read.classifier.path == folder / CLASSIFIER_ONNX
    assert read.detector.path == MODELS_DIR / DETECTOR_FILE
    profile = read.profile
    assert profile is not None and len(profile.known) == 0  # no gate on its own features
    far = read.embed(crop_array(rounds[1].crops[::5]))
    assert profile.inside(far).all()  # another round's faces: every crop is the venue's
    got = read.classify_crops(rounds[1].crops[::5])
    shipped = recognizer.classify_crops(rounds[1].crops[::5])
    assert (got.argmax(1) == shipped.argmax(1)).mean() >= 0.97  # its own layer, its own features
    # as near as the two heads' rounding, upright: a crop at SURE (shipped 0.898, own 0.901)
    # is averaged over its quarter turns by one of them only
    got = TileRecognizer(profile=folder, turns=1).classify_crops(rounds[1].crops[::5])
    shipped = TileRecognizer(turns=1).classify_crops(rounds[1].crops[::5])
    assert np.abs(got - shipped).max() < 0.05


def test_a_damaged_own_classifier_is_refused_naming_it(
    recognizer: TileRecognizer, rounds: list[RoundCrops], tmp_path: Path
) -> None:
    folder = _copy_as_own(recognizer, tmp_path, crop_array(rounds[0].crops[:4]))
    own = folder / CLASSIFIER_ONNX
    own.write_bytes(own.read_bytes()[:4000])
    with pytest.raises(ProfileError, match="the classifier file was changed or damaged"):
        VenueProfile.load(folder)
    with pytest.raises(ModelError, match="changed or damaged"):
        TileRecognizer(profile=folder)
    own.unlink()
    with pytest.raises(ProfileError, match=r"names its own classifier 'classifier\.onnx'"):
        VenueProfile.load(folder)


@pytest.mark.skipif(TORCH, reason="torch installed: enrolment fine-tunes")
def test_without_torch_enrolment_says_the_classifier_was_not_fine_tuned_and_how_to(
    recognizer: TileRecognizer, rounds: list[RoundCrops]
) -> None:
    profile = enrol_camera(recognizer, rounds, "cellar")
    said = profile.info["fitted"]["classifier"]
    assert profile.classifier is None and said.startswith("shipped: torch")
    assert "./run train-setup" in said


@pytest.mark.slow
@pytest.mark.skipif(not TORCH, reason="fine-tuning needs torch (./run train-setup)")
def test_the_classifier_fine_tuned_on_the_camera_names_another_clip_better(
    recognizer: TileRecognizer, rounds: list[RoundCrops], tmp_path: Path
) -> None:
    refitted = enrol_camera(recognizer, rounds, "cellar", tune=False)
    tuned = enrol_camera(recognizer, rounds, "cellar", work=tmp_path)
    assert tuned.classifier is not None and tuned.classifier.parent == tmp_path
    fitted = tuned.info["fitted"]
    assert fitted["classifier"].startswith("fine-tuned on the camera's crops of 2 rounds")
    assert tuned.info["tuned_held_out_accuracy"] > 0.85  # trained on round 1, named round 2
    tuned.save(tmp_path / "profile")

    other = _round(recognizer, 2, 77)  # another light and print, faces elsewhere
    truth = np.array(other.labels)
    before = TileRecognizer(profile=refitted).classify_crops(other.crops).argmax(1)
    after = TileRecognizer(profile=tmp_path / "profile").classify_crops(other.crops).argmax(1)
    print(
        f"another clip's faces: refitted {(before == truth).mean():.3f}, "
        f"fine-tuned {(after == truth).mean():.3f}"
    )
    assert (after == truth).mean() > (before == truth).mean()
