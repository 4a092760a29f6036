"""Fusion: camera zone observations → game actions, resolved with the rules (pure, no I/O).

The camera reports what a zone of one seat now shows (``ZoneSeen``: every slot's tile, whether
it lies sideways or face down); fusion compares it with what that zone showed before and turns
the change into the action that explains it:

- a new river tile of seat S → ``discard``; before it the draw the rules say S made
  (``draw``, or ``replacement_draw`` after a kong), timed by the wall shrinking when it was seen;
- a new meld of 3 → ``chow`` / ``pung`` (the sideways tile is the claimed discard, its cell names
  the source: left, middle, right = left, opposite, right player); 4 face up → exposed ``kong``,
  2 face down → concealed ``kong``; a 4th tile on a pung → added ``kong``;
- 8 or more tiles face up in a hand zone → ``win``; then ``hand_revealed`` from the first
  reading of that hand with as many tiles as the winner holds (a hand still being laid down,
  or a tile still being read, is no reveal: it would differ from the record, WMC-7.4);
- new face-up tiles right of a hand → ``tiles_exposed`` (live penalty tiles, WMC-9.1), and a
  river tile that only the penalty tiles hold → a ``discard`` of a penalty tile (WMC-9.2).

Every action is first tried on a copy of the engine: one the rules refuse is never recorded, it
becomes an alert for a referee (``FUSION-illegal``, citing the rule that refused it); a change
that names no single action (a tile not read, a sideways tile naming another source than the
last discarder) is a ``FUSION-ambiguous`` alert. Each event cites the observation behind it.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field

from referee.events import (
    Chow,
    Discard,
    Draw,
    Event,
    HandRevealed,
    Kong,
    KongKind,
    Observation,
    Payload,
    Pung,
    ReplacementDraw,
    Source,
    TilesExposed,
    WinDeclared,
    make_event,
)
from referee.game.state import Phase
from referee.game.table import Table
from referee.hands import Wind
from referee.tiles import NUM_KINDS, Tile, tile_name

MELD_CELLS = 4
REVEAL_KEY = -1  # the pending key of a hand's reveal (meld keys count from 0)
REVEALED = 8  # face-up tiles in a hand zone that mean the hand was laid down
WALL_RECENT_S = 5.0  # a wall change this recent times the draw that a discard implies
DRAW_UNSEEN_S = 3.0  # a discard whose draw the wall did not show waits this long for a claim
PENDING_S = 8.0  # an action the rules refuse now may wait this long for an earlier one
NO_ACTION = "the change names no action the rules allow here"
FUSION_ILLEGAL = "FUSION-illegal"
FUSION_AMBIGUOUS = "FUSION-ambiguous"


@dataclass(frozen=True)
class SlotSeen:
    """One slot as the camera reads it: ``tile`` None = face down."""

    index: int
    tile: Tile | None
    sideways: bool = False
    confidence: float = 1.0


@dataclass(frozen=True)
class ZoneSeen:
    """What one zone of one seat shows now (``zone``: wall, hand, river, meld, penalty);
    ``count`` is what cannot be named (wall stacks standing, standing hand tiles)."""

    ts: float
    seat: Wind
    zone: str
    slots: tuple[SlotSeen, ...] = ()
    count: int | None = None
    evidence: str = ""

    def to_data(self) -> dict[str, object]:
        return {
            "seat": self.seat.name,
            "zone": self.zone,
            "count": self.count,
            "slots": [
                [
                    s.index,
                    tile_name(s.tile) if s.tile is not None else "back",
                    s.sideways,
                    round(s.confidence, 3),
                ]
                for s in self.slots
            ],
            "evidence": self.evidence,
        }


@dataclass(frozen=True)
class FusionAlert:
    rule: str
    message: str
    ts: float
    seat: Wind | None
    evidence: tuple[str, ...]


@dataclass
class Fusion:
    """Feeds a :class:`Table` (already set up by the other sources: session, wall, deal) with
    the actions the camera's observations imply. ``next_seq`` continues the session's seq."""

    table: Table
    next_seq: int
    min_confidence: float = 0.3
    zones: dict[tuple[Wind, str], dict[int, SlotSeen]] = field(default_factory=dict)
    wall_changed: float | None = None
    winning: set[Wind] = field(default_factory=set)  # a win seen (recorded or waiting)
    won: set[Wind] = field(default_factory=set)  # a win recorded
    revealed: set[Wind] = field(default_factory=set)
    events: list[Event] = field(default_factory=list)
    alerts: list[FusionAlert] = field(default_factory=list)
    on_event: Callable[[Event], None] | None = None
    pending: list[_Pending] = field(default_factory=list)
    wall_counts: dict[Wind, int] = field(default_factory=dict)
    wall_seen: tuple[ZoneSeen, str] | None = None  # the wall observation behind wall_changed
    action_ts: float = float("-inf")  # the latest game action recorded
    now: float = float("-inf")  # the latest observation's time
    melds_used: dict[tuple[Wind, int], tuple[int, ...]] = field(default_factory=dict)

    def observe(self, obs: ZoneSeen) -> None:
        self.now = max(self.now, obs.ts)
        self._retry()
        cite = self._log(
            Observation(sensor="camera", kind="zone", data=obs.to_data()), obs.ts, obs.evidence
        )
        before = self.zones.get((obs.seat, obs.zone), {})
        now = {s.index: s for s in obs.slots}
        self.zones[(obs.seat, obs.zone)] = now
        if obs.zone == "wall":
            was = self.wall_counts.get(obs.seat)
            if obs.count is not None:
                self.wall_counts[obs.seat] = obs.count
                if was is not None and obs.count <= was:  # a tile taken: a draw's time
                    self.wall_changed = obs.ts
                    self.wall_seen = (obs, cite)
                    self._retry()
            return
        if obs.zone == "river":
            for index in sorted(set(now) - set(before)):
                self._discard(obs, now[index], cite)
        elif obs.zone == "meld":
            self._melds(obs, before, now, cite)
        elif obs.zone == "penalty":
            shown = [now[i].tile for i in sorted(set(now) - set(before))]
            if shown and all(t is not None for t in shown):
                tiles = tuple(sorted(t for t in shown if t is not None))
                self._attempt(lambda: [TilesExposed(seat=obs.seat, tiles=tiles)], obs, cite, 1.0)
        elif obs.zone == "hand":
            faces = [s for s in obs.slots if s.tile is not None]
            if len(faces) >= REVEALED and obs.seat not in self.winning:
                self._win(obs, cite)
            if obs.seat in self.winning and obs.seat not in self.revealed:
                self._reveal(obs, faces, cite)

    @property
    def revealing(self) -> bool:
        """A win is recorded and the winner's hand not yet read whole (the hand is over, its
        hand zone still watched)."""
        return bool(self.won - self.revealed)

    def follow(self, event: Event) -> None:
        """An event from another source of the same session (the table link's wall and dice,
        a heard call, a referee): fusion's engine sees it too, and the seq continues after it."""
        if event.type == "deal":  # a new hand: nobody has won it yet
            self.winning, self.won, self.revealed = set(), set(), set()
        self.table.apply(event)
        self.next_seq = max(self.next_seq, event.seq + 1)
        self._retry()

    def _wall_recent(self, ts: float) -> bool:
        return self.wall_changed is not None and ts - self.wall_changed <= WALL_RECENT_S

    def flush(self, ts: float) -> None:
        """The input ended (or paused): actions still waiting for a legal order are alerts."""
        self.now = max(self.now, ts + DRAW_UNSEEN_S)
        self._retry()
        hand = self.table.state.hand
        recent = self.wall_changed is not None and self.wall_changed > self.action_ts
        if hand is not None and recent and self.wall_seen is not None and not self.pending:
            # the wall shrank on a seat's turn after the last action, and the input ended
            # before its discard: that seat drew (the rules name it)
            turn = hand.turn
            obs, cite = self.wall_seen
            if self._draw_before(turn):
                self._attempt(lambda: self._draw_before(turn), obs, cite, 1.0)
        self._expire(ts + PENDING_S + 1.0)

    # ---- actions -----------------------------------------------------------------------------
    def _discard(self, obs: ZoneSeen, seen: SlotSeen, cite: str) -> None:
        if seen.tile is None or seen.confidence < self.min_confidence:
            self._alert(
                FUSION_AMBIGUOUS,
                f"{obs.seat.name} discarded a tile the camera could not read",
                obs,
                cite,
            )
            return
        tile = seen.tile

        def plan() -> list[Payload]:
            hand = self.table.state.hand
            before = self._draw_before(obs.seat)
            unseen = not self._wall_recent(obs.ts)
            if before and unseen and self.now - obs.ts < DRAW_UNSEEN_S:
                return []  # no draw seen: wait, a claim may explain the discard instead
            me = hand.seats[obs.seat] if hand is not None else None
            # a tile the hand no longer holds but lies among its penalty tiles (WMC-9.2)
            penalty = me is not None and me.counts[tile] == 0 and tile in me.penalty
            discard = Discard(seat=obs.seat, tile=tile, penalty=penalty)
            return [*before, discard]

        self._attempt(plan, obs, cite, seen.confidence)

    def _draw_before(self, seat: Wind, own_turn: bool = True) -> list[Payload]:
        """The draw the rules say ``seat`` made before acting on its own turn."""
        hand = self.table.state.hand
        if hand is None or hand.turn is not seat:
            return []
        if hand.phase is Phase.WINDOW and own_turn:
            return [Draw(seat=seat)]
        if hand.phase is Phase.REPLACE:
            return [ReplacementDraw(seat=seat)]
        return []

    def _melds(
        self, obs: ZoneSeen, before: dict[int, SlotSeen], now: dict[int, SlotSeen], cite: str
    ) -> None:
        """Each meld is judged on its cells as now seen, until an action has used them: a
        reading corrected a frame later replaces the one still waiting."""
        del before  # a meld's history is what its actions used (``melds_used``)
        for meld in sorted({i // MELD_CELLS for i in now}):
            key = (obs.seat, meld)
            cells = [now[i] for i in sorted(now) if i // MELD_CELLS == meld]
            used = self.melds_used.get(key, ())
            if len(cells) < 3 or len(cells) <= len(used):
                continue
            self.pending = [p for p in self.pending if p.key != key]
            if any(c.confidence < self.min_confidence for c in cells):
                self._alert(
                    FUSION_AMBIGUOUS,
                    f"{obs.seat.name}'s meld {meld + 1}: a tile not read surely",
                    obs,
                    cite,
                )
                continue
            old = [c for c in cells if c.index in used]

            def plan(cells: list[SlotSeen] = cells, old: list[SlotSeen] = old) -> list[Payload]:
                return self._meld_action(obs, cells, old)

            def done(key: tuple[Wind, int] = key, cells: list[SlotSeen] = cells) -> None:
                self.melds_used[key] = tuple(c.index for c in cells)

            self._attempt(plan, obs, cite, min(c.confidence for c in cells), key, done)

    def _meld_action(
        self, obs: ZoneSeen, cells: list[SlotSeen], old: list[SlotSeen]
    ) -> list[Payload]:
        """The action a new (or grown) meld shows; [] when it names none (not yet legal)."""
        seat = obs.seat
        faces = [c.tile for c in cells if c.tile is not None]
        if len(cells) == 4 and len(old) == 3:
            added = next(c for c in cells if c.index not in {o.index for o in old})
            if added.tile is None:
                return []
            return [*self._draw_before(seat), Kong(seat=seat, kind=KongKind.ADDED, tile=added.tile)]
        if len(cells) == 4 and len(faces) == 2 and faces[0] == faces[1]:
            tile = faces[0]
            return [*self._draw_before(seat), Kong(seat=seat, kind=KongKind.CONCEALED, tile=tile)]
        if len(faces) != len(cells):
            return []
        turned = [c for c in cells if c.sideways]
        hand = self.table.state.hand
        if len(turned) != 1 or hand is None or hand.last_discard is None:
            return []
        source = _source(seat, turned[0].index % MELD_CELLS, len(cells))
        if source is not hand.last_discard[0] or turned[0].tile != hand.last_discard[1]:
            return []  # not the last discard (yet): another order, or an alert when it expires
        tiles = tuple(sorted(t for t in faces if t is not None))
        claimed = hand.last_discard[1]
        if len(cells) == 4:
            return [Kong(seat=seat, kind=KongKind.EXPOSED, tile=claimed, tiles=tiles)]
        if len(set(tiles)) == 1:
            return [Pung(seat=seat, tiles=tiles)]
        return [Chow(seat=seat, tiles=tiles)]

    def _win(self, obs: ZoneSeen, cite: str) -> None:
        def plan() -> list[Payload]:
            hand = self.table.state.hand
            recent = self.wall_changed is not None and obs.ts - self.wall_changed <= WALL_RECENT_S
            # on one's own turn with the wall shrunk since the last discard: self-drawn
            before = self._draw_before(obs.seat, own_turn=recent)
            if hand is not None and hand.last_discard is None and not before:
                before = self._draw_before(obs.seat)
            return [*before, WinDeclared(seat=obs.seat)]

        self.winning.add(obs.seat)
        self._attempt(plan, obs, cite, 1.0, done=lambda: self.won.add(obs.seat))

    def _reveal(self, obs: ZoneSeen, faces: list[SlotSeen], cite: str) -> None:
        """The winner's hand as now read replaces a reading still waiting: it is revealed once
        it holds as many tiles as the record says the winner holds (then read whole)."""
        seat, key = obs.seat, (obs.seat, REVEAL_KEY)
        tiles = tuple(sorted(s.tile for s in faces if s.tile is not None))
        self.pending = [p for p in self.pending if p.key != key]

        def plan() -> list[Payload]:
            hand = self.table.state.hand
            if seat not in self.won or hand is None:
                return []
            if len(tiles) != sum(hand.seats[seat].counts[:NUM_KINDS]):
                return []  # still being laid down (or a tile not read): a later reading
            return [HandRevealed(seat=seat, tiles=tiles)]

        why = f"{seat.name}'s hand shows {len(tiles)} tiles face up, not as many as it holds"
        self._attempt(plan, obs, cite, 1.0, key, lambda: self.revealed.add(seat), why)

    # ---- the engine --------------------------------------------------------------------------
    def _attempt(
        self,
        plan: Callable[[], list[Payload]],
        obs: ZoneSeen,
        cite: str,
        confidence: float,
        key: tuple[Wind, int] | None = None,
        done: Callable[[], None] | None = None,
        idle: str = NO_ACTION,
    ) -> None:
        """Record the planned actions if the rules allow them now; else wait (another
        observation may come first in the legal order) until ``PENDING_S`` has passed."""
        self.pending.append(_Pending(plan, obs, cite, confidence, key, done, idle))
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

    def _apply_plan(self, item: _Pending) -> bool:
        payloads = item.plan()
        if not payloads:
            item.why = item.idle
            return False
        obs = item.obs
        draw_ts = obs.ts
        if self.wall_changed is not None and obs.ts - self.wall_changed <= WALL_RECENT_S:
            draw_ts = min(obs.ts, self.wall_changed)
        events = []
        for n, payload in enumerate(payloads):
            ts = draw_ts if payload.TYPE in ("draw", "replacement_draw") else obs.ts
            ts = max(ts, self.action_ts)  # never before the action it follows
            events.append(self._event(payload, ts, (item.cite, obs.evidence), item.confidence, n))
        trial = copy.deepcopy(self.table)
        for event in events:
            refused = [a for a in trial.apply(event).alerts if a.rejected]
            if refused:
                item.why = f"{event.type} refused by {refused[0].rule}: {refused[0].message}"
                return False
        for event in events:
            self._record(event)
        self.action_ts = max(self.action_ts, *(e.ts for e in events))
        if any(p.TYPE in ("draw", "replacement_draw") for p in payloads):
            self.wall_changed = None
        return True

    def _expire(self, now: float) -> None:
        for item in list(self.pending):
            if now - item.obs.ts > PENDING_S:
                self.pending.remove(item)
                if item.key is not None and item.key[1] == REVEAL_KEY:
                    self.revealed.add(item.key[0])  # told once, not at each later reading
                self._alert(
                    FUSION_ILLEGAL,
                    f"the camera saw a change of {item.obs.seat.name}'s "
                    f"{item.obs.zone} that the rules allow in no order: {item.why}",
                    item.obs,
                    item.cite,
                )

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
class _Pending:
    plan: Callable[[], list[Payload]]
    obs: ZoneSeen
    cite: str
    confidence: float
    key: tuple[Wind, int] | None = None  # the meld or reveal it reads (a newer one replaces it)
    done: Callable[[], None] | None = None
    idle: str = NO_ACTION  # why it waits when its plan names no action
    why: str = ""


def _source(seat: Wind, cell: int, size: int) -> Wind:
    """The seat a claimed tile came from, by the sideways tile's cell (left, middle, right)."""
    relative = 1 if cell == 0 else 3 if cell == size - 1 else 2
    return Wind((seat + 4 - relative) % 4) if relative != 3 else Wind((seat + 1) % 4)


def _name(tile: Tile | None) -> str:
    return "a face-down tile" if tile is None else tile_name(tile)
