"""The referee core's state machine: one table, one session, one event at a time.

``Table.apply(event)`` is the only way the state changes. It returns a :class:`Step`: the state,
the events the engine derived (wall broken, hand scored, round ended …) and the alerts. An
illegal action is refused — the state stays as it was — and answered with an alert citing the
rule (``rejected=True``); irregularities the rules let stand are applied with an alert
(``rejected=False``). No I/O, no clock, no randomness: time is the events' ``ts``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from referee.events import (
    REFEREE_TYPES,
    Call,
    CallKind,
    Chow,
    DeadHand,
    Deal,
    DiceRolled,
    Discard,
    Draw,
    EngineEvent,
    Event,
    FlowerSetAside,
    HandRevealed,
    Kong,
    KongKind,
    MachineEvent,
    MeldCorrected,
    Payload,
    PenaltyDecision,
    PenaltyTilesReturned,
    Pung,
    ReplacementDraw,
    SeatDraw,
    SessionStarted,
    TilesExposed,
    WallBuilt,
    WallFlipped,
    WinDeclared,
)
from referee.game import claims, shapes
from referee.game.alerts import (
    SYS_CLOCK,
    SYS_END,
    SYS_HAND,
    SYS_SEQ,
    Alert,
    Severity,
    damage_mark,
    proposal_id,
)
from referee.game.claims import NEXT, WINDS
from referee.game.profile import Profile, profile
from referee.game.state import (
    HandResult,
    HandState,
    Phase,
    SeatState,
    TableState,
    TurnStart,
    WrongMeld,
)
from referee.game.wall import UNKNOWN, Wall, counted_seat
from referee.hands import Flag, HandError, Meld, MeldKind, Relative, WinBy, Wind, WinningHand
from referee.penalties import Decision, LedgerError, PenaltyKind, Proposal, Status, Verdict
from referee.scoring import score
from referee.scoring.payments import settle
from referee.scoring.result import ScoreResult
from referee.tiles import NUM_KINDS, Tile, format_tiles, is_flower, tile_name

Scorer = Callable[[WinningHand, str], ScoreResult]

CLOCK_SLACK = 2.0
"""Seconds the table clock may run back between events before it is a finding (SYS-clock):
sources stamp their own events, so small steps back between them are ordinary."""

CLAIM_CHANGE_REPEAT = 3
"""WMC-11.2: changing a called claim before exposing is no penalty "unless too frequent"; from a
player's third change in the session the alert is a warning with a point-penalty proposal."""
CLAIM_CHANGE_POINTS = 10
"""The rules fix no amount for a too-frequent change (WMC-11.2): proposed as 10, like a repeated
unspoken claim (WMC-5.2), for the referee to change."""


@dataclass(frozen=True, slots=True)
class Derived:
    """An event the engine concluded (not logged; re-derived on replay). ``cause`` = seq."""

    type: str
    payload: dict[str, Any]
    cause: int


@dataclass(slots=True)
class Step:
    """What one input event did: the state, what the engine derived, the alerts.

    :meth:`outputs` gives the derived events and alerts as :class:`EngineEvent` envelopes,
    numbered in the session's engine output stream from ``first_out`` (EVENTS.md).
    """

    state: TableState
    derived: list[Derived] = field(default_factory=list)
    alerts: list[Alert] = field(default_factory=list)
    cause: Event | None = None
    first_out: int = 0

    @property
    def accepted(self) -> bool:
        return not any(a.rejected for a in self.alerts)

    def outputs(self) -> list[EngineEvent]:
        """Derived events, then alerts, in the envelope (source ``engine``, citing the cause)."""
        cause = self.cause
        if cause is None:
            return []
        items: list[tuple[str, dict[str, Any]]] = [(d.type, d.payload) for d in self.derived]
        items += [("alert", a.to_json()) for a in self.alerts]
        return [
            EngineEvent(
                table_id=cause.table_id,
                session_id=cause.session_id,
                seq=self.first_out + i,
                ts=cause.ts,
                type=type_,
                payload=payload,
                cause=cause.seq,
                evidence=cause.evidence,
            )
            for i, (type_, payload) in enumerate(items)
        ]


class Rejected(Exception):
    """Raised inside a handler to refuse an event; becomes a rejected alert."""

    def __init__(self, rule: str, message: str, seat: Wind | None = None) -> None:
        super().__init__(message)
        self.rule = rule
        self.seat = seat


class Table:
    """One table's rules engine (WMC by default; ``session_started`` picks the profile)."""

    def __init__(
        self,
        table_id: str = "T1",
        session_id: str = "S1",
        profile_name: str = "wmc",
        *,
        scorer: Scorer | None = None,
    ) -> None:
        self.state = TableState(table_id, session_id, profile(profile_name))
        self.scorer: Scorer = scorer or score
        self._derived: list[Derived] = []
        self._alerts: list[Alert] = []
        self._seq = -1
        self._last: Event | None = None  # the latest event applied (end_of_log cites it)
        self._handlers: dict[str, Callable[[Any], None]] = {
            "session_started": self._session_started,
            "seat_draw": self._seat_draw,
            "wall_built": self._wall_built,
            "dice_rolled": self._dice,
            "deal": self._deal,
            "draw": self._draw,
            "replacement_draw": self._replacement,
            "flower": self._flower,
            "discard": self._discard,
            "call": self._call,
            "chow": self._chow,
            "pung": self._pung,
            "kong": self._kong,
            "win": self._win,
            "hand_revealed": self._revealed,
            "exhaustive_draw": self._exhaustive,
            "observation": _ignore,
            "machine": self._machine,
            "referee_decision": _ignore,
            "tiles_exposed": self._tiles_exposed,
            "penalty_tiles_returned": self._penalty_returned,
            "wall_flipped": self._wall_flipped,
            "dead_hand": self._dead_hand,
            "meld_corrected": self._meld_corrected,
        }
        for type_ in REFEREE_TYPES:
            self._handlers[type_] = _ignore
        # A referee's dismissal (or revocation) of a restriction the engine applied lifts it.
        self._handlers["penalty_decision"] = self._decision

    # ---- entry point -------------------------------------------------------------------------

    def apply(self, event: Event) -> Step:
        st = self.state
        derived: list[Derived] = []
        alerts: list[Alert] = []
        self._derived = derived
        self._alerts = alerts
        seq = event.seq
        self._seq = seq
        first_out = st.out_seq
        if seq <= st.last_seq:
            # Not a log event (the log holds each seq once): answered, but kept out of the state
            # and of the output stream, which stay a pure function of the log.
            self._alert("SYS-seq", f"duplicate seq {seq} (last applied {st.last_seq}); ignored")
            return Step(st, derived, alerts)
        if seq != st.last_seq + 1:
            missing = (
                f"{st.last_seq + 1}" if seq == st.last_seq + 2 else f"{st.last_seq + 1}–{seq - 1}"
            )
            self._record_finding(
                SYS_SEQ,
                f"events missing from the record: seq {seq} follows {st.last_seq} "
                f"(seq {missing} not received)",
            )
        if st.last_ts is not None and event.ts < st.last_ts - CLOCK_SLACK:
            self._record_finding(
                SYS_CLOCK,
                f"the table clock went back {st.last_ts - event.ts:.1f} s "
                f"(ts {event.ts:g} after {st.last_ts:g})",
            )
        st.last_seq = seq
        st.last_ts = event.ts
        self._last = event
        handler = self._handlers.get(event.type)
        if handler is None:
            self._alert("SYS-type", f"unknown event type {event.type!r}")
        else:
            try:
                handler(event.payload)
            except Rejected as exc:
                self._alert(exc.rule, str(exc), exc.seat)
        damaged = damage_mark(st.hand.marks) if st.hand is not None else ""
        if damaged:
            alerts[:] = [
                a if a.rule.startswith("SYS-") else replace(a, damaged=damaged) for a in alerts
            ]
        if alerts:
            st.alerts.extend(alerts)
        st.out_seq = first_out + len(derived) + len(alerts)
        return Step(st, derived, alerts, event, first_out)

    def end_of_log(self) -> Step:
        """The record ends here (a replayed file, not a live table): a hand still in play has no
        result, a finding for a referee (SYS-end). The state is left as it is."""
        st = self.state
        derived: list[Derived] = []
        alerts: list[Alert] = []
        self._derived, self._alerts = derived, alerts
        first_out = st.out_seq
        hand = st.hand
        if hand is not None and hand.phase is not Phase.IDLE and self._last is not None:
            self._seq = self._last.seq
            hand.marks.append(f"{SYS_END}@{self._seq}")
            self._alert(
                SYS_END,
                f"the record ends inside hand {hand.number + 1} ({hand.phase.name.lower()}, "
                f"last seq {self._seq}): the hand has no result",
                severity=Severity.CRITICAL,
                rejected=False,
            )
            st.alerts.extend(alerts)
            st.out_seq = first_out + len(alerts)
        return Step(st, derived, alerts, self._last, first_out)

    def apply_all(self, events: Sequence[Event]) -> list[Alert]:
        out: list[Alert] = []
        for ev in events:
            out.extend(self.apply(ev).alerts)
        return out

    # ---- helpers -----------------------------------------------------------------------------

    def _alert(
        self,
        rule: str,
        message: str,
        seat: Wind | None = None,
        *,
        severity: Severity = Severity.VIOLATION,
        rejected: bool = True,
        evidence: tuple[int, ...] = (),
        penalty: str = "",
        points: int = 0,
    ) -> None:
        self._alerts.append(
            Alert(rule, severity, message, self._seq, seat, rejected, evidence, penalty, points)
        )

    def _finding(
        self,
        rule: str,
        message: str,
        seat: Wind | None,
        *,
        severity: Severity = Severity.VIOLATION,
        penalty: str = "",
        points: int = 0,
        evidence: tuple[int, ...] = (),
    ) -> None:
        """An irregularity that happened at the table: it stands in the record (the record
        follows reality), and the alert — with the penalty the rules fix — goes to a referee."""
        self._alert(
            rule,
            message,
            seat,
            severity=severity,
            rejected=False,
            evidence=evidence,
            penalty=penalty,
            points=points,
        )

    def _record_finding(self, rule: str, message: str) -> None:
        """The record itself is damaged here: a warning, and the hand it falls in (the next one,
        between hands) is marked for a referee (EVENTS.md, "A damaged record")."""
        st = self.state
        mark = f"{rule}@{self._seq}"
        hand = st.hand
        if hand is not None and hand.phase is not Phase.IDLE:
            hand.marks.append(mark)
        else:
            st.next_marks.append(mark)
        self._alert(rule, message, severity=Severity.WARNING, rejected=False)

    def _derive(self, type_: str, **payload: Any) -> None:
        self._derived.append(Derived(type_, payload, self._seq))

    def _hand(self, rule: str, what: str) -> HandState:
        hand = self.state.hand
        if hand is None or hand.phase is Phase.IDLE:
            raise Rejected(rule, f"{what}: no hand is in play")
        return hand

    @property
    def profile(self) -> Profile:
        return self.state.profile

    # ---- session (WMC-2.1, 2.3, 8.2) ---------------------------------------------------------

    def _session_started(self, p: SessionStarted) -> None:
        st = self.state
        if st.hands_played or (st.hand is not None and st.hand.phase is not Phase.IDLE):
            raise Rejected("WMC-2.1", "session_started after play began")
        st.profile = profile(p.profile)
        st.players = list(p.players)
        st.follow_suit = p.follow_suit
        st.scores = dict.fromkeys(p.players, 0)

    def _seat_draw(self, p: SeatDraw) -> None:
        st = self.state
        if st.hand is not None and st.hand.phase is not Phase.IDLE:
            raise Rejected("WMC-8.2", "seat draw during a hand; seats change only after a round")
        if st.hands_played % 4:
            raise Rejected(
                "WMC-8.2",
                f"seat change after hand {st.hands_played}: seats change only after a round of 4",
            )
        if sorted(p.winds) != list(Wind):
            raise Rejected("WMC-2.3", "the four wind tiles must each be taken once")
        first = counted_seat(counted_seat(p.roller, p.roll1), p.roll2)
        new = list(st.players)
        first_taker = st.players[first]
        for i, wind in enumerate(p.winds):
            new[wind] = st.players[(first + i) % 4]
        st.players = new
        st.seated = True
        for name in new:
            st.scores.setdefault(name, 0)
        self._derive(
            "seats_assigned",
            first_taker=first_taker,
            start_end="odd" if p.roll2 % 2 else "even",
            seats={w.name: new[w] for w in Wind},
        )

    # ---- setup (WMC-3.2–3.4) -----------------------------------------------------------------

    def _wall_built(self, p: WallBuilt) -> None:
        st = self.state
        prof = st.profile
        tiles: list[Tile] | None = None
        if p.tiles is not None:
            tiles = list(p.tiles)
            want = [4] * NUM_KINDS + ([1] * 8 if prof.flowers else [])
            have = [0] * len(want)
            for t in tiles:
                if t >= len(want):
                    raise Rejected("WMC-1.1", f"tile {tile_name(t)} is not in a {prof.name} set")
                have[t] += 1
            if len(tiles) != prof.total_tiles or have != want:
                raise Rejected(
                    "WMC-1.1",
                    f"the wall must hold each tile of the set once per copy "
                    f"({prof.total_tiles} tiles), got {len(tiles)}",
                )
        if not st.seated:
            self._alert(
                "WMC-2.1",
                "a hand started without a seat draw; players keep their places",
                severity=Severity.WARNING,
                rejected=False,
            )
            st.seated = True
            for name in st.players:
                st.scores.setdefault(name, 0)
        if st.hand is not None and st.hand.phase is not Phase.IDLE:
            self._unfinished(st.hand)
        self._new_hand(Wall(prof, tiles))

    def _new_hand(self, wall: Wall) -> HandState:
        st = self.state
        st.dealer_place = st.hands_played % 4
        st.hand = hand = HandState(st.hands_played, st.dealer_place, wall)
        hand.marks.extend(st.next_marks)
        st.next_marks.clear()
        return hand

    def _unfinished(self, hand: HandState) -> None:
        """A new wall while a hand is in play: the hand's end never reached the record. It is
        closed without a result — no payments — and the deal passes on (WMC-2.4)."""
        hand.marks.append(f"{SYS_HAND}@{self._seq}")
        self._alert(
            SYS_HAND,
            f"hand {hand.number + 1} has no result in the record (a new wall came while it was "
            f"in play, {hand.phase.name.lower()}): closed without payments, marked for a "
            "referee to settle or void (hand_ruled)",
            severity=Severity.CRITICAL,
            rejected=False,
        )
        st = self.state
        e, s, w, n = (st.player_at(seat) for seat in WINDS)
        self._end_hand(
            hand, HandResult(hand=hand.number, dealer=e, players=(e, s, w, n), unfinished=True)
        )

    def _dice(self, p: DiceRolled) -> None:
        st = self.state
        if (st.hand is None or st.hand.phase is Phase.IDLE) and p.seat is Wind.E:
            # The dealer rolls, so a wall stands: its wall_built never reached the record.
            hand = self._new_hand(Wall(st.profile, None))
            hand.marks.append(f"{SYS_HAND}@{self._seq}")
            self._alert(
                SYS_HAND,
                f"hand {hand.number + 1}: the dealer rolled with no wall in the record; the hand "
                "is taken as started on an unseen wall and marked for a referee",
                severity=Severity.WARNING,
                rejected=False,
            )
        hand = self._hand("WMC-3.3", "dice")
        total = p.dice[0] + p.dice[1]
        if hand.phase is Phase.ROLL_DEALER:
            if p.seat is not Wind.E:
                raise Rejected(
                    "WMC-3.3", "the dealer (East) rolls first to name the breaker", p.seat
                )
            hand.dice.append(p.dice)
            hand.phase = Phase.ROLL_BREAKER
            self._derive("breaker_named", breaker=Wind(counted_seat(0, total)).name)
        elif hand.phase is Phase.ROLL_BREAKER:
            first = hand.dice[0][0] + hand.dice[0][1]
            breaker = counted_seat(0, first)
            if p.seat != breaker:
                raise Rejected(
                    "WMC-3.3", f"the breaker {Wind(breaker).name} rolls the second time", p.seat
                )
            hand.dice.append(p.dice)
            number = first + total
            hand.wall.break_at(breaker, number)
            hand.phase = Phase.DEAL
            head = hand.wall.order[0] // 2
            spp = hand.wall.stacks_per_side
            self._derive(
                "wall_broken",
                breaker=Wind(breaker).name,
                number=number,
                head={"side": Wind(head // spp).name, "stack": head % spp},
            )
        else:
            raise Rejected("WMC-3.3", "dice rolled after the wall was broken", p.seat)

    def _deal(self, p: Deal) -> None:
        hand = self._hand("WMC-3.4", "deal")
        if hand.phase is not Phase.DEAL:
            raise Rejected("WMC-3.4", "the deal comes after the break (two rolls of the dice)")
        wall = hand.wall
        dealt: list[list[Tile]] = [[], [], [], []]
        known = wall.known
        if known:
            for seat, index in wall.deal_positions():
                dealt[seat].append(wall.tiles[wall.order[index]])
            if p.hands is not None:
                for seat, tiles in p.hands.items():
                    if sorted(tiles) != sorted(dealt[seat]):
                        raise Rejected(
                            "WMC-3.5",
                            f"{seat.name} was dealt {format_tiles(sorted(dealt[seat]))} by the "
                            f"wall, not {format_tiles(tiles)}",
                            seat,
                        )
            for _seat, index in wall.deal_positions():
                wall.take(wall.order[index])
        else:
            if p.hands is None or len(p.hands) != 4:
                raise Rejected("WMC-3.4", "an unseen wall needs the four dealt hands in the deal")
            count = [0] * 42
            for seat, tiles in p.hands.items():
                want = 14 if seat is Wind.E else 13
                if len(tiles) != want:
                    raise Rejected(
                        "WMC-3.4", f"{seat.name} must be dealt {want} tiles, not {len(tiles)}", seat
                    )
                dealt[seat] = list(tiles)
                for t in tiles:
                    count[t] += 1
            if max(count[:NUM_KINDS]) > 4 or max(count[NUM_KINDS:]) > 1:
                raise Rejected("WMC-1.1", "the dealt hands hold more copies than the set has")
        wall.head = 53
        for place, got in enumerate(dealt):
            counts = hand.seats[place].counts
            for t in got:
                counts[t] += 1
        hand.drawn = dealt[0][-1] if known else None
        hand.phase = Phase.DISCARD
        hand.turn = Wind.E
        hand.after = TurnStart.DEAL

    # ---- play (WMC-4.x) ----------------------------------------------------------------------

    def _take_tile(self, wall: Wall, index: int, named: Tile | None, seat: Wind) -> Tile:
        """Take the tile at drawing-order ``index``; a named tile that differs stands (4.9)."""
        pos = wall.order[index]
        there = wall.tiles[pos]
        if named is None:
            if there == UNKNOWN:
                raise Rejected("WMC-4.1", "a draw from an unseen wall must name the tile", seat)
            named = there
        elif there != UNKNOWN and there != named:
            other = self._find_in_wall(wall, named, index)
            if other is None:
                raise Rejected(
                    "WMC-1.1", f"{tile_name(named)} cannot be in the wall: all copies are out", seat
                )
            wall.tiles[other], wall.tiles[pos] = there, named
            self._alert(
                "WMC-4.9",
                f"drew {tile_name(named)} where the wall held {tile_name(there)}; the draw stands",
                seat,
                severity=Severity.WARNING,
                rejected=False,
            )
        elif there == UNKNOWN and named >= NUM_KINDS and not self.profile.flowers:
            raise Rejected("WMC-1.1", "no flowers in this profile", seat)
        wall.take(pos)
        return named

    @staticmethod
    def _find_in_wall(wall: Wall, tile: Tile, skip: int) -> int | None:
        for k in range(wall.head, wall.size - wall.tail):
            pos = wall.order[k]
            if k != skip and wall.tiles[pos] == tile:
                return pos
        return None

    def _playing(self, what: str) -> HandState:
        hand = self._hand("WMC-4.1", what)
        if hand.phase < Phase.DISCARD:
            raise Rejected("WMC-3.4", f"{what} before the deal is complete")
        return hand

    def _draw(self, p: Draw) -> None:
        hand = self._playing("draw")
        seat = p.seat
        if hand.phase is not Phase.WINDOW or seat is not hand.turn:
            if hand.phase is Phase.REPLACE and seat is hand.turn:
                raise Rejected("WMC-5.5", "after a kong the replacement comes from the kong end")
            self._draw_out_of_turn(hand, p)
            return
        wall = hand.wall
        if wall.live <= 0:
            raise Rejected("WMC-6.1", "the live wall is exhausted; the dead wall is never drawn")
        if hand.calls and p.merged:
            self._lapse_calls(hand)
        tile = self._take_tile(wall, wall.head, p.tile, seat)
        self._moved_on(hand)  # WMC-11.5: the next player drew
        wall.head += 1
        hand.seats[seat].counts[tile] += 1
        hand.drawn = tile
        hand.after = TurnStart.DRAW
        hand.after_kong = False
        hand.phase = Phase.DISCARD
        if p.merged:
            hand.last_discard = None
            hand.calls = {}
            hand.unmerged = None
        else:
            hand.unmerged = tile
        if wall.live == 0:
            hand.seabed_seat = seat
            self._derive("seabed_drawn", seat=seat.name)

    def _draw_out_of_turn(self, hand: HandState, p: Draw) -> None:
        """WMC-4.2: a draw before the left player's discard, or a second draw. The tile is in
        the drawer's hand now, so the record keeps it: a wrong count, a dead hand (10.1)."""
        seat = p.seat
        if hand.phase not in (Phase.WINDOW, Phase.DISCARD):
            raise Rejected("WMC-4.2", f"{seat.name} drew while a kong is being replaced", seat)
        wall = hand.wall
        if wall.live <= 0:
            raise Rejected("WMC-6.1", "the live wall is exhausted; the dead wall is never drawn")
        tile = self._take_tile(wall, wall.head, p.tile, seat)
        self._moved_on(hand)
        wall.head += 1
        hand.seats[seat].counts[tile] += 1
        if hand.calls.pop(seat, None) is not None:
            pass  # WMC-4.2: touching the wall waives his claim on the last discard
        second = hand.phase is Phase.DISCARD and seat is hand.turn
        self._finding(
            "WMC-4.2",
            f"{seat.name} drew a second tile"
            if second
            else f"{seat.name} drew out of turn (the wall was {hand.turn.name}'s to draw from)",
            seat,
        )
        self._check_count(hand, seat)

    def _lapse_calls(self, hand: HandState) -> None:
        """Calls not made good before the next draw: an empty claim (WMC-11.3) or an empty win
        (WMC-11.7); the referee picks the tiles to reveal as penalty tiles."""
        for caller, call in sorted(hand.calls.items()):
            said = (hand.call_seq[caller],) if caller in hand.call_seq else ()
            if call is CallKind.WIN:
                self._finding(
                    "WMC-11.7",
                    f"{caller.name} called a win and did not show the hand (empty win): "
                    "three tiles revealed as penalty tiles (all if three or fewer)",
                    caller,
                    penalty="penalty_tiles",
                    evidence=said,
                )
            else:
                self._finding(
                    "WMC-11.3",
                    f"{caller.name} called {call} and did not make it (empty claim): two tiles "
                    "revealed as penalty tiles (the referee may pick)",
                    caller,
                    penalty="penalty_tiles",
                    evidence=said,
                )
        hand.calls = {}

    def _check_count(self, hand: HandState, seat: Wind) -> None:
        """WMC-10.1: 13 tiles off turn, 14 before one's discard (a kong counts 3); a wrong count
        is a dead hand for the rest of the hand (10.2)."""
        me = hand.seats[seat]
        want = 14 if hand.phase is Phase.DISCARD and seat is hand.turn else 13
        size = me.size
        if size == want:
            return
        level = "long" if size > want else "short"
        if me.dead in ("long", level):
            return  # already dead at least as heavily (a short hand may still turn long)
        self._bar(hand, seat, "WMC-10.1", level)
        self._finding(
            "WMC-10.1",
            f"{seat.name} holds {size} tiles where {want} are due: a {level} hand "
            + (
                "(no win, claim or kong this hand, WMC-10.2)"
                if level == "long"
                else "(no win this hand, WMC-10.2)"
            ),
            seat,
            severity=Severity.CRITICAL,
            penalty="no_claims" if level == "long" else "no_win",
        )

    def _replacement(self, p: ReplacementDraw) -> None:
        hand = self._hand("WMC-5.5", "replacement draw")
        if (
            hand.phase is Phase.DISCARD
            and p.seat is hand.turn
            and hand.after is not TurnStart.CLAIM
            and not hand.early_replacement
        ):
            self._early_replacement(hand, p)
            return
        if hand.phase is not Phase.REPLACE or p.seat is not hand.turn:
            raise Rejected("WMC-5.5", "a replacement draw only follows one's own kong", p.seat)
        wall = hand.wall
        tile = self._take_tile(wall, wall.tail_index(wall.tail), p.tile, p.seat)
        self._moved_on(hand)  # WMC-11.5: a wrong kong is final after the replacement draw
        wall.tail += 1
        if wall.dead_size and wall.tail % 2 == 1:
            self._derive(
                "dead_wall_adjusted",
                rule="WMC-6.4",
                note="lower tile of the half stack to the dead wall; the upper is the seabed",
            )
        hand.seats[p.seat].counts[tile] += 1
        hand.robbable = None
        hand.calls = {}
        hand.phase = Phase.DISCARD
        if hand.replacing == "flower" and hand.resume is not None:
            hand.turn, hand.after = hand.resume
            if hand.turn is p.seat:
                hand.drawn = tile
        else:
            hand.turn = p.seat
            hand.after = TurnStart.REPLACEMENT
            hand.after_kong = True
            hand.drawn = tile
        hand.resume = None
        hand.replacing = ""

    def _early_replacement(self, hand: HandState, p: ReplacementDraw) -> None:
        """WMC-5.5: the kong must be shown before the replacement draw, else it may be ruled a
        long hand. The tile is taken; the kong shown next completes the act."""
        wall = hand.wall
        if wall.live <= 0:
            raise Rejected("WMC-6.2", "no kong once the live wall is exhausted", p.seat)
        tile = self._take_tile(wall, wall.tail_index(wall.tail), p.tile, p.seat)
        wall.tail += 1
        hand.seats[p.seat].counts[tile] += 1
        hand.early_replacement = True
        self._finding(
            "WMC-5.5",
            f"{p.seat.name} drew the replacement before showing a kong: may be ruled a long hand "
            "(WMC-10.2)",
            p.seat,
            penalty="no_claims",
        )

    def _flower(self, p: FlowerSetAside) -> None:
        hand = self._hand("MCR-flowers", "flower")
        if not self.profile.flowers:
            raise Rejected("WMC-1.1", "WMC has no flowers (136 tiles)", p.seat)
        if not is_flower(p.tile) or hand.seats[p.seat].counts[p.tile] < 1:
            raise Rejected("MCR-flowers", f"{p.seat.name} holds no {tile_name(p.tile)}", p.seat)
        if hand.phase is not Phase.DISCARD or not (hand.pre_play or p.seat is hand.turn):
            raise Rejected("MCR-flowers", "a flower is set aside on one's own turn", p.seat)
        hand.seats[p.seat].counts[p.tile] -= 1
        hand.seats[p.seat].flowers.append(p.tile)
        if hand.wall.live <= 0:
            # Nothing left to replace it: the hand can only end drawn (MCR; cf. WMC-6.3).
            hand.phase = Phase.WINDOW
            hand.riverbed = True
            hand.last_discard = None
            hand.turn = NEXT[p.seat]
            self._derive("no_replacement", seat=p.seat.name, rule="WMC-6.3")
            return
        hand.resume = (hand.turn, hand.after)
        hand.replacing = "flower"
        hand.turn = p.seat
        hand.phase = Phase.REPLACE

    def _discard(self, p: Discard) -> None:
        hand = self._playing("discard")
        seat, tile = p.seat, p.tile
        early = False
        if hand.phase is not Phase.DISCARD or seat is not hand.turn:
            if hand.phase is Phase.REPLACE and seat is hand.turn:
                raise Rejected("WMC-5.5", "discard before the kong's replacement draw", seat)
            if not (hand.phase is Phase.WINDOW and seat is hand.turn):
                raise Rejected("WMC-4.1", f"{seat.name} discarded out of turn", seat)
            early = True  # WMC-4.3: discarded before drawing — the tile is in the river now
        me = hand.seats[seat]
        counts = me.counts
        if is_flower(tile):
            raise Rejected("MCR-flowers", "a flower is set aside, never discarded", seat)
        if p.penalty or counts[tile] < 1:
            self._discard_penalty_tile(me, seat, tile)
        else:
            counts[tile] -= 1
        if me.penalty_live:
            me.penalty_dead += me.penalty_live  # WMC-9.2: not discarded now → dead
            me.penalty_live = []
        if p.area is not None or p.index is not None:
            self._river_place(me, seat, p)
        if hand.own_call is not None:
            self._empty_own_call(hand)
        if early:
            if hand.calls:
                self._lapse_calls(hand)
            self._finding("WMC-4.3", f"{seat.name} discarded before drawing", seat)
        me.river.append(tile)
        hand.discards.append((seat, tile))
        hand.last_discard = (seat, tile)
        hand.riverbed = hand.wall.live == 0
        hand.calls = {}
        hand.unmerged = None
        hand.pre_play = False
        hand.drawn = None
        hand.phase = Phase.WINDOW
        hand.turn = NEXT[seat]
        if early or hand.early_replacement:
            hand.early_replacement = False
            self._check_count(hand, seat)

    def _discard_penalty_tile(self, me: SeatState, seat: Wind, tile: Tile) -> None:
        """WMC-9.2: a live penalty tile may be discarded; a dead one never."""
        if tile in me.penalty_live:
            me.penalty_live.remove(tile)
            return
        if tile in me.penalty_dead:
            raise Rejected(
                "WMC-9.2",
                f"{seat.name}'s {tile_name(tile)} is a dead penalty tile: it may never be "
                "discarded",
                seat,
            )
        raise Rejected("WMC-10.1", f"{seat.name} does not hold {tile_name(tile)}", seat)

    def _river_place(self, me: SeatState, seat: Wind, p: Discard) -> None:
        """WMC-4.6: own river area, rows of 6, left to right — the next free place."""
        want = len(me.river)
        if p.area is not None and p.area is not seat:
            where = f"in {p.area.name}'s river area"
        elif p.index is not None and p.index != want:
            where = f"at place {p.index + 1} (row {p.index // 6 + 1}) instead of place {want + 1}"
        else:
            return
        self._finding(
            "WMC-4.6",
            f"{seat.name}'s discard lies {where}; it counts as {seat.name}'s discard, and a wrong "
            "claim it leads to is the discarder's responsibility",
            seat,
            severity=Severity.WARNING,
            penalty="warning",
        )

    def _empty_own_call(self, hand: HandState) -> None:
        """A kong or win said on one's own turn, then a discard: WMC-11.4 (no penalty as a
        rule) or an empty win, WMC-11.7."""
        assert hand.own_call is not None
        seat, call, said = hand.own_call
        hand.own_call = None
        if call is CallKind.WIN:
            self._finding(
                "WMC-11.7",
                f"{seat.name} called a self-drawn win and discarded (empty win): three tiles "
                "revealed as penalty tiles",
                seat,
                penalty="penalty_tiles",
                evidence=(said,),
            )
        else:
            self._finding(
                "WMC-11.4",
                f"{seat.name} called kong on his own turn and did not make it (empty kong): "
                "normally no penalty",
                seat,
                severity=Severity.INFO,
                evidence=(said,),
            )

    # ---- claims (WMC-5.x, 4.4) ---------------------------------------------------------------

    def _call(self, p: Call) -> None:
        hand = self._hand("WMC-5.2", "call")
        seat = p.seat
        if (
            hand.phase is Phase.DISCARD
            and seat is hand.turn
            and p.call in (CallKind.KONG, CallKind.WIN)
        ):
            said = hand.own_call
            if said is not None and said[0] is seat and said[1] is not p.call:
                self._claim_changed(seat, said[1], p.call, said[2], excused=False)
            hand.own_call = (seat, p.call, self._seq)  # own-turn kong or self-drawn win
            return
        if hand.phase is Phase.REPLACE and hand.robbable is not None:
            if seat is hand.turn or p.call is not CallKind.WIN:
                raise Rejected("WMC-5.6", "only a win may be called on an added kong", seat)
            hand.calls[seat] = p.call
            hand.call_seq[seat] = self._seq
            return
        if hand.last_discard is None or hand.phase not in (Phase.WINDOW, Phase.DISCARD):
            raise Rejected("WMC-5.1", f"{seat.name} called {p.call} with no discard to claim", seat)
        discarder = hand.last_discard[0]
        if seat is discarder:
            raise Rejected("WMC-5.1", "a player cannot claim his own discard", seat)
        before = hand.calls.get(seat)
        if before is not None and before is not p.call:
            mine = claims.rank(before, seat, discarder)
            excused = p.call is CallKind.WIN and any(
                other is not seat and claims.rank(call, other, discarder) < mine
                for other, call in hand.calls.items()
            )
            self._claim_changed(seat, before, p.call, hand.call_seq[seat], excused=excused)
        hand.calls[seat] = p.call
        hand.call_seq[seat] = self._seq

    def _claim_changed(
        self, seat: Wind, before: CallKind, now: CallKind, said: int, *, excused: bool
    ) -> None:
        """WMC-11.2: a called claim changed (or to a win) before exposing — no penalty unless
        too frequent: info each time, from the player's CLAIM_CHANGE_REPEAT-th change in the
        session a warning with a point-penalty proposal. Switching to a win when outranked is
        the claimer's right (WMC-5.7) and is not counted."""
        what = f"{seat.name} changed the call {before} to {now} before exposing"
        if excused:
            self._finding(
                "WMC-11.2",
                f"{what}: a switch to a win when outranked (WMC-5.7), not counted",
                seat,
                severity=Severity.INFO,
                evidence=(said,),
            )
            return
        st = self.state
        name = st.player_at(seat)
        n = st.claim_changes.get(name, 0) + 1
        st.claim_changes[name] = n
        if n < CLAIM_CHANGE_REPEAT:
            self._finding(
                "WMC-11.2",
                f"{what}: no penalty (change no. {n} of {name} this session)",
                seat,
                severity=Severity.INFO,
                evidence=(said,),
            )
            return
        self._finding(
            "WMC-11.2",
            f"{what}: change no. {n} of {name} this session — too frequent, the referee may "
            "penalise",
            seat,
            severity=Severity.WARNING,
            penalty="points",
            points=CLAIM_CHANGE_POINTS,
            evidence=(said,),
        )

    def _window(self, seat: Wind, kind: CallKind) -> tuple[Wind, Tile, bool]:
        """Check a claim may be made now: (discarder, tile, needs recall of an unmerged draw)."""
        hand = self._hand("WMC-5.1", f"{kind} claim")
        recall = False
        if hand.phase is Phase.WINDOW and hand.last_discard is not None:
            pass
        elif (
            hand.phase is Phase.DISCARD
            and hand.unmerged is not None
            and hand.last_discard is not None
            and kind is not CallKind.CHOW
            and seat is not hand.turn
        ):
            recall = True  # WMC-4.4: drawn but not merged → the tile goes back
        elif hand.phase is Phase.DISCARD and hand.after is TurnStart.DRAW and hand.discards:
            raise Rejected(
                "WMC-4.4",
                f"{kind} refused: claims end once the next player has drawn and merged",
                seat,
            )
        else:
            raise Rejected("WMC-5.1", f"{kind} refused: there is no discard to claim", seat)
        assert hand.last_discard is not None
        discarder, tile = hand.last_discard
        if seat is discarder:
            raise Rejected("WMC-5.1", "a player cannot claim his own discard", seat)
        dead = hand.seats[seat].dead
        if dead and (dead == "long" or kind is CallKind.WIN):
            raise Rejected(
                "WMC-10.2",
                f"{seat.name} has a {dead} hand: "
                + ("no win, claim or kong" if dead == "long" else "no win")
                + " this hand",
                seat,
            )
        if hand.riverbed and kind is not CallKind.WIN:
            raise Rejected("WMC-6.2", f"the riverbed tile may only be won on, never {kind}ed", seat)
        mine = claims.rank(kind, seat, discarder)
        for other, call in hand.calls.items():
            if other is seat or claims.rank(call, other, discarder) >= mine:
                continue
            if self._call_is_legal(other, call, discarder, tile):
                raise Rejected(
                    "WMC-5.7",
                    f"{seat.name}'s {kind} is outranked by {other.name}'s {call} "
                    "(win 1a/1b/1c > pung/kong > chow)",
                    seat,
                )
        return discarder, tile, recall

    def _spoken(self, seat: Wind, kind: CallKind) -> None:
        """WMC-5.2: every claim is spoken; an unspoken one stands here but is flagged."""
        hand = self.state.hand
        if hand is not None and seat not in hand.calls:
            self._alert(
                "WMC-5.2",
                f"{seat.name}'s {kind} was not spoken",
                seat,
                severity=Severity.WARNING,
                rejected=False,
            )

    def _call_is_legal(self, seat: Wind, call: CallKind, discarder: Wind, tile: Tile) -> bool:
        """WMC-5.7: only a legal claim has priority."""
        hand = self.state.hand
        assert hand is not None
        counts = hand.seats[seat].counts
        if call is CallKind.CHOW:
            return claims.can_chow(seat, discarder, counts, tile)
        if call is CallKind.PUNG:
            return claims.can_pung(counts, tile)
        if call is CallKind.KONG:
            return claims.can_exposed_kong(counts, tile)
        grown = list(counts)
        grown[tile] += 1
        return shapes.is_complete(grown, len(hand.seats[seat].melds))

    def _recall(self, hand: HandState) -> None:
        """WMC-4.4: the next player's unmerged draw goes back to the wall."""
        tile = hand.unmerged
        assert tile is not None
        wall = hand.wall
        wall.head -= 1
        wall.tiles[wall.order[wall.head]] = tile
        hand.seats[hand.turn].counts[tile] -= 1
        if hand.seabed_seat is hand.turn:
            hand.seabed_seat = None
        hand.unmerged = None
        self._derive("draw_recalled", seat=hand.turn.name, rule="WMC-4.4")

    def _take_discard(self, hand: HandState, discarder: Wind) -> None:
        self._moved_on(hand)  # WMC-11.5: the wrong melder's discard was claimed
        hand.seats[discarder].river.pop()
        hand.last_discard = None
        hand.calls = {}
        hand.claims_made += 1

    def _chow(self, p: Chow) -> None:
        discarder, tile, _recall = self._window(p.seat, CallKind.CHOW)
        hand = self.state.hand
        assert hand is not None
        tiles = tuple(sorted(p.tiles))
        not_left = claims.relative(p.seat, discarder) is not Relative.LEFT
        if not_left or tiles not in claims.chow_options(hand.seats[p.seat].counts, tile):
            if len(tiles) == 3 and tile in tiles and self._holds(hand, p.seat, tiles, tile):
                why = "from a player who is not his left" if not_left else "is not a run"
                rule = "WMC-5.4" if not_left else "WMC-11.1"
                self._wrong_meld(hand, p.seat, "chow", tiles, (discarder, tile), why, rule)
                return
            raise Rejected(
                "WMC-5.4",
                f"chow {format_tiles(p.tiles)} is not a run with {tile_name(tile)} "
                "and two tiles from the hand",
                p.seat,
            )
        self._spoken(p.seat, CallKind.CHOW)
        counts = hand.seats[p.seat].counts
        for t in tiles:
            if t != tile:
                counts[t] -= 1
        self._take_discard(hand, discarder)
        hand.seats[p.seat].melds.append(
            Meld(MeldKind.CHOW, tiles, claimed_from=Relative.LEFT, claimed_tile=tile)
        )
        self._to_turn(hand, p.seat, TurnStart.CLAIM)

    def _pung(self, p: Pung) -> None:
        discarder, tile, recall = self._window(p.seat, CallKind.PUNG)
        hand = self.state.hand
        assert hand is not None
        counts = hand.seats[p.seat].counts
        shown = tuple(sorted(p.tiles)) if p.tiles is not None else (tile,) * 3
        if shown != (tile,) * 3:
            if len(shown) != 3 or tile not in shown or not self._holds(hand, p.seat, shown, tile):
                raise Rejected(
                    "WMC-5.3",
                    f"pung {format_tiles(shown)}: three tiles with {tile_name(tile)}, the others "
                    "from the hand",
                    p.seat,
                )
            claim = (discarder, tile)
            self._wrong_meld(hand, p.seat, "pung", shown, claim, "is not a pung", recall=recall)
            return
        if not claims.can_pung(counts, tile):
            self._penalty_tiles_in_claim(hand.seats[p.seat], p.seat, tile, 2)
            raise Rejected("WMC-5.3", f"pung needs a pair of {tile_name(tile)} in hand", p.seat)
        self._spoken(p.seat, CallKind.PUNG)
        if recall:
            self._recall(hand)
        counts[tile] -= 2
        self._take_discard(hand, discarder)
        hand.seats[p.seat].melds.append(
            Meld(
                MeldKind.PUNG,
                (tile,) * 3,
                claimed_from=claims.relative(p.seat, discarder),
                claimed_tile=tile,
            )
        )
        self._to_turn(hand, p.seat, TurnStart.CLAIM)

    @staticmethod
    def _holds(hand: HandState, seat: Wind, shown: tuple[Tile, ...], claimed: Tile | None) -> bool:
        """The concealed hand holds the shown tiles (less one copy of the claimed discard)."""
        held = list(shown)
        if claimed is not None:
            held.remove(claimed)
        counts = hand.seats[seat].counts
        return all(t < NUM_KINDS and counts[t] >= held.count(t) for t in set(held))

    def _wrong_meld(
        self,
        hand: HandState,
        seat: Wind,
        kind: str,
        shown: tuple[Tile, ...],
        claimed: tuple[Wind, Tile] | None,
        why: str,
        rule: str = "WMC-11.1",
        *,
        recall: bool = False,
    ) -> None:
        """The record follows the table: a set exposed that is no legal set (or a claim that was
        not legal, WMC-5.4) stands as exposed, apart from the legal melds, until it is corrected
        at once (``meld_corrected``: WMC-11.1) or play moves on (WMC-11.5, :meth:`_moved_on`)."""
        me = hand.seats[seat]
        if claimed is not None:
            self._spoken(seat, CallKind(kind))
            if recall:
                self._recall(hand)
        held = list(shown)
        if claimed is not None:
            held.remove(claimed[1])
        for t in held:
            me.counts[t] -= 1
        after = hand.after
        if claimed is not None:
            self._take_discard(hand, claimed[0])  # settles an earlier wrong meld first
        me.wrong_melds.append((kind, shown))
        hand.wrong_meld = WrongMeld(
            seat, self._seq, kind, len(me.wrong_melds) - 1, claimed, after, rule
        )
        self._alert(
            rule,
            f"{seat.name}'s {kind} {format_tiles(shown)} {why}: corrected at once, the wrongly "
            "exposed tiles become penalty tiles (WMC-11.1); once play moves on it stands and "
            + (
                "the hand may not win, claim or kong (WMC-11.5)"
                if kind == "kong"
                else "the hand cannot win (WMC-11.5)"
            ),
            seat,
            severity=Severity.VIOLATION if rule == "WMC-5.4" else Severity.WARNING,
            rejected=False,
        )
        if kind == "kong":
            self._start_replacement(hand, seat, None)
        else:
            self._to_turn(hand, seat, TurnStart.CLAIM)

    def _moved_on(self, hand: HandState) -> None:
        """WMC-11.5: play moved on (the wrong melder's discard was claimed, the next player drew,
        the kong's replacement was drawn) — the wrong meld cannot be corrected any more: no win
        this hand; a wrong kong also bars claims and kongs (as a long hand)."""
        wrong = hand.wrong_meld
        if wrong is None:
            return
        hand.wrong_meld = None
        seat = wrong.seat
        long = wrong.kind == "kong"
        self._bar(hand, seat, "WMC-11.5", "long" if long else "short")
        tiles = hand.seats[seat].wrong_melds[wrong.index][1]
        self._finding(
            "WMC-11.5",
            f"{seat.name}'s wrong {wrong.kind} {format_tiles(tiles)} was not corrected before "
            "play moved on: it stands, and "
            + ("the hand may not win, claim or kong (as a long hand)" if long else "cannot win"),
            seat,
            severity=Severity.CRITICAL,
            penalty="no_claims" if long else "no_win",
            evidence=(wrong.seq,),
        )

    def _meld_corrected(self, p: MeldCorrected) -> None:
        """WMC-11.1: a wrong meld put right at once — to a legal set, or withdrawn; the wrongly
        exposed hand tiles become live penalty tiles."""
        hand = self._playing("meld corrected")
        seat = p.seat
        wrong = hand.wrong_meld
        if wrong is None or wrong.seat is not seat:
            raise Rejected(
                "WMC-11.5",
                f"{seat.name} has no wrong meld open to correction: once play moved on a meld "
                "cannot be corrected",
                seat,
            )
        me = hand.seats[seat]
        kind, shown = me.wrong_melds[wrong.index]
        claimed = wrong.claimed
        spare = list(shown)  # exposed tiles from the hand (not the claimed discard)
        if claimed is not None:
            spare.remove(claimed[1])
        if p.tiles:
            meld = self._corrected_set(hand, wrong, tuple(sorted(p.tiles)))
            need = list(meld.tiles)
            if claimed is not None:
                need.remove(claimed[1])
            from_hand: list[Tile] = []
            for t in need:
                if t in spare:
                    spare.remove(t)
                else:
                    from_hand.append(t)
            if not self._holds(hand, seat, tuple(from_hand), None):
                raise Rejected(
                    "WMC-11.1",
                    f"{seat.name} cannot make {format_tiles(meld.tiles)} from the exposed tiles "
                    "and his hand",
                    seat,
                )
            for t in from_hand:
                me.counts[t] -= 1
            me.melds.append(meld)
            done = f"corrected to {meld.kind} {format_tiles(meld.tiles)}"
        else:
            self._withdraw(hand, wrong)
            done = "withdrawn" + (
                f"; {claimed[0].name}'s {tile_name(claimed[1])} is claimable again"
                if claimed is not None
                else ""
            )
        me.wrong_melds.pop(wrong.index)
        hand.wrong_meld = None
        me.penalty_live += spare
        self._finding(
            "WMC-11.1",
            f"{seat.name}'s wrong {kind} {format_tiles(shown)} {done} at once: "
            + (
                f"{format_tiles(spare)} wrongly exposed become live penalty tiles"
                if spare
                else "no tile was wrongly exposed"
            ),
            seat,
            severity=Severity.VIOLATION if spare else Severity.INFO,
            penalty="penalty_tiles" if spare else "",
            evidence=(wrong.seq,),
        )

    def _corrected_set(self, hand: HandState, wrong: WrongMeld, tiles: tuple[Tile, ...]) -> Meld:
        """The legal set a wrong meld is corrected to: a kong stays a kong; a claim may become
        a pung or (from the left player) a chow of the claimed discard."""
        seat = wrong.seat
        claimed = wrong.claimed
        bad = Rejected("WMC-11.1", f"{format_tiles(tiles)} is no legal set here", seat)
        if claimed is None:
            if len(tiles) != 4 or len(set(tiles)) != 1:
                raise bad
            return Meld(MeldKind.KONG, tiles, concealed=True)
        discarder, tile = claimed
        if tile not in tiles:
            raise bad
        side = claims.relative(seat, discarder)
        if wrong.kind == "kong":
            if tiles != (tile,) * 4:
                raise bad
            return Meld(MeldKind.KONG, tiles, claimed_from=side, claimed_tile=tile)
        if tiles == (tile,) * 3:
            return Meld(MeldKind.PUNG, tiles, claimed_from=side, claimed_tile=tile)
        try:
            meld = Meld(MeldKind.CHOW, tiles, claimed_from=side, claimed_tile=tile)
        except HandError:
            raise bad from None
        if side is not Relative.LEFT:
            raise bad
        return meld

    def _withdraw(self, hand: HandState, wrong: WrongMeld) -> None:
        """The wrong claim (or concealed kong) taken back before the claimer discarded (or drew
        the replacement): the discard lies again, claimable, and the turn is as before."""
        seat = wrong.seat
        claimed = wrong.claimed
        if wrong.kind == "kong":
            ok = hand.phase is Phase.REPLACE and hand.turn is seat
        else:
            ok = hand.phase is Phase.DISCARD and hand.turn is seat and hand.after is TurnStart.CLAIM
        if not ok:
            raise Rejected(
                "WMC-11.1",
                f"{seat.name} already discarded: the wrong meld can only be corrected to a legal "
                "set now",
                seat,
            )
        hand.replacing = ""
        hand.robbable = None
        hand.calls = {}
        hand.drawn = None
        if claimed is None:
            hand.phase = Phase.DISCARD
            hand.after = wrong.after
            return
        discarder, tile = claimed
        hand.seats[discarder].river.append(tile)
        hand.last_discard = claimed
        hand.claims_made -= 1
        hand.phase = Phase.WINDOW
        hand.turn = NEXT[discarder]

    def _bar(
        self, hand: HandState, seat: Wind, rule: str, level: str, *, proposed: bool = True
    ) -> None:
        """Restrict a seat (WMC-10.2: "long" no win, claim or kong; "short" no win) under the id
        of the proposal that goes with it, so that a referee's dismissal lifts it."""
        bar = proposal_id(rule, self._seq, seat)
        hand.seats[seat].restrict(bar, level)
        if proposed:
            kind = PenaltyKind.NO_CLAIMS if level == "long" else PenaltyKind.NO_WIN
            hand.bar_ledger.propose(Proposal(bar, rule, seat, kind, 0, "", hand.number, 0.0))

    def _decision(self, p: PenaltyDecision) -> None:
        """WMC-0.3: a referee dismissed (or revoked) a proposal whose restriction the engine
        applied — lift it. The decision is checked by the same ledger rules as the duties'
        (referee.penalties), so both agree; one that cannot apply changes nothing here (the
        duties answer it with a WMC-0.3 alert)."""
        hand = self.state.hand
        if hand is None or hand.phase is Phase.IDLE:
            return
        entry = hand.bar_ledger.entries.get(p.proposal)
        if entry is None:
            return
        try:
            hand.bar_ledger.decide(
                Decision(p.proposal, Verdict(p.verdict), p.referee, p.reason, 0.0, p.points)
            )
        except LedgerError:
            return
        if entry.status not in (Status.DISMISSED, Status.REVOKED):
            return
        seat = entry.proposal.seat
        me = hand.seats[seat]
        if me.lift(p.proposal):
            self._derive(
                "restriction_lifted",
                seat=seat.name,
                proposal=p.proposal,
                rule=entry.proposal.rule,
                verdict=p.verdict,
                referee=p.referee,
                dead=me.dead or None,
            )

    @staticmethod
    def _penalty_tiles_in_claim(me: SeatState, seat: Wind, tile: Tile, need: int) -> None:
        """WMC-9.3, 9.5: penalty tiles may never be used in an exposed set (a wrong claim)."""
        if me.counts[tile] + me.penalty.count(tile) >= need:
            raise Rejected(
                "WMC-9.5",
                f"{seat.name} needs penalty tiles for this set: they may never be used in a "
                "chow, pung or kong (a wrong claim, WMC-11)",
                seat,
            )

    def _to_turn(self, hand: HandState, seat: Wind, after: TurnStart) -> None:
        hand.turn = seat
        hand.after = after
        hand.after_kong = False
        hand.drawn = None
        hand.phase = Phase.DISCARD

    def _kong(self, p: Kong) -> None:
        seat, tile = p.seat, p.tile
        if p.kind is KongKind.EXPOSED:
            discarder, claimed, recall = self._window(seat, CallKind.KONG)
            hand = self.state.hand
            assert hand is not None
            if claimed != tile:
                raise Rejected("WMC-5.5", f"the discard is {tile_name(claimed)}", seat)
            shown = tuple(sorted(p.tiles)) if p.tiles is not None else (tile,) * 4
            if shown != (tile,) * 4:
                if len(shown) != 4 or tile not in shown or not self._holds(hand, seat, shown, tile):
                    raise Rejected(
                        "WMC-5.5",
                        f"kong {format_tiles(shown)}: four tiles with {tile_name(tile)}, the "
                        "others from the hand",
                        seat,
                    )
                self._kong_room(hand, seat)
                claim = (discarder, tile)
                self._wrong_meld(hand, seat, "kong", shown, claim, "is not a kong", recall=recall)
                return
            if not claims.can_exposed_kong(hand.seats[seat].counts, tile):
                self._penalty_tiles_in_claim(hand.seats[seat], seat, tile, 3)
                raise Rejected(
                    "WMC-5.5",
                    f"an exposed kong needs a concealed pung of {tile_name(tile)} "
                    "(a discard cannot be added to an exposed pung)",
                    seat,
                )
            self._kong_room(hand, seat)
            self._spoken(seat, CallKind.KONG)
            if recall:
                self._recall(hand)
            hand.seats[seat].counts[tile] -= 3
            self._take_discard(hand, discarder)
            hand.seats[seat].melds.append(
                Meld(
                    MeldKind.KONG,
                    (tile,) * 4,
                    claimed_from=claims.relative(seat, discarder),
                    claimed_tile=tile,
                )
            )
            self._start_replacement(hand, seat, None)
            return
        hand = self._hand("WMC-5.5", "kong")
        if hand.phase is not Phase.DISCARD or seat is not hand.turn:
            raise Rejected("WMC-5.5", f"{p.kind} kong only on one's own turn", seat)
        if hand.seats[seat].dead == "long":
            raise Rejected("WMC-10.2", f"{seat.name} has a long hand: no kong this hand", seat)
        if hand.seabed_seat is seat and hand.after is TurnStart.DRAW:
            raise Rejected("WMC-6.2", "the player who drew the seabed may not kong", seat)
        self._kong_room(hand, seat)
        me = hand.seats[seat]
        if p.kind is KongKind.CONCEALED:
            if hand.after is TurnStart.CLAIM:
                raise Rejected("WMC-5.5", "no concealed kong right after a chow or pung", seat)
            shown = tuple(sorted(p.tiles)) if p.tiles is not None else (tile,) * 4
            if shown != (tile,) * 4:
                if len(shown) != 4 or not self._holds(hand, seat, shown, None):
                    raise Rejected(
                        "WMC-5.5", f"{seat.name} does not hold {format_tiles(shown)}", seat
                    )
                self._own_kong_spoken(hand, seat, KongKind.CONCEALED)
                self._wrong_meld(hand, seat, "kong", shown, None, "is not a kong")
                return
            if me.counts[tile] < 4:
                raise Rejected("WMC-5.5", f"a concealed kong needs four {tile_name(tile)}", seat)
            me.counts[tile] -= 4
            me.melds.append(Meld(MeldKind.KONG, (tile,) * 4, concealed=True))
            self._own_kong_spoken(hand, seat, KongKind.CONCEALED)
            self._start_replacement(hand, seat, None)
            return
        index = next(
            (k for k, m in enumerate(me.melds) if m.kind is MeldKind.PUNG and m.first == tile),
            -1,
        )
        if index < 0:
            raise Rejected(
                "WMC-5.5", f"an added kong needs an exposed pung of {tile_name(tile)}", seat
            )
        meld = me.melds[index]
        if me.counts[tile] < 1:
            raise Rejected(
                "WMC-5.5", f"{seat.name} does not hold the fourth {tile_name(tile)}", seat
            )
        me.counts[tile] -= 1
        me.melds[index] = Meld(
            MeldKind.KONG,
            (tile,) * 4,
            claimed_from=meld.claimed_from,
            claimed_tile=meld.claimed_tile,
        )
        self._own_kong_spoken(hand, seat, KongKind.ADDED)
        self._start_replacement(hand, seat, tile)

    def _own_kong_spoken(self, hand: HandState, seat: Wind, kind: KongKind) -> None:
        """WMC-5.2/5.5: a kong is said before it is shown; an added kong shown without the call
        may be ruled a discard (chowable)."""
        said = hand.own_call is not None and hand.own_call[1] is CallKind.KONG
        hand.own_call = None
        if said:
            return
        if kind is KongKind.ADDED:
            self._finding(
                "WMC-5.5",
                f"{seat.name} showed the added kong's tile without saying kong: it may be ruled "
                "a discard",
                seat,
                severity=Severity.WARNING,
                penalty="warning",
            )
        else:
            self._alert(
                "WMC-5.2",
                f"{seat.name}'s concealed kong was not spoken",
                seat,
                severity=Severity.WARNING,
                rejected=False,
            )

    def _kong_room(self, hand: HandState, seat: Wind) -> None:
        if hand.wall.live <= 0:
            raise Rejected("WMC-6.2", "no kong once the live wall is exhausted", seat)

    def _start_replacement(self, hand: HandState, seat: Wind, robbable: Tile | None) -> None:
        if hand.early_replacement:
            # WMC-5.5: the replacement was drawn before the kong was shown (alerted then)
            hand.early_replacement = False
            hand.turn = seat
            hand.phase = Phase.DISCARD
            hand.after = TurnStart.REPLACEMENT
            hand.after_kong = True
            hand.calls = {}
            hand.last_discard = None
            return
        hand.turn = seat
        hand.phase = Phase.REPLACE
        hand.replacing = "kong"
        hand.robbable = robbable
        hand.calls = {}
        hand.unmerged = None
        hand.last_discard = None
        hand.pre_play = False if hand.discards else hand.pre_play

    # ---- wins (WMC-7.x, 12.x) ----------------------------------------------------------------

    def _win(self, p: WinDeclared) -> None:
        seat = p.seat
        hand = self._hand("WMC-7.2", "win")
        dead = hand.seats[seat].dead
        if dead and hand.phase is not Phase.IDLE:
            raise Rejected("WMC-10.2", f"{seat.name} has a {dead} hand: no win this hand", seat)
        if hand.phase is Phase.DISCARD and seat is hand.turn:
            if hand.after is TurnStart.CLAIM:
                raise Rejected(
                    "WMC-7.2", "a win after a chow or pung must be claimed on the discard", seat
                )
            hand.own_call = None
            found = self._evaluate(seat, None)
            if found is None:
                return
            result, winning = found
            self._settle(hand, seat, WinBy.SELF, None, winning, result)
            return
        if hand.phase is Phase.REPLACE:
            if hand.robbable is None or seat is hand.turn:
                raise Rejected(
                    "WMC-5.6",
                    "only an added kong can be robbed; a concealed kong never "
                    "(an exposed kong's discard had to be won before the kong)",
                    seat,
                )
            konger = hand.turn
            tile = hand.robbable
            mine = claims.rank(CallKind.WIN, seat, konger)
            for other, call in hand.calls.items():
                if (
                    other is not seat
                    and claims.rank(call, other, konger) < mine
                    and self._call_is_legal(other, call, konger, tile)
                ):
                    raise Rejected("WMC-5.7", f"{other.name}'s win has priority", seat)
            found = self._evaluate(seat, tile, robbing=True)
            if found is None:
                return
            result, winning = found
            me = hand.seats[konger]
            for i, meld in enumerate(me.melds):
                if meld.kind is MeldKind.KONG and meld.first == tile and not meld.concealed:
                    me.melds[i] = Meld(
                        MeldKind.PUNG,
                        (tile,) * 3,
                        claimed_from=meld.claimed_from,
                        claimed_tile=meld.claimed_tile,
                    )
                    break
            self._settle(hand, seat, WinBy.DISCARD, konger, winning, result)
            return
        discarder, tile, recall = self._window(seat, CallKind.WIN)
        found = self._evaluate(seat, tile)
        if found is None:
            return
        result, winning = found
        self._spoken(seat, CallKind.WIN)
        self._moved_on(hand)  # WMC-11.5: the discard was claimed (won)
        if recall:
            self._recall(hand)
        hand.seats[discarder].river.pop()
        self._settle(hand, seat, WinBy.DISCARD, discarder, winning, result)

    def winning_hand(self, seat: Wind, tile: Tile | None, *, robbing: bool = False) -> WinningHand:
        """The hand a win by ``seat`` would show: on ``tile`` (a discard or a robbed kong) or,
        with ``tile=None``, self-drawn on the tile that made 14. Raises HandError if impossible.
        """
        st = self.state
        hand = st.hand
        assert hand is not None
        me = hand.seats[seat]
        concealed = [t for t in range(NUM_KINDS) for _ in range(me.counts[t])]
        if me.penalty_live or me.penalty_dead:
            concealed = sorted(concealed + me.penalty_live + me.penalty_dead)  # WMC-9.3
        flags: set[Flag] = set()
        if tile is None:
            win_by = WinBy.SELF
            drawn = hand.drawn
            if drawn is None or drawn not in concealed:
                drawn = concealed[-1] if concealed else 0
            concealed.remove(drawn)
            win_tile = drawn
            if hand.after is TurnStart.DEAL and seat is Wind.E and hand.pre_play:
                flags.add(Flag.HEAVEN)
            if hand.after_kong:
                flags.add(Flag.WIN_ON_KONG)
            if hand.seabed_seat is seat and hand.after is TurnStart.DRAW:
                flags.add(Flag.FINAL_DRAW)
        else:
            win_by = WinBy.DISCARD
            win_tile = tile
            if robbing:
                flags.add(Flag.ROBBING_KONG)
            elif hand.riverbed:
                flags.add(Flag.FINAL_DISCARD)
            if (
                not robbing
                and len(hand.discards) == 1
                and hand.discards[0][0] is Wind.E
                and hand.claims_made == 0
                and not any(s.melds for s in hand.seats)
            ):
                flags.add(Flag.EARTH)
        if st.profile.name == "mcr" and self._visible(win_tile, seat, tile is not None) == 3:
            flags.add(Flag.LAST_OF_KIND)
        return WinningHand(
            concealed=tuple(concealed),
            win_tile=win_tile,
            win_by=win_by,
            melds=tuple(me.melds),
            seat=seat,
            prevalent=st.prevalent,
            flowers=len(me.flowers),
            flags=frozenset(flags),
        )

    def _visible(self, tile: Tile, seat: Wind, on_discard: bool) -> int:
        hand = self.state.hand
        assert hand is not None
        n = -1 if on_discard and hand.last_discard is not None else 0
        for s in hand.seats:
            n += s.river.count(tile)
            for m in s.melds:
                n += m.tiles.count(tile)
        return max(n, 0)

    def check_win(
        self, seat: Wind, tile: Tile | None, *, robbing: bool = False
    ) -> ScoreResult | None:
        """The score a win would get now (None if the hand cannot be a win): for players."""
        try:
            hand = self.winning_hand(seat, tile, robbing=robbing)
        except HandError:
            return None
        return self.scorer(hand, self.state.profile.name)

    def _evaluate(
        self, seat: Wind, tile: Tile | None, *, robbing: bool = False
    ) -> tuple[ScoreResult, WinningHand] | None:
        """The win's score, or None after a false win (WMC-11.6) was recorded."""
        try:
            winning = self.winning_hand(seat, tile, robbing=robbing)
        except HandError as exc:
            self._false_win(seat, f"WMC-7.1: {exc}")
            return None
        result = self.scorer(winning, self.state.profile.name)
        if not result.valid:
            reason = result.reason or "no winning shape"
            self._false_win(seat, reason if "WMC-" in reason else f"WMC-7.1: {reason}")
            return None
        if tile is not None:
            barred = penalty_tile_bar(self.state.hand, seat, tile)  # type: ignore[arg-type]
            if barred:
                raise Rejected(barred[0], f"{seat.name} cannot win on a discard: {barred[1]}", seat)
        return result, winning

    def _false_win(self, seat: Wind, reason: str) -> None:
        """WMC-11.6: a false win with the hand shown — play continues, and every tile shown
        (the whole concealed hand) becomes a live penalty tile."""
        hand = self.state.hand
        assert hand is not None
        me = hand.seats[seat]
        shown = [t for t in range(NUM_KINDS) for _ in range(me.counts[t])]
        for t in shown:
            me.counts[t] -= 1
        me.penalty_live += shown
        hand.calls.pop(seat, None)
        self._finding(
            "WMC-11.6",
            f"false win by {seat.name} ({reason}): play continues; the shown tiles "
            f"{format_tiles(shown)} become penalty tiles",
            seat,
            penalty="penalty_tiles",
        )

    def _settle(
        self,
        hand: HandState,
        seat: Wind,
        win_by: WinBy,
        discarder: Wind | None,
        winning: WinningHand,
        result: ScoreResult,
    ) -> None:
        st = self.state
        history = list(hand.discards)
        settlement = settle(
            st.profile.name,
            result.total,
            seat,
            win_by,
            discarder,
            history,
            win_tile=winning.win_tile,
            follow_suit=st.follow_suit,
        )
        hand.seats[seat].counts[winning.win_tile] += 1 if win_by is WinBy.DISCARD else 0
        by_seat = tuple(st.player_at(w) for w in WINDS)
        res = HandResult(
            hand=hand.number,
            dealer=st.player_at(Wind.E),
            winner=seat,
            winner_name=st.player_at(seat),
            win_by=win_by,
            discarder=discarder,
            win_tile=winning.win_tile,
            value=result.total,
            patterns=result.patterns,
            deltas=dict(settlement.deltas),
            liable=settlement.liable,
            rule=settlement.rule,
            flags=tuple(sorted(str(f) for f in winning.flags)),
            players=(by_seat[0], by_seat[1], by_seat[2], by_seat[3]),
            marks=tuple(hand.marks),
        )
        for w, delta in settlement.deltas.items():
            name = st.player_at(w)
            st.scores[name] = st.scores.get(name, 0) + delta
        self._derive("hand_scored", **res.to_dict())
        self._end_hand(hand, res)

    def _exhaustive(self, _p: Payload) -> None:
        hand = self._hand("WMC-6.3", "exhaustive draw")
        if not (hand.phase is Phase.WINDOW and hand.riverbed):
            raise Rejected(
                "WMC-6.3",
                f"exhaustive draw declared with {hand.wall.live} live tile(s) left and no "
                "riverbed discard",
            )
        st = self.state
        e, s, w, n = (st.player_at(seat) for seat in WINDS)
        self._end_hand(hand, HandResult(hand=hand.number, dealer=e, players=(e, s, w, n)))

    def _end_hand(self, hand: HandState, result: HandResult) -> None:
        st = self.state
        hand.phase = Phase.IDLE
        if hand.marks:
            result = replace(result, marks=tuple(hand.marks))
        st.results.append(result)
        st.hands_played += 1
        st.dealer_place = st.hands_played % 4
        self._derive(
            "hand_ended",
            hand=hand.number,
            result=result.outcome,
            next_dealer=st.players[st.dealer_place],
            rule="WMC-2.4",
        )
        if st.hands_played % 4 == 0:
            self._derive("round_ended", round=st.hands_played // 4, rule="WMC-8.2")
        if st.hands_played % 8 == 0:
            self._derive("half_ended", half=st.hands_played // 8, rule="WMC-8.1")

    def _machine(self, p: MachineEvent) -> None:
        """A message from the automatic table: no effect on the game (the game events it implies
        are logged after it); an alert it carries is raised, and the event stands."""
        alert = p.alert
        if alert is not None:
            self._alert(
                alert.rule, alert.message, severity=Severity(alert.severity), rejected=False
            )

    # ---- penalty tiles and dead hands (WMC-9, 10, 4.9) ---------------------------------------

    def _tiles_exposed(self, p: TilesExposed) -> None:
        """WMC-9.1: tiles shown from a concealed hand become live penalty tiles."""
        hand = self._playing("tiles exposed")
        me = hand.seats[p.seat]
        need = [0] * NUM_KINDS
        for t in p.tiles:
            need[t] += 1
            if t >= NUM_KINDS or me.counts[t] < need[t]:
                raise Rejected(
                    "WMC-9.1", f"{p.seat.name} holds no concealed {tile_name(t)}", p.seat
                )
        for t in p.tiles:
            me.counts[t] -= 1
        me.penalty_live += p.tiles
        self._finding(
            "WMC-9.1",
            f"{p.seat.name} exposed {format_tiles(p.tiles)}: live penalty tiles, discardable at "
            "the current or next discard only (9.2), never in a set (9.3)",
            p.seat,
            severity=Severity.WARNING,
            penalty="penalty_tiles",
        )

    def _penalty_returned(self, p: PenaltyTilesReturned) -> None:
        """A referee returns penalty tiles to the concealed hand (WMC-0.3)."""
        hand = self._playing("penalty tiles returned")
        me = hand.seats[p.seat]
        for t in p.tiles:
            if t in me.penalty_live:
                me.penalty_live.remove(t)
            elif t in me.penalty_dead:
                me.penalty_dead.remove(t)
            else:
                raise Rejected("WMC-9.1", f"{tile_name(t)} is not a penalty tile", p.seat)
            me.counts[t] += 1

    def _wall_flipped(self, p: WallFlipped) -> None:
        """WMC-4.9: the next wall tile flipped on one's own turn must be taken as a live penalty
        tile (no claim on the last discard); any other flip is a warning."""
        hand = self._playing("wall flipped")
        seat = p.seat
        if p.next and hand.phase is Phase.WINDOW and seat is hand.turn and hand.wall.live > 0:
            wall = hand.wall
            tile = self._take_tile(wall, wall.head, p.tile, seat)
            self._moved_on(hand)
            wall.head += 1
            hand.seats[seat].penalty_live.append(tile)
            hand.after = TurnStart.DRAW
            hand.after_kong = False
            hand.phase = Phase.DISCARD
            hand.last_discard = None
            hand.calls = {}
            hand.unmerged = None
            hand.drawn = None
            if hand.wall.live == 0:
                hand.seabed_seat = seat
                self._derive("seabed_drawn", seat=seat.name)
            self._finding(
                "WMC-4.9",
                f"{seat.name} flipped his next wall tile {tile_name(tile)}: he must take it as a "
                "live penalty tile; no claim on the last discard",
                seat,
                severity=Severity.WARNING,
                penalty="penalty_tiles",
            )
            return
        self._finding(
            "WMC-4.9",
            f"{seat.name} flipped a wall tile "
            + (
                "out of turn: the rightful drawer may take it or have it shuffled back"
                if p.next
                else "that was not his to draw: the referee shuffles it with 12+ nearby tiles"
            ),
            seat,
            severity=Severity.WARNING,
            penalty="warning",
        )

    def _dead_hand(self, p: DeadHand) -> None:
        """A referee's dead-hand ruling (WMC-10.2, e.g. after WMC-5.5 or 11.5)."""
        hand = self._playing("dead hand")
        self._bar(hand, p.seat, "WMC-10.2", "long" if p.long else "short", proposed=False)

    def _revealed(self, p: HandRevealed) -> None:
        hand = self.state.hand
        if hand is None:
            raise Rejected("WMC-7.4", "no hand to reveal", p.seat)
        counts = hand.seats[p.seat].counts
        have = [t for t in range(NUM_KINDS) for _ in range(counts[t])]
        if sorted(p.tiles) != have and hand.wall.known:
            self._alert(
                "WMC-7.4",
                f"{p.seat.name} showed {format_tiles(sorted(p.tiles))}; "
                f"the record says {format_tiles(have)}",
                p.seat,
                severity=Severity.WARNING,
                rejected=False,
            )


def penalty_tile_bar(hand: HandState, seat: Wind, tile: Tile) -> tuple[str, str] | None:
    """WMC-9.3/9.4 for a win on a discard: (rule, why) when only penalty tiles can complete it.

    9.3: the set (or single-wait pair) the discard completes may not hold a penalty tile;
    9.4: Seven Pairs may not pair a penalty tile, Thirteen Terminals may not win on a tile equal
    to one, and not at all on a discard with three or more penalty tiles.
    """
    me = hand.seats[seat]
    penalty = me.penalty_live + me.penalty_dead
    if not penalty:
        return None
    free = list(me.counts[:NUM_KINDS])  # concealed tiles that are not penalty tiles
    allc = list(free)
    for t in penalty:
        allc[t] += 1
    allc[tile] += 1
    melds = len(me.melds)
    if shapes.is_thirteen_terminals(allc) and not melds:
        if len(penalty) >= 3 or tile in penalty:
            return "WMC-9.4", "Thirteen Terminals with penalty tiles (self-drawn only)"
        return None
    groups: list[tuple[Tile, ...]] = [(tile, tile), (tile, tile, tile)]
    groups += claims.chow_options(free, tile)
    for group in groups:
        rest = list(allc)
        for t in group:
            rest[t] -= 1
        held = list(group)
        held.remove(tile)  # the discard itself is no penalty tile
        if any(held.count(t) > free[t] for t in set(held)):
            continue
        if len(group) == 2:  # the pair: the rest must be sets only
            spare = next((h for h in range(NUM_KINDS - 1, 26, -1) if rest[h] == 0), None)
            if spare is None:
                continue
            rest[spare] += 2  # lend a pair of an absent honour
        if shapes.is_regular_complete(rest):
            return None
    if shapes.is_seven_pairs(allc) and not melds and free[tile] >= 1:
        return None
    return "WMC-9.3", "the set the discard completes would hold a penalty tile"


def _ignore(_p: Payload) -> None:
    """Observations and referee decisions do not change the game state."""
