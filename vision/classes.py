"""The recognizer's 43 classes and the maps from public data sets to them.

Class ``i`` < 42 is the referee's tile index ``i`` (so ``referee.tiles`` reads it directly);
42 is a tile seen from the back. The CLI spells flowers ``f1``–``f8`` and a back ``back``.
"""

from __future__ import annotations

from referee.tiles import FIRST_FLOWER, NUM_FLOWERS, Tile, tile_name

BACK = FIRST_FLOWER + NUM_FLOWERS  # 42
NUM_CLASSES = BACK + 1  # 43


def class_label(cls: int) -> str:
    """The CLI's name of a class: ``5m``, ``E``, ``f3``, ``back``."""
    if cls == BACK:
        return "back"
    if FIRST_FLOWER <= cls < BACK:
        return f"f{cls - FIRST_FLOWER + 1}"
    return tile_name(cls)


LABELS: tuple[str, ...] = tuple(class_label(c) for c in range(NUM_CLASSES))


def class_of_label(label: str) -> int:
    """Inverse of :func:`class_label`; raises ``KeyError`` for an unknown name."""
    return LABELS.index(label) if label in LABELS else _raise(label)


def _raise(label: str) -> int:
    raise KeyError(f"unknown tile label {label!r} (expected one of {', '.join(LABELS)})")


def tile_of_class(cls: int) -> Tile | None:
    """The referee tile index of a class, or ``None`` for a back."""
    return None if cls == BACK else cls


# "Chinese Mahjong Detection" v4 (Roboflow, CC BY 4.0): the 42 names in its class-id order.
CMD42_NAMES: tuple[str, ...] = (
    *("bs1", "sc1", "sd1", "sb1", "hwe", "bs2", "sc2", "sd2", "sb2", "hws", "bs3", "sc3", "sd3"),
    *("sb3", "hww", "bs4", "sc4", "sd4", "sb4", "hwn", "bf1", "sc5", "sd5", "sb5", "hdw", "bf2"),
    *("sc6", "sd6", "sb6", "hdg", "bf3", "sc7", "sd7", "sb7", "hdr", "bf4", "sc8", "sd8", "sb8"),
    *("sc9", "sd9", "sb9"),
)

_SUIT_OFFSET = {"sc": 0, "sd": 9, "sb": 18}
_HONOUR = {"hwe": 27, "hws": 28, "hww": 29, "hwn": 30, "hdw": 31, "hdg": 32, "hdr": 33}


def cmd42_to_class(name: str) -> int:
    """A cmd42 name to our class: seasons 1–4 → f1–f4; plum, orchid, bamboo, chrysanthemum
    (bf1–bf4) → f5–f8, the referee's 梅蘭竹菊 order."""
    if name[:2] in _SUIT_OFFSET:
        return _SUIT_OFFSET[name[:2]] + int(name[2]) - 1
    if name in _HONOUR:
        return _HONOUR[name]
    if name.startswith("bs"):
        return FIRST_FLOWER + int(name[2]) - 1
    if name.startswith("bf"):
        return FIRST_FLOWER + 4 + int(name[2]) - 1
    raise KeyError(f"unknown cmd42 class name {name!r}")


# Name sets a labelled folder can be read with (``mjref tiles eval --names``): id → our class.
NAME_SETS: dict[str, tuple[int, ...]] = {
    "cmd42": tuple(cmd42_to_class(n) for n in CMD42_NAMES),
    "ours": tuple(range(NUM_CLASSES)),
}
