"""The winning-hand model handed to the scorers, with validation that names what is wrong.

A hand is what lies on the table when a win is declared (WMC-7.5): the concealed tiles, the
melds (exposed sets and declared concealed kongs) and the winning tile, plus the facts a photo
cannot show (self-drawn or discard, seat, prevalent wind, flowers, situational flags).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import IntEnum, StrEnum
from typing import Any

from referee.tiles import (
    NUM_FLOWERS,
    NotationError,
    Tile,
    format_tiles,
    is_flower,
    is_suited,
    parse_tile,
    parse_tiles,
    tile_name,
)


class HandError(ValueError):
    """A hand that cannot exist or cannot be a win; the message says what and what is expected."""


class Wind(IntEnum):
    """Seat or prevalent wind; also the seat index counter-clockwise from East (WMC-2.4)."""

    E = 0
    S = 1
    W = 2
    N = 3

    @classmethod
    def parse(cls, text: str) -> Wind:
        try:
            return cls[text.strip().upper()]
        except KeyError:
            raise HandError(f"wind {text!r} is not one of E, S, W, N") from None


class Relative(IntEnum):
    """Where a claimed tile came from, seen from the claimer (MCR offer numbering)."""

    LEFT = 1  # 上家, the previous player
    OPPOSITE = 2
    RIGHT = 3  # 下家, the next player


class MeldKind(StrEnum):
    CHOW = "chow"
    PUNG = "pung"
    KONG = "kong"


class WinBy(StrEnum):
    DISCARD = "discard"
    SELF = "self"


class Flag(StrEnum):
    """Situational facts about a win (SCORING 9.x; MCR last tile)."""

    FINAL_DRAW = "final_draw"  # self-drawn seabed tile (9.1.1, WMC-6.1)
    FINAL_DISCARD = "final_discard"  # riverbed discard (9.1.2, WMC-6.2)
    WIN_ON_KONG = "win_on_kong"  # kong replacement tile (9.2)
    ROBBING_KONG = "robbing_kong"  # tile added to an exposed pung (9.3, WMC-5.6)
    HEAVEN = "heaven"  # East on the dealt 14 tiles (9.4.1)
    EARTH = "earth"  # non-East on East's first discard (9.4.2)
    LAST_OF_KIND = "last_of_kind"  # MCR 和绝张: the fourth copy, three already visible
    # WMC-7.7: a self-drawn Nine Gates counts only if the drawn tile was kept apart.
    DRAWN_TILE_NOT_APART = "drawn_tile_not_apart"


@dataclass(frozen=True, slots=True)
class Meld:
    """A set laid on the table. ``concealed`` is only for a declared concealed kong (暗槓)."""

    kind: MeldKind
    tiles: tuple[Tile, ...]
    concealed: bool = False
    claimed_from: Relative | None = None
    claimed_tile: Tile | None = None

    def __post_init__(self) -> None:
        tiles = tuple(sorted(self.tiles))
        object.__setattr__(self, "tiles", tiles)
        shown = format_tiles(tiles)
        if any(is_flower(t) for t in tiles):
            raise HandError(f"{self.kind} {shown}: flowers cannot be in a set")
        if self.kind is MeldKind.CHOW:
            if len(tiles) != 3:
                raise HandError(f"chow {shown}: a chow has 3 tiles, found {len(tiles)}")
            a, b, c = tiles
            if not (is_suited(a) and a // 9 == c // 9 and b == a + 1 and c == a + 2):
                raise HandError(
                    f"chow {shown}: expected three consecutive numbers of one suit (e.g. 345p)"
                )
        else:
            need = 3 if self.kind is MeldKind.PUNG else 4
            if len(tiles) != need or len(set(tiles)) != 1:
                raise HandError(
                    f"{self.kind} {shown}: expected {need} identical tiles, found {len(tiles)} "
                    f"tile(s) of {len(set(tiles))} kind(s)"
                )
        if self.concealed and self.kind is not MeldKind.KONG:
            raise HandError(
                f"{self.kind} {shown}: only a kong can be a declared concealed meld "
                "(a concealed pung or chow stays in the concealed tiles)"
            )
        if self.claimed_tile is not None and self.claimed_tile not in tiles:
            raise HandError(
                f"{self.kind} {shown}: claimed tile {tile_name(self.claimed_tile)} is not in it"
            )

    @classmethod
    def parse(cls, text: str, *, concealed: bool = False) -> Meld:
        """A set from its tiles alone: ``123m`` chow, ``CCC`` pung, ``5555p`` kong."""
        try:
            tiles = tuple(parse_tiles(text))
        except NotationError as exc:
            raise HandError(f"meld {text!r}: {exc}") from None
        if len(tiles) == 4:
            kind = MeldKind.KONG
        elif len(set(tiles)) == 1:
            kind = MeldKind.PUNG
        else:
            kind = MeldKind.CHOW
        return cls(kind, tiles, concealed=concealed)

    @property
    def first(self) -> Tile:
        return self.tiles[0]

    @property
    def is_triplet(self) -> bool:
        return self.kind is not MeldKind.CHOW

    def __str__(self) -> str:
        hidden = " concealed" if self.concealed else ""
        return f"{self.kind}{hidden} {format_tiles(self.tiles)}"


@dataclass(frozen=True, slots=True)
class WinningHand:
    """A declared win. ``concealed`` excludes the winning tile; a kong counts as 3 tiles."""

    concealed: tuple[Tile, ...]
    win_tile: Tile
    win_by: WinBy
    melds: tuple[Meld, ...] = ()
    seat: Wind = Wind.E
    prevalent: Wind = Wind.E  # MCR only; WMC has no prevailing wind (WMC-2.4)
    flowers: int = 0  # MCR only
    flags: frozenset[Flag] = field(default_factory=frozenset)

    def __post_init__(self) -> None:
        object.__setattr__(self, "concealed", tuple(sorted(self.concealed)))
        self._check()

    @property
    def self_drawn(self) -> bool:
        return self.win_by is WinBy.SELF

    @property
    def all_tiles(self) -> list[Tile]:
        """Every playing tile of the hand, the winning tile included."""
        tiles = [*self.concealed, self.win_tile]
        for meld in self.melds:
            tiles.extend(meld.tiles)
        return tiles

    @property
    def concealed_with_win(self) -> tuple[Tile, ...]:
        return tuple(sorted((*self.concealed, self.win_tile)))

    @property
    def is_closed(self) -> bool:
        """No set claimed from a discard (concealed kongs allowed) — SCORING 1.2."""
        return all(m.concealed for m in self.melds)

    def _check(self) -> None:
        for tile in (*self.concealed, self.win_tile):
            if is_flower(tile):
                raise HandError(
                    f"flower {tile_name(tile)} among the playing tiles: "
                    "flowers are set aside and counted in 'flowers'"
                )
        size = len(self.concealed) + 3 * len(self.melds)
        if size != 13:
            raise HandError(
                f"wrong tile count: {len(self.concealed)} concealed + {len(self.melds)} meld(s) "
                f"× 3 = {size}; a winning hand has 13 before the winning tile (a kong counts 3)"
            )
        if len(self.melds) > 4:
            raise HandError(f"{len(self.melds)} melds: a hand has at most 4 sets")
        for tile, n in Counter(self.all_tiles).items():
            if n > 4:
                raise HandError(
                    f"{n} copies of {tile_name(tile)}: there are only 4 of each tile "
                    "(counting concealed tiles, melds and the winning tile)"
                )
        if not 0 <= self.flowers <= NUM_FLOWERS:
            raise HandError(f"flowers = {self.flowers}: expected 0–{NUM_FLOWERS}")
        self._check_flags()

    def _check_flags(self) -> None:
        flags = self.flags
        need_self = {Flag.FINAL_DRAW, Flag.WIN_ON_KONG, Flag.HEAVEN}
        need_discard = {Flag.FINAL_DISCARD, Flag.ROBBING_KONG, Flag.EARTH}
        for flag in sorted(flags & need_self):
            if not self.self_drawn:
                raise HandError(f"flag {flag} needs a self-drawn win (win_by 'self')")
        for flag in sorted(flags & need_discard):
            if self.self_drawn:
                raise HandError(f"flag {flag} needs a win on a discard (win_by 'discard')")
        if Flag.WIN_ON_KONG in flags and not any(m.kind is MeldKind.KONG for m in self.melds):
            raise HandError("flag win_on_kong needs a kong among the melds")
        if Flag.HEAVEN in flags and (self.seat is not Wind.E or not self.is_closed):
            raise HandError("flag heaven: only East wins on the dealt tiles, with nothing claimed")
        if Flag.EARTH in flags and (self.seat is Wind.E or self.melds):
            raise HandError("flag earth: a non-East player with the 13 dealt tiles, no melds")
        if Flag.ROBBING_KONG in flags and Flag.FINAL_DISCARD in flags:
            raise HandError("flags robbing_kong and final_discard exclude each other")

    # ---- the JSON case schema of shared/testdata (also `mjref score --json` input) ----

    @classmethod
    def from_case(cls, case: Mapping[str, Any]) -> WinningHand:
        """Build a hand from a testdata-style dict; any problem is a HandError saying where."""
        try:
            melds = tuple(_meld_from_case(i, m) for i, m in enumerate(_field_list(case, "melds")))
            concealed = _field_tiles(case, "concealed")
            win = _field_tile(case, "win")
            win_by_text = case.get("win_by")
            try:
                win_by = WinBy(str(win_by_text))
            except ValueError:
                raise HandError(f"win_by = {win_by_text!r}: expected 'discard' or 'self'") from None
            seat = Wind.parse(str(case.get("seat", "E")))
            prevalent = Wind.parse(str(case.get("prevalent", "E")))
            flags = frozenset(_flag(f) for f in _field_list(case, "flags"))
            flowers = _flowers(case.get("flowers", 0))
        except NotationError as exc:
            raise HandError(str(exc)) from None
        return cls(
            concealed=tuple(concealed),
            win_tile=win,
            win_by=win_by,
            melds=melds,
            seat=seat,
            prevalent=prevalent,
            flowers=flowers,
            flags=flags,
        )

    def to_case(self) -> dict[str, Any]:
        case: dict[str, Any] = {
            "melds": [
                {"type": str(m.kind), "tiles": format_tiles(m.tiles), "concealed": m.concealed}
                for m in self.melds
            ],
            "concealed": format_tiles(self.concealed),
            "win": tile_name(self.win_tile),
            "win_by": str(self.win_by),
            "seat": self.seat.name,
        }
        if self.flags:
            case["flags"] = sorted(str(f) for f in self.flags)
        if self.prevalent is not Wind.E:
            case["prevalent"] = self.prevalent.name
        if self.flowers:
            case["flowers"] = self.flowers
        return case


def _field_list(case: Mapping[str, Any], key: str) -> list[Any]:
    """An optional list field (absent or null: empty)."""
    value = case.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise HandError(f"'{key}' must be a list, got {value!r}")
    return value


def _field_tiles(case: Mapping[str, Any], key: str) -> list[Tile]:
    value = case.get(key)
    if not isinstance(value, str):
        raise HandError(f"'{key}' must be a tile string such as '234m55p', got {value!r}")
    try:
        return parse_tiles(value)
    except NotationError as exc:
        raise HandError(f"'{key}': {exc}") from None


def _field_tile(case: Mapping[str, Any], key: str) -> Tile:
    value = case.get(key)
    if not isinstance(value, str):
        raise HandError(f"'{key}' must be one tile such as '5s' or 'C', got {value!r}")
    try:
        return parse_tile(value)
    except NotationError as exc:
        raise HandError(f"'{key}': {exc}") from None


def _meld_from_case(index: int, meld: Any) -> Meld:
    where = f"melds[{index}]"
    if not isinstance(meld, Mapping):
        raise HandError(f"{where} must be an object with 'type' and 'tiles', got {meld!r}")
    kind_text = meld.get("type")
    try:
        kind = MeldKind(str(kind_text))
    except ValueError:
        raise HandError(f"{where}.type = {kind_text!r}: expected chow, pung or kong") from None
    tiles = _field_tiles(meld, "tiles")
    claimed_from = meld.get("from")
    try:
        relative = Relative[str(claimed_from).upper()] if claimed_from is not None else None
    except KeyError:
        raise HandError(
            f"{where}.from = {claimed_from!r}: expected left, opposite or right"
        ) from None
    claimed = _field_tile(meld, "claimed") if meld.get("claimed") is not None else None
    try:
        return Meld(
            kind=kind,
            tiles=tuple(tiles),
            concealed=bool(meld.get("concealed", False)),
            claimed_from=relative,
            claimed_tile=claimed,
        )
    except HandError as exc:
        raise HandError(f"{where}: {exc}") from None


def _flag(text: Any) -> Flag:
    try:
        return Flag(text)
    except ValueError:
        known = ", ".join(f.value for f in Flag)
        raise HandError(f"unknown flag {text!r}: expected one of {known}") from None


def _flowers(value: Any) -> int:
    """A count 0–8, or the flower tiles themselves (``"13f"``)."""
    if isinstance(value, bool):
        raise HandError(f"flowers = {value!r}: expected a count 0–8 or tiles like '13f'")
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        tiles = parse_tiles(value)
        if not all(is_flower(t) for t in tiles) or len(set(tiles)) != len(tiles):
            raise HandError(f"flowers = {value!r}: expected distinct flower tiles 1f–8f")
        return len(tiles)
    raise HandError(f"flowers = {value!r}: expected a count 0–8 or tiles like '13f'")
