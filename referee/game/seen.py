"""What a real table's sensors record of a game whose every tile is known (a simulation, an RFID
table): the wall face down, the deal face down (the racks counted), every draw face down, and the
winner's hand shown when he wins (WMC-7.4). The full record stays the truth to compare against;
this is the input a referee assistant really gets.
"""

from __future__ import annotations

from collections.abc import Sequence

from referee.events import (
    Deal,
    Draw,
    Event,
    HandRevealed,
    ReplacementDraw,
    WallBuilt,
    WinDeclared,
    WinOn,
)
from referee.game.state import Phase
from referee.game.table import Table
from referee.hands import Wind
from referee.tiles import NUM_KINDS, Tile

TABLE_KNOWS = ("session_started", "seat_draw", "wall_built", "dice_rolled")
"""What a real table's rig is told rather than shown: the players and their seats (the referee),
each hand's wall raised and its dice (the automatic table's link). The deal, every draw and
every tile shown come from the camera."""
SEQ_FIELDS = ("claim_seq",)
"""Payload fields that cite another event's seq: renumbered with the record."""


def as_seen(
    events: Sequence[Event], *, counts: bool = True, drawn_apart: bool = True
) -> list[Event]:
    """The record as the table's sensors see it. ``counts``: the deal says how many tiles each
    rack holds (a camera counting them); the tiles themselves are never named. A win is followed
    by the winner's concealed tiles shown (with the tile won on a discard), as the winner lays
    them down; a ``hand_revealed`` already in the record is kept and none is added.
    ``drawn_apart``: a self-drawn win names its drawn tile, which the winner shows apart (as
    WMC-7.7 asks; MCR's waits depend on it); without it the engine counts the best tile."""
    table = Table()
    out: list[Event] = []
    renumber: dict[int, int] = {}
    for k, ev in enumerate(events):
        st = table.state
        hand = st.hand
        reveal: HandRevealed | None = None
        p = ev.payload
        if isinstance(p, WallBuilt):
            ev = ev.model_copy(update={"payload": WallBuilt()})
        elif isinstance(p, Draw):
            ev = ev.model_copy(update={"payload": Draw(seat=p.seat, merged=p.merged)})
        elif isinstance(p, ReplacementDraw):
            ev = ev.model_copy(update={"payload": ReplacementDraw(seat=p.seat)})
        elif isinstance(p, WinDeclared) and hand is not None:
            nxt = events[k + 1] if k + 1 < len(events) else None
            if nxt is None or nxt.type != "hand_revealed":
                reveal = HandRevealed(seat=p.seat, tiles=_shown(table, p))
            own_turn = hand.phase is Phase.DISCARD and hand.turn is p.seat
            if drawn_apart and own_turn and p.tile is None and hand.drawn is not None:
                named = WinDeclared(seat=p.seat, tile=hand.drawn, on=WinOn.DRAW)
                ev = ev.model_copy(update={"payload": named})
        table.apply(events[k])
        if isinstance(p, Deal) and table.state.hand is not None:
            racks = {w: sum(table.state.hand.seats[w].counts) for w in Wind}
            ev = ev.model_copy(update={"payload": Deal(counts=racks if counts else None)})
        renumber[ev.seq] = len(out)
        out.append(ev)
        if reveal is not None:
            out.append(
                ev.model_copy(update={"type": reveal.TYPE, "payload": reveal, "evidence": ()})
            )
    return [_renumbered(ev, i, renumber) for i, ev in enumerate(out)]


def table_knows(events: Sequence[Event]) -> list[Event]:
    """The setup of a session as a real table gives it (:data:`TABLE_KNOWS`, walls unseen),
    numbered as a log of its own."""
    told = [e for e in as_seen(events) if e.type in TABLE_KNOWS]
    return [e.model_copy(update={"seq": i}) for i, e in enumerate(told)]


def _shown(table: Table, p: WinDeclared) -> tuple[Tile, ...]:
    """The winner's concealed tiles as he lays them down, before the win is applied: on his own
    turn the tiles he holds, otherwise those and the tile he wins on."""
    hand = table.state.hand
    assert hand is not None
    me = hand.seats[p.seat]
    tiles = [t for t in range(NUM_KINDS) for _ in range(me.counts[t])]
    if hand.phase is Phase.DISCARD and hand.turn is p.seat:
        return tuple(tiles)
    if hand.phase is Phase.REPLACE and hand.robbable is not None:
        return tuple(sorted([*tiles, hand.robbable]))
    if hand.last_discard is not None:
        return tuple(sorted([*tiles, hand.last_discard[1]]))
    return tuple(tiles)


def _renumbered(ev: Event, seq: int, renumber: dict[int, int]) -> Event:
    update: dict[str, object] = {}
    if ev.seq != seq:
        update["seq"] = seq
    fields = {f: getattr(ev.payload, f) for f in SEQ_FIELDS if hasattr(ev.payload, f)}
    moved = {f: renumber.get(v, v) for f, v in fields.items() if renumber.get(v, v) != v}
    if moved:
        update["payload"] = ev.payload.model_copy(update=moved)
    return ev.model_copy(update=update) if update else ev
