"""The record fusion keeps: changes waiting for a legal order, each reading of one tried on a
copy of the engine and weighed, the likeliest recorded (or told), and the unsure ones that play
went on past (module docstring of :mod:`referee.fusion`)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field

from referee.events import Event, Payload, Source, make_event
from referee.fusion.seen import FusionAlert, Option, ZoneSeen
from referee.game.alerts import Severity
from referee.game.table import Table
from referee.hands import Wind
from referee.tiles import Tile, format_tiles, tile_name

PENDING_S = 8.0  # an action the rules refuse now may wait this long for an earlier one
MIN_SHARE = 0.5  # an unsure reading likelier than all others together is recorded, and told
IRREGULAR = 0.1  # an irregularity is this much rarer than the camera misreading a tile
# what counts as one: a warning (a claim not spoken, where no microphone heard it) is no
# player's error that one reading makes and another does not
IRREGULARITIES = (Severity.VIOLATION, Severity.CRITICAL)
OUT_OF_ORDER = frozenset({"WMC-4.2", "WMC-4.3"})
"""Rulings that a reading is out of turn (a draw or discard before its time): the record takes
such an action when it happened (WMC-0.4), but a change the camera saw early may be one whose
earlier action it has not yet seen, so the reading waits like a refused one and is recorded,
with its ruling, only when ``PENDING_S`` passed with no reading in turn."""
NO_ACTION = "the change names no action the rules allow here"
DRAWS = ("draw", "replacement_draw")
FUSION_ILLEGAL = "FUSION-illegal"
FUSION_AMBIGUOUS = "FUSION-ambiguous"


@dataclass
class Record:
    """Feeds a :class:`Table` (already set up by the other sources: session, wall, deal) with
    the actions that changes imply, each once the rules allow it. ``next_seq`` continues the
    session's seq."""

    table: Table
    next_seq: int
    min_confidence: float = 0.7  # a reading is recorded when this likely among those allowed
    events: list[Event] = field(default_factory=list)
    alerts: list[FusionAlert] = field(default_factory=list)
    on_event: Callable[[Event], None] | None = None
    pending: list[Pending] = field(default_factory=list)
    doubts: list[Pending] = field(default_factory=list)  # unsure changes told, not recorded
    action_ts: float = float("-inf")  # the latest game action recorded
    now: float = float("-inf")  # the latest observation's time
    # slots whose tile the record now names (seat, zone, slot, tile): the reading the rules
    # took, which may not be the camera's likeliest; the camera takes them (``take_named``)
    named: list[tuple[Wind, str, int, Tile, bool]] = field(default_factory=list)

    def _draw_ts(self, obs: ZoneSeen) -> float:
        """When a draw that a change implies was made (by default: when it was seen)."""
        return obs.ts

    def _attempt(
        self,
        plan: Callable[[], list[Option]],
        obs: ZoneSeen,
        cite: str,
        key: tuple[Wind, int] | None = None,
        done: Callable[[], None] | None = None,
        idle: str = NO_ACTION,
        expired: Callable[[], None] | None = None,
    ) -> None:
        """Record the actions of the reading the rules take if they allow one now; else wait
        (another observation may come first in the legal order) until ``PENDING_S`` passed."""
        item = Pending(plan, obs, cite, key, done=done, expired=expired, idle=idle)
        self.pending.append(item)
        self._retry()
        self._expire(obs.ts)

    def _retry(self) -> None:
        progress = True
        while progress:
            progress = False
            for item in list(self.pending):
                if self._apply_plan(item):
                    self.pending.remove(item)
                    if item.done is not None:
                        item.done()
                    progress = True
                    break

    def _apply_plan(self, item: Pending) -> bool:
        weighed = self._weigh(item)
        if weighed is None:
            behind = self._doubt_behind(item)
            if behind is None:
                return False
            self._settle(*behind)  # play went on past an unsure reading: it was the likeliest
            return self._apply_plan(item)
        option, share, shares = weighed
        item.unsure = _agreeing(option, shares) <= MIN_SHARE
        if item.unsure:
            item.why = unsure(shares)
            return False  # waits: a surer reading, an earlier action, or play going past it
        if share < self.min_confidence:
            first, *others = readings_told(shares)
            self._alert(
                FUSION_AMBIGUOUS,
                f"{item.obs.seat.name}'s {item.obs.zone}: the camera's reading is not sure; "
                f"recorded {first}, the rules also allow {', '.join(others)}",
                item.obs,
                item.cite,
            )
        self._commit(item, option, share)
        return True

    def _weigh(
        self, item: Pending, in_turn: bool = True
    ) -> tuple[Option, float, list[tuple[Option, float]]] | None:
        """The likeliest reading the rules allow now (``in_turn``: none ruled out of turn), its
        share of the likelihood of all they allow, and every one's share; None when they allow
        none (``item.why`` says why)."""
        options = item.plan()
        if not options:
            item.why = item.idle
            return None
        allowed: list[tuple[Option, int]] = []  # a reading the rules take, the alerts it raises
        why, unnamed = "", 0.0
        for option in options:
            if not option.actions:  # the readings the camera did not name, together
                unnamed += option.likelihood
                continue
            events = self._events(option.actions, item, option.likelihood)
            raised = self._trial(events, item, in_turn=in_turn)
            why = why or item.why  # the likeliest reading's refusal is the one told
            if raised is not None:
                allowed.append((option, raised))
        if not allowed:
            item.why = why
            return None
        fewest = min(raised for _, raised in allowed)  # (alerts all readings raise aside)
        # readings that record the same actions are one (a laid-down hand with either of two
        # faces misread as the same tile), weighed together, named as the likeliest names it
        same: dict[str, tuple[Option, float]] = {}
        for option, raised in allowed:
            key = repr(option.actions)
            best, q = same.get(key, (option, 0.0))
            best = best if best.likelihood >= option.likelihood else option
            same[key] = best, q + option.likelihood * IRREGULAR ** (raised - fewest)
        total = sum(q for _, q in same.values()) + unnamed
        shares = sorted(((o, q / total) for o, q in same.values()), key=lambda w: -w[1])
        return shares[0][0], shares[0][1], shares

    def _commit(self, item: Pending, option: Option, share: float) -> None:
        events = self._events(option.actions, item, share)
        for event in events:
            self._record(event)
        self.action_ts = max(self.action_ts, *(e.ts for e in events))
        obs = item.obs
        self.named.extend((obs.seat, obs.zone, *named) for named in option.tiles)
        self.doubts = [d for d in self.doubts if d.obs.ts > self.action_ts]

    def _doubt_behind(self, item: Pending) -> tuple[Pending, Option, float] | None:
        """The unsure change, waiting or told, that the rules need for this one to be allowed
        (the discard before the next seat's, the claim before the claimer's discard): its
        likeliest reading happened, since play went on past it (returned with its share). Not
        when what the camera did not name is likelier (a discard it may yet see)."""
        waiting = [p for p in self.pending if p.unsure and p is not item]
        why = item.why
        for doubt in reversed(self.doubts + waiting):
            weighed = self._weigh(doubt)
            if weighed is None or weighed[1] < 1.0 - sum(q for _, q in weighed[2]):
                continue
            before = self._events(weighed[0].actions, doubt, weighed[1])
            base = copy.deepcopy(self.table)
            if self._trial(before, doubt, base) is None:
                continue
            for option in self._plan_on(base, item):
                after = self._events(option.actions, item, 1.0, len(before))
                if option.actions and self._trial(after, item, copy.deepcopy(base)) is not None:
                    item.why = why
                    return doubt, weighed[0], weighed[1]
        item.why = why
        return None

    def _plan_on(self, base: Table, item: Pending) -> list[Option]:
        """The item's readings as the rules would see them on ``base`` (the draw a seat on
        turn there makes first, say)."""
        real, self.table = self.table, base
        try:
            return item.plan()
        finally:
            self.table = real

    def _settle(self, doubt: Pending, option: Option, share: float) -> None:
        if doubt in self.doubts:
            self.doubts.remove(doubt)
        if doubt in self.pending:
            self.pending.remove(doubt)
        self._commit(doubt, option, share)
        if doubt.done is not None:
            doubt.done()
        obs = doubt.obs
        self._alert(
            FUSION_AMBIGUOUS,
            f"{obs.seat.name}'s {obs.zone}: the camera's reading is not sure, and play went on "
            f"past it: recorded {readings_told([(option, share)])[0]}",
            obs,
            doubt.cite,
        )

    def _events(
        self, payloads: list[Payload], item: Pending, confidence: float, ahead: int = 0
    ) -> list[Event]:
        """The events of one reading, timed: a draw at ``_draw_ts``, the rest when the camera
        saw them; never before the action they follow."""
        obs = item.obs
        draw_ts = self._draw_ts(obs)
        events = []
        for n, payload in enumerate(payloads):
            ts = draw_ts if payload.TYPE in ("draw", "replacement_draw") else obs.ts
            ts = max(ts, self.action_ts)
            evidence = (item.cite, obs.evidence)
            events.append(self._event(payload, ts, evidence, confidence, ahead + n))
        return events

    def _trial(
        self, events: list[Event], item: Pending, base: Table | None = None, in_turn: bool = True
    ) -> int | None:
        """How many irregularities the events raise on a copy of the engine (or on ``base``,
        which they change); None if it refuses one, or ``in_turn`` rules one out of turn
        (``item.why`` then says which rule)."""
        trial = copy.deepcopy(self.table) if base is None else base
        raised = 0
        for event in events:
            alerts = trial.apply(event).alerts
            refused = [a for a in alerts if a.rejected]
            if refused:
                item.why = f"{event.type} refused by {refused[0].rule}: {refused[0].message}"
                return None
            early = [a for a in alerts if a.rule in OUT_OF_ORDER] if in_turn else []
            if early:
                item.why = f"{event.type} out of turn ({early[0].rule}): {early[0].message}"
                return None
            raised += sum(a.severity in IRREGULARITIES for a in alerts)
        return raised

    def _expire(self, now: float) -> None:
        for item in list(self.pending):
            if now - item.obs.ts > PENDING_S:
                self.pending.remove(item)
                if not item.unsure and self._out_of_turn(item):
                    continue
                if item.unsure and self._won_unsurely(item):
                    continue
                if item.expired is not None:
                    item.expired()
                if item.unsure:  # kept: play going on past it says it happened
                    self.doubts.append(item)
                    self._alert(
                        FUSION_AMBIGUOUS,
                        f"{item.obs.seat.name}'s {item.obs.zone}: the camera's reading is not "
                        f"sure; {item.why}: nothing recorded",
                        item.obs,
                        item.cite,
                    )
                    continue
                self._alert(
                    FUSION_ILLEGAL,
                    f"the camera saw a change of {item.obs.seat.name}'s "
                    f"{item.obs.zone} that the rules allow in no order: {item.why}",
                    item.obs,
                    item.cite,
                )

    def _won_unsurely(self, item: Pending) -> bool:
        """At its time's end, a change that every reading the rules allow says was a win (the
        hand laid down, some of its faces read unsurely) is recorded as its likeliest reading,
        and told: a win ends the hand, so no later play would settle it, and a win left out
        loses the hand's result."""
        weighed = self._weigh(item)
        if weighed is None:
            return False
        option, share, shares = weighed
        if not all(any(a.TYPE == "win" for a in o.actions) for o, _ in shares):
            return False
        if self._trial(self._events(option.actions, item, share), item) != 0:
            return False  # a false win is a penalty: a referee's to rule on, not a reading's
        self._commit(item, option, share)
        if item.done is not None:
            item.done()
        first, *others = readings_told(shares)
        self._alert(
            FUSION_AMBIGUOUS,
            f"{item.obs.seat.name}'s {item.obs.zone}: every reading the rules allow is a win, "
            f"none of them sure: recorded {first}"
            + (f", the rules also allow {', '.join(others)}" if others else ""),
            item.obs,
            item.cite,
        )
        return True

    def _out_of_turn(self, item: Pending) -> bool:
        """At its time's end, a change no reading in turn explains (nor one behind an unsure
        change) is recorded as the irregularity it shows, if the rules take it so (WMC-0.4)."""
        if self._apply_plan(item):
            return True
        weighed = self._weigh(item, in_turn=False)
        if weighed is None:
            return False
        self._commit(item, weighed[0], weighed[1])
        if item.done is not None:
            item.done()
        return True

    def _log(self, payload: Payload, ts: float, evidence: str) -> str:
        event = self._event(payload, ts, (evidence,) if evidence else (), 1.0)
        self._record(event)
        return f"seq:{event.seq}"

    def _event(
        self,
        payload: Payload,
        ts: float,
        evidence: tuple[str, ...],
        confidence: float,
        ahead: int = 0,
    ) -> Event:
        table_id, session_id = self.table.state.table_id, self.table.state.session_id
        return make_event(
            payload,
            seq=self.next_seq + ahead,
            ts=round(ts, 3),
            table_id=table_id,
            session_id=session_id,
            source=Source.VISION,
            confidence=round(confidence, 3),
            evidence=tuple(e for e in evidence if e),
        )

    def _record(self, event: Event) -> None:
        self.table.apply(event)
        self.next_seq += 1
        self.events.append(event)
        if self.on_event is not None:
            self.on_event(event)

    def _alert(self, rule: str, message: str, obs: ZoneSeen, cite: str) -> None:
        self.alerts.append(
            FusionAlert(
                rule, message, obs.ts, obs.seat, tuple(e for e in (cite, obs.evidence) if e)
            )
        )


@dataclass
class Pending:
    """A change seen, waiting for a reading the rules allow (or a surer one)."""

    plan: Callable[[], list[Option]]  # the readings' actions, likeliest first ([]: none yet)
    obs: ZoneSeen
    cite: str
    key: tuple[Wind, int] | None = None  # the meld or reveal it reads (a newer one replaces it)
    done: Callable[[], None] | None = None  # when it is recorded
    expired: Callable[[], None] | None = None  # when it is told, at ``PENDING_S``
    idle: str = NO_ACTION  # why it waits when its plan names no action
    why: str = ""
    unsure: bool = False  # the rules allow readings of it, none likelier than the rest together


def _agreeing(option: Option, shares: list[tuple[Option, float]]) -> float:
    """The share of the readings that say what ``option`` says happened, whichever tile the
    discard before it was: a win laid down shows the winner's hand, not which of its tiles
    he won on, so that the hand was won is surer than the tile it was won on (told, not
    waited for: a win ends the hand, and no later play would settle it)."""

    def happened(o: Option) -> list[Payload]:
        return [a for a in o.actions if a.TYPE != "discard_corrected"]

    return sum(q for o, q in shares if happened(o) == happened(option))


def readings_told(shares: list[tuple[Option, float]]) -> list[str]:
    """The likeliest readings, each by what it records besides the draws it implies (a
    reading that corrects the last discard first says so: it differs from one that does not
    only there)."""
    return [
        " + ".join(told(a) for a in option.actions if a.TYPE not in DRAWS) + f" ({share:.0%})"
        for option, share in shares[:3]
    ]


def unsure(shares: list[tuple[Option, float]]) -> str:
    return "the rules allow " + ", ".join(readings_told(shares))


def told(action: Payload) -> str:
    """An action as a referee reads it in an alert: ``discard 6s``, ``chow 678s``."""
    tiles = getattr(action, "tiles", None) or (getattr(action, "tile", None),)
    return f"{action.TYPE} {format_tiles(t for t in tiles if t is not None)}".rstrip()


def tile_told(tile: Tile | None) -> str:
    return "a face-down tile" if tile is None else tile_name(tile)
