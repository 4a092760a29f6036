"""A game log as the engine applied it, hand by hand: what an exporter writes.

Each hand is its deal (the hands after the opening flower exchange, the flowers each seat set
aside, East's 14th tile) and its actions with the tiles the engine took, each claim with the
calls that lost to it; then the engine's result. Refused events are left out with a note, and so
is what a record format cannot hold (calls nobody made good).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from referee.events import Call, CallKind, DiscardCorrected, Event, KongKind
from referee.game.claims import chow_options
from referee.game.state import HandResult, HandState
from referee.game.table import Table
from referee.game.wall import UNKNOWN
from referee.hands import Wind
from referee.tiles import NUM_KINDS, Tile

_EXCHANGE = ("flower", "replacement_draw")
_ACTS = ("draw", "replacement_draw", "flower", "discard", "chow", "pung", "kong", "win")


@dataclass(slots=True)
class Act:
    """One action: ``kind`` is the event type (``replacement_draw`` ``after_kong`` or after a
    flower); ``tile`` the tile drawn, discarded, claimed, konged or won on; ``tiles`` a chow's
    run; ``source`` the seat a claim or a win came from; ``lost`` the calls it beat, each with
    the tile it would have taken (a chow: the middle of the first run the caller could make)."""

    kind: str
    seat: Wind
    tile: Tile
    tiles: tuple[Tile, ...] = ()
    kong: KongKind | None = None
    source: Wind | None = None
    after_kong: bool = False
    lost: list[tuple[Wind, CallKind, Tile]] = field(default_factory=list)


@dataclass(slots=True)
class HandLog:
    """One hand of a log as the engine saw it."""

    number: int
    prevalent: Wind
    dealer_place: int
    hands: dict[Wind, list[Tile]] = field(default_factory=dict)
    flowers: dict[Wind, int] = field(default_factory=dict)
    first_draw: Tile | None = None
    players: tuple[str, ...] = ()  # by seat E S W N
    acts: list[Act] = field(default_factory=list)
    result: HandResult | None = None


@dataclass(slots=True)
class Walked:
    table_id: str
    session_id: str
    profile: str
    hands: list[HandLog] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def as_corrected(events: Sequence[Event]) -> list[Event]:
    """The events with each ``discard_corrected`` folded into the discard it corrects: the game
    as it was played (a sensor's misread tile put right)."""
    out: list[Event] = []
    for ev in events:
        if isinstance(ev.payload, DiscardCorrected):
            seat = ev.payload.seat
            at = next(
                i
                for i in range(len(out) - 1, -1, -1)
                if out[i].type == "discard" and getattr(out[i].payload, "seat", None) is seat
            )
            payload = out[at].payload.model_copy(update={"tile": ev.payload.tile})
            out[at] = out[at].model_copy(update={"payload": payload})
        else:
            out.append(ev)
    return out


def walk(events: Sequence[Event]) -> Walked:
    """Replay ``events`` and collect each hand's deal, actions and result."""
    first = events[0]
    table = Table(first.table_id, first.session_id)
    out = Walked(first.table_id, first.session_id, table.state.profile.name)
    cur: HandLog | None = None
    exchange = False
    calls: dict[Wind, CallKind] = {}
    waiting: tuple[Event, tuple[list[int], tuple[Wind, Tile] | None], dict[Wind, CallKind]] | None
    waiting = None
    for ev in events:
        st = table.state
        hand = st.hand
        if cur is not None and exchange and ev.type not in _EXCHANGE and hand is not None:
            _deal_snapshot(cur, hand)
            exchange = False
        before = _before(hand, ev)
        step = table.apply(ev)
        refused = [a for a in step.alerts if a.rejected]
        if refused:
            out.notes.append(f"seq {ev.seq}: refused by the engine [{refused[0].rule}]; left out")
            continue
        out.profile = table.state.profile.name
        hand = table.state.hand
        if ev.type == "win" and hand is not None and hand.pending_win is not None:
            waiting = (ev, before, dict(calls))  # ruled when the hand is shown (WMC-7.4)
            continue
        if ev.type == "hand_revealed" and waiting is not None:
            ev, before, calls = waiting  # the win, as of its own event
            waiting = None
        if ev.type == "wall_built":
            st = table.state
            cur = HandLog(len(st.results), st.prevalent, st.dealer_place)
            cur.players = tuple(st.player_at(w) for w in Wind)
            out.hands.append(cur)
            calls = {}
        elif cur is None or hand is None:
            continue
        elif ev.type == "deal":
            exchange = True
            dealt = ev.payload.hands  # type: ignore[attr-defined]
            cur.first_draw = dealt[Wind.E][-1] if Wind.E in (dealt or {}) else hand.drawn
            if dealt is not None:  # the deal as written (its order kept, East's 14th last)
                cur.hands = {w: list(tiles) for w, tiles in dealt.items()}
        elif ev.type == "discard_corrected":  # the record put right: the discard's true tile
            assert isinstance(ev.payload, DiscardCorrected)
            last = next(a for a in reversed(cur.acts) if a.kind == "discard")
            last.tile = ev.payload.tile
        elif ev.type == "call":
            assert isinstance(ev.payload, Call)
            calls[ev.payload.seat] = ev.payload.call
        elif ev.type in _ACTS and not exchange:
            if ev.type in ("chow", "pung") and before[1] is None:
                out.notes.append(f"seq {ev.seq}: a claim with no discard left to take; left out")
                calls = {}
                continue
            act = _act(ev, before, hand)
            act.after_kong = bool(cur.acts) and cur.acts[-1].kind == "kong"
            if act.kind in ("draw", "discard") and calls:
                lapsed = ", ".join(f"{s.name} {c}" for s, c in calls.items())
                out.notes.append(f"seq {ev.seq}: calls nobody made good ({lapsed}); left out")
            if act.kind == "win":
                if len(table.state.results) <= cur.number:
                    out.notes.append(f"seq {ev.seq}: a false win play went on after; left out")
                    calls = {}
                    continue
                result = table.state.results[cur.number]
                act.tile = result.win_tile if result.win_tile is not None else -1
                act.source = result.discarder or act.seat
            if act.kind in ("chow", "pung", "win") or act.kong is KongKind.EXPOSED:
                act.lost = [
                    (s, c, _named(hand, s, c, act.tile))
                    for s, c in calls.items()
                    if s is not act.seat
                ]
            calls = {}
            cur.acts.append(act)
        if len(table.state.results) > cur.number:
            cur.result = table.state.results[cur.number]
    return out


def _deal_snapshot(cur: HandLog, hand: HandState) -> None:
    """The hands once the opening flowers are replaced (the deal as written if none were)."""
    exchanged = any(s.flowers for s in hand.seats)
    for seat in Wind:
        me = hand.seats[seat]
        cur.flowers[seat] = len(me.flowers)
        if exchanged or seat not in cur.hands:
            known = [t for t in range(NUM_KINDS) for _ in range(me.counts[t])]
            cur.hands[seat] = known + [UNKNOWN] * me.hidden  # dealt face down: never seen


def _named(hand: HandState, seat: Wind, call: CallKind, tile: Tile) -> Tile:
    """The tile a lost call names: the claimed one, or a chow's middle tile."""
    if call is not CallKind.CHOW:
        return tile
    me = hand.seats[seat].counts
    runs = chow_options(me, tile)
    if runs:
        return runs[0][1]
    return tile + (1 if tile % 9 == 0 else -1 if tile % 9 == 8 else 0)


def _before(hand: HandState | None, ev: Event) -> tuple[list[int], tuple[Wind, Tile] | None]:
    """What an action needs from before it applies: the seat's counts, the claimable tile."""
    if hand is None:
        return [], None
    seat = getattr(ev.payload, "seat", Wind.E)
    claimable = hand.last_discard
    if hand.robbable is not None:
        claimable = (hand.turn, hand.robbable)
    return list(hand.seats[seat].counts), claimable


def _act(ev: Event, before: tuple[list[int], tuple[Wind, Tile] | None], hand: HandState) -> Act:
    p = ev.payload
    seat: Wind = p.seat  # type: ignore[attr-defined]
    counts, claimable = before
    if ev.type in ("draw", "replacement_draw"):
        now = hand.seats[seat].counts
        tile = next((t for t in range(len(now)) if now[t] > counts[t]), UNKNOWN)  # face down?
        return Act(ev.type, seat, tile)
    if ev.type in ("discard", "flower"):
        return Act(ev.type, seat, p.tile)  # type: ignore[attr-defined]
    if ev.type == "kong":
        kind: KongKind = p.kind  # type: ignore[attr-defined]
        source = claimable[0] if kind is KongKind.EXPOSED and claimable else seat
        return Act("kong", seat, p.tile, kong=kind, source=source)  # type: ignore[attr-defined]
    if ev.type == "win":  # the tile and the discarder come from the result
        return Act("win", seat, -1)
    assert claimable is not None
    tiles = tuple(sorted(p.tiles)) if ev.type == "chow" else ()  # type: ignore[attr-defined]
    return Act(ev.type, seat, claimable[1], tiles=tiles, source=claimable[0])
