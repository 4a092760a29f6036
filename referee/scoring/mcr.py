"""Profile ``mcr``: Mahjong Competition Rules (国标麻将) scored by pymahjonggb.

pymahjonggb (import ``MahjongGB``) wraps the C++ fan calculator of ChineseOfficialMahjongHelper;
this module converts a :class:`~referee.hands.WinningHand` into its call, maps its answer onto the
81-fan table of :mod:`referee.scoring.mcr_fans` (IDs ``MCR-<n>``) and adds what it leaves out.

Conversion
    Tiles: ``W1``–``W9`` characters (our 0–8), ``B1``–``B9`` dots (9–17), ``T1``–``T9`` bamboo
    (18–26), ``F1``–``F4`` = E S W N (27–30), ``J1`` red (33), ``J2`` green (32), ``J3`` white (31).
    Melds: ``("CHI", middle tile, k)`` with k = 1/2/3 the claimed tile's place in the chow
    (``claimed_tile``; 1 when unknown); ``("PENG"|"GANG", tile, from)`` with from =
    ``claimed_from`` (LEFT 1, OPPOSITE 2, RIGHT 3; 1 when unknown); ``("GANG", tile, 0)`` for a
    declared concealed kong. The engine only tells 0 from non-zero: offer 0 means "not melded", so
    a PENG or CHI is never sent with 0 (it would count as concealed: Concealed Hand, concealed
    pungs). Flags: ``is4thTile`` = LAST_OF_KIND; ``isAboutKong`` = WIN_ON_KONG (self-drawn →
    Out with Replacement Tile, 46) or ROBBING_KONG (discard → Robbing the Kong, 47); ``isWallLast``
    = FINAL_DRAW (self-drawn → Last Tile Draw, 44) or FINAL_DISCARD (discard → Last Tile Claim,
    45) — the engine picks the fan from ``isSelfDrawn``, and the hand model already ties each flag
    to its win type. HEAVEN, EARTH and DRAWN_TILE_NOT_APART are WMC facts with no MCR fan; they
    are ignored (with a note).

Rules the engine does not apply, applied here
    * The 8-fan minimum is counted WITHOUT flowers: the engine is called with ``flowerCount=0``,
      fewer than 8 → ``valid=False`` (the counted fans stay in the result); flowers are then
      appended as fan 81, one fan each, and the total includes them.
    * Engine errors become :class:`HandError` (bad input) or an invalid result with total 0 (no
      winning shape, ``TypeError('ERROR_NOT_WIN')``); its other messages are terse codes
      (``ERROR_WRONG_TILES_COUNT``, ``ERROR_TILE_COUNT_GREATER_THAN_4``, ``ERROE_WRONG_TILE_CODE``
      sic), all raised as TypeError, and never reach the user alone.

Engine behaviour, pinned in tests/referee/scoring/test_mcr.py
    * Chicken Hand (43, 8 fan) is given exactly when no other fan — Self-Drawn, Concealed Hand,
      waits included — counts (flowers aside). So a pattern-less win on a discard is 8 fan and
      valid, as MCR defines Chicken Hand; the same hand self-drawn is Self-Drawn 1 alone → invalid.
    * ``is4thTile`` is dropped when a copy of the winning tile is among the concealed tiles (a
      single wait or Seven Pairs: the tile completes a pair). MCR's Last Tile is the 4th copy with
      three SHOWN; with a copy hidden in the hand that is impossible, so the engine is right and we
      keep its answer but add a note when the flag was declared.
    * Last Tile is added even WITHOUT the flag when the player's own melds show three copies of the
      winning tile (the 4th is then necessarily the last); we keep this.
    * ``isAboutKong`` is dropped on a self-drawn win without a kong among the melds, and on a
      discard win when the winning tile is already in the hand or melds (a robbed tile is the 4th of
      a pung shown by another player). The hand model already refuses the former.
    * Robbing the Kong excludes Last Tile; Last Tile Draw and Out with Replacement Tile exclude
      Self-Drawn (MCR's no-repeat principle).
    * On a discard win the pung completed by the winning tile counts as melded (not a concealed
      pung) unless the tile can sit in a concealed chow.
    * A concealed kong (GANG offer 0) keeps Concealed Hand / Fully Concealed Hand and scores
      Concealed Kong 2; a melded kong scores Melded Kong 1. Exactly one melded plus one concealed
      kong scores the engine's own 明暗杠 "Concealed Kong and Melded Kong", 5 fan, which is NOT
      in the 81-fan table (that would give 1 + 2 = 3). We keep the engine's 5 (reported as
      MCR-82, see mcr_fans.CONCEALED_AND_MELDED_KONG) and add a note saying so: a rules decision
      for the tournament, not for this wrapper.
    * Seat and prevalent wind outside 0–3 and a negative ``flowerCount`` (wraps to 253) are not
      checked by the engine; ours come from enums and a validated count, so they cannot occur.
    * The engine copies ``hand`` into a 13-slot C array before it checks the count, so the
      13-tile shape is re-checked here before every call (a WinningHand guarantees it, but a bad
      count must never reach C).
    * pymahjonggb 1.4 never raises ERROR_TILE_COUNT_GREATER_THAN_4 in practice: a hand with five
      1m, or fourteen 5m, is scored (the latter as Seven Pairs + Full Flush + Middle Tiles). The
      4-copy limit therefore rests on WinningHand's own validation; it is not re-counted here
      (about 1.2 µs a hand, an eighth of the whole call) since a WinningHand cannot exist without
      it.
"""

from __future__ import annotations

from typing import Final

from MahjongGB import MahjongFanCalculator

from referee.hands import Flag, HandError, Meld, MeldKind, WinBy, WinningHand
from referee.scoring.mcr_fans import (
    CONCEALED_AND_MELDED_KONG,
    ENGINE_PATTERNS,
    FLOWER_TILES,
    pattern_for,
    pattern_from_engine,
)
from referee.scoring.result import PatternScore, ScoreResult
from referee.tiles import GREEN, RED, WHITE, Tile, tile_name

PROFILE: Final = "mcr"
MINIMUM_FAN: Final = 8
MINIMUM_REASON: Final = "MCR: a win needs 8 fan without flowers"
NO_SHAPE_REASON: Final = (
    "MCR: no winning shape — the tiles form neither 4 sets and a pair, nor Seven Pairs, "
    "Thirteen Orphans, or a knitted / honours-and-knitted hand"
)

EnginePack = tuple[str, str, int]


def _engine_names() -> dict[Tile, str]:
    names: dict[Tile, str] = {}
    for suit, letter in enumerate("WBT"):  # our suit order: characters, dots, bamboo
        for number in range(1, 10):
            names[suit * 9 + number - 1] = f"{letter}{number}"
    for i in range(4):  # E S W N
        names[27 + i] = f"F{i + 1}"
    names[RED] = "J1"
    names[GREEN] = "J2"
    names[WHITE] = "J3"
    return names


TILE_TO_ENGINE: Final[dict[Tile, str]] = _engine_names()
"""Our tile index (0–33) → pymahjonggb's tile code; flowers and bad indices are absent."""

_FLAGS_ABOUT_KONG: Final = frozenset({Flag.WIN_ON_KONG, Flag.ROBBING_KONG})
_FLAGS_WALL_LAST: Final = frozenset({Flag.FINAL_DRAW, Flag.FINAL_DISCARD})
_FLAGS_NOT_MCR: Final = frozenset({Flag.HEAVEN, Flag.EARTH, Flag.DRAWN_TILE_NOT_APART})

_ENGINE_ERRORS: Final[dict[str, str]] = {
    "ERROR_WRONG_TILES_COUNT": "wrong tile count for the engine (13 before the winning tile, "
    "a kong counting 3)",
    "ERROR_TILE_COUNT_GREATER_THAN_4": "more than 4 copies of a tile",
    "ERROE_WRONG_TILE_CODE": "a tile the engine does not know",
    "ERROE_WRONG_OFFER_CODE": "a meld offer outside 0–3",
    "ERROE_WRONG_PACK_CODE": "a meld kind other than chow, pung, kong",
}


def _bad_tile(tile: object) -> HandError:
    return HandError(
        f"tile {tile!r} cannot be scored under MCR: expected a playing tile index 0–33 "
        "(flowers are counted in 'flowers')"
    )


def _engine_tile(tile: Tile) -> str:
    try:
        return TILE_TO_ENGINE[tile]
    except KeyError:
        raise _bad_tile(tile) from None


def engine_pack(meld: Meld) -> EnginePack:
    """One meld as pymahjonggb's ``(kind, tile, offer)``; see the module docstring."""
    tiles = meld.tiles
    kind = meld.kind
    if kind is MeldKind.CHOW:
        claimed = meld.claimed_tile
        offer = 1 if claimed is None else claimed - tiles[0] + 1
        return ("CHI", _engine_tile(tiles[1]), offer)
    if kind is MeldKind.KONG and meld.concealed:
        return ("GANG", _engine_tile(tiles[0]), 0)
    source = meld.claimed_from
    return (
        "PENG" if kind is MeldKind.PUNG else "GANG",
        _engine_tile(tiles[0]),
        1 if source is None else int(source),
    )


def engine_args(hand: WinningHand) -> tuple[object, ...]:
    """The positional arguments of ``MahjongFanCalculator`` for ``hand`` (no flowers, verbose)."""
    melds = hand.melds
    concealed = hand.concealed
    if len(concealed) + 3 * len(melds) != 13 or len(melds) > 4:
        raise HandError(
            f"wrong tile count: {len(concealed)} concealed + {len(melds)} meld(s) × 3; "
            "a winning hand has 13 before the winning tile (a kong counts 3)"
        )
    names = TILE_TO_ENGINE
    try:
        standing = tuple([names[t] for t in concealed])
        win = names[hand.win_tile]
    except KeyError as exc:
        raise _bad_tile(exc.args[0]) from None
    flags = hand.flags
    if flags:
        last = Flag.LAST_OF_KIND in flags
        about_kong = not flags.isdisjoint(_FLAGS_ABOUT_KONG)
        wall_last = not flags.isdisjoint(_FLAGS_WALL_LAST)
    else:
        last = about_kong = wall_last = False
    return (
        tuple([engine_pack(meld) for meld in melds]) if melds else (),
        standing,
        win,
        0,
        hand.win_by is WinBy.SELF,
        last,
        about_kong,
        wall_last,
        hand.seat,  # an IntEnum: the engine reads it as an int
        hand.prevalent,
        True,
    )


def score_mcr(hand: WinningHand) -> ScoreResult:
    """Score a declared win under MCR: fans, 8-fan minimum without flowers, flowers added."""
    args = engine_args(hand)
    try:
        fans = MahjongFanCalculator(*args)
    except TypeError as exc:
        code = str(exc)
        if code == "ERROR_NOT_WIN":
            return ScoreResult(PROFILE, valid=False, total=0, reason=NO_SHAPE_REASON)
        raise HandError(
            f"MCR scorer refused the hand: {_ENGINE_ERRORS.get(code, code)} "
            f"(pymahjonggb {code}; hand {hand.to_case()})"
        ) from None

    cache = ENGINE_PATTERNS
    patterns: list[PatternScore] = []
    base = 0
    for _, count, name_zh, _ in fans:
        pattern = cache.get((name_zh, count)) or pattern_from_engine(name_zh, count)
        patterns.append(pattern)
        base += pattern.points * count
    total = base
    if hand.flowers:
        patterns.append(pattern_for(FLOWER_TILES, hand.flowers))
        total += hand.flowers

    notes = (
        _notes(hand, patterns)
        if hand.flags or (len(hand.melds) >= 2 and any(p.id == _KONG_PAIR_ID for p in patterns))
        else ()
    )
    if base < MINIMUM_FAN:
        return ScoreResult(
            PROFILE,
            valid=False,
            total=total,
            patterns=tuple(patterns),
            reason=f"{MINIMUM_REASON}; this hand has {base}",
            notes=notes,
        )
    return ScoreResult(PROFILE, valid=True, total=total, patterns=tuple(patterns), notes=notes)


_KONG_PAIR_ID: Final = CONCEALED_AND_MELDED_KONG.id
_KONG_PAIR_NOTE: Final = (
    "Concealed Kong and Melded Kong (明暗杠, MCR-82, 5 fan) is pymahjonggb's fan, not one of the "
    "81: by the table alone one melded and one concealed kong are Melded Kong 1 + Concealed Kong 2"
)

_ROBBING_ID: Final = "MCR-47"
_FLAG_FANS: Final[tuple[tuple[Flag, str, str], ...]] = (
    (Flag.LAST_OF_KIND, "MCR-58", "Last Tile"),
    (Flag.FINAL_DRAW, "MCR-44", "Last Tile Draw"),
    (Flag.FINAL_DISCARD, "MCR-45", "Last Tile Claim"),
    (Flag.WIN_ON_KONG, "MCR-46", "Out with Replacement Tile"),
    (Flag.ROBBING_KONG, "MCR-47", "Robbing the Kong"),
)


def _notes(hand: WinningHand, patterns: list[PatternScore]) -> tuple[str, ...]:
    """Why a declared flag did not score, for the referee reading the result."""
    notes: list[str] = []
    flags = hand.flags
    ids = {p.id for p in patterns}
    win = tile_name(hand.win_tile)
    for flag, fan_id, fan_name in _FLAG_FANS:
        if flag not in flags or fan_id in ids:
            continue
        if flag is Flag.LAST_OF_KIND and hand.win_tile in hand.concealed:
            why = (
                f"the winning tile {win} also lies among the concealed tiles, so it cannot be "
                "the last one with three shown"
            )
        elif flag is Flag.LAST_OF_KIND and _ROBBING_ID in ids:
            why = "Robbing the Kong excludes Last Tile"
        elif flag is Flag.ROBBING_KONG:
            why = (
                f"the winning tile {win} is already in the hand or its melds, so it cannot be "
                "the robbed 4th tile"
            )
        else:
            why = "pymahjonggb did not count it"
        notes.append(f"{flag} declared but {fan_name} ({fan_id}) not counted: {why}")
    for flag in sorted(flags & _FLAGS_NOT_MCR):
        notes.append(f"flag {flag} has no MCR fan; ignored")
    if _KONG_PAIR_ID in ids:
        notes.append(_KONG_PAIR_NOTE)
    return tuple(notes)
