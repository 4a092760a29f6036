"""Fusion: camera zone observations → game actions, resolved with the rules (pure, no I/O).

The camera reports what a zone of one seat now shows (``ZoneSeen``: every slot's tile, whether
it lies sideways or face down); fusion compares it with what that zone showed before and turns
the change into the action that explains it:

- a new river tile of seat S → ``discard``; before it the draw the rules say S made
  (``draw``, or ``replacement_draw`` after a kong), timed by the wall shrinking when it was seen;
- a new meld of 3 → ``chow`` / ``pung`` (the sideways tile is the claimed discard, its cell names
  the source: left, middle, right = left, opposite, right player); 4 face up → exposed ``kong``,
  2 face down → concealed ``kong``; a 4th tile on a pung → added ``kong``;
- 8 or more tiles face up in a hand zone → ``win`` and ``hand_revealed``.

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
    WinDeclared,
    make_event,
)
from referee.game.state import Phase
from referee.game.table import Table
from referee.hands import Wind
from referee.tiles import Tile, tile_name

MELD_CELLS = 4
REVEALED = 8  # face-up tiles in a hand zone that mean the hand was laid down
WALL_RECENT_S = 5.0  # a wall change this recent times the draw that a discard implies
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
    revealed: set[Wind] = field(default_factory=set)
    events: list[Event] = field(default_factory=list)
    alerts: list[FusionAlert] = field(default_factory=list)
    on_event: Callable[[Event], None] | None = None

    def observe(self, obs: ZoneSeen) -> None:
        cite = self._log(
            Observation(sensor="camera", kind="zone", data=obs.to_data()), obs.ts, obs.evidence
        )
        before = self.zones.get((obs.seat, obs.zone), {})
        now = {s.index: s for s in obs.slots}
        self.zones[(obs.seat, obs.zone)] = now
        if obs.zone == "wall":
            if obs.count is not None:
                self.wall_changed = obs.ts
            return
        if obs.zone == "river":
            for index in sorted(set(now) - set(before)):
                self._discard(obs, now[index], cite)
        elif obs.zone == "meld":
            self._melds(obs, before, now, cite)
        elif obs.zone == "hand":
            faces = [s for s in obs.slots if s.tile is not None]
            if len(faces) >= REVEALED and obs.seat not in self.revealed:
                self._win(obs, faces, cite)

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
        self._draw_before(obs, cite)
        self._try(Discard(seat=obs.seat, tile=seen.tile), obs, cite, seen.confidence)

    def _draw_before(self, obs: ZoneSeen, cite: str) -> None:
        """The draw the rules say ``obs.seat`` made before acting on its own turn."""
        hand = self.table.state.hand
        if hand is None or hand.turn is not obs.seat:
            return
        ts = obs.ts
        if self.wall_changed is not None and obs.ts - self.wall_changed <= WALL_RECENT_S:
            ts = min(ts, self.wall_changed)
        if hand.phase is Phase.WINDOW:
            self._try(Draw(seat=obs.seat), obs, cite, 1.0, ts)
        elif hand.phase is Phase.REPLACE:
            self._try(ReplacementDraw(seat=obs.seat), obs, cite, 1.0, ts)
        self.wall_changed = None

    def _melds(
        self, obs: ZoneSeen, before: dict[int, SlotSeen], now: dict[int, SlotSeen], cite: str
    ) -> None:
        for meld in sorted({i // MELD_CELLS for i in now}):
            cells = [now[i] for i in sorted(now) if i // MELD_CELLS == meld]
            old = [before[i] for i in sorted(before) if i // MELD_CELLS == meld]
            if len(cells) == len(old) or len(cells) < 3:
                continue
            if any(c.confidence < self.min_confidence for c in cells):
                self._alert(
                    FUSION_AMBIGUOUS,
                    f"{obs.seat.name}'s meld {meld + 1}: a tile not read surely",
                    obs,
                    cite,
                )
                continue
            payload = self._meld_action(obs, cells, old)
            if payload is not None:
                self._try(payload, obs, cite, min(c.confidence for c in cells))

    def _meld_action(
        self, obs: ZoneSeen, cells: list[SlotSeen], old: list[SlotSeen]
    ) -> Payload | None:
        seat = obs.seat
        faces = [c.tile for c in cells if c.tile is not None]
        if len(cells) == 4 and len(old) == 3:
            added = next(c for c in cells if c.index not in {o.index for o in old})
            if added.tile is None:
                return None
            return Kong(seat=seat, kind=KongKind.ADDED, tile=added.tile)
        if len(cells) == 4 and len(faces) == 2 and faces[0] == faces[1]:
            self._draw_before(obs, "")
            return Kong(seat=seat, kind=KongKind.CONCEALED, tile=faces[0])
        if len(faces) != len(cells):
            return None
        turned = [c for c in cells if c.sideways]
        hand = self.table.state.hand
        if len(turned) != 1 or hand is None or hand.last_discard is None:
            self._alert(
                FUSION_AMBIGUOUS,
                f"{seat.name}'s new meld has {len(turned)} sideways tiles or follows no discard",
                obs,
                "",
            )
            return None
        source = _source(seat, turned[0].index % MELD_CELLS, len(cells))
        if source is not hand.last_discard[0] or turned[0].tile != hand.last_discard[1]:
            self._alert(
                FUSION_AMBIGUOUS,
                f"{seat.name}'s meld names {source.name}'s "
                f"{_name(turned[0].tile)}, the last discard is "
                f"{hand.last_discard[0].name}'s {tile_name(hand.last_discard[1])}",
                obs,
                "",
            )
            return None
        tiles = tuple(sorted(t for t in faces if t is not None))
        if len(cells) == 4:
            return Kong(seat=seat, kind=KongKind.EXPOSED, tile=turned[0].tile, tiles=tiles)
        if len(set(tiles)) == 1:
            return Pung(seat=seat, tiles=tiles)
        return Chow(seat=seat, tiles=tiles)

    def _win(self, obs: ZoneSeen, faces: list[SlotSeen], cite: str) -> None:
        hand = self.table.state.hand
        if hand is not None and hand.turn is obs.seat and hand.phase is Phase.WINDOW:
            recent = self.wall_changed is not None and obs.ts - self.wall_changed <= WALL_RECENT_S
            if recent:  # the wall shrank since the last discard: self-drawn
                self._draw_before(obs, cite)
        if self._try(WinDeclared(seat=obs.seat), obs, cite, 1.0):
            self.revealed.add(obs.seat)
            tiles = tuple(sorted(s.tile for s in faces if s.tile is not None))
            self._try(HandRevealed(seat=obs.seat, tiles=tiles), obs, cite, 1.0)

    # ---- the engine --------------------------------------------------------------------------
    def _try(
        self,
        payload: Payload,
        obs: ZoneSeen,
        cite: str,
        confidence: float,
        ts: float | None = None,
    ) -> bool:
        """Apply the action if the rules allow it; otherwise an alert, nothing recorded."""
        event = self._event(payload, obs.ts if ts is None else ts, (cite, obs.evidence), confidence)
        trial = copy.deepcopy(self.table)
        refused = [a for a in trial.apply(event).alerts if a.rejected]
        if refused:
            self._alert(
                FUSION_ILLEGAL,
                f"the camera saw {payload.TYPE} by "
                f"{getattr(payload, 'seat', '?')}, refused by {refused[0].rule}: "
                f"{refused[0].message}",
                obs,
                cite,
            )
            return False
        self._record(event)
        return True

    def _log(self, payload: Payload, ts: float, evidence: str) -> str:
        event = self._event(payload, ts, (evidence,) if evidence else (), 1.0)
        self._record(event)
        return f"seq:{event.seq}"

    def _event(
        self, payload: Payload, ts: float, evidence: tuple[str, ...], confidence: float
    ) -> Event:
        table_id, session_id = self.table.state.table_id, self.table.state.session_id
        return make_event(
            payload,
            seq=self.next_seq,
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


def _source(seat: Wind, cell: int, size: int) -> Wind:
    """The seat a claimed tile came from, by the sideways tile's cell (left, middle, right)."""
    relative = 1 if cell == 0 else 3 if cell == size - 1 else 2
    return Wind((seat + 4 - relative) % 4) if relative != 3 else Wind((seat + 1) % 4)


def _name(tile: Tile | None) -> str:
    return "a face-down tile" if tile is None else tile_name(tile)
