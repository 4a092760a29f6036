from __future__ import annotations

import pytest

from referee.tiles import parse_tile
from vision.classes import (
    BACK,
    CMD42_NAMES,
    LABELS,
    NAME_SETS,
    NUM_CLASSES,
    class_label,
    class_of_label,
    cmd42_to_class,
)


def test_43_classes_in_cli_spelling() -> None:
    assert NUM_CLASSES == 43 == len(set(LABELS))
    assert LABELS[:9] == tuple(f"{n}m" for n in range(1, 10))
    assert LABELS[27:34] == ("E", "S", "W", "N", "P", "F", "C")
    assert LABELS[34:] == (*(f"f{n}" for n in range(1, 9)), "back")
    assert class_label(BACK) == "back"


@pytest.mark.parametrize(
    ("name", "label"),
    [
        ("sc5", "5m"), ("sd1", "1p"), ("sb9", "9s"), ("hwe", "E"), ("hwn", "N"),
        ("hdw", "P"), ("hdg", "F"), ("hdr", "C"), ("bs1", "f1"), ("bs4", "f4"),
        ("bf1", "f5"), ("bf2", "f6"), ("bf3", "f7"), ("bf4", "f8"),
    ],
)  # fmt: skip
def test_cmd42_map(name: str, label: str) -> None:
    assert class_label(cmd42_to_class(name)) == label


def test_cmd42_ids_cover_42_distinct_classes() -> None:
    assert len(CMD42_NAMES) == 42
    assert sorted(NAME_SETS["cmd42"]) == list(range(42))


def test_labels_round_trip_and_match_referee() -> None:
    for cls, label in enumerate(LABELS):
        assert class_of_label(label) == cls
        if cls < 34:
            assert parse_tile(label) == cls
    with pytest.raises(KeyError, match="unknown tile label"):
        class_of_label("10m")
