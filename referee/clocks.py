"""Turn and hand clocks, pauses and lateness (WMC-13.1 – 13.4), driven by event timestamps.

Pure: no clock is read here. Every method takes the timestamp (seconds) of the event that
moves the clocks, and returns the penalty proposals it gives rise to; ``view(now)`` shows the
live state for the dashboard. The referee decides: these are proposals (WMC-0.3).

How time is attributed (WMC-13.1): a turn runs from the previous discard (when drawing) or from
the claimed discard (when claiming) until the player's own discard; after a kong the replacement
draw starts a new turn. So the clock of the player expected next starts at each discard, moves to
a claimer if one claims, and is charged when that player discards. Time while the table is
paused, the first 15 s after the deal (WMC-13.2) and time a player was asked to wait (13.2) do
not count. Both limits apply at once: 5 points per started 15 s over the 15-s turn, and 5 per
started 15 s over the 3-minute hand bank; more than 80 points in a hand → forfeit (13.3).
Pauses and lateness cost 5 per started 30 s; more than 150 points in a half → forfeit (13.4).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import StrEnum

from referee.hands import Wind

TURN_LIMIT = 15.0  # seconds per turn (WMC-13.1)
BANK_LIMIT = 180.0  # seconds per player per hand (WMC-13.1)
UNTIMED_AFTER_DEAL = 15.0  # WMC-13.2
OVERRUN_STEP = 15.0  # 5 points per started 15 s of overrun (WMC-13.1)
PAUSE_STEP = 30.0  # 5 points per started 30 s of pause (WMC-13.4)
POINTS_PER_STEP = 5
HAND_FORFEIT_OVER = 80  # WMC-13.3
HALF_FORFEIT_OVER = 150  # WMC-13.4
ABSENT_AFTER = 300.0  # more than 5 minutes late may be ruled absent (WMC-13.4)
_NAMES = {Wind.E: "East", Wind.S: "South", Wind.W: "West", Wind.N: "North"}
_EPS = 1e-9  # timestamps are floats: 15.000000001 s is not a started step


class Kind(StrEnum):
    TURN = "turn overrun"
    BANK = "hand bank overrun"
    PAUSE = "pause"
    LATENESS = "lateness"
    FORFEIT = "forfeit"
    ABSENT = "absent"


@dataclass(frozen=True, slots=True)
class ClockProposal:
    """A proposed penalty from the clocks; ``points`` is 0 for a forfeit proposal."""

    rule: str
    seat: Wind
    kind: Kind
    points: int
    ts: float
    message: str


@dataclass(frozen=True, slots=True)
class SeatView:
    """What the dashboard shows per seat at one moment."""

    seat: Wind
    on_turn: bool
    turn_left: float  # negative once over
    bank_left: float  # negative once over
    hand_points: int
    half_pause_points: int
    timed: bool
    paused: bool


def started_steps(overrun: float, step: float) -> int:
    """How many started ``step``-second periods ``overrun`` seconds make (0 for none)."""
    if overrun <= _EPS:
        return 0
    return math.ceil(overrun / step - _EPS)


@dataclass(slots=True)
class _Seat:
    bank_used: float = 0.0
    bank_allowance: float = BANK_LIMIT
    bank_points: int = 0
    hand_points: int = 0
    forfeit_proposed: bool = False
    half_pause_points: int = 0
    half_forfeit_proposed: bool = False
    pause_since: float | None = None
    timed: bool = True


@dataclass(slots=True)
class TableClocks:
    """The clocks of one table, through hands and half sessions."""

    seats: dict[Wind, _Seat] = field(default_factory=lambda: {w: _Seat() for w in Wind})
    on_turn: Wind | None = None
    turn_since: float | None = None  # when the running turn started (None: no turn running)
    turn_extra: float = 0.0  # referee extension for the running turn
    untimed_until: float = 0.0  # the first 15 s after the deal (WMC-13.2)
    table_paused_since: float | None = None
    paused_total: float = 0.0  # table-paused seconds inside the running turn
    waiting: Wind | None = None  # a player asked to wait (WMC-13.2)
    wait_since: float | None = None
    first_discards: list[Wind] = field(default_factory=list)

    # ---- hand flow ---------------------------------------------------------------------------

    def deal_done(self, ts: float) -> list[ClockProposal]:
        """A new hand: banks refilled, East on turn, the first 15 s untimed (WMC-13.2)."""
        for s in self.seats.values():
            s.bank_used = 0.0
            s.bank_allowance = BANK_LIMIT
            s.bank_points = 0
            s.hand_points = 0
            s.forfeit_proposed = False
        self.untimed_until = ts + UNTIMED_AFTER_DEAL
        self.first_discards = []
        self.waiting = None
        self._start(Wind.E, ts)
        return []

    def discard(self, seat: Wind, ts: float) -> list[ClockProposal]:
        """The player's turn ends; the next player's clock starts (WMC-13.1). A discard out of
        turn (WMC-4.3) ends nobody's turn: the clock on turn runs on."""
        if self.on_turn is not None and seat is not self.on_turn:
            return []
        out = self._end_turn(seat, ts)
        if len(self.first_discards) < 2:
            self.first_discards.append(seat)
        self._start(Wind((seat + 1) % 4), ts)
        return out

    def claim(self, seat: Wind) -> list[ClockProposal]:
        """A claimer's turn runs from the claimed discard: the clock moves to him, unchanged."""
        self.on_turn = seat
        if self.waiting is not None and self.waiting is not seat:
            self.waiting = None
            self.wait_since = None
        return []

    def replacement_draw(self, seat: Wind, ts: float) -> list[ClockProposal]:
        """After a kong the replacement draw starts a new turn (WMC-13.1)."""
        out = self._end_turn(seat, ts)
        self._start(seat, ts)
        return out

    def draw(self, seat: Wind, ts: float) -> list[ClockProposal]:
        """A draw releases a wait request: the waiting time is not the drawer's (WMC-13.2)."""
        self._release_wait(ts)
        return []

    def hand_over(self, ts: float, *, declarer: Wind | None = None) -> list[ClockProposal]:
        """A win or exhaustive draw: the declarer's running turn is charged, the rest stop."""
        out: list[ClockProposal] = []
        if declarer is not None and self.on_turn is declarer:
            out = self._end_turn(declarer, ts)
        self.on_turn = None
        self.turn_since = None
        return out

    # ---- WMC-13.2 wait requests --------------------------------------------------------------

    def wait_request(self, requester: Wind, ts: float) -> tuple[bool, str]:
        """West or North asks South to wait after East's first discard; North asks West after
        South's. Returns (granted, reason)."""
        allowed: dict[tuple[Wind, ...], tuple[Wind, set[Wind]]] = {
            (Wind.E,): (Wind.S, {Wind.W, Wind.N}),
            (Wind.E, Wind.S): (Wind.W, {Wind.N}),
        }
        rule = allowed.get(tuple(self.first_discards))
        if ts > self.untimed_until + _EPS or rule is None:
            return False, "WMC-13.2: a wait may be asked only in the first 15 s after the deal"
        target, requesters = rule
        if requester not in requesters or self.on_turn is not target:
            names = " or ".join(_NAMES[w] for w in sorted(requesters))
            return False, f"WMC-13.2: only {names} may ask {_NAMES[target]} to wait now"
        self.waiting = target
        self.wait_since = ts
        return True, f"WMC-13.2: {target.name} waits at {requester.name}'s request"

    def wait_release(self, ts: float) -> None:
        self._release_wait(ts)

    # ---- referee controls --------------------------------------------------------------------

    def set_timed(self, seats: set[Wind]) -> None:
        """The referee decides whom to time (WMC-13.3)."""
        for w, s in self.seats.items():
            s.timed = w in seats

    def pause_table(self, ts: float) -> None:
        if self.table_paused_since is None:
            self.table_paused_since = ts

    def resume_table(self, ts: float) -> None:
        if self.table_paused_since is not None:
            if self.turn_since is not None:
                self.paused_total += max(0.0, ts - max(self.table_paused_since, self.turn_since))
            self.table_paused_since = None

    def extend(self, seat: Wind, seconds: float) -> None:
        """Extra time granted by a referee: to the running turn if the seat is on turn, else
        to the seat's hand bank."""
        if seat is self.on_turn and self.turn_since is not None:
            self.turn_extra += seconds
        else:
            self.seats[seat].bank_allowance += seconds

    def clear(self, seat: Wind, ts: float) -> None:
        """Restart the seat's running turn at ``ts`` (e.g. after a referee's intervention)."""
        if seat is self.on_turn:
            self.turn_since = ts
            self.paused_total = 0.0
            self.turn_extra = 0.0

    # ---- WMC-13.4 pauses and lateness --------------------------------------------------------

    def player_pause(self, seat: Wind, ts: float) -> None:
        """A player leaves the table (with a referee's approval); the table clock stops too."""
        self.seats[seat].pause_since = ts
        self.pause_table(ts)

    def player_back(self, seat: Wind, ts: float) -> list[ClockProposal]:
        s = self.seats[seat]
        if s.pause_since is None:
            return []
        seconds = ts - s.pause_since
        s.pause_since = None
        if all(x.pause_since is None for x in self.seats.values()):
            self.resume_table(ts)
        return self._pause_points(seat, seconds, ts, Kind.PAUSE)

    def lateness(self, seat: Wind, seconds: float, ts: float) -> list[ClockProposal]:
        """Lateness counts as pause time; over 5 minutes the player may be ruled absent."""
        out = self._pause_points(seat, seconds, ts, Kind.LATENESS)
        if seconds > ABSENT_AFTER + _EPS:
            out.append(
                ClockProposal(
                    "WMC-13.4",
                    seat,
                    Kind.ABSENT,
                    0,
                    ts,
                    f"{seat.name} was {seconds:.0f} s late: over 5 minutes may be ruled absent",
                )
            )
        return out

    def new_half(self) -> None:
        for s in self.seats.values():
            s.half_pause_points = 0
            s.half_forfeit_proposed = False

    # ---- the live view -----------------------------------------------------------------------

    def view(self, now: float) -> list[SeatView]:
        running = self._running(now)
        out = []
        for w, s in self.seats.items():
            on = w is self.on_turn and self.turn_since is not None
            turn_used = running if on else 0.0
            out.append(
                SeatView(
                    seat=w,
                    on_turn=on,
                    turn_left=TURN_LIMIT + (self.turn_extra if on else 0.0) - turn_used,
                    bank_left=s.bank_allowance - s.bank_used - turn_used,
                    hand_points=s.hand_points,
                    half_pause_points=s.half_pause_points,
                    timed=s.timed,
                    paused=s.pause_since is not None,
                )
            )
        return out

    # ---- internals ---------------------------------------------------------------------------

    def _start(self, seat: Wind, ts: float) -> None:
        self.on_turn = seat
        self.turn_since = ts
        self.turn_extra = 0.0
        self.paused_total = 0.0
        if self.table_paused_since is not None:
            self.table_paused_since = max(self.table_paused_since, ts)

    def _release_wait(self, ts: float) -> None:
        if self.waiting is not None and self.wait_since is not None:
            self.paused_total += max(0.0, ts - max(self.wait_since, self.untimed_until))
        self.waiting = None
        self.wait_since = None

    def _running(self, now: float) -> float:
        """Timed seconds of the running turn up to ``now``."""
        if self.turn_since is None:
            return 0.0
        start = max(self.turn_since, self.untimed_until)
        used = max(0.0, now - start) - self.paused_total
        if self.table_paused_since is not None:
            used -= max(0.0, now - max(self.table_paused_since, start))
        if self.waiting is not None and self.wait_since is not None:
            used -= max(0.0, now - max(self.wait_since, start))
        return max(0.0, used)

    def _end_turn(self, seat: Wind, ts: float) -> list[ClockProposal]:
        if seat is not self.on_turn or self.turn_since is None:
            return []
        self._release_wait(ts)
        used = self._running(ts)
        self.turn_since = None
        s = self.seats[seat]
        s.bank_used += used
        if not s.timed:
            return []
        out: list[ClockProposal] = []
        turn_steps = started_steps(used - TURN_LIMIT - self.turn_extra, OVERRUN_STEP)
        if turn_steps:
            points = turn_steps * POINTS_PER_STEP
            out.append(
                ClockProposal(
                    "WMC-13.1",
                    seat,
                    Kind.TURN,
                    points,
                    ts,
                    f"{seat.name} took {used:.2f} s for a 15-s turn: {points} points",
                )
            )
        bank_steps = started_steps(s.bank_used - s.bank_allowance, OVERRUN_STEP)
        new_bank = bank_steps * POINTS_PER_STEP - s.bank_points
        if new_bank > 0:
            s.bank_points += new_bank
            out.append(
                ClockProposal(
                    "WMC-13.1",
                    seat,
                    Kind.BANK,
                    new_bank,
                    ts,
                    f"{seat.name} has used {s.bank_used:.2f} s of the 3-minute hand bank: "
                    f"{new_bank} more points",
                )
            )
        s.hand_points += sum(p.points for p in out)
        if s.hand_points > HAND_FORFEIT_OVER and not s.forfeit_proposed:
            s.forfeit_proposed = True
            out.append(
                ClockProposal(
                    "WMC-13.3",
                    seat,
                    Kind.FORFEIT,
                    0,
                    ts,
                    f"{seat.name}: {s.hand_points} points of time penalties this hand "
                    "(serious overtime, over 80): forfeit unless justified",
                )
            )
        return out

    def _pause_points(
        self, seat: Wind, seconds: float, ts: float, kind: Kind
    ) -> list[ClockProposal]:
        s = self.seats[seat]
        steps = started_steps(seconds, PAUSE_STEP)
        if not steps:
            return []
        points = steps * POINTS_PER_STEP
        s.half_pause_points += points
        out = [
            ClockProposal(
                "WMC-13.4",
                seat,
                kind,
                points,
                ts,
                f"{seat.name}: {kind} of {seconds:.1f} s: {points} points (5 per started 30 s)",
            )
        ]
        if s.half_pause_points > HALF_FORFEIT_OVER and not s.half_forfeit_proposed:
            s.half_forfeit_proposed = True
            out.append(
                ClockProposal(
                    "WMC-13.4",
                    seat,
                    Kind.FORFEIT,
                    0,
                    ts,
                    f"{seat.name}: {s.half_pause_points} points of pause and lateness this "
                    "half (over 150): forfeit",
                )
            )
        return out
