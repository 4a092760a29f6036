"""Fusion: camera zone observations → game actions, resolved with the rules (pure, no I/O).

The camera reports what a zone of one seat now shows (``ZoneSeen``: every slot's tile, whether
it lies sideways or face down); fusion compares it with what that zone showed before and turns
the change into the action that explains it:

- a new river tile of seat S → ``discard``; before it the draw the rules say S made
  (``draw``, or ``replacement_draw`` after a kong), timed by the wall shrinking when it was seen;
- a new meld of 3 → ``chow`` / ``pung`` (the sideways tile is the claimed discard, its cell names
  the source: left, middle, right = left, opposite, right player; a meld whose sideways tile
  the camera missed claimed the last discard, the only tile a claim can take); 4 face up →
  exposed ``kong``, 2 face down → concealed ``kong``; a 4th tile on a pung → added ``kong``;
- 8 or more tiles face up in a hand zone → ``win``; then ``hand_revealed`` from the first
  reading of that hand with as many tiles as the winner holds (a hand still being laid down,
  or a tile still being read, is no reveal: it would differ from the record, WMC-7.4);
- new face-up tiles right of a hand → ``tiles_exposed`` (live penalty tiles, WMC-9.1), and a
  river tile that only the penalty tiles hold → a ``discard`` of a penalty tile (WMC-9.2).

A tile the camera named may be read wrongly: each slot carries its runners-up (what else the
recognizer thought it might be, and how likely), and a change names one action per reading, most
likely first. The rules decide between them: a reading they refuse (a discard of a tile the seat
does not hold, a claim of another tile than the last discard) is not what lies there, and a
reading that raises an irregularity (a chow that is no run) weighs ``IRREGULAR`` times less
(players err more rarely than the camera; a sure reading of a wrong meld stays a wrong meld).
The likeliest reading left is recorded when it holds ``min_confidence`` of the likelihood of all
the readings the rules allow (its confidence is that share). A reading less sure is a
``FUSION-ambiguous`` alert naming the readings for a referee; it is recorded all the same when it
is likelier than all the others together (``MIN_SHARE``): the game goes on from it (a discard
left out would leave every later action out of turn), and a referee puts it right if need be.
One less sure still waits, read again, like a change not yet legal; at ``PENDING_S`` it is told
and kept aside (``doubts``). Either way, once a later change needs it to be allowed (the next
seat discards), play went on past it: its likeliest reading is recorded, and told.

Every reading is tried on a copy of the engine. A change the rules refuse in every reading (or
that names no action: a sideways tile on another side than the last discarder's) waits up to
``PENDING_S`` for an earlier action, then becomes an alert for a referee (``FUSION-illegal``,
citing the rule that refused it); a discard the camera saw face down is ``FUSION-ambiguous``.
Each event cites the observation behind it.
"""

from __future__ import annotations

import copy
import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import NamedTuple

from referee.events import (
    Chow,
    Discard,
    DiscardCorrected,
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
from referee.hands import MeldKind, Relative, Wind
from referee.tiles import NUM_KINDS, Tile, format_tiles, tile_name

MELD_CELLS = 4
REVEAL_KEY = -1  # the pending key of a hand's reveal (meld keys count from 0)
REVEALED = 8  # face-up tiles in a hand zone that mean the hand was laid down
WALL_RECENT_S = 5.0  # a wall change this recent times the draw that a discard implies
DRAW_UNSEEN_S = 3.0  # a discard whose draw the wall did not show waits this long for a claim
PENDING_S = 8.0  # an action the rules refuse now may wait this long for an earlier one
MIN_SHARE = 0.5  # an unsure reading likelier than all others together is recorded, and told
IRREGULAR = 0.1  # an irregularity is this much rarer than the camera misreading a tile
UNSEEN_DISCARD = 0.1  # a claim of a discard the camera never saw weighs this much less
UNSEEN_P = 0.001  # the likelihood of a tile the camera did not name among a slot's readings
NO_ACTION = "the change names no action the rules allow here"
FUSION_ILLEGAL = "FUSION-illegal"
FUSION_AMBIGUOUS = "FUSION-ambiguous"


@dataclass(frozen=True)
class SlotSeen:
    """One slot as the camera reads it: ``tile`` None = face down; ``alternatives``: the
    other tiles it might be, each with its probability, likeliest first."""

    index: int
    tile: Tile | None
    sideways: bool = False
    confidence: float = 1.0
    alternatives: tuple[tuple[Tile, float], ...] = ()

    def likelihood(self, tile: Tile) -> float:
        """How likely the camera thinks this slot holds ``tile``."""
        if tile == self.tile:
            return self.confidence
        return dict(self.alternatives).get(tile, UNSEEN_P)

    def readings(self) -> list[tuple[Tile, float]]:
        """The tiles this slot may hold, likeliest first (none for a face-down tile)."""
        if self.tile is None:
            return []
        return [(self.tile, self.confidence), *self.alternatives]


class Option(NamedTuple):
    """What one reading of a change names: its actions, its likelihood, and the tile it puts
    in each slot of the observed zone that it read."""

    actions: list[Payload]  # none: the readings the camera did not name, weighed together
    likelihood: float
    tiles: tuple[tuple[int, Tile, bool], ...] = ()  # (slot, tile, sideways)


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
                    *([[[tile_name(t), p] for t, p in s.alternatives]] if s.alternatives else []),
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
    min_confidence: float = 0.7  # a reading is recorded when this likely among those allowed
    zones: dict[tuple[Wind, str], dict[int, SlotSeen]] = field(default_factory=dict)
    # per wall side: the latest observation showing a tile taken from it since the last draw
    # recorded (its time, the observation, its cite)
    wall_taken: dict[Wind, tuple[float, ZoneSeen, str]] = field(default_factory=dict)
    winning: set[Wind] = field(default_factory=set)  # a win seen (recorded or waiting)
    won: set[Wind] = field(default_factory=set)  # a win recorded
    revealed: set[Wind] = field(default_factory=set)
    events: list[Event] = field(default_factory=list)
    alerts: list[FusionAlert] = field(default_factory=list)
    on_event: Callable[[Event], None] | None = None
    pending: list[_Pending] = field(default_factory=list)
    wall_counts: dict[Wind, int] = field(default_factory=dict)
    action_ts: float = float("-inf")  # the latest game action recorded
    now: float = float("-inf")  # the latest observation's time
    melds_used: dict[tuple[Wind, int], tuple[int, ...]] = field(default_factory=dict)
    # slots whose tile the record now names (seat, zone, slot, tile): the reading the rules
    # took, which may not be the camera's likeliest; the camera takes them (``take_named``)
    named: list[tuple[Wind, str, int, Tile, bool]] = field(default_factory=list)
    doubts: list[_Pending] = field(default_factory=list)  # unsure changes told, not recorded
    discard_read: _DiscardRead | None = None  # the last discard recorded, as the camera read it

    def observe(self, obs: ZoneSeen) -> None:
        obs = self._by_seat(obs)
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
                    self.wall_taken[obs.seat] = (obs.ts, obs, cite)
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
                exposed = TilesExposed(seat=obs.seat, tiles=tiles)
                self._attempt(lambda: [Option([exposed], 1.0)], obs, cite)
        elif obs.zone == "hand":
            faces = [s for s in obs.slots if s.tile is not None]
            if len(faces) >= REVEALED and obs.seat not in self.winning:
                self._win(obs, cite)
            if obs.seat in self.winning and obs.seat not in self.revealed:
                self._reveal(obs, faces, cite)

    def prime(self, obs: ZoneSeen) -> None:
        """What a zone showed before the input started: the starting point of its changes (the
        record already holds the actions that led there)."""
        obs = self._by_seat(obs)
        self.zones[(obs.seat, obs.zone)] = {s.index: s for s in obs.slots}
        if obs.zone == "wall" and obs.count is not None:
            self.wall_counts[obs.seat] = obs.count

    def take_named(self) -> list[tuple[Wind, str, int, Tile, bool]]:
        """The slots the record named since the last call (for the camera's table state), by
        the edge they lie at, as the camera names them."""
        out, self.named = self.named, []
        place = self._dealer_place()
        return [(Wind((place + s) % 4), z, i, t, side) for s, z, i, t, side in out]

    def _dealer_place(self) -> int:
        hand = self.table.state.hand
        return hand.dealer_place if hand is not None else self.table.state.dealer_place

    def _by_seat(self, obs: ZoneSeen) -> ZoneSeen:
        """The camera names a zone by the table edge it lies at; the seats rotate over the
        edges as the deal passes (WMC-2.4): the dealer sits at the edge of his place."""
        return replace(obs, seat=Wind((obs.seat - self._dealer_place()) % 4))

    @property
    def revealing(self) -> bool:
        """A win is recorded and the winner's hand not yet read whole (the hand is over, its
        hand zone still watched)."""
        return bool(self.won - self.revealed)

    def follow(self, event: Event) -> None:
        """An event from another source of the same session (the table link's wall and dice,
        a heard call, a referee): fusion's engine sees it too, and the seq continues after it."""
        if event.type == "deal":  # a new hand: nobody has won it, its seats sit elsewhere
            self.winning, self.won, self.revealed = set(), set(), set()
            self.doubts, self.discard_read = [], None
            self.zones, self.wall_counts, self.wall_taken, self.melds_used = {}, {}, {}, {}
        self.table.apply(event)
        self.next_seq = max(self.next_seq, event.seq + 1)
        self._retry()

    def _wall_change(self, ts: float | None = None) -> tuple[float, ZoneSeen, str] | None:
        """The tile seen taken (within ``WALL_RECENT_S`` before ``ts``, if given) from the wall
        the rules say the next draw comes from: the live end, or the kong end for a
        replacement. An arm brushing another wall times no draw."""
        hand = self.table.state.hand
        if hand is None or not hand.wall.order or not hand.wall.remaining:
            return None
        wall = hand.wall
        position = wall.next_position(hand.turn, replacement=hand.phase is Phase.REPLACE)
        taken = self.wall_taken.get(Wind(position // 2 // wall.stacks_per_side % 4))
        if taken is None or (ts is not None and ts - taken[0] > WALL_RECENT_S):
            return None
        return taken

    def flush(self, ts: float) -> None:
        """The input ended (or paused): actions still waiting for a legal order are alerts."""
        self.now = max(self.now, ts + DRAW_UNSEEN_S)
        self._retry()
        hand = self.table.state.hand
        taken = self._wall_change()
        if (
            hand is not None
            and taken is not None
            and taken[0] > self.action_ts
            and not self.pending
        ):
            # the wall shrank on a seat's turn after the last action, and the input ended
            # before its discard: that seat drew (the rules name it)
            turn = hand.turn
            _, obs, cite = taken
            if self._draw_before(turn):
                self._attempt(lambda: [Option(self._draw_before(turn), 1.0)], obs, cite)
        self._expire(ts + PENDING_S + 1.0)

    # ---- actions -----------------------------------------------------------------------------
    def _discard(self, obs: ZoneSeen, seen: SlotSeen, cite: str) -> None:
        if seen.tile is None:
            self._alert(
                FUSION_AMBIGUOUS,
                f"{obs.seat.name} discarded a tile the camera could not read",
                obs,
                cite,
            )
            return

        def plan() -> list[Option]:
            hand = self.table.state.hand
            before = self._draw_before(obs.seat)
            unseen = self._wall_change(obs.ts) is None or self._laying_meld(obs.seat)
            if before and unseen and self.now - obs.ts < DRAW_UNSEEN_S:
                return []  # no draw seen (or a meld being laid): a claim may explain it
            me = hand.seats[obs.seat] if hand is not None else None
            options: list[Option] = []
            for tile, p in seen.readings():
                # a tile the hand no longer holds but lies among its penalty tiles (WMC-9.2)
                penalty = me is not None and me.counts[tile] == 0 and tile in me.penalty
                discard = Discard(seat=obs.seat, tile=tile, penalty=penalty)
                options.append(Option([*before, discard], p, ((seen.index, tile, False),)))
            if me is not None:  # the tiles held that the camera did not name weigh too
                named = {t for t, _ in seen.readings()}
                held = {t for t in range(NUM_KINDS) if me.counts[t]} | set(me.penalty_live)
                unnamed = len(held - named) + len(before)  # (and the tile drawn first)
                options.append(Option([], unnamed * UNSEEN_P))
            return options

        self._attempt(plan, obs, cite)

    def _laying_meld(self, seat: Wind) -> bool:
        """A meld of ``seat`` shows tiles the record has not taken (yet): a claim is being
        laid down, and the arm that lays it may have brushed the wall, seeming to draw."""
        cells = self.zones.get((seat, "meld"), {})
        for meld in {i // MELD_CELLS for i in cells}:
            shown = sum(1 for i in cells if i // MELD_CELLS == meld)
            if shown > len(self.melds_used.get((seat, meld), ())):
                return True
        return False

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
            old = {c.index for c in cells if c.index in used}

            def plan(cells: list[SlotSeen] = cells, old: set[int] = old) -> list[Option]:
                return self._meld_options(obs, cells, old)

            def done(key: tuple[Wind, int] = key, cells: list[SlotSeen] = cells) -> None:
                self.melds_used[key] = tuple(c.index for c in cells)

            self._attempt(plan, obs, cite, key, done)

    def _meld_options(self, obs: ZoneSeen, cells: list[SlotSeen], old: set[int]) -> list[Option]:
        """The melds the rules allow these cells to be (a claim takes the last discard; a
        kong is of a tile held), each weighed by how the camera read the cells; [] when no
        meld is possible yet."""
        seat, hand = obs.seat, self.table.state.hand
        if hand is None:
            return []
        me = hand.seats[seat]
        faces = [c for c in cells if c.tile is not None]
        draw = self._draw_before(seat)
        if len(cells) == 4 and len(old) == 3:  # a fourth tile on a pung
            cell = next(c for c in cells if c.index not in old)
            # the kong is laid as a claimed one: its claimed tile sideways at its source's side
            sides = {Relative.LEFT: 0, Relative.OPPOSITE: 1, Relative.RIGHT: 3, None: 3}
            pungs = {m.tiles[0]: sides[m.claimed_from] for m in me.melds if m.kind is MeldKind.PUNG}
            return [
                Option(
                    [*draw, Kong(seat=seat, kind=KongKind.ADDED, tile=t)],
                    cell.likelihood(t),
                    tuple((c.index, t, k == pungs[t]) for k, c in enumerate(cells))
                    if t in pungs
                    else (),
                )
                for t in pungs.keys() | {t for t, _ in cell.readings()}
            ]
        if len(cells) == 4 and len(faces) == 2:  # the middle two of a concealed kong
            held = {t for t in range(NUM_KINDS) if me.counts[t] >= 3}
            return [
                Option(
                    [*draw, Kong(seat=seat, kind=KongKind.CONCEALED, tile=t)],
                    math.prod(c.likelihood(t) for c in faces),
                    tuple((c.index, t, False) for c in faces),
                )
                for t in held | {t for c in faces for t, _ in c.readings()}
            ]
        contiguous = [c.index % MELD_CELLS for c in cells] == list(range(len(cells)))
        if len(faces) != len(cells) or not contiguous:
            return []
        options = []
        if hand.last_discard is not None:
            options = _claims(seat, cells, *hand.last_discard, [])
            options += self._misread_claims(obs, cells)
        if not options and self.now - obs.ts >= DRAW_UNSEEN_S and hand.turn is not seat:
            # a discard the camera never saw (an arm over the river until the tile was taken):
            # the claim names it, by its sideways tile, from the seat whose turn it was
            source = hand.turn
            at = _claimed_cell(seat, source, len(cells))
            for tile, _ in cells[at].readings() if at is not None else []:
                discard = [*self._draw_before(source), Discard(seat=source, tile=tile)]
                unseen = _claims(seat, cells, source, tile, discard)
                options += [o._replace(likelihood=o.likelihood * UNSEEN_DISCARD) for o in unseen]
        return options

    def _misread_claims(self, obs: ZoneSeen, cells: list[SlotSeen]) -> list[Option]:
        """Claims of the last discard read as another tile than recorded: the claim, seen
        within ``PENDING_S`` of it, shows what it took (its sideways tile), and the record is
        put right if the rules allow it (the discarder held that tile). Each weighs as the
        river slot read that tile, against the tile recorded."""
        hand, read, seat = self.table.state.hand, self.discard_read, obs.seat
        if hand is None or hand.last_discard is None or read is None:
            return []
        source, recorded = hand.last_discard
        if read.seat is not source or obs.ts - read.ts > PENDING_S:
            return []
        river = read.slot
        at = _claimed_cell(seat, source, len(cells))
        named = {t for t, _ in river.readings()} | {
            t for t, _ in (cells[at].readings() if at is not None else [])
        }
        options = []
        for tile in sorted(named - {recorded}):
            ratio = river.likelihood(tile) / river.likelihood(recorded)
            corrected: list[Payload] = [DiscardCorrected(seat=source, tile=tile)]
            claims = _claims(seat, cells, source, tile, corrected)
            options += [o._replace(likelihood=o.likelihood * ratio) for o in claims]
        return options

    def _win(self, obs: ZoneSeen, cite: str) -> None:
        def plan() -> list[Option]:
            hand = self.table.state.hand
            recent = self._wall_change(obs.ts) is not None
            # on one's own turn with the wall shrunk since the last discard: self-drawn
            before = self._draw_before(obs.seat, own_turn=recent)
            if hand is not None and hand.last_discard is None and not before:
                before = self._draw_before(obs.seat)
            return [Option([*before, WinDeclared(seat=obs.seat)], 1.0)]

        self.winning.add(obs.seat)
        self._attempt(plan, obs, cite, done=lambda: self.won.add(obs.seat))

    def _reveal(self, obs: ZoneSeen, faces: list[SlotSeen], cite: str) -> None:
        """The winner's hand as now read replaces a reading still waiting: it is revealed once
        it holds as many tiles as the record says the winner holds (then read whole)."""
        seat, key = obs.seat, (obs.seat, REVEAL_KEY)
        tiles = tuple(sorted(s.tile for s in faces if s.tile is not None))
        self.pending = [p for p in self.pending if p.key != key]

        def plan() -> list[Option]:
            hand = self.table.state.hand
            if seat not in self.won or hand is None:
                return []
            if len(tiles) != sum(hand.seats[seat].counts[:NUM_KINDS]):
                return []  # still being laid down (or a tile not read): a later reading
            return [Option([HandRevealed(seat=seat, tiles=tiles)], 1.0)]

        why = f"{seat.name}'s hand shows {len(tiles)} tiles face up, not as many as it holds"
        self._attempt(plan, obs, cite, key, lambda: self.revealed.add(seat), why)

    # ---- the engine --------------------------------------------------------------------------
    def _attempt(
        self,
        plan: Callable[[], list[Option]],
        obs: ZoneSeen,
        cite: str,
        key: tuple[Wind, int] | None = None,
        done: Callable[[], None] | None = None,
        idle: str = NO_ACTION,
    ) -> None:
        """Record the actions of the reading the rules take if they allow one now; else wait
        (another observation may come first in the legal order) until ``PENDING_S`` passed."""
        self.pending.append(_Pending(plan, obs, cite, key, done, idle))
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
        weighed = self._weigh(item)
        if weighed is None:
            behind = self._doubt_behind(item)
            if behind is None:
                return False
            self._settle(*behind)  # play went on past an unsure reading: it was the likeliest
            return self._apply_plan(item)
        option, share, shares = weighed
        item.unsure = share <= MIN_SHARE
        if item.unsure:
            item.why = _unsure(shares)
            return False  # waits: a surer reading, an earlier action, or play going past it
        if share < self.min_confidence:
            first, *others = _readings_told(shares)
            self._alert(
                FUSION_AMBIGUOUS,
                f"{item.obs.seat.name}'s {item.obs.zone}: the camera's reading is not sure; "
                f"recorded {first}, the rules also allow {', '.join(others)}",
                item.obs,
                item.cite,
            )
        self._commit(item, option, share)
        return True

    def _weigh(self, item: _Pending) -> tuple[Option, float, list[tuple[Option, float]]] | None:
        """The likeliest reading the rules allow now, its share of the likelihood of all they
        allow, and every one's share; None when they allow none (``item.why`` says why)."""
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
            raised = self._trial(self._events(option.actions, item, option.likelihood), item)
            why = why or item.why  # the likeliest reading's refusal is the one told
            if raised is not None:
                allowed.append((option, raised))
        if not allowed:
            item.why = why
            return None
        fewest = min(raised for _, raised in allowed)  # (alerts all readings raise aside)
        weighed = [(o, o.likelihood * IRREGULAR ** (raised - fewest)) for o, raised in allowed]
        total = sum(q for _, q in weighed) + unnamed
        shares = sorted(((o, q / total) for o, q in weighed), key=lambda w: -w[1])
        return shares[0][0], shares[0][1], shares

    def _commit(self, item: _Pending, option: Option, share: float) -> None:
        events = self._events(option.actions, item, share)
        for event in events:
            self._record(event)
        self.action_ts = max(self.action_ts, *(e.ts for e in events))
        if any(e.type in ("draw", "replacement_draw") for e in events):
            self.wall_taken = {}
        obs = item.obs
        self.named.extend((obs.seat, obs.zone, *named) for named in option.tiles)
        self.doubts = [d for d in self.doubts if d.obs.ts > self.action_ts]
        last = option.actions[-1]
        if any(isinstance(a, Discard) for a in option.actions):  # (one a claim named: unread)
            self.discard_read = None
            if obs.zone == "river" and option.tiles:
                slot, tile, _ = option.tiles[0]
                seen = next(s for s in obs.slots if s.index == slot)
                self.discard_read = _DiscardRead(obs.seat, seen, tile, obs.ts)
        for action in option.actions:
            if isinstance(action, DiscardCorrected):
                self._corrected(item, action, last)

    def _corrected(self, item: _Pending, action: DiscardCorrected, claim: Payload) -> None:
        """A claim showed the last discard misread: the camera's river slot is named again."""
        read = self.discard_read
        assert read is not None
        self.named.append((read.seat, "river", read.slot.index, action.tile, False))
        self._alert(
            FUSION_AMBIGUOUS,
            f"{read.seat.name}'s discard was read as {_name(read.tile)}; "
            f"{item.obs.seat.name}'s {_told(claim)} shows it was {_name(action.tile)}: the "
            "record is corrected",
            item.obs,
            item.cite,
        )

    def _doubt_behind(self, item: _Pending) -> tuple[_Pending, Option, float] | None:
        """The unsure change, waiting or told, that the rules need for this one to be allowed
        (the discard before the next seat's, the claim before the claimer's discard): its
        likeliest reading happened, since play went on past it (returned with its share)."""
        waiting = [p for p in self.pending if p.unsure and p is not item]
        why = item.why
        for doubt in reversed(self.doubts + waiting):
            weighed = self._weigh(doubt)
            if weighed is None:
                continue
            before = self._events(weighed[0].actions, doubt, weighed[1])
            base = copy.deepcopy(self.table)
            if self._trial(before, doubt, base) is None:
                continue
            for option in item.plan():
                after = self._events(option.actions, item, 1.0, len(before))
                if option.actions and self._trial(after, item, copy.deepcopy(base)) is not None:
                    item.why = why
                    return doubt, weighed[0], weighed[1]
        item.why = why
        return None

    def _settle(self, doubt: _Pending, option: Option, share: float) -> None:
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
            f"past it: recorded {_told(option.actions[-1])} ({share:.0%})",
            obs,
            doubt.cite,
        )

    def _events(
        self, payloads: list[Payload], item: _Pending, confidence: float, ahead: int = 0
    ) -> list[Event]:
        """The events of one reading, timed: a draw when the wall was seen to shrink (if it
        was lately), the rest when the camera saw them; never before the action they follow."""
        obs = item.obs
        taken = self._wall_change(obs.ts)
        draw_ts = obs.ts if taken is None else min(obs.ts, taken[0])
        events = []
        for n, payload in enumerate(payloads):
            ts = draw_ts if payload.TYPE in ("draw", "replacement_draw") else obs.ts
            ts = max(ts, self.action_ts)
            evidence = (item.cite, obs.evidence)
            events.append(self._event(payload, ts, evidence, confidence, ahead + n))
        return events

    def _trial(self, events: list[Event], item: _Pending, base: Table | None = None) -> int | None:
        """How many alerts the events raise on a copy of the engine (or on ``base``, which
        they change); None if it refuses one (``item.why`` then says which rule)."""
        trial = copy.deepcopy(self.table) if base is None else base
        raised = 0
        for event in events:
            alerts = trial.apply(event).alerts
            refused = [a for a in alerts if a.rejected]
            if refused:
                item.why = f"{event.type} refused by {refused[0].rule}: {refused[0].message}"
                return None
            raised += len(alerts)
        return raised

    def _expire(self, now: float) -> None:
        for item in list(self.pending):
            if now - item.obs.ts > PENDING_S:
                self.pending.remove(item)
                if item.key is not None and item.key[1] == REVEAL_KEY:
                    self.revealed.add(item.key[0])  # told once, not at each later reading
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
    plan: Callable[[], list[Option]]  # the readings' actions, likeliest first ([]: none yet)
    obs: ZoneSeen
    cite: str
    key: tuple[Wind, int] | None = None  # the meld or reveal it reads (a newer one replaces it)
    done: Callable[[], None] | None = None
    idle: str = NO_ACTION  # why it waits when its plan names no action
    why: str = ""
    unsure: bool = False  # the rules allow readings of it, none likelier than the rest together


class _DiscardRead(NamedTuple):
    seat: Wind
    slot: SlotSeen  # its river slot as read
    tile: Tile  # as recorded
    ts: float


def _claimed_cell(seat: Wind, source: Wind, size: int) -> int | None:
    """The cell of a meld of ``size`` where the tile claimed from ``source`` lies sideways:
    left for the left player's, middle for the opposite one's, right for the right one's."""
    return {3: 0, 2: 1, 1: size - 1}.get((source - seat) % 4)


def _claims(
    seat: Wind, cells: list[SlotSeen], source: Wind, claimed: Tile, before: list[Payload]
) -> list[Option]:
    """The melds ``cells`` can be as ``seat``'s claim of ``claimed`` from ``source`` (after
    the actions ``before``), each weighed by how the camera read the cells."""
    at = _claimed_cell(seat, source, len(cells))  # where its sideways tile lies
    turned = [c.index % MELD_CELLS for c in cells if c.sideways]
    if at is None or turned not in ([], [at]):
        return []  # not the source's tile (yet): an alert if it stays so
    options = []
    for tiles in _claims_of(claimed, len(cells)):
        # the cells in the order the camera read best, the claimed tile sideways at its
        # source's side (where the camera may have missed the sideways mark)
        orders = [o for o in set(itertools.permutations(tiles)) if o[at] == claimed]
        order = max(orders, key=lambda o: _likelihood(cells, o))
        if len(tiles) == 4:
            action: Payload = Kong(seat=seat, kind=KongKind.EXPOSED, tile=claimed, tiles=tiles)
        elif len(set(tiles)) == 1:
            action = Pung(seat=seat, tiles=tiles)
        else:
            action = Chow(seat=seat, tiles=tiles)
        named = tuple(
            (c.index, t, k == at) for k, (c, t) in enumerate(zip(cells, order, strict=True))
        )
        options.append(Option([*before, action], _likelihood(cells, order), named))
    return options


def _claims_of(tile: Tile, size: int) -> list[tuple[Tile, ...]]:
    """The melds of ``size`` tiles that a claim of ``tile`` can make (sorted tiles)."""
    if size == 4:
        return [(tile,) * 4]
    out: list[tuple[Tile, ...]] = [(tile,) * 3]
    if tile < 27:  # a suited tile: the runs through it, within its suit
        rank = tile % 9
        out += [tuple(range(tile - k, tile - k + 3)) for k in range(3) if 0 <= rank - k <= 6]
    return out


def _likelihood(cells: list[SlotSeen], tiles: tuple[Tile, ...]) -> float:
    return math.prod(c.likelihood(t) for c, t in zip(cells, tiles, strict=True))


def _readings_told(shares: list[tuple[Option, float]]) -> list[str]:
    return [f"{_told(option.actions[-1])} ({share:.0%})" for option, share in shares[:3]]


def _unsure(shares: list[tuple[Option, float]]) -> str:
    return "the rules allow " + ", ".join(_readings_told(shares))


def _told(action: Payload) -> str:
    """An action as a referee reads it in an alert: ``discard 6s``, ``chow 678s``."""
    tiles = getattr(action, "tiles", None) or (getattr(action, "tile", None),)
    return f"{action.TYPE} {format_tiles(t for t in tiles if t is not None)}"


def _name(tile: Tile | None) -> str:
    return "a face-down tile" if tile is None else tile_name(tile)
