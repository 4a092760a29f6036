"""The engine's shared base: the entry point, alerts and derived events, and the helpers every phase
of a hand uses (the hand in play, restrictions, play moving on, the kong's replacement turn).

``apply(event)`` is the only way the state changes. It returns a :class:`Step`: the state, the
events the engine derived (wall broken, hand scored, round ended …) and the alerts. No I/O, no
clock, no randomness: time is the events' ``ts``.

What stands (WMC-0.4, 一事不再理): the events are what the camera, the microphones and the referee
saw happen, so an irregular action is applied — the record follows the table — and its consequence
is ruled and cited (:meth:`TableBase._finding`, ``rejected=False``): a discard out of turn or
before the draw is a short hand, a draw out of turn a long one (WMC-4.2, 4.3, 10.1). What the
rules let be put right "at once" (a wrong meld, a misread discard) can be corrected until play
moves on (:meth:`TableBase._moved_on`), then it stands. Only what cannot have happened — a tile
the seat cannot hold, a fifth copy, a claim of a tile that is not there, an act with no hand in
play — is refused (:class:`Rejected`, ``rejected=True``): the state stays as it was, and the
events after it are read against the table as it is.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from referee.events import (
    EngineEvent,
    Event,
)
from referee.game.alerts import (
    SYS_CLOCK,
    SYS_END,
    SYS_PARTED,
    SYS_SEQ,
    Alert,
    Severity,
    damage_mark,
    proposal_id,
)
from referee.game.profile import Profile, profile
from referee.game.state import (
    HandResult,
    HandState,
    Phase,
    TableState,
    TurnStart,
)
from referee.hands import Wind, WinningHand
from referee.penalties import PenaltyKind, Proposal
from referee.scoring import score
from referee.scoring.result import ScoreResult
from referee.tiles import Tile, format_tiles

Scorer = Callable[[WinningHand, str], ScoreResult]

CLOCK_SLACK = 2.0
"""Seconds the table clock may run back between events before it is a finding (SYS-clock):
sources stamp their own events, so small steps back between them are ordinary."""
PLAY_MOVES = frozenset({"draw", "replacement_draw", "discard"})
"""The events whose refusals in a row say the record parted from the table (SYS-parted)."""
HAND_OPENERS = frozenset({"session_started", "seat_draw", "wall_built"})
"""The events that come before a hand's deal: a hole just before one may hold the end of the
hand in play as well as the start of the next."""


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


class TableBase:
    """State, the output of one step, and the helpers the phase layers share."""

    _handlers: dict[str, Callable[[Any], None]]
    """Event type → handler; filled by :class:`~referee.game.table.Table`, the top layer."""

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
        self._ts = 0.0  # the event's time (WMC-5.4 reads the wait between a call and a chow)
        self._handlers = {}

    def apply(self, event: Event) -> Step:
        st = self.state
        first_out = self._begin(event.seq)
        seq = event.seq
        self._ts = event.ts
        if seq <= st.last_seq:
            # Not a log event (the log holds each seq once): answered, but kept out of the state
            # and of the output stream, which stay a pure function of the log.
            self._alert(SYS_SEQ, f"duplicate seq {seq} (last applied {st.last_seq}); ignored")
            return Step(st, self._derived, self._alerts)
        if seq != st.last_seq + 1:
            lost = (
                f"{st.last_seq + 1}" if seq == st.last_seq + 2 else f"{st.last_seq + 1}–{seq - 1}"
            )
            self._record_finding(
                SYS_SEQ,
                f"events missing from the record: seq {seq} follows {st.last_seq} "
                f"(seq {lost} not received)",
                next_hand_too=event.type in HAND_OPENERS,
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
        self._before(event.type)
        handler = self._handlers.get(event.type)
        if handler is None:
            self._alert("SYS-type", f"unknown event type {event.type!r}")
        else:
            try:
                handler(event.payload)
            except Rejected as exc:
                self._alert(exc.rule, str(exc), exc.seat)
                if event.type in PLAY_MOVES:
                    self._refused_in_a_row()
        return self._finish(event, first_out)

    def _begin(self, seq: int) -> int:
        """A step starts: fresh lists for what it derives and alerts; the first output's seq."""
        self._derived, self._alerts = [], []
        self._seq = seq
        return self.state.out_seq

    def _finish(self, event: Event | None, first_out: int) -> Step:
        """A step ends: a damaged hand's alerts say so (no penalty on them), and the outputs
        join the state and the engine's stream."""
        st, alerts = self.state, self._alerts
        damaged = damage_mark(st.hand.marks) if st.hand is not None else ""
        if damaged:
            alerts[:] = [
                a if a.rule.startswith("SYS-") else replace(a, damaged=damaged) for a in alerts
            ]
        st.alerts.extend(alerts)
        st.out_seq = first_out + len(self._derived) + len(alerts)
        return Step(st, self._derived, alerts, event, first_out)

    def _refused_in_a_row(self) -> None:
        """A refusal leaves the state as it was, and the next events are read against it; two
        draws or discards refused in a row say the record may have parted from the table (a
        lost or misread event before them) — refused calls and claims are answered, play goes
        on. Said once a hand, for a referee to compare the record with the table (WMC-0.4)."""
        st, seq = self.state, self._seq
        before, st.last_refused = st.last_refused, seq
        hand = st.hand
        if before != seq - 1 or hand is None or hand.phase is Phase.IDLE:
            return
        if any(m.startswith(SYS_PARTED) for m in hand.marks):
            return
        hand.marks.append(f"{SYS_PARTED}@{before}")
        self._alert(
            SYS_PARTED,
            f"seq {before} and {seq} were both refused: the record may have parted from the "
            f"table at seq {before} (an event lost or misread before it); what follows is read "
            "against the record as it stands, so a referee should compare it with the table",
            severity=Severity.WARNING,
            rejected=False,
        )

    def end_of_log(self) -> Step:
        """The record ends here (a replayed file, not a live table): a hand still in play has no
        result, a finding for a referee (SYS-end). The state is left as it is."""
        last = self._last
        first_out = self._begin(last.seq if last is not None else -1)
        hand = self.state.hand
        if hand is not None and hand.phase is not Phase.IDLE and last is not None:
            self._before("end_of_log")
            hand.marks.append(f"{SYS_END}@{self._seq}")
            self._alert(
                SYS_END,
                f"the record ends inside hand {hand.number + 1} ({hand.phase.name.lower()}, "
                f"last seq {self._seq}): the hand has no result",
                severity=Severity.CRITICAL,
                rejected=False,
            )
        return self._finish(last, first_out)

    def _before(self, type_: str) -> None:
        """Called before each event's handler (and at ``end_of_log``): a layer that keeps
        something waiting for a later event (a win for its hand shown) closes it here."""

    def apply_all(self, events: Sequence[Event]) -> list[Alert]:
        out: list[Alert] = []
        for ev in events:
            out.extend(self.apply(ev).alerts)
        return out

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
        """An irregularity that happened at the table: it stands in the record (WMC-0.4: the
        record follows the table, refusing it would part the two), and the alert — with the
        consequence and the penalty the rules fix — goes to a referee, who may reverse it."""
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

    def _record_finding(self, rule: str, message: str, next_hand_too: bool = False) -> None:
        """The record itself is damaged here: a warning, and the hand it falls in (the next one,
        between hands) is marked for a referee (EVENTS.md, "A damaged record"). A hole found in
        play by an event that opens a hand (``next_hand_too``) may hold the next hand's start
        (its seating) as well as this one's end: both are marked."""
        st = self.state
        mark = f"{rule}@{self._seq}"
        hand = st.hand
        in_play = hand is not None and hand.phase is not Phase.IDLE
        if hand is not None and in_play:
            hand.marks.append(mark)
        if not in_play or next_hand_too:
            st.next_marks.append(mark)
        self._alert(rule, message, severity=Severity.WARNING, rejected=False)

    def _derive(self, type_: str, **payload: Any) -> None:
        self._derived.append(Derived(type_, payload, self._seq))

    def _hand(self, rule: str, what: str) -> HandState:
        hand = self.state.hand
        if hand is None or hand.phase is Phase.IDLE:
            raise Rejected(rule, f"{what}: no hand is in play")
        return hand

    def _playing(self, what: str) -> HandState:
        hand = self._hand("WMC-4.1", what)
        if hand.phase < Phase.DISCARD:
            raise Rejected("WMC-3.4", f"{what} before the deal is complete")
        return hand

    @property
    def profile(self) -> Profile:
        return self.state.profile

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
