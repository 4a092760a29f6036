"""A simulator: a complete legal game between simple random-but-legal players.

The players hold the randomness (one seeded ``random.Random`` each; the table has its own for the
shuffle and the dice, and the clock its own for timestamps), so a seed reproduces a game exactly.
Players read the engine's state and ask it whether a win would score (``Table.check_win``); they
claim, kong and win when allowed and otherwise discard their least connected tile. Every action
is an event applied to a :class:`~referee.game.table.Table`; a clean game raises no alert.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from referee.events import (
    Call,
    CallKind,
    Chow,
    Deal,
    DiceRolled,
    Discard,
    Draw,
    Event,
    ExhaustiveDraw,
    FlowerSetAside,
    Kong,
    KongKind,
    Payload,
    Pung,
    ReplacementDraw,
    SeatDraw,
    SessionStarted,
    Source,
    WallBuilt,
    WinDeclared,
    construct,
    make_event,
)
from referee.game import claims, shapes
from referee.game.alerts import Alert
from referee.game.claims import WINDS
from referee.game.profile import profile
from referee.game.state import HandState, Phase, TurnStart
from referee.game.table import Scorer, Table
from referee.game.wall import counted_seat
from referee.hands import MeldKind, Wind
from referee.tiles import NUM_KINDS, Tile

DEFAULT_PLAYERS = ("Ann", "Bo", "Chen", "Dai")
_CONSTRUCT = True  # build payloads without validation (the simulator only makes legal ones)
NEXT_WALL_S = 15.0  # from a hand's end to the next wall raised: shown, scored, the tiles put away


_ONE_HAND = (Discard, Draw, ReplacementDraw, FlowerSetAside)  # events that change one seat's tiles


def _p(cls: type[Payload], **fields: Any) -> Payload:
    return construct(cls, **fields) if _CONSTRUCT else cls(**fields)


class Player:
    """A random-but-legal player: claims and kongs with fixed odds, always wins when it scores."""

    def __init__(
        self, rng: random.Random, *, pung: float = 0.6, chow: float = 0.35, kong: float = 0.9
    ) -> None:
        self.rng = rng
        self.pung_rate = pung
        self.chow_rate = chow
        self.kong_rate = kong

    def choose_discard(self, counts: list[int]) -> Tile:
        """The least connected tile, with a little noise: isolated honours first.

        A suited tile scores 4 per copy, −1 for a terminal, +2 per copy of each neighbour and +1
        per copy two away; an honour 0 when single, else 6 per copy; plus noise in [0, 1.5).
        The suits are read through a zero-padded copy so that no bounds checks are needed.
        """
        rnd = self.rng.random
        z = _PAD2
        pad = z + counts[0:9] + z + z + counts[9:18] + z + z + counts[18:27] + z
        best = -1
        best_score = 1e9
        for t, i, terminal in _SUITED:
            n = pad[i]
            if n:
                s = 4 * n - terminal + 2 * (pad[i - 1] + pad[i + 1]) + pad[i - 2] + pad[i + 2]
                score = s + rnd() * 1.5
                if score < best_score:
                    best, best_score = t, score
        for t in _HONOURS:
            n = counts[t]
            if n:
                score = (0.0 if n == 1 else 6.0 * n) + rnd() * 1.5
                if score < best_score:
                    best, best_score = t, score
        return best


_PAD2 = [0, 0]
# (tile, index in the padded suits, 1 for a terminal): each suit is 2 zeros + 9 counts + 2 zeros.
_SUITED = tuple((t, 13 * (t // 9) + 2 + t % 9, 1 if t % 9 in (0, 8) else 0) for t in range(27))
_HONOURS = tuple(range(27, NUM_KINDS))


class Simulator:
    """Plays ``hands`` hands at one table and yields the events, applying each to ``table``."""

    def __init__(
        self,
        profile_name: str = "wmc",
        seed: int = 0,
        *,
        table_id: str = "T1",
        session_id: str = "S1",
        players: tuple[str, str, str, str] = DEFAULT_PLAYERS,
        scorer: Scorer | None = None,
    ) -> None:
        self.profile = profile(profile_name)
        self.table = Table(table_id, session_id, profile_name, scorer=scorer)
        master = random.Random(seed)
        self.table_rng = random.Random(master.getrandbits(64))
        self.clock_rng = random.Random(master.getrandbits(64))
        self._clock = self.clock_rng.random
        self._table_id, self._session_id = table_id, session_id
        self.players = [Player(random.Random(master.getrandbits(64))) for _ in range(4)]
        self.names = players
        self.seq = 0
        self.ts = 0.0
        self.alerts: list[Alert] = []
        self._waits: dict[tuple[tuple[int, ...], int], set[Tile]] = {}
        self._seat_waits: list[set[Tile] | None] = [None] * 4  # per seat until its hand changes
        self.strict = True  # a clean game: any alert is a bug (the injector turns this off)
        self._barred: set[Wind] = set()  # seats that may not claim, kong or win (dead, penalty)
        tiles = [t for t in range(NUM_KINDS) for _ in range(4)]
        if self.profile.flowers:
            tiles += list(range(NUM_KINDS, NUM_KINDS + 8))
        self._tile_set = tiles

    def player_at(self, seat: Wind) -> Player:
        """The simulated player sitting at ``seat`` in the hand in play (seats move, WMC-8.2)."""
        return self.players[self.table.state.place_of(seat)]

    # ---- events ------------------------------------------------------------------------------

    def _emit(
        self,
        payload: Payload,
        evidence: tuple[str, ...] = (),
        delay: float = 0.0,
        gap: float | None = None,
    ) -> Event:
        """Stamp, log and apply one event; ``delay`` adds think time (injected overruns), ``gap``
        replaces the 0.5–3 s since the last event (an injected hurry)."""
        think = self._clock()
        self.ts += (0.5 + think * 2.5 if gap is None else gap) + delay
        ev = make_event(
            payload,
            seq=self.seq,
            ts=round(self.ts, 3),
            table_id=self._table_id,
            session_id=self._session_id,
            source=Source.SIMULATOR,
            evidence=evidence,
        )
        self.seq += 1
        step = self.table.apply(ev)
        if step.alerts:
            self.alerts.extend(step.alerts)
        if isinstance(payload, _ONE_HAND):
            self._seat_waits[payload.seat] = None  # only this seat's concealed tiles changed
        elif not isinstance(payload, Call):
            self._seat_waits = [None] * 4
        return ev

    def run(self, hands: int) -> Iterator[Event]:
        """The whole session: start, seat draw (again after each round, WMC-8.2), the hands."""
        yield self._emit(
            _p(SessionStarted, profile=self.profile.name, players=self.names, follow_suit=True)
        )
        for h in range(hands):
            if h % 4 == 0 and self.profile.dice:
                yield self._emit(self._seat_draw())
            yield from self._hand()

    def _seat_draw(self) -> Payload:
        rng = self.table_rng
        winds = list(Wind)
        rng.shuffle(winds)
        return _p(
            SeatDraw,
            roller=rng.randrange(4),
            roll1=rng.randint(1, 6) + rng.randint(1, 6),
            roll2=rng.randint(1, 6) + rng.randint(1, 6),
            winds=tuple(winds),
        )

    def _hand(self) -> Iterator[Event]:
        rng = self.table_rng
        tiles = list(self._tile_set)
        rng.shuffle(tiles)
        # after a hand, its tiles lie shown while it is checked and scored, then go into the
        # machine, which raises the next walls: not the 0.5–3 s between two discards
        pause = NEXT_WALL_S if self.table.state.results else 0.0
        yield self._emit(_p(WallBuilt, tiles=tuple(tiles)), delay=pause)
        if self.profile.dice:
            d1 = (rng.randint(1, 6), rng.randint(1, 6))
            yield self._emit(_p(DiceRolled, seat=Wind.E, dice=d1))
            breaker = WINDS[counted_seat(0, d1[0] + d1[1])]
            d2 = (rng.randint(1, 6), rng.randint(1, 6))
            yield self._emit(_p(DiceRolled, seat=breaker, dice=d2))
        yield self._emit(self._deal())
        hand = self.table.state.hand
        assert hand is not None
        if self.profile.flowers:
            for seat in Wind:
                yield from self._flowers(hand, seat)
        emit = self._emit
        while hand.phase is not Phase.IDLE:
            before = self.seq
            phase = hand.phase
            if phase is Phase.DISCARD:
                plan = self._turn(hand)
            elif phase is Phase.REPLACE:
                plan = self._replace(hand)
            else:
                plan = self._window(hand)
            if plan is None:
                yield from self._flowers(hand, hand.turn)
            else:
                # A plan is decided before its first event is applied (a call and its exposure);
                # each event is still yielded right after it was applied.
                for payload in plan:
                    yield emit(payload)
            if self.seq == before or (self.alerts and self.strict):
                raise RuntimeError(f"simulator stuck or refused at seq {self.seq}: {self.alerts}")

    def _deal(self) -> Payload:
        """The deal: the recorded wall says what each seat got."""
        return _p(Deal, hands=None)

    # ---- decisions ---------------------------------------------------------------------------

    def _waits_of(self, hand: HandState, seat: Wind) -> set[Tile]:
        cached = self._seat_waits[seat]
        if cached is not None:
            return cached
        me = hand.seats[seat]
        key = (tuple(me.counts[:NUM_KINDS]), len(me.melds))
        found = self._waits.get(key)
        if found is None:
            if len(self._waits) > 50_000:
                self._waits.clear()
            found = self._waits[key] = shapes.waits(me.counts, len(me.melds))
        self._seat_waits[seat] = found
        return found

    def _flowers(self, hand: HandState, seat: Wind) -> Iterator[Event]:
        counts = hand.seats[seat].counts
        while any(counts[NUM_KINDS:]):
            flower = next(t for t in range(NUM_KINDS, NUM_KINDS + 8) if counts[t])
            yield self._emit(_p(FlowerSetAside, seat=seat, tile=flower))
            if hand.phase is not Phase.REPLACE:
                return
            yield self._emit(_p(ReplacementDraw, seat=seat, tile=self._tail_tile(hand)))

    @staticmethod
    def _tail_tile(hand: HandState) -> Tile:
        wall = hand.wall
        return wall.tiles[wall.next_position(hand.turn, replacement=True)]

    def _turn(self, hand: HandState) -> list[Payload] | None:
        """The player on turn: win, kong or discard (None: set flowers aside first, MCR)."""
        seat = hand.turn
        me = hand.seats[seat]
        counts = me.counts
        player = self.player_at(seat)
        if self.profile.flowers and hand.after is not TurnStart.CLAIM and any(counts[NUM_KINDS:]):
            return None
        if hand.after is not TurnStart.CLAIM:
            if shapes.is_complete(counts, len(me.melds)):
                result = self.table.check_win(seat, None)
                if result is not None and result.valid:
                    return [_p(Call, seat=seat, call=CallKind.WIN), _p(WinDeclared, seat=seat)]
            may_kong = hand.wall.live_for(seat) > 0 and not (
                hand.seabed_seat is seat and hand.after is TurnStart.DRAW
            )
            if may_kong and player.rng.random() < player.kong_rate:
                for t in range(NUM_KINDS):
                    if counts[t] == 4:
                        return _declare_kong(seat, KongKind.CONCEALED, t)
                for meld in me.melds:
                    if meld.kind is MeldKind.PUNG and counts[meld.first]:
                        return _declare_kong(seat, KongKind.ADDED, meld.first)
        return [_p(Discard, seat=seat, tile=player.choose_discard(counts))]

    def _replace(self, hand: HandState) -> list[Payload]:
        """After a kong: rob an added kong if it wins (WMC-5.6), else the replacement draw."""
        konger = hand.turn
        tile = hand.robbable
        if tile is not None:
            for k in (1, 2, 3):
                seat = WINDS[(konger + k) % 4]
                if seat not in self._barred and tile in self._waits_of(hand, seat):
                    result = self.table.check_win(seat, tile, robbing=True)
                    if result is not None and result.valid:
                        return [_p(Call, seat=seat, call=CallKind.WIN), _p(WinDeclared, seat=seat)]
        return [_p(ReplacementDraw, seat=konger, tile=self._tail_tile(hand))]

    def _window(self, hand: HandState) -> list[Payload]:
        """A discard lies: the best wished claim (calls first, WMC-5.2), else the next draw."""
        if hand.last_discard is None:  # a flower drawn as the last tile (MCR)
            return [_p(ExhaustiveDraw)]
        discarder, tile = hand.last_discard
        wishes: list[tuple[tuple[int, int], Wind, CallKind]] = []
        wall = hand.wall
        seat_waits = self._seat_waits
        riverbed = hand.riverbed
        barred = self._barred
        for k in (1, 2, 3):
            seat = WINDS[(discarder + k) % 4]
            if barred and seat in barred:
                continue
            waits = seat_waits[seat]
            if waits is None:
                waits = self._waits_of(hand, seat)
            if tile in waits:
                result = self.table.check_win(seat, tile)
                if result is not None and result.valid:
                    wishes.append((claims.rank(CallKind.WIN, seat, discarder), seat, CallKind.WIN))
                    continue
            if riverbed:
                continue
            counts = hand.seats[seat].counts
            if counts[tile] < 2 and k != 1:
                continue  # no pung, kong or chow to consider (no random draw either)
            rng = self.player_at(seat)
            if counts[tile] >= 2:
                if (
                    counts[tile] == 3
                    and wall.live_for(seat) > 0
                    and rng.rng.random() < rng.kong_rate
                ):
                    wishes.append(((1, 0), seat, CallKind.KONG))
                    continue
                if rng.rng.random() < rng.pung_rate:
                    wishes.append(((1, 0), seat, CallKind.PUNG))
                    continue
            if k == 1 and claims.chow_options(counts, tile) and rng.rng.random() < rng.chow_rate:
                wishes.append(((2, 0), seat, CallKind.CHOW))
        if not wishes:
            if wall.live_for(hand.turn) == 0:
                return [_p(ExhaustiveDraw)]
            drawn = wall.tiles[wall.next_position(hand.turn)]
            return [_p(Draw, seat=hand.turn, tile=drawn, merged=True)]
        plan = [_p(Call, seat=seat, call=call) for _rank, seat, call in wishes]
        _rank, seat, call = min(wishes, key=lambda w: w[0])
        if call is CallKind.WIN:
            plan.append(_p(WinDeclared, seat=seat))
        elif call is CallKind.KONG:
            plan.append(_p(Kong, seat=seat, kind=KongKind.EXPOSED, tile=tile))
        elif call is CallKind.PUNG:
            plan.append(_p(Pung, seat=seat))
        else:
            options = claims.chow_options(hand.seats[seat].counts, tile)
            pick = self.player_at(seat).rng.choice(options)
            plan.append(_p(Chow, seat=seat, tiles=pick))
        return plan


def _declare_kong(seat: Wind, kind: KongKind, tile: Tile) -> list[Payload]:
    return [_p(Call, seat=seat, call=CallKind.KONG), _p(Kong, seat=seat, kind=kind, tile=tile)]


def simulate(profile_name: str = "wmc", hands: int = 8, seed: int = 0, **kw: Any) -> list[Event]:
    """The event log of a simulated session (a list, with the simulator's table at the end)."""
    return list(Simulator(profile_name, seed, **kw).run(hands))
