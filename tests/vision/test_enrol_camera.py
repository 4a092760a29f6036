"""A venue's enrolment from its own table camera: the plan a referee lays out, clips of it
filmed by the camera through `mjref vision enrol`, and the profile then naming faces of another
clip (another light and another print of the faces) better than the shipped classifier."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np
import pytest

from rig.cli import main as mjref
from vision.camera import TableReader
from vision.detect import TileRecognizer
from vision.enrol_camera import MISSING, ROUNDS, SLOTS, plan, round_crops
from vision.profile import VenueProfile
from vision.synth.video import RenderSpec, plan_frames

VENUE = RenderSpec(1920, 1080, 5, "text", "venue", 0, look="venue")  # the bench's venue domain


def _write(frames: Iterator[tuple[float, np.ndarray]], out: Path) -> Path:
    writer = cv2.VideoWriter(str(out), cv2.VideoWriter.fourcc(*"mp4v"), 5.0, (1920, 1080))
    for _, frame in frames:
        writer.write(cv2.cvtColor(frame, cv2.COLOR_RGB2BGR))
    writer.release()
    return out


def test_each_round_of_the_plan_lays_every_kind_and_moves_each_face() -> None:
    rounds = [plan(r) for r in range(ROUNDS)]
    for laid in rounds:  # a whole set: 4 of each kind, the 8 flowers face down
        assert set(laid) == set(SLOTS) and len(SLOTS) == 144
        counts = Counter(label for label, _ in laid.values())
        assert counts.pop("back") == 8 and len(counts) == 34 and set(counts.values()) == {4}
        assert sorted(k for k, (_, sideways) in laid.items() if sideways) == [
            f"{seat}/meld/5" for seat in "ENSW"
        ]
    for key in SLOTS:  # a slot holds another face each round
        if "back" not in rounds[0][key][0]:
            assert len({laid[key] for laid in rounds}) == ROUNDS


@pytest.mark.slow
def test_a_profile_enrolled_from_camera_clips_names_another_clips_faces_better(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], recognizer: TileRecognizer
) -> None:
    clips = [
        _write(plan_frames(VENUE, plan(r), 1.0), tmp_path / f"round{r + 1}.mp4") for r in (0, 1)
    ]
    out = tmp_path / "profile"
    assert mjref(["vision", "enrol", *map(str, clips), "--out", str(out), "--name", "V"]) == 0
    said = capsys.readouterr().out
    assert "crops of the set from 2 rounds" in said and "active: yes" in said
    profile = VenueProfile.load(out)
    assert profile.info["source"] == "camera" and profile.info["rounds"] == 2
    assert profile.info["held_out_accuracy"] > profile.info["held_out_shipped_accuracy"]

    # round 3, another seed: another light angle, noise, and print of the faces
    other = RenderSpec(1920, 1080, 5, "text", "venue", 77, look="venue")
    got = round_crops(TableReader(recognizer), plan_frames(other, plan(2), 0.4), 2, "round 3")
    truth = np.array(got.labels)
    assert len(truth) >= len(SLOTS) - MISSING
    shipped = (recognizer.classify_crops(got.crops).argmax(1) == truth).mean()
    venue = (TileRecognizer(profile=out).classify_crops(got.crops).argmax(1) == truth).mean()
    print(f"faces of another clip named right: shipped {shipped:.3f}, profile {venue:.3f}")
    assert venue >= shipped + 0.08 and venue >= 0.9


def test_clips_that_do_not_show_the_plan_are_refused_naming_what_to_do(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert mjref(["vision", "enrol", "--plan"]) == 0
    printed = capsys.readouterr().out
    assert printed.count("round ") == ROUNDS and "E's river" in printed
    assert printed.splitlines()[2].endswith("left: 1s 2s(sideways) 3s 4s back back")

    half = dict(list(plan(0).items())[:72])  # half the tiles laid
    clip = _write(plan_frames(VENUE, half, 0.4), tmp_path / "half.mp4")
    out = tmp_path / "profile"
    assert mjref(["vision", "enrol", str(clip), str(clip), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "half.mp4: 72 of the plan's 144 slots show no tile" in err and "lay round 1" in err
    assert not out.exists()

    assert mjref(["vision", "enrol", str(clip), "--out", str(out)]) == 2
    assert "1 clip(s); expected 2 to 4 clips" in capsys.readouterr().err

    blank = np.full((1080, 1920, 3), 90, np.uint8)  # no table markers in sight
    dark = _write(iter([(0.0, blank), (0.2, blank)]), tmp_path / "dark.mp4")
    assert mjref(["vision", "enrol", str(dark), str(clip), "--out", str(out)]) == 2
    assert "dark.mp4: the table's markers were not found" in capsys.readouterr().err
