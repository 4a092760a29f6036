"""A simulator that commits irregularities on purpose, with the ground truth in the log.

Each decision point injects, with probability ``rate``, one irregularity that fits the moment
(an unspoken claim, a draw out of turn, a false win, a slow turn …). The event that commits it
carries ``injected:<rule>:<seat>`` in its ``evidence`` — the engine never reads evidence, so
the log replays as the table saw it, and benchmarks and tests compare the alerts with the truth.
An alert matches a truth when rule and seat agree and the marked event is the alert's ``seq``
or one of its ``evidence`` seqs (an empty claim is alerted at the next draw, citing the call).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass

from referee.events import (
    Call,
    CallKind,
    Chow,
    Deal,
    Discard,
    Draw,
    Event,
    Kong,
    KongKind,
    MeldCorrected,
    Payload,
    PlayerBack,
    PlayerLate,
    PlayerPaused,
    Pung,
    ReplacementDraw,
    TilesExposed,
    WallFlipped,
    WinDeclared,
)
from referee.game import claims, shapes
from referee.game.claims import WINDS
from referee.game.sim import Simulator
from referee.game.state import HandState
from referee.hands import Relative, Wind
from referee.tiles import NUM_KINDS, Tile

PREFIX = "injected:"
KINDS = (
    "unspoken_claim",  # WMC-5.2
    "draw_out_of_turn",  # WMC-4.2 → long hand WMC-10.1
    "discard_before_draw",  # WMC-4.3 → short hand WMC-10.1
    "empty_claim",  # WMC-11.3
    "empty_win",  # WMC-11.7
    "false_win",  # WMC-11.6
    "chow_not_left",  # WMC-5.4, withdrawn at once: WMC-11.1 penalty tiles
    "chow_not_left_stands",  # WMC-5.4, not corrected: WMC-11.5 no win
    "wrong_meld",  # WMC-11.1 at the exposure, WMC-11.5 once play moves on
    "wrong_meld_corrected",  # WMC-11.1: corrected at once, the wrong tile a penalty tile
    "claim_changed",  # WMC-11.2
    "out_of_priority",  # WMC-5.7
    "river_place",  # WMC-4.6
    "wrong_tile_drawn",  # WMC-4.9
    "wall_flipped",  # WMC-4.9 (live penalty tile)
    "tiles_exposed",  # WMC-9.1
    "added_kong_unspoken",  # WMC-5.5
    "concealed_kong_unspoken",  # WMC-5.2
    "early_replacement",  # WMC-5.5
    "kong_discard_before_replacement",  # WMC-4.3 → short hand WMC-10.1; play goes on
    "replacement_from_live_wall",  # WMC-4.9: the kong's replacement taken from the live wall
    "discard_out_of_turn",  # WMC-4.3 → short hand WMC-10.1; the seat on turn plays on
    "turn_overrun",  # WMC-13.1
    "pause",  # WMC-13.4
    "lateness",  # WMC-13.4
    "fifth_copy_drawn",  # WMC-1.1: a draw names a tile whose four copies are all out
    "older_discard_claimed",  # WMC-5.1: a pung of a discard that is not the last one
    "dead_hand_win",  # WMC-11.6: a dead hand shows a win (WMC-10.2), no empty win after
    "long_hand_claim",  # WMC-10.2: a long hand's pung or chow refused, no empty claim after
    "fast_chow_punged",  # WMC-5.4: a chow exposed < 1 s after the call, punged by priority
    "unspoken_chow_punged",  # WMC-5.2: an unspoken chow (no priority), punged
    "touched_wall_win",  # WMC-4.2 (info): drew unmerged, then won on the discard by priority
    "deal_long",  # WMC-3.5: a tile too many in the deal, found at the first discard: WMC-10.1
    "deal_short",  # WMC-3.5: a tile too few, found at the first discard: WMC-10.1
    "deal_short_topped_up",  # WMC-3.5: a tile too few, taken from the wall before discarding
)

REFUSED = frozenset(
    {"fifth_copy_drawn", "older_discard_claimed", "long_hand_claim", "out_of_priority"}
)
"""The kinds the engine refuses: a draw of a tile that is not there and a claim of a discard
that is not the last cannot have happened as recorded; a dead hand's claim is reversed
(WMC-10.2), and a chow over a called pung is outranked (WMC-5.7), the pung taking the tile.
Every other kind happened, and stands (WMC-0.4)."""

KONG_BOOST = 25
"""Own-turn kongs are rare (about 0.3 a hand), so a kong turn injects at ``rate * KONG_BOOST``
(at most 1) — enough WMC-5.5 / 5.2 kong kinds in 1,000 hands to measure."""
PRIORITY_BOOST = 12
"""A chow against a pung fits few moments (the left player can chow, another holds a pair): each
such moment injects at ``rate * PRIORITY_BOOST`` a chow exposed over a pending pung (WMC-5.7),
or one exposed too fast (5.4) or unspoken (5.2) and punged by priority."""
TOUCH_BOOST = 8
"""The next player winning on a discard fits about one hand in five: such a moment injects at
``rate * TOUCH_BOOST`` a draw without merging, another's call, then the win (WMC-4.2)."""
DEAL_BOOST = 4
"""A deal is one moment a hand: it injects a wrong count at ``rate * DEAL_BOOST``."""
DEAD_BOOST = 4
"""A long hand's claim fits only the moments after one died and holds a pair or a run of the
discard: each such moment injects it at ``rate * DEAD_BOOST``."""
DEAD_WIN_RATE = 0.25
"""A dead hand showing a win fits every discard after one died (many): ``rate * DEAD_WIN_RATE``."""
WEIGHTS = {
    "chow_not_left": 2,
    "chow_not_left_stands": 2,
    "concealed_kong_unspoken": 3,
    "deal_long": 2,
}
"""Choice weights of the kinds that fit a moment (default 1): rare kinds are offered only when
they are feasible, and weighted up so that 1,000 hands hold at least 20 of each."""


@dataclass(frozen=True, slots=True)
class Truth:
    """One injected irregularity: the rule an alert must cite, the seat, the marked event."""

    rule: str
    seat: Wind
    seq: int
    kind: str


def truths(events: list[Event]) -> list[Truth]:
    """The ground truth a log carries (``injected:`` evidence)."""
    out = []
    for ev in events:
        for ref in ev.evidence:
            if ref.startswith(PREFIX):
                rule, seat, kind = ref[len(PREFIX) :].split(":")
                out.append(Truth(rule, Wind[seat], ev.seq, kind))
    return out


class IrregularSimulator(Simulator):
    """The simulator's players, plus irregularities at ``rate`` per decision point."""

    def __init__(self, profile_name: str = "wmc", seed: int = 0, *, rate: float = 0.05) -> None:
        super().__init__(profile_name, seed)
        self.strict = False
        self.rate = rate
        self.inject_rng = random.Random(seed * 7919 + 17)
        self._marks: dict[int, tuple[tuple[str, ...], float]] = {}
        self._gaps: dict[int, float] = {}  # payload id → seconds since the previous event
        self._slow: set[Wind] = set()  # one slow turn per seat and hand (bank stays < 3 min)
        self._deal_ts = 0.0  # the first 15 s after the deal are untimed (referee/clocks.py)
        self._top_up: Wind | None = None  # a short deal to put right before the first discard
        self._pause_points = 0  # WMC-13.4 points injected this half (kept ≤ 150)
        self.injected: dict[str, int] = dict.fromkeys(KINDS, 0)

    # ---- marking -----------------------------------------------------------------------------

    def _mark(
        self, payload: Payload, kind: str, *rules: tuple[str, Wind], delay: float = 0
    ) -> None:
        refs = tuple(f"{PREFIX}{rule}:{seat.name}:{kind}" for rule, seat in rules)
        self._marks[id(payload)] = (refs, delay)
        self.injected[kind] += 1

    def _emit(
        self,
        payload: Payload,
        evidence: tuple[str, ...] = (),
        delay: float = 0.0,
        gap: float | None = None,
    ) -> Event:
        refs, extra = self._marks.pop(id(payload), ((), 0.0))
        gap = self._gaps.pop(id(payload), gap)
        ev = super()._emit(payload, (*evidence, *refs), delay + extra, gap)
        if isinstance(payload, Deal):
            self._deal_ts = ev.ts
        self._seat_waits = [None] * 4  # injected acts change hands in ways the cache can't see
        hand = self.table.state.hand
        if hand is not None:
            self._barred = {
                w
                for w in WINDS
                if hand.seats[w].dead or hand.seats[w].penalty_live or hand.seats[w].penalty_dead
            }
        return ev

    def _roll(self, boost: float = 1.0) -> bool:
        return self.inject_rng.random() < self.rate * boost

    def _pick(self, options: list[str]) -> str:
        weights = [WEIGHTS.get(k, 1) for k in options]
        return self.inject_rng.choices(options, weights)[0]

    def _wrong_tile(self, counts: list[int], keep: list[Tile], avoid: Tile) -> Tile | None:
        """A concealed tile other than ``avoid`` still held after ``keep`` (a wrong grab)."""
        left = list(counts[:NUM_KINDS])
        for t in keep:
            left[t] -= 1
        cands = [t for t in range(NUM_KINDS) if left[t] > 0 and t != avoid]
        return self.inject_rng.choice(cands) if cands else None

    # ---- hand start: lateness (WMC-13.4) -----------------------------------------------------

    def _hand(self) -> Iterator[Event]:
        self._slow = set()
        self._barred = set()
        if self.table.state.hands_played % 8 == 0:
            self._pause_points = 0
        if self._roll() and self._pause_points <= 120:
            seat = self.inject_rng.choice(WINDS)
            late = PlayerLate(seat=seat, seconds=round(5 + self.inject_rng.random() * 50, 1))
            self._pause_points += 10
            self._mark(late, "lateness", ("WMC-13.4", seat))
            yield self._emit(late)
        yield from super()._hand()

    def _deal(self) -> Payload:
        """A seat takes a tile too many (the next one of the wall) or too few (WMC-3.5)."""
        deal = super()._deal()
        hand = self.table.state.hand
        if hand is None or not self._roll(DEAL_BOOST):
            return deal
        rng = self.inject_rng
        wall = hand.wall
        got: list[list[Tile]] = [[], [], [], []]
        for place, index in wall.deal_positions():
            got[place].append(wall.tiles[wall.order[index]])
        kind = self._pick(["deal_long", "deal_short", "deal_short_topped_up"])
        seat = rng.choice(WINDS[1:] if kind == "deal_long" else WINDS)
        tiles = got[seat]
        if kind == "deal_long":
            tiles.append(wall.tiles[wall.order[53]])
        else:
            tiles.remove(rng.choice(tiles))
        wrong = Deal(hands={seat: tuple(tiles)})
        if kind == "deal_short_topped_up":
            self._top_up = seat
            self._mark(wrong, kind, ("WMC-3.5", seat))
        else:
            self._mark(wrong, kind, ("WMC-3.5", seat), ("WMC-10.1", seat))
        return wrong

    # ---- the player on turn ------------------------------------------------------------------

    def _turn(self, hand: HandState) -> list[Payload] | None:
        if self._top_up is not None:  # the short seat takes the missing tile (WMC-3.5)
            short, self._top_up = self._top_up, None
            wall = hand.wall
            return [Draw(seat=short, tile=wall.tiles[wall.next_live_position()])]
        seat = hand.turn
        me = hand.seats[seat]
        if seat in self._barred:
            if me.penalty_live:
                plan: list[Payload] = [Discard(seat=seat, tile=me.penalty_live[0], penalty=True)]
            else:
                tile = self.player_at(seat).choose_discard(me.counts)
                plan = [Discard(seat=seat, tile=tile)]
        else:
            found = super()._turn(hand)
            if found is None:
                return None
            plan = found
        last = plan[-1]
        if not self._roll(KONG_BOOST if isinstance(last, Kong) else 1.0):
            return plan
        options: list[str] = []
        if isinstance(last, Discard):
            options += ["river_place", "tiles_exposed"]
            if self.ts - self._deal_ts >= 15 and seat not in self._slow:
                options.append("turn_overrun")
        if isinstance(last, Kong) and hand.wall.live > 2:
            options += [
                "early_replacement",
                "kong_discard_before_replacement",
                "replacement_from_live_wall",
            ]
            if last.kind is KongKind.ADDED:
                options.append("added_kong_unspoken")
            else:
                options += ["concealed_kong_unspoken", "wrong_meld"]
        if not options:
            return plan
        kind = self._pick(options)
        if kind == "river_place":
            assert isinstance(last, Discard)
            wrong = Discard(
                seat=seat, tile=last.tile, penalty=last.penalty, index=len(me.river) + 1
            )
            self._mark(wrong, kind, ("WMC-4.6", seat))
            return [*plan[:-1], wrong]
        if kind == "turn_overrun":
            self._slow.add(seat)
            self._mark(last, kind, ("WMC-13.1", seat), delay=16 + self.inject_rng.random() * 20)
            return plan
        if kind == "tiles_exposed":
            held = [t for t in range(NUM_KINDS) if me.counts[t]]
            assert isinstance(last, Discard)
            if last.penalty or len(held) < 2:
                return plan
            shown = next(t for t in held if t != last.tile)
            exposed = TilesExposed(seat=seat, tiles=(shown,))
            self._mark(exposed, kind, ("WMC-9.1", seat))
            return [exposed, *plan]
        assert isinstance(last, Kong)
        if kind == "wrong_meld":  # a concealed kong shown with a wrong fourth tile
            x = self._wrong_tile(me.counts, [last.tile] * 4, last.tile)
            if x is None:
                return plan
            wrong_kong = Kong(
                seat=seat, kind=last.kind, tile=last.tile, tiles=(last.tile,) * 3 + (x,)
            )
            self._mark(wrong_kong, kind, ("WMC-11.1", seat), ("WMC-11.5", seat))
            return [*plan[:-1], wrong_kong]
        if kind == "kong_discard_before_replacement":  # D7: play goes on, the seat a tile short
            left = list(me.counts)
            left[last.tile] -= 4 if last.kind is KongKind.CONCEALED else 1
            pick = self.player_at(seat).choose_discard(left)
            early_discard = Discard(seat=seat, tile=pick)
            self._mark(early_discard, kind, ("WMC-4.3", seat), ("WMC-10.1", seat))
            return [*plan, early_discard]
        if kind == "replacement_from_live_wall":
            wall = hand.wall
            from_live = Draw(seat=seat, tile=wall.tiles[wall.next_live_position()])
            self._mark(from_live, kind, ("WMC-4.9", seat))
            return [*plan, from_live]
        if kind == "early_replacement":
            wall = hand.wall
            tile = wall.tiles[wall.next_tail_position()]
            early = ReplacementDraw(seat=seat, tile=tile)
            self._mark(early, kind, ("WMC-5.5", seat))
            return [*plan[:-1], early, last]
        rule = "WMC-5.5" if kind == "added_kong_unspoken" else "WMC-5.2"
        self._mark(last, kind, (rule, seat))
        return [p for p in plan if not isinstance(p, Call)]

    def retarget(self, table_id: str, session_id: str) -> None:
        """Write the log for another table and session id (before the first event)."""
        self._table_id, self._session_id = table_id, session_id
        self.table.state.table_id, self.table.state.session_id = table_id, session_id

    # ---- a discard lies ----------------------------------------------------------------------

    def _window(self, hand: HandState) -> list[Payload]:
        plan = super()._window(hand)
        if hand.last_discard is None:
            return plan
        discarder, tile = hand.last_discard
        last = plan[-1]
        is_draw = isinstance(last, Draw)
        if isinstance(last, WinDeclared) and last.seat is hand.turn and self._roll(TOUCH_BOOST):
            touched = self._touched_wall(hand, last.seat, discarder, tile)
            if touched is not None:
                return touched
        if (
            not hand.riverbed
            and hand.wall.live > 0
            and (is_draw or isinstance(last, Pung))
            and self._roll(PRIORITY_BOOST)
        ):
            others = [w for w in WINDS if w is not discarder and w not in self._barred]
            priority = self._out_of_priority(hand, others, discarder, tile)
            if priority is not None:
                left, run, punger = priority
                kind = self._pick(["out_of_priority", "fast_chow_punged", "unspoken_chow_punged"])
                chow = Chow(seat=left, tiles=run)
                pung = Pung(seat=punger)
                if kind == "out_of_priority":  # a chow exposed while a legal pung call is pending
                    self._mark(chow, kind, ("WMC-5.7", left))
                    return [
                        Call(seat=punger, call=CallKind.PUNG),
                        Call(seat=left, call=CallKind.CHOW),
                        chow,
                        pung,
                    ]
                if kind == "fast_chow_punged":  # exposed < 1 s after the call (WMC-5.4)
                    self._gaps[id(chow)] = round(0.2 + self.inject_rng.random() * 0.6, 3)
                    self._mark(pung, kind, ("WMC-5.4", left))
                    chowed: list[Payload] = [Call(seat=left, call=CallKind.CHOW), chow]
                else:  # unspoken (WMC-5.2): warned at the chow, no priority at the pung
                    self._mark(chow, "unspoken_claim", ("WMC-5.2", left))
                    self._mark(pung, kind, ("WMC-5.2", left))
                    chowed = [chow]
                return [*chowed, Call(seat=punger, call=CallKind.PUNG), pung]
        if is_draw and not hand.riverbed:
            dead = [w for w in WINDS if w is not discarder and hand.seats[w].dead]
            long_claim = self._long_claim(hand, dead, discarder, tile) if dead else None
            if long_claim is not None and self._roll(DEAD_BOOST):
                seat, claim, word = long_claim  # refused (WMC-10.2), the call with it
                self._mark(claim, "long_hand_claim", ("WMC-10.2", seat))
                return [Call(seat=seat, call=word), claim, *plan]
            if dead and self._roll(DEAD_WIN_RATE):  # a false win (WMC-11.6), play goes on
                seat = self.inject_rng.choice(dead)
                win = WinDeclared(seat=seat)
                self._mark(win, "dead_hand_win", ("WMC-11.6", seat))
                return [Call(seat=seat, call=CallKind.WIN), win, *plan]
        if not self._roll():
            return plan
        turn = hand.turn
        others = [w for w in WINDS if w is not discarder and w not in self._barred]
        options: list[str] = []
        if isinstance(last, Pung | Chow | Kong):
            options += ["unspoken_claim", "wrong_meld", "wrong_meld_corrected", "claim_changed"]
        non_left: tuple[Wind, tuple[Tile, Tile, Tile]] | None = None
        if is_draw and hand.wall.live > 20:
            options += ["draw_out_of_turn", "discard_before_draw", "wrong_tile_drawn"]
            options += ["empty_claim", "empty_win", "wall_flipped", "false_win", "pause"]
            options += ["fifth_copy_drawn", "older_discard_claimed", "discard_out_of_turn"]
            if not hand.riverbed:
                non_left = self._non_left_chow(hand, others, discarder, tile)
                if non_left is not None:
                    options += ["chow_not_left", "chow_not_left_stands"]
        if not options:
            return plan
        kind = self._pick(options)
        rng = self.inject_rng
        if kind == "unspoken_claim":
            assert isinstance(last, Pung | Chow | Kong)
            self._mark(last, kind, ("WMC-5.2", last.seat))
            return [p for p in plan if not (isinstance(p, Call) and p.seat is last.seat)]
        if kind in ("wrong_meld", "wrong_meld_corrected"):
            assert isinstance(last, Pung | Chow | Kong)
            return self._wrong_claim(hand, plan, last, tile, kind)
        if kind == "claim_changed":
            assert isinstance(last, Pung | Chow | Kong)
            said = next(p for p in plan if isinstance(p, Call) and p.seat is last.seat)
            word = rng.choice([c for c in CallKind if c is not said.call])
            self._mark(said, kind, ("WMC-11.2", last.seat))
            return [Call(seat=last.seat, call=word), *plan]
        if kind == "pause":
            if self._pause_points > 130:
                return plan
            seat = rng.choice(WINDS)
            back = PlayerBack(seat=seat)
            self._pause_points += 10
            self._mark(back, kind, ("WMC-13.4", seat), delay=31 + rng.random() * 25)
            return [PlayerPaused(seat=seat), back, *plan]
        if kind == "draw_out_of_turn":
            cands = [w for w in others if w is not turn]
            if not cands:
                return plan
            seat = rng.choice(cands)
            wall = hand.wall
            draw = Draw(seat=seat, tile=wall.tiles[wall.next_live_position()])
            self._mark(draw, kind, ("WMC-4.2", seat), ("WMC-10.1", seat))
            return [draw]
        if kind == "discard_before_draw":
            if turn in self._barred:
                return plan
            counts = hand.seats[turn].counts
            pick = self.player_at(turn).choose_discard(counts)
            early = Discard(seat=turn, tile=pick)
            self._mark(early, kind, ("WMC-4.3", turn), ("WMC-10.1", turn))
            return [early]
        if kind == "discard_out_of_turn":  # D8: before the seat on turn drew
            cands = [w for w in others if w is not turn]
            if not cands:
                return plan
            seat = rng.choice(cands)
            pick = self.player_at(seat).choose_discard(hand.seats[seat].counts)
            out_of_turn = Discard(seat=seat, tile=pick)
            self._mark(out_of_turn, kind, ("WMC-4.3", seat), ("WMC-10.1", seat))
            return [out_of_turn, *plan]
        if kind == "wrong_tile_drawn":
            assert isinstance(last, Draw)
            wall = hand.wall
            here = wall.tiles[wall.next_live_position()]
            later = wall.tiles[wall.order[wall.head + 5]]
            if later == here:
                return plan
            wrong = Draw(seat=last.seat, tile=later)
            self._mark(wrong, kind, ("WMC-4.9", last.seat))
            return [wrong]
        if kind == "wall_flipped":
            assert isinstance(last, Draw)
            wall = hand.wall
            flip = WallFlipped(seat=last.seat, tile=wall.tiles[wall.next_live_position()])
            self._mark(flip, kind, ("WMC-4.9", last.seat))
            return [flip]
        if kind == "fifth_copy_drawn":
            assert isinstance(last, Draw)
            gone = self._all_out(hand)
            if not gone:
                return plan
            fifth = Draw(seat=last.seat, tile=rng.choice(gone))
            self._mark(fifth, kind, ("WMC-1.1", last.seat))
            return [fifth, *plan]  # refused: then the real draw
        if kind == "older_discard_claimed":
            older = self._older_pair(hand, others, tile)
            if older is None:
                return plan
            seat, old = older
            pung = Pung(seat=seat, tiles=(old,) * 3)
            self._mark(pung, kind, ("WMC-5.1", seat))
            return [pung, *plan]  # refused: play goes on
        if kind in ("empty_claim", "empty_win"):
            if not others:
                return plan
            seat = rng.choice(others)
            word = CallKind.WIN if kind == "empty_win" else CallKind.PUNG
            call = Call(seat=seat, call=word)
            rule = "WMC-11.7" if kind == "empty_win" else "WMC-11.3"
            self._mark(call, kind, (rule, seat))
            return [call, *plan]
        if kind == "false_win":
            cands = [w for w in others if self._cannot_win(hand, w, tile)]
            if not cands:
                return plan
            seat = rng.choice(cands)
            win = WinDeclared(seat=seat)
            self._mark(win, kind, ("WMC-11.6", seat))
            return [Call(seat=seat, call=CallKind.WIN), win]
        # chow_not_left / chow_not_left_stands
        assert non_left is not None
        seat, run = non_left
        chow = Chow(seat=seat, tiles=run)
        if kind == "chow_not_left":  # withdrawn at once: WMC-11.1
            self._mark(chow, kind, ("WMC-5.4", seat), ("WMC-11.1", seat))
            return [Call(seat=seat, call=CallKind.CHOW), chow, MeldCorrected(seat=seat)]
        self._mark(chow, kind, ("WMC-5.4", seat), ("WMC-11.5", seat))
        return [Call(seat=seat, call=CallKind.CHOW), chow]

    def _touched_wall(
        self, hand: HandState, seat: Wind, discarder: Wind, tile: Tile
    ) -> list[Payload] | None:
        """The next player, whose hand is complete on the discard, first draws without merging
        (a tile that completes nothing); another calls pung; then he calls and wins (WMC-4.2)."""
        wall = hand.wall
        if wall.live <= 0:
            return None
        drawn = wall.tiles[wall.next_live_position()]
        grown = list(hand.seats[seat].counts)
        grown[drawn] += 1
        if drawn == tile or shapes.is_complete(grown, len(hand.seats[seat].melds)):
            return None
        claimer = self.inject_rng.choice([w for w in WINDS if w not in (discarder, seat)])
        win = WinDeclared(seat=seat)
        self._mark(win, "touched_wall_win", ("WMC-4.2", seat))
        return [
            Draw(seat=seat, tile=drawn, merged=False),
            Call(seat=claimer, call=CallKind.PUNG),
            Call(seat=seat, call=CallKind.WIN),
            win,
        ]

    def _long_claim(
        self, hand: HandState, dead: list[Wind], discarder: Wind, tile: Tile
    ) -> tuple[Wind, Payload, CallKind] | None:
        """A long hand holding a pair (a pung) or, as the left player, a run of the discard."""
        for seat in dead:
            if hand.seats[seat].dead != "long":
                continue
            counts = hand.seats[seat].counts
            if counts[tile] >= 2:
                return seat, Pung(seat=seat), CallKind.PUNG
            if claims.relative(seat, discarder) is Relative.LEFT:
                runs = claims.chow_options(counts, tile)
                if runs:
                    run = self.inject_rng.choice(runs)
                    return seat, Chow(seat=seat, tiles=run), CallKind.CHOW
        return None

    @staticmethod
    def _all_out(hand: HandState) -> list[Tile]:
        """Tiles of which no copy is left in the wall (a draw naming one is impossible)."""
        wall = hand.wall
        left = [0] * NUM_KINDS
        for k in range(wall.head, wall.size - wall.tail):
            t = wall.tiles[wall.order[k]]
            if t < NUM_KINDS:
                left[t] += 1
        return [t for t in range(NUM_KINDS) if not left[t]]

    def _older_pair(
        self, hand: HandState, others: list[Wind], last: Tile
    ) -> tuple[Wind, Tile] | None:
        """A seat holding a pair of an older discard still in a river (not the last one)."""
        older = {t for s in hand.seats for t in s.river if t != last}
        for seat in others:
            counts = hand.seats[seat].counts
            pairs = sorted(t for t in older if counts[t] >= 2)
            if pairs:
                return seat, self.inject_rng.choice(pairs)
        return None

    def _non_left_chow(
        self, hand: HandState, others: list[Wind], discarder: Wind, tile: Tile
    ) -> tuple[Wind, tuple[Tile, Tile, Tile]] | None:
        """A seat that is not the discarder's next player and could make a run (WMC-5.4)."""
        for seat in others:
            if claims.relative(seat, discarder) is Relative.LEFT:
                continue
            runs = claims.chow_options(hand.seats[seat].counts, tile)
            if runs:
                return seat, self.inject_rng.choice(runs)
        return None

    def _out_of_priority(
        self, hand: HandState, others: list[Wind], discarder: Wind, tile: Tile
    ) -> tuple[Wind, tuple[Tile, Tile, Tile], Wind] | None:
        """(left player, his run, a seat holding a pair): a chow exposed over a pung (5.7)."""
        left = WINDS[(discarder + 1) % 4]
        if left in self._barred or hand.wall.live <= 0:
            return None
        runs = claims.chow_options(hand.seats[left].counts, tile)
        if not runs:
            return None
        punger = next(
            (w for w in others if w is not left and hand.seats[w].counts[tile] >= 2), None
        )
        if punger is None:
            return None
        return left, self.inject_rng.choice(runs), punger

    def _wrong_claim(
        self, hand: HandState, plan: list[Payload], last: Pung | Chow | Kong, tile: Tile, kind: str
    ) -> list[Payload]:
        """The claim exposed with one wrong hand tile: left standing (WMC-11.5 once play moves
        on) or corrected at once to the set intended (WMC-11.1)."""
        seat = last.seat
        counts = hand.seats[seat].counts
        if isinstance(last, Chow):
            right = tuple(sorted(last.tiles))
        else:
            right = (tile,) * (4 if isinstance(last, Kong) else 3)
        held = list(right)
        held.remove(tile)
        x = self._wrong_tile(counts, held, held[-1])
        if x is None:
            return plan
        shown = tuple(sorted([tile, *held[:-1], x]))
        if isinstance(last, Chow):
            if shown in claims.chow_options(counts, tile) or tile not in shown:
                return plan  # happens to be another run: no wrong meld
            wrong: Payload = Chow(seat=seat, tiles=shown)
        elif isinstance(last, Pung):
            wrong = Pung(seat=seat, tiles=shown)
        else:
            wrong = Kong(seat=seat, kind=last.kind, tile=tile, tiles=shown)
        out = [*plan[:-1], wrong]
        if kind == "wrong_meld":
            self._mark(wrong, kind, ("WMC-11.1", seat), ("WMC-11.5", seat))
            return out
        self._mark(wrong, kind, ("WMC-11.1", seat))
        return [*out, MeldCorrected(seat=seat, tiles=right)]

    def _cannot_win(self, hand: HandState, seat: Wind, tile: Tile) -> bool:
        if hand.seats[seat].dead:
            return False
        result = self.table.check_win(seat, tile)
        return result is None or not result.valid
