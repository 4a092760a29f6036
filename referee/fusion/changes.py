"""Each change of a zone the camera saw → the readings of the action that explains it, for the
record to weigh (the module docstring of :mod:`referee.fusion`)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import NamedTuple

from referee.events import (
    Deal,
    Discard,
    DiscardCorrected,
    Draw,
    Event,
    ExhaustiveDraw,
    HandRevealed,
    Kong,
    KongKind,
    Observation,
    Payload,
    ReplacementDraw,
    TilesExposed,
    WinDeclared,
)
from referee.fusion.melds import MELD_CELLS, by_meld, claimed_cell, claims
from referee.fusion.record import (
    FUSION_AMBIGUOUS,
    IRREGULAR,
    PENDING_S,
    Pending,
    Record,
    tile_told,
    told,
)
from referee.fusion.seen import UNSEEN_P, Option, SlotSeen, ZoneSeen
from referee.game.state import Phase, SeatState
from referee.hands import MeldKind, Relative, Wind
from referee.tiles import NUM_KINDS, Tile

REVEAL_KEY = -1  # the pending key of a hand's reveal (meld keys count from 0)
REVEALED = 8  # face-up tiles in a hand zone that mean the hand was laid down (at most)
WALL_RECENT_S = 5.0  # a wall change this recent times the draw that a discard implies
DRAW_UNSEEN_S = 3.0  # a discard whose draw the wall did not show waits this long for a claim
RIVERBED_S = 6.0  # the riverbed tile lying this long unwon: the hand is drawn
DEAL_STACKS = 26  # stacks the deal empties (53 tiles: 26 and a half)
RACK_FILLED = 10  # tiles standing in a hand zone that show the deal was taken
UNSEEN_DISCARD = 0.1  # a claim of a discard the camera never saw weighs this much less
UNSEEN_DRAW = 0.1  # a win self-drawn from a wall the camera did not see give a tile: as much


@dataclass
class Fusion(Record):
    """The camera's side of the record: each zone's change becomes the readings of the action
    that explains it (the module docstring of :mod:`referee.fusion` says which)."""

    zones: dict[tuple[Wind, str], dict[int, SlotSeen]] = field(default_factory=dict)
    wall_counts: dict[Wind, int] = field(default_factory=dict)
    # per wall side: the latest observation showing a tile taken from it since the last draw
    # recorded (its time, the observation, its cite)
    wall_taken: dict[Wind, tuple[float, ZoneSeen, str]] = field(default_factory=dict)
    winning: set[Wind] = field(default_factory=set)  # a win seen (recorded or waiting)
    won: set[Wind] = field(default_factory=set)  # a win recorded
    revealed: set[Wind] = field(default_factory=set)
    melds_used: dict[tuple[Wind, int], tuple[int, ...]] = field(default_factory=dict)
    discard_read: DiscardRead | None = None  # the last discard recorded, as the camera read it

    def observe(self, obs: ZoneSeen) -> None:
        obs = self._by_seat(obs)
        self.now = max(self.now, obs.ts)
        self._retry()
        self._riverbed_passed()
        cite = self._log(
            Observation(sensor="camera", kind="zone", data=obs.to_data()), obs.ts, obs.evidence
        )
        was = self.wall_counts.get(obs.seat)
        if obs.zone == "wall" and obs.count is not None:
            self.wall_counts[obs.seat] = obs.count
        if self._deal_seen(obs):
            # the deal went face down into the racks: the record knows it happened, not what
            self._record(self._event(Deal(), obs.ts, (cite, obs.evidence), 1.0))
        before = self.zones.get((obs.seat, obs.zone), {})
        now = {s.index: s for s in obs.slots}
        self.zones[(obs.seat, obs.zone)] = now
        if obs.zone == "wall":
            if obs.count is not None and was is not None and obs.count <= was:
                self.wall_taken[obs.seat] = (obs.ts, obs, cite)  # a tile taken: a draw's time
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
            if self._unseen_hand(obs.seat):
                if len(faces) >= self._laid_down(obs.seat) and obs.seat not in self.won:
                    self._shown_win(obs, faces, cite)
                return
            if len(faces) >= self._laid_down(obs.seat) and obs.seat not in self.winning:
                self._win(obs, cite)
            if obs.seat in self.winning and obs.seat not in self.revealed:
                self._reveal(obs, faces, cite)

    def _riverbed_passed(self) -> None:
        """The riverbed tile lay ``RIVERBED_S`` and nobody won on it: the hand is drawn
        (WMC-6.3) — a win on it is claimed at once, nothing else may be."""
        hand = self.table.state.hand
        if (
            hand is not None
            and hand.phase is Phase.WINDOW
            and hand.riverbed
            and not self.pending
            and not self.winning
            and self.now - self.action_ts >= RIVERBED_S
        ):
            self._record(self._event(ExhaustiveDraw(), self.action_ts + RIVERBED_S, (), 1.0))

    def _deal_seen(self, obs: ZoneSeen) -> bool:
        """The wall is broken and not yet dealt (the deal goes face down, so nobody logs it),
        and the camera sees it dealt: a rack filled, tiles in play, or the walls short of the
        stacks the deal takes (WMC-3.4: 13 for each seat, and East's 14th)."""
        hand = self.table.state.hand
        if hand is None or hand.phase is not Phase.DEAL:
            return False
        if obs.zone == "wall":
            sides = hand.wall.stacks_per_side
            standing = self.wall_counts.values()
            return len(self.wall_counts) == 4 and sum(standing) <= 4 * sides - DEAL_STACKS
        return len(obs.slots) >= (RACK_FILLED if obs.zone == "hand" else 1)

    def _laid_down(self, seat: Wind) -> int:
        """Face-up tiles in a hand zone that mean the hand was laid down: ``REVEALED``, or all
        the seat holds concealed (a hand after three melds holds four, five with the win)."""
        hand = self.table.state.hand
        held = _concealed(hand.seats[seat]) if hand is not None else REVEALED
        return min(REVEALED, max(2, held))

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
        place = self.table.state.seated_dealer_place
        return [(Wind((place + s) % 4), z, i, t, side) for s, z, i, t, side in out]

    def _by_seat(self, obs: ZoneSeen) -> ZoneSeen:
        """The camera names a zone by the table edge it lies at; the seats rotate over the
        edges as the deal passes (WMC-2.4): the dealer sits at the edge of his place."""
        return replace(obs, seat=Wind((obs.seat - self.table.state.seated_dealer_place) % 4))

    @property
    def revealing(self) -> bool:
        """A win is recorded and the winner's hand not yet read whole (the hand is over, its
        hand zone still watched)."""
        return bool(self.won - self.revealed)

    def follow(self, event: Event) -> None:
        """An event from another source of the same session (the table link's wall and dice,
        a heard call, a referee): fusion's engine sees it too, and the seq continues after it."""
        if event.type in ("wall_built", "deal"):  # a new hand: nobody has won it yet, and its
            # seats sit elsewhere
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
        self._riverbed_passed()
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
                might = me.might_hold()  # a hand nobody saw may hold any tile not all in sight
                held = {t for t in range(NUM_KINDS) if might[t]} | set(me.penalty_live)
                unnamed = len(held - named) + len(before)  # (and the tile drawn first)
                options.append(Option([], unnamed * UNSEEN_P))
            return options

        self._attempt(plan, obs, cite)

    def _laying_meld(self, seat: Wind) -> bool:
        """A meld of ``seat`` shows tiles the record has not taken (yet): a claim is being
        laid down, and the arm that lays it may have brushed the wall, seeming to draw."""
        melds = by_meld(self.zones.get((seat, "meld"), {}))
        return any(len(c) > len(self.melds_used.get((seat, m), ())) for m, c in melds.items())

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
        for meld, cells in by_meld(now).items():
            key = (obs.seat, meld)
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
            options = claims(seat, cells, *hand.last_discard, [])
            options += self._misread_claims(obs, cells)
        if hand.turn is not seat:
            options += self._unseen_discard_claims(obs, cells)
        return options

    def _unseen_discard_claims(self, obs: ZoneSeen, cells: list[SlotSeen]) -> list[Option]:
        """Claims of a discard the camera never saw (an arm over the river until the tile was
        taken): the claim names it, by its sideways tile, from the seat whose turn it was.
        Until the camera has had ``DRAW_UNSEEN_S`` to see that discard, they are one reading
        that names nothing: it keeps a claim that the last discard explains only by a misread
        and an irregularity (a chow from the opposite seat, its sideways tile missed) from being
        recorded before the discard it took."""
        hand = self.table.state.hand
        assert hand is not None
        source = hand.turn
        at = claimed_cell(obs.seat, source, len(cells))
        options: list[Option] = []
        for tile, _ in cells[at].readings() if at is not None else []:
            discard = [*self._draw_before(source), Discard(seat=source, tile=tile)]
            options += claims(obs.seat, cells, source, tile, discard, UNSEEN_DISCARD)
        if options and self.now - obs.ts < DRAW_UNSEEN_S:
            return [Option([], sum(o.likelihood for o in options))]
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
        at = claimed_cell(seat, source, len(cells))
        named = {t for t, _ in river.readings()} | {
            t for t, _ in (cells[at].readings() if at is not None else [])
        }
        options = []
        for tile in sorted(named - {recorded}):
            ratio = river.likelihood(tile) / river.likelihood(recorded)
            corrected: list[Payload] = [DiscardCorrected(seat=source, tile=tile)]
            options += claims(seat, cells, source, tile, corrected, ratio)
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

    def _unseen_hand(self, seat: Wind) -> bool:
        hand = self.table.state.hand
        return hand is not None and hand.seats[seat].hidden > 0

    def _shown_win(self, obs: ZoneSeen, faces: list[SlotSeen], cite: str) -> None:
        """A hand nobody has seen into, laid down face up: the win and the hand shown are one
        reading (the rules rule the win on the hand), read again at each observation until it
        holds as many tiles as the winner holds (with the tile won on a discard). Its tiles may
        show the last discard misread: the tile he won on is among them. On his turn to draw
        with no tile seen taken from the wall, the win self-drawn is a reading too
        (``UNSEEN_DRAW``): the camera misses a wall as it misses a tile, and without it a hand
        won on the tile drawn put a discard read surely right on another tile it never named."""
        seat, key = obs.seat, (obs.seat, REVEAL_KEY)
        tiles = tuple(sorted(s.tile for s in faces if s.tile is not None))
        self.pending = [p for p in self.pending if p.key != key]

        def plan() -> list[Option]:
            hand = self.table.state.hand
            if hand is None or seat in self.won:
                return []
            recent = self._wall_change(obs.ts) is not None
            before = self._draw_before(seat, own_turn=recent)
            if hand.last_discard is None and not before:
                before = self._draw_before(seat)
            own_turn = bool(before) or (hand.phase is Phase.DISCARD and hand.turn is seat)
            held = _concealed(hand.seats[seat]) + len(before) + (0 if own_turn else 1)
            if len(tiles) != held:
                return []  # still being laid down (or a tile not read): a later reading
            shown: list[Payload] = [WinDeclared(seat=seat), HandRevealed(seat=seat, tiles=tiles)]
            options = [Option([*before, *shown], 1.0)]
            as_read = Pending(plan, obs, cite)  # a win as read: none of its tiles misread
            regular = self._trial(self._events(options[0].actions, as_read, 1.0), as_read) == 0
            for index, read_as, tile, ratio in [] if regular else _misread_faces(faces):
                rest = list(tiles)
                rest.remove(read_as)
                hand_read = tuple(sorted([*rest, tile]))
                reading = [WinDeclared(seat=seat), HandRevealed(seat=seat, tiles=hand_read)]
                options.append(Option([*before, *reading], ratio, ((index, tile, False),)))
            drawn = [] if before else self._draw_before(seat)
            if drawn:  # the wall not seen giving the tile (an arm over it, or long before)
                options.append(Option([*drawn, *shown], UNSEEN_DRAW))
            read = self.discard_read
            if before or hand.last_discard is None or read is None:
                return options
            source, recorded = hand.last_discard
            if read.seat is source and obs.ts - read.ts <= PENDING_S:
                for tile in sorted(set(tiles) - {recorded}):
                    ratio = read.slot.likelihood(tile) / read.slot.likelihood(recorded)
                    corrected = DiscardCorrected(seat=source, tile=tile)
                    options.append(Option([corrected, *shown], ratio))
            return options

        def done() -> None:
            self.won.add(seat)
            self.revealed.add(seat)

        self.winning.add(seat)
        why = f"{seat.name}'s hand shows {len(tiles)} tiles face up, not a hand it may win with"
        self._attempt(plan, obs, cite, key, done, why)

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
            if len(tiles) != _concealed(hand.seats[seat]):
                return []  # still being laid down (or a tile not read): a later reading
            return [Option([HandRevealed(seat=seat, tiles=tiles)], 1.0)]

        why = f"{seat.name}'s hand shows {len(tiles)} tiles face up, not as many as it holds"

        def seen() -> None:  # recorded, or told once (not at each later reading)
            self.revealed.add(seat)

        self._attempt(plan, obs, cite, key, seen, why, expired=seen)

    # ---- the record's hooks -------------------------------------------------------------------
    def _draw_ts(self, obs: ZoneSeen) -> float:
        """A draw when the wall it comes from was seen to shrink after the last action: a
        player may think long before a kong or a discard, and the tile taken then was the draw."""
        taken = self._wall_change()
        return obs.ts if taken is None or taken[0] <= self.action_ts else min(obs.ts, taken[0])

    def _commit(self, item: Pending, option: Option, share: float) -> None:
        super()._commit(item, option, share)
        if any(isinstance(a, Draw | ReplacementDraw) for a in option.actions):
            self.wall_taken = {}
        obs, last = item.obs, option.actions[-1]
        if any(isinstance(a, Discard) for a in option.actions):  # (one a claim named: unread)
            self.discard_read = None
            if obs.zone == "river" and option.tiles:
                slot, tile, _ = option.tiles[0]
                seen = next(s for s in obs.slots if s.index == slot)
                self.discard_read = DiscardRead(obs.seat, seen, tile, obs.ts)
        for action in option.actions:
            if isinstance(action, DiscardCorrected):
                self._corrected(item, action, last)

    def _corrected(self, item: Pending, action: DiscardCorrected, claim: Payload) -> None:
        """A claim showed the last discard misread: the camera's river slot is named again."""
        read = self.discard_read
        assert read is not None
        self.named.append((read.seat, "river", read.slot.index, action.tile, False))
        self._alert(
            FUSION_AMBIGUOUS,
            f"{read.seat.name}'s discard was read as {tile_told(read.tile)}; "
            f"{item.obs.seat.name}'s {told(claim)} shows it was {tile_told(action.tile)}: the "
            "record is corrected",
            item.obs,
            item.cite,
        )


def _misread_faces(faces: list[SlotSeen]) -> list[tuple[int, Tile, Tile, float]]:
    """Each tile of a hand shown that may be misread: its slot, the tile read, a runner-up and
    how likely that is against the reading. Only runners-up at least ``IRREGULAR`` as likely:
    a less likely one weighs less than a false win (an irregularity) of the hand as read."""
    out = []
    for face in faces:
        for tile, p in face.alternatives:
            ratio = p / max(face.confidence, UNSEEN_P)
            if face.tile is not None and ratio >= IRREGULAR:
                out.append((face.index, face.tile, tile, ratio))
    return out


def _concealed(me: SeatState) -> int:
    """The tiles a seat holds concealed: those the record knows and those nobody has seen."""
    return sum(me.counts[:NUM_KINDS]) + me.hidden


class DiscardRead(NamedTuple):
    seat: Wind
    slot: SlotSeen  # its river slot as read
    tile: Tile  # as recorded
    ts: float
