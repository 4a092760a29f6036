"""Evidence strings of the recording contract: parse, format, refuse malformed ones clearly."""

from __future__ import annotations

import pytest

from referee.evidence import ClipRef, audio, clips_in, is_clip, parse_clip, still, video


def test_the_three_forms_round_trip() -> None:
    for text in ("audio:812.40-815.90", "audio:812.40-815.90@E", "video:0.00-10.00", "still:3.25"):
        assert parse_clip(text).format() == text


def test_parse_gives_kind_range_and_seat() -> None:
    assert parse_clip("audio:812.4-815.9@W") == ClipRef("audio", 812.4, 815.9, "W")
    assert parse_clip("video:1-2") == ClipRef("video", 1.0, 2.0)
    ref = parse_clip("still:7.5")
    assert (ref.kind, ref.start, ref.end, ref.ts) == ("still", 7.5, 7.5, 7.5)


def test_builders_round_to_two_decimals() -> None:
    assert audio(812.404, 815.896, "N") == "audio:812.40-815.90@N"
    assert video(1.0, 11.0) == "video:1.00-11.00"
    assert still(2.0049) == "still:2.00"


@pytest.mark.parametrize(
    "text",
    [
        "audio:5-3",  # end before start
        "audio:5-5",  # empty
        "video:1-2@E",  # a seat on video
        "audio:1-2@X",  # not a seat
        "still:1-2",  # a still is one instant
        "audio:-1-2",
        "audio:abc",
        "video:",
        "still:",
        "clip:1-2",
    ],
)
def test_malformed_strings_raise_naming_the_form(text: str) -> None:
    with pytest.raises(ValueError, match="expected"):
        parse_clip(text)


def test_clips_in_skips_other_evidence_forms() -> None:
    evidence = ("frame:1234", "line:3", 17, "audio:1.00-2.00@S", "still:4.00")
    assert [c.format() for c in clips_in(evidence)] == ["audio:1.00-2.00@S", "still:4.00"]
    assert not is_clip("frame:1") and not is_clip(3) and is_clip("video:x")
    with pytest.raises(ValueError, match="video:x"):
        clips_in(["video:x"])


def test_non_finite_times_are_refused() -> None:
    with pytest.raises(ValueError, match="finite"):
        audio(float("nan"), 1.0)
    with pytest.raises(ValueError, match="seconds"):
        ClipRef("video", 0.0, float("inf"))
