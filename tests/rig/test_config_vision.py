"""`[vision] profile = …`: a venue profile for the tile models, checked when the config loads."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from rig.config import ConfigError, load
from vision.classes import NUM_CLASSES
from vision.detect import CLASSIFIER_FILE, DETECTOR_FILE, MODELS_DIR
from vision.profile import VenueProfile, model_hash


def _profile(folder: Path) -> None:
    zeros = np.zeros((NUM_CLASSES, 4))
    models = {n: model_hash(MODELS_DIR / n) for n in (DETECTOR_FILE, CLASSIFIER_FILE)}
    bias = np.zeros(NUM_CLASSES)
    VenueProfile(
        "venue", zeros, bias, zeros, np.zeros(NUM_CLASSES, bool), 10.0, 1.0, zeros, 0.06,
        None, 0.4, models,
    ).save(folder)  # fmt: skip


def test_a_profile_is_found_beside_the_config(tmp_path: Path) -> None:
    _profile(tmp_path / "venue")
    cfg = tmp_path / "t.toml"
    cfg.write_text('[vision]\nprofile = "venue"\n', encoding="utf-8")
    assert load(cfg).vision.profile == tmp_path / "venue"
    assert load(None).vision.profile is None  # the shipped models alone


def test_a_missing_or_foreign_profile_is_a_config_problem(tmp_path: Path) -> None:
    cfg = tmp_path / "t.toml"
    cfg.write_text('[vision]\nprofile = "nowhere"\n', encoding="utf-8")
    with pytest.raises(ConfigError) as exc:
        load(cfg)
    assert len(exc.value.problems) == 1 and "vision.profile" in exc.value.problems[0]
    assert "not a venue profile" in exc.value.problems[0]
    _profile(tmp_path / "old")
    meta = json.loads((tmp_path / "old" / "profile.json").read_text())
    meta["models"][DETECTOR_FILE] = "feedfacefeedface"
    (tmp_path / "old" / "profile.json").write_text(json.dumps(meta))
    cfg.write_text('[vision]\nprofile = "old"\n', encoding="utf-8")
    with pytest.raises(ConfigError) as exc:
        load(cfg)
    (line,) = exc.value.problems
    assert "feedfacefeedface" in line and model_hash(MODELS_DIR / DETECTOR_FILE) in line
