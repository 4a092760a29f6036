"""The referee's duties at one table: the game engine, the clocks, the penalty ledger, the card.

``RefereeTable.apply(event)`` feeds one log event to all of them — pure, like the engine: no
I/O, no clock read (time is the events' ``ts``), so replaying a log re-derives every alert,
proposal, decision and score card. The engine's findings and the clocks' overruns become
penalty proposals with stable ids; referee events (clock controls, decisions, sign-off,
corrections) act on the clocks, the ledger and the card. The system proposes; referees decide
(WMC-0.3).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from referee.clocks import ClockProposal, TableClocks
from referee.events import (
    CardSigned,
    Chow,
    ClockCleared,
    ClockExtended,
    Discard,
    Draw,
    Event,
    HandRuled,
    Kong,
    KongKind,
    MeldCorrected,
    PenaltyDecision,
    PenaltyProposed,
    PlayerBack,
    PlayerLate,
    PlayerPaused,
    Pung,
    ReplacementDraw,
    ScoreCorrected,
    TimedSeats,
    WaitRequested,
    WinDeclared,
)
from referee.game.alerts import Alert, Severity, damage_mark
from referee.game.state import Phase, TableState
from referee.game.table import Derived, Scorer, Step, Table
from referee.hands import WinBy, Wind
from referee.penalties import (
    Decision,
    LedgerError,
    PenaltyKind,
    PenaltyLedger,
    Proposal,
    Verdict,
)
from referee.proposals import from_alert, from_clock
from referee.scoresheet import (
    HANDS_PER_CARD,
    Correction,
    Ruling,
    ScoreCard,
    SheetError,
    build_cards,
)
from referee.scoresheet import correction as make_correction
from referee.scoring.payments import settle

RESULT_RULE = "WMC-7.8"
"""Each hand's score goes on the card before the next hand: one without is a referee's to enter."""


@dataclass(frozen=True, slots=True)
class SeatClock:
    """The live clock of one seat (WMC-13.1): what the dashboard shows."""

    seat: Wind
    player: str
    on_turn: bool
    turn_left: float
    bank_left: float
    hand_points: int
    half_pause_points: int
    timed: bool
    paused: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "seat": self.seat.name,
            "player": self.player,
            "on_turn": self.on_turn,
            "turn_left": round(self.turn_left, 3),
            "bank_left": round(self.bank_left, 3),
            "hand_points": self.hand_points,
            "half_pause_points": self.half_pause_points,
            "timed": self.timed,
            "paused": self.paused,
        }


class RefereeTable:
    """Engine + clocks + penalty ledger + score card of one table session."""

    def __init__(
        self,
        table_id: str = "T1",
        session_id: str = "S1",
        profile_name: str = "wmc",
        *,
        scorer: Scorer | None = None,
    ) -> None:
        self.table = Table(table_id, session_id, profile_name, scorer=scorer)
        self.clocks = TableClocks()
        self.ledger = PenaltyLedger()
        self.corrections: list[Correction] = []
        self.rulings: dict[int, Ruling] = {}  # hand → the latest ruling on it
        self.signatures: dict[int, dict[str, float]] = {}  # half (1-based) → player → ts
        self.unspoken: dict[str, int] = {}  # WMC-5.2 count per player this session
        self.now = 0.0  # ts of the last event: the live view's clock

    @property
    def state(self) -> TableState:
        return self.table.state

    # ---- entry point -------------------------------------------------------------------------

    def apply(self, event: Event) -> Step:
        """Apply one event; the engine's Step comes back with the duties' alerts and proposals
        added (proposals as ``proposal`` derived events, in the same output stream)."""
        step = self.table.apply(event)
        if step.cause is None:  # a resend: answered, not part of the record
            return step
        self.now = max(self.now, event.ts)
        extra: list[Alert] = []
        proposals: list[Proposal] = []
        for alert in step.alerts:
            found = self._from_alert(alert, event.ts)
            if found is not None:
                proposals.append(found)
        if step.accepted:
            hand = self.state.hand
            damaged = damage_mark(hand.marks) if hand is not None else ""
            for clock in self._clocks(event, step):
                alert, proposal = from_clock(clock, event.seq, self._hand_index())
                if damaged:  # the turn may only seem long: an event of it is missing
                    extra.append(replace(alert, damaged=damaged, penalty="", points=0))
                    continue
                extra.append(alert)
                proposals.append(proposal)
        extra += self._without_result(step)
        extra += self._referee(event, proposals)
        for p in proposals:
            if self.ledger.propose(p):
                step.derived.append(Derived("proposal", _proposal_json(p), event.seq))
        if extra:
            step.alerts.extend(extra)
            self.state.alerts.extend(extra)
        self.state.out_seq = step.first_out + len(step.derived) + len(step.alerts)
        return step

    def end_of_log(self) -> Step:
        """The record ends here (a replayed file, not a live table): what it leaves open."""
        return self.table.end_of_log()

    def apply_all(self, events: Iterable[Event]) -> list[Alert]:
        out: list[Alert] = []
        for ev in events:
            out.extend(self.apply(ev).alerts)
        return out

    # ---- findings → proposals ----------------------------------------------------------------

    def _hand_index(self) -> int:
        st = self.state
        return st.hand.number if st.hand is not None else st.hands_played

    def _from_alert(self, alert: Alert, ts: float) -> Proposal | None:
        before = 0
        if alert.rule == "WMC-5.2" and alert.seat is not None and not alert.rejected:
            name = self.state.player_at(alert.seat)
            before = self.unspoken.get(name, 0)
            self.unspoken[name] = before + 1
        return from_alert(alert, self._hand_index(), ts, before)

    def _without_result(self, step: Step) -> list[Alert]:
        """A hand the engine closed without a result (its end never reached the record) is the
        referees' to settle or void (WMC-7.8): until then the card shows no result, not a draw."""
        out = []
        for d in step.derived:
            if d.type == "hand_ended" and d.payload.get("result") == "unfinished":
                n = int(d.payload["hand"]) + 1
                message = (
                    f"hand {n} has no result on the score card (its end never reached the "
                    "record): a referee enters it — the winner, from whom or self-drawn, and "
                    "the value, or a draw — or voids the hand"
                )
                out.append(Alert(RESULT_RULE, Severity.CRITICAL, message, d.cause, rejected=False))
        return out

    def unsettled(self) -> list[int]:
        """The hands (0-based) without a result that no referee has settled or voided yet."""
        results = self.state.results
        return [r.hand for r in results if r.unfinished and r.hand not in self.rulings]

    # ---- clocks (WMC-13.1–13.4) --------------------------------------------------------------

    def _clocks(self, event: Event, step: Step) -> list[ClockProposal]:
        c = self.clocks
        p = event.payload
        ts = event.ts
        kind = event.type
        out: list[ClockProposal] = []
        if kind == "deal":
            out = c.deal_done(ts)
        elif kind == "discard" and isinstance(p, Discard):
            out = c.discard(p.seat, ts)
        elif (kind in ("chow", "pung") and isinstance(p, Chow | Pung)) or (
            isinstance(p, Kong) and p.kind is KongKind.EXPOSED
        ):
            out = c.claim(p.seat)  # a wrong meld too: it stands until corrected (WMC-11.1)
        elif kind == "meld_corrected" and isinstance(p, MeldCorrected):
            hand = self.state.hand
            if hand is not None and hand.phase is Phase.WINDOW:
                out = c.claim(hand.turn)  # a withdrawn claim: the turn is the next player's again
        elif kind == "replacement_draw" and isinstance(p, ReplacementDraw):
            out = c.replacement_draw(p.seat, ts)
        elif kind == "draw" and isinstance(p, Draw):
            out = c.draw(p.seat, ts)
        elif kind in ("win", "exhaustive_draw"):
            if any(d.type == "hand_ended" for d in step.derived):
                out = c.hand_over(ts, declarer=p.seat if isinstance(p, WinDeclared) else None)
        elif kind == "timed_seats" and isinstance(p, TimedSeats):
            c.set_timed(set(p.seats))
        elif kind == "table_paused":
            c.pause_table(ts)
        elif kind == "table_resumed":
            c.resume_table(ts)
        elif kind == "clock_extended" and isinstance(p, ClockExtended):
            c.extend(p.seat, p.seconds)
        elif kind == "clock_cleared" and isinstance(p, ClockCleared):
            c.clear(p.seat, ts)
        elif kind == "player_paused" and isinstance(p, PlayerPaused):
            c.player_pause(p.seat, ts)
        elif kind == "player_back" and isinstance(p, PlayerBack):
            out = c.player_back(p.seat, ts)
        elif kind == "player_late" and isinstance(p, PlayerLate):
            out = c.lateness(p.seat, p.seconds, ts)
        elif kind == "wait_released":
            c.wait_release(ts)
        if any(d.type == "half_ended" for d in step.derived):
            c.new_half()
        return out

    # ---- referee events: requests, decisions, the card ---------------------------------------

    def _referee(self, event: Event, proposals: list[Proposal]) -> list[Alert]:
        p = event.payload
        seq = event.seq
        try:
            if isinstance(p, WaitRequested):
                granted, why = self.clocks.wait_request(p.seat, event.ts)
                if not granted:
                    return [_refused("WMC-13.2", why, seq, p.seat)]
            elif isinstance(p, PenaltyProposed):
                proposals.append(
                    Proposal(
                        f"ref@{seq}",
                        p.rule,
                        p.seat,
                        PenaltyKind(p.kind),
                        p.points,
                        p.reason or f"proposed by referee {p.referee}",
                        self._hand_index(),
                        event.ts,
                        (seq,),
                    )
                )
            elif isinstance(p, PenaltyDecision):
                self.ledger.decide(
                    Decision(
                        p.proposal, Verdict(p.verdict), p.referee, p.reason, event.ts, p.points
                    )
                )
            elif isinstance(p, CardSigned):
                self._sign(p.player, event.ts)
            elif isinstance(p, ScoreCorrected):
                if p.hand >= len(self.state.results):
                    raise SheetError(f"hand {p.hand + 1} is not on the card yet")
                self.corrections.append(
                    make_correction(p.hand, p.player, p.points, p.reason, p.referee)
                )
            elif isinstance(p, HandRuled):
                self.rulings[p.hand] = self.ruling(p)
        except LedgerError as exc:
            return [_refused("WMC-0.3", str(exc), seq)]
        except SheetError as exc:
            return [_refused("WMC-8.1", str(exc), seq)]
        return []

    def ruling(self, p: HandRuled) -> Ruling:
        """What a referee's ruling on a hand without a result (or a marked one) puts on the card
        in the hand's row, in place of what the record had (WMC-7.8, 8.1); SheetError: why it
        cannot stand. Pure: the dashboard checks a ruling with it before sending it."""
        results = self.state.results
        if p.hand >= len(results):
            raise SheetError(f"hand {p.hand + 1} is not on the card yet")
        make_correction(p.hand, "", 0, p.reason, p.referee)  # checks the reason and referee
        result = results[p.hand]
        if not result.unfinished and not result.marks:
            raise SheetError(
                f"hand {p.hand + 1} has a result ({result.outcome.replace('_', ' ')}) and no "
                "mark: a referee corrects its amounts (score_corrected), not rules it"
            )
        players = result.players
        named = [n for n in (p.winner, p.discarder) if n is not None] + list(p.payments)
        unknown = sorted(set(named) - set(players))
        if unknown:
            raise SheetError(
                f"{', '.join(unknown)} did not play hand {p.hand + 1}; expected some of "
                f"{', '.join(players)}"
            )
        if p.ruling == "void":
            if p.payments or p.winner or p.discarder or p.value is not None:
                raise SheetError("a void ruling takes no result: the hand scores 0 for everyone")
            payments = dict.fromkeys(players, 0)
        elif p.winner is not None:
            payments = self._win_payments(p, players)
            given = {name: p.payments.get(name, 0) for name in players}
            if p.payments and given != payments:
                raise SheetError(
                    f"the payments given ({_amounts(given)}) are not what the win pays "
                    f"({_amounts(payments)}): give the winner and value, or the payments"
                )
        else:
            if p.discarder is not None or p.value is not None:
                raise SheetError("a discarder or a value needs the winner; a draw has neither")
            payments = {name: p.payments.get(name, 0) for name in players}
            if sum(payments.values()):
                raise SheetError(
                    f"the settled payments add up to {sum(payments.values()):+d}, not 0"
                )
        return Ruling(
            p.hand,
            p.ruling,
            payments,
            p.reason,
            p.referee,
            p.winner,
            p.discarder if p.winner is not None else None,
            p.value or 0,
        )

    def _win_payments(self, p: HandRuled, players: tuple[str, ...]) -> dict[str, int]:
        """What a settled win pays each player, by the session's profile (WMC-12.4)."""
        assert p.winner is not None
        if p.value is None:
            raise SheetError(f"a settled win needs its value (the points of {p.winner}'s hand)")
        if p.discarder == p.winner:
            raise SheetError(
                f"{p.winner} cannot win on his own discard: name another discarder, or none "
                "for a self-drawn win"
            )
        winner = Wind(players.index(p.winner))
        discarder = None if p.discarder is None else Wind(players.index(p.discarder))
        how = WinBy.SELF if discarder is None else WinBy.DISCARD
        try:
            paid = settle(self.state.profile.scorer, p.value, winner, how, discarder)
        except ValueError as exc:
            raise SheetError(str(exc)) from exc
        return {players[w]: paid.deltas.get(w, 0) for w in Wind}

    def _ruled_changes(self) -> list[tuple[str, int]]:
        """Each ruling as the change it makes to a player's score against the record."""
        out = []
        for hand, ruling in sorted(self.rulings.items()):
            result = self.state.results[hand]
            for w in Wind:
                player = result.players[w]
                change = ruling.payments.get(player, 0) - result.deltas.get(w, 0)
                if change:
                    out.append((player, change))
        return out

    def _sign(self, player: str, ts: float) -> None:
        st = self.state
        played = st.hands_played
        if played == 0 or played % HANDS_PER_CARD:
            raise SheetError(
                f"{played % HANDS_PER_CARD} of {HANDS_PER_CARD} hands on the card: sign after "
                "the half"
            )
        half = played // HANDS_PER_CARD
        card = self.cards()[half - 1]
        card.sign(player, ts)
        self.signatures.setdefault(half, {})[player] = ts

    # ---- what the dashboard and the exports read ---------------------------------------------

    def view(self, now: float | None = None) -> list[SeatClock]:
        """Remaining turn time and hand bank per seat, at ``now`` (default: the last event)."""
        at = self.now if now is None else now
        st = self.state
        return [
            SeatClock(
                v.seat,
                st.player_at(v.seat),
                v.on_turn,
                v.turn_left,
                v.bank_left,
                v.hand_points,
                v.half_pause_points,
                v.timed,
                v.paused,
            )
            for v in self.clocks.view(at)
        ]

    def cards(self) -> list[ScoreCard]:
        """The score cards (WMC-8.1) with confirmed penalties, corrections and signatures."""
        st = self.state
        cards = build_cards(
            st.table_id, st.session_id, st.results, self.ledger, self.corrections, self.rulings
        )
        for card in cards:
            card.signatures = dict(self.signatures.get(card.half, {}))
        return cards

    def wins(self) -> list[tuple[str, int]]:
        """(winner, value) of each hand won, as the card has it: a referee's ruling in place of
        what the record had."""
        out = []
        for r in self.state.results:
            ruling = self.rulings.get(r.hand)
            if ruling is not None:
                if ruling.winner is not None:
                    out.append((ruling.winner, ruling.value))
            elif r.winner is not None:
                out.append((r.players[r.winner], r.value))
        return out

    def totals(self) -> dict[str, int]:
        """Scores after confirmed point penalties and corrections, per player (from the log)."""
        st = self.state
        out = dict(st.scores)
        for entry in self.ledger.confirmed():
            name = self._player(entry.proposal.hand, entry.proposal.seat)
            out[name] = out.get(name, 0) - entry.points
        for c in self.corrections:
            out[c.player] = out.get(c.player, 0) + c.points
        for player, change in self._ruled_changes():
            out[player] = out.get(player, 0) + change
        return out

    def _player(self, hand: int, seat: Wind) -> str:
        st = self.state
        if hand < len(st.results):
            return st.results[hand].players[seat]
        return st.player_at(seat)


def _amounts(payments: dict[str, int]) -> str:
    return ", ".join(f"{name} {points:+d}" for name, points in payments.items())


def _refused(rule: str, message: str, seq: int, seat: Wind | None = None) -> Alert:
    return Alert(rule, Severity.WARNING, message, seq, seat, rejected=True)


def _proposal_json(p: Proposal) -> dict[str, Any]:
    return {
        "id": p.id,
        "rule": p.rule,
        "seat": p.seat.name,
        "kind": str(p.kind),
        "points": p.points,
        "reason": p.reason,
        "hand": p.hand,
        "evidence": list(p.evidence),
    }


def replay(events: Iterable[Event]) -> RefereeTable | None:
    """A RefereeTable fed with a whole log (None for an empty one)."""
    duty: RefereeTable | None = None
    for ev in events:
        if duty is None:
            duty = RefereeTable(ev.table_id, ev.session_id)
        duty.apply(ev)
    return duty
