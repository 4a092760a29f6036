"""The tile test's thresholds fitted between a clip's empty and laid slots (vision/slot_test.py)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.slot_test import SlotPixels, SlotTest, fit_slot_test


def _slots(chroma: float, bright: float, n: int, seed: int) -> list[SlotPixels]:
    rng = np.random.default_rng(seed)
    return [
        SlotPixels(np.abs(rng.normal(chroma, 0.004, (20, 14))), rng.normal(bright, 0.02, (20, 14)))
        for _ in range(n)
    ]


def test_faces_barely_above_a_light_felt_get_thresholds_between_the_two() -> None:
    felt, faces = _slots(0.0, 0.9, 100, 0), _slots(0.09, 1.35, 140, 1)
    test = fit_slot_test(felt, faces)
    assert 0.02 < test.chroma < 0.08 and 1.12 <= test.pale < 1.3 and test.frame < test.pale
    for laid in faces:  # every face now passes, and no felt
        assert test.tile(laid.chroma, laid.bright).mean() > 0.9
    for empty in felt:
        assert test.tile(empty.chroma, empty.bright).mean() < 0.01


def test_faces_that_stand_out_keep_the_defaults_and_nothing_is_looser() -> None:
    assert fit_slot_test(_slots(0.0, 1.0, 50, 2), _slots(0.3, 4.0, 50, 3)) == SlotTest()
    noisy = fit_slot_test(_slots(0.2, 1.5, 50, 4), _slots(0.3, 2.5, 50, 5))
    assert noisy == SlotTest()  # a felt as far off as the default is not followed past it
    with pytest.raises(ValueError, match="0 empty and 3 laid slots"):
        fit_slot_test([], _slots(0.3, 4.0, 3, 6))
