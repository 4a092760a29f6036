"""Wins and settlement: a win self-drawn, on a discard or robbing a kong (WMC-5.6, 7.x), a false
win (11.6), penalty tiles in a win (9.3, 9.4), scoring and payments (12), the hand's end and
the exhaustive draw (6.3, 2.4, 8.1, 8.2), the hand shown (7.4).
"""

from __future__ import annotations

from referee.events import (
    CallKind,
    HandRevealed,
    Payload,
    WinDeclared,
    WinOn,
)
from referee.game import claims, shapes
from referee.game.alerts import Severity
from referee.game.claims import WINDS
from referee.game.state import (
    HandResult,
    HandState,
    Phase,
    TurnStart,
)
from referee.game.table.base import Rejected
from referee.game.table.kongs import Kongs
from referee.game.table.platform import false_win_ends_hand
from referee.game.wall import UNKNOWN
from referee.hands import Flag, HandError, Meld, MeldKind, WinBy, Wind, WinningHand
from referee.scoring.payments import settle
from referee.scoring.result import ScoreResult
from referee.tiles import NUM_KINDS, Tile, format_tiles, tile_name


class Wins(Kongs):
    """Win, false win, settlement and the end of a hand."""

    def _win(self, p: WinDeclared) -> None:
        seat = p.seat
        hand = self._hand("WMC-7.2", "win")
        dead = hand.seats[seat].dead
        if dead:
            # The win event is the hand shown: one that may not stand is a false win (WMC-11.6).
            self._false_win(seat, f"WMC-10.2: {seat.name} has a {dead} hand, no win this hand")
            return
        if hand.phase is Phase.DISCARD and seat is hand.turn:
            if self._on_waived_discard(hand, seat, p):
                self._win_after_touching(hand, seat)
                return
            if hand.after is TurnStart.CLAIM:
                raise Rejected(
                    "WMC-7.2", "a win after a chow or pung must be claimed on the discard", seat
                )
            if p.on is WinOn.DISCARD:
                raise Rejected("WMC-7.2", f"{seat.name} is on turn: a win now is self-drawn", seat)
            if p.tile is not None and not hand.seats[seat].holds((p.tile,)):
                raise Rejected("WMC-7.2", f"{seat.name} holds no {tile_name(p.tile)}", seat)
            said = hand.own_call
            hand.own_call = None
            found = self._evaluate(seat, None, drawn=p.tile)
            if found is None:
                return
            result, winning = found
            self._selfdraw_spoken(seat, said is not None and said[:2] == (seat, CallKind.WIN))
            self._settle(hand, seat, WinBy.SELF, None, winning, result)
            return
        if p.on is WinOn.DRAW:
            raise Rejected("WMC-7.2", "a self-drawn win only on one's own turn", seat)
        if hand.phase is Phase.REPLACE:
            if hand.robbable is None or seat is hand.turn:
                raise Rejected(
                    "WMC-5.6",
                    "only an added kong can be robbed; a concealed kong never "
                    "(an exposed kong's discard had to be won before the kong)",
                    seat,
                )
            konger = hand.turn
            tile = hand.robbable
            self._named_tile(p, tile)
            mine = claims.rank(CallKind.WIN, seat, konger)
            for other, call in hand.calls.items():
                if (
                    other is not seat
                    and claims.rank(call, other, konger) < mine
                    and self._call_is_legal(other, call, konger, tile)
                ):
                    raise Rejected("WMC-5.7", f"{other.name}'s win has priority", seat)
            found = self._evaluate(seat, tile, robbing=True)
            if found is None:
                return
            result, winning = found
            if self.state.spoken_by != "calls":  # WMC-5.6: call the win as the tile is added
                self._await_check(seat, "win", seat in hand.calls)
            me = hand.seats[konger]
            for i, meld in enumerate(me.melds):
                if meld.kind is MeldKind.KONG and meld.first == tile and not meld.concealed:
                    me.melds[i] = Meld(
                        MeldKind.PUNG,
                        (tile,) * 3,
                        claimed_from=meld.claimed_from,
                        claimed_tile=meld.claimed_tile,
                    )
                    break
            self._settle(hand, seat, WinBy.DISCARD, konger, winning, result)
            return
        discarder, tile, recall = self._window(seat, CallKind.WIN)
        self._named_tile(p, tile)
        found = self._evaluate(seat, tile)
        if found is None:
            return
        result, winning = found
        self._spoken(seat, CallKind.WIN)
        self._moved_on(hand)  # WMC-11.5: the discard was claimed (won)
        if recall:
            self._recall(hand)
        hand.seats[discarder].river.pop()
        self._settle(hand, seat, WinBy.DISCARD, discarder, winning, result)

    def _selfdraw_spoken(self, seat: Wind, called: bool) -> None:
        """WMC-5.2: a self-drawn win is spoken too. The microphones check it (a claim check
        after the win, when they listen); a log of calls alone leaves it unchecked, as its
        hand-written and simulated logs never said it before (no finding from their absence)."""
        if self.state.spoken_by != "calls":
            self._await_check(seat, "selfdraw", called)

    @staticmethod
    def _named_tile(p: WinDeclared, tile: Tile) -> None:
        """A win on a discard (or a robbed kong) that names another tile claims what cannot be
        claimed: only the last discard can (WMC-5.1)."""
        if p.tile is not None and p.tile != tile:
            raise Rejected(
                "WMC-5.1",
                f"{p.seat.name}'s win names {tile_name(p.tile)}: only the last discard "
                f"({tile_name(tile)}) can be claimed",
                p.seat,
            )

    def _on_waived_discard(self, hand: HandState, seat: Wind, p: WinDeclared) -> bool:
        """WMC-4.2: the player on turn drew but did not merge, and the last discard still lies.
        Touching the wall waived his claims on it, but a win keeps priority over another's
        claim (002: 一旦伸手触摸了墙头的牌，便当作放弃鸣牌的权利。但如果有他家鸣牌，
        则仍有权按照"鸣牌优先规条"优先和牌).
        Is his win on the discard? As the log says (``on``, ``tile``); when it does not say:
        when another seat has a claim pending, his hand is not complete with the drawn tile,
        and it is with the discard."""
        drawn, last = hand.unmerged, hand.last_discard
        if drawn is None or last is None or p.on is WinOn.DRAW:
            return False
        tile = last[1]
        if p.on is WinOn.DISCARD or (p.tile == tile and tile != drawn):
            return True
        if p.tile is not None and p.tile != tile:
            return False
        if not any(other is not seat for other in hand.calls):
            return False
        if drawn == UNKNOWN:
            return True  # drawn face down: his hand shown (without it) won on the discard
        self_drawn = self.check_win(seat, None)
        if self_drawn is not None and self_drawn.valid:
            return False
        counts = hand.seats[seat].counts
        counts[drawn] -= 1  # the hand without the drawn tile, on the discard
        try:
            on_discard = self.check_win(seat, tile)
        finally:
            counts[drawn] += 1
        return on_discard is not None and on_discard.valid

    def _win_after_touching(self, hand: HandState, seat: Wind) -> None:
        """WMC-4.2, 4.4: a win on the discard after drawing without merging: the drawn tile goes
        back to the wall; without another seat's claim to take priority over, the claim was
        waived and the win cannot stand (a false win, 11.6)."""
        assert hand.last_discard is not None
        if not any(other is not seat for other in hand.calls):
            self._false_win(
                seat,
                "WMC-4.2: touching the wall waived his claim on the last discard; a win keeps "
                "priority only over another player's claim",
            )
            return
        discarder, tile = hand.last_discard
        said = hand.own_call  # "win", said on his turn
        hand.own_call = None
        self._recall(hand)
        hand.phase = Phase.WINDOW  # the tile is back: his draw is still to come
        hand.after = TurnStart.DRAW
        hand.drawn = None
        found = self._evaluate(seat, tile)
        if found is None:
            return
        result, winning = found
        if said is None or said[:2] != (seat, CallKind.WIN):
            self._spoken(seat, CallKind.WIN)
        claimers = ", ".join(
            f"{o.name}'s {c}" for o, c in sorted(hand.calls.items()) if o is not seat
        )
        self._finding(
            "WMC-4.2",
            f"{seat.name} drew before winning on {discarder.name}'s {tile_name(tile)}: touching "
            f"the wall waived his claims, but a win keeps priority over {claimers}; the drawn "
            "tile went back to the wall",
            seat,
            severity=Severity.INFO,
        )
        self._moved_on(hand)
        hand.seats[discarder].river.pop()
        self._settle(hand, seat, WinBy.DISCARD, discarder, winning, result)

    def winning_hand(
        self, seat: Wind, tile: Tile | None, *, robbing: bool = False, drawn: Tile | None = None
    ) -> WinningHand:
        """The hand a win by ``seat`` would show: on ``tile`` (a discard or a robbed kong) or,
        with ``tile=None``, self-drawn on the tile that made 14 (``drawn`` when the log names
        it). Raises HandError if impossible.
        """
        st = self.state
        hand = st.hand
        assert hand is not None
        me = hand.seats[seat]
        concealed = [t for t in range(NUM_KINDS) for _ in range(me.counts[t])]
        if me.penalty_live or me.penalty_dead:
            concealed = sorted(concealed + me.penalty_live + me.penalty_dead)  # WMC-9.3
        flags: set[Flag] = set()
        if tile is None:
            win_by = WinBy.SELF
            drawn = drawn if drawn is not None else hand.drawn
            if drawn is None or drawn not in concealed:
                drawn = concealed[-1] if concealed else 0
            concealed.remove(drawn)
            win_tile = drawn
            if hand.after is TurnStart.DEAL and seat is Wind.E and hand.pre_play:
                flags.add(Flag.HEAVEN)
            if hand.after_kong:
                flags.add(Flag.WIN_ON_KONG)
            if hand.seabed_seat is seat and hand.after is TurnStart.DRAW:
                flags.add(Flag.FINAL_DRAW)
        else:
            win_by = WinBy.DISCARD
            win_tile = tile
            if robbing:
                flags.add(Flag.ROBBING_KONG)
            elif hand.riverbed:
                flags.add(Flag.FINAL_DISCARD)
            if (
                not robbing
                and len(hand.discards) == 1
                and hand.discards[0][0] is Wind.E
                and hand.claims_made == 0
                and not any(s.melds for s in hand.seats)
            ):
                flags.add(Flag.EARTH)
        if st.profile.scorer == "mcr" and self._visible(win_tile, seat, tile is not None) == 3:
            flags.add(Flag.LAST_OF_KIND)
        return WinningHand(
            concealed=tuple(concealed),
            win_tile=win_tile,
            win_by=win_by,
            melds=tuple(me.melds),
            seat=seat,
            prevalent=st.prevalent,
            flowers=len(me.flowers),
            flags=frozenset(flags),
        )

    def _visible(self, tile: Tile, seat: Wind, on_discard: bool) -> int:
        hand = self.state.hand
        assert hand is not None
        n = -1 if on_discard and hand.last_discard is not None else 0
        for s in hand.seats:
            n += s.river.count(tile)
            for m in s.melds:
                n += m.tiles.count(tile)
        return max(n, 0)

    def check_win(
        self, seat: Wind, tile: Tile | None, *, robbing: bool = False
    ) -> ScoreResult | None:
        """The score a win would get now (None if the hand cannot be a win): for players."""
        try:
            hand = self.winning_hand(seat, tile, robbing=robbing)
        except HandError:
            return None
        return self.scorer(hand, self.state.profile.scorer)

    def _evaluate(
        self, seat: Wind, tile: Tile | None, *, robbing: bool = False, drawn: Tile | None = None
    ) -> tuple[ScoreResult, WinningHand] | None:
        """The win's score, or None after a false win (WMC-11.6) was recorded."""
        try:
            winning = self.winning_hand(seat, tile, robbing=robbing, drawn=drawn)
        except HandError as exc:
            self._false_win(seat, f"WMC-7.1: {exc}")
            return None
        result = self.scorer(winning, self.state.profile.scorer)
        if not result.valid:
            reason = result.reason or "no winning shape"
            self._false_win(seat, reason if "WMC-" in reason else f"WMC-7.1: {reason}")
            return None
        if tile is not None:
            barred = penalty_tile_bar(self.state.hand, seat, tile)  # type: ignore[arg-type]
            if barred:
                self._false_win(seat, f"{barred[0]}: {barred[1]}", rule="WMC-9.5")
                return None
        return result, winning

    def _false_win(self, seat: Wind, reason: str, *, rule: str = "WMC-11.6") -> None:
        """WMC-11.6: a false win with the hand shown — play continues, and every tile shown
        (the whole concealed hand) becomes a live penalty tile. A win that needs a penalty tile
        is a wrong claim (WMC-9.5), handled the same way (002: 当作错鸣（…错和）处理). The call is
        answered: no empty win (11.7) follows."""
        hand = self.state.hand
        assert hand is not None
        if self.profile.false_win_fine:  # a platform's rule: the hand ends at once (Botzone)
            false_win_ends_hand(self, hand, seat, reason)
            return
        me = hand.seats[seat]
        shown = [t for t in range(NUM_KINDS) for _ in range(me.counts[t])]
        for t in shown:
            me.counts[t] -= 1
        me.penalty_live += shown
        hand.calls.pop(seat, None)
        if hand.own_call is not None and hand.own_call[0] is seat:
            hand.own_call = None
        what = "false win" if rule == "WMC-11.6" else "wrong claim (a false win, WMC-11.6)"
        self._finding(
            rule,
            f"{what} by {seat.name} ({reason}): play continues; the shown tiles "
            f"{format_tiles(shown)} become penalty tiles",
            seat,
            penalty="penalty_tiles",
        )

    def _settle(
        self,
        hand: HandState,
        seat: Wind,
        win_by: WinBy,
        discarder: Wind | None,
        winning: WinningHand,
        result: ScoreResult,
    ) -> None:
        st = self.state
        st.last_win = (seat, self._ts, False)  # WMC-13.6: its winning tile may be slammed once
        history = list(hand.discards)
        settlement = settle(
            st.profile.scorer,
            result.total,
            seat,
            win_by,
            discarder,
            history,
            win_tile=winning.win_tile,
            follow_suit=st.follow_suit,
        )
        hand.seats[seat].counts[winning.win_tile] += 1 if win_by is WinBy.DISCARD else 0
        by_seat = tuple(st.player_at(w) for w in WINDS)
        res = HandResult(
            hand=hand.number,
            dealer=st.player_at(Wind.E),
            winner=seat,
            winner_name=st.player_at(seat),
            win_by=win_by,
            discarder=discarder,
            win_tile=winning.win_tile,
            value=result.total,
            patterns=result.patterns,
            deltas=dict(settlement.deltas),
            liable=settlement.liable,
            rule=settlement.rule,
            flags=tuple(sorted(str(f) for f in winning.flags)),
            players=(by_seat[0], by_seat[1], by_seat[2], by_seat[3]),
            marks=tuple(hand.marks),
        )
        for w, delta in settlement.deltas.items():
            name = st.player_at(w)
            st.scores[name] = st.scores.get(name, 0) + delta
        self._derive("hand_scored", **res.to_dict())
        self._end_hand(hand, res)

    def _exhaustive(self, _p: Payload) -> None:
        hand = self._hand("WMC-6.3", "exhaustive draw")
        if not (hand.phase is Phase.WINDOW and hand.riverbed):
            raise Rejected(
                "WMC-6.3",
                f"exhaustive draw declared with {hand.wall.live} live tile(s) left and no "
                "riverbed discard",
            )
        st = self.state
        e, s, w, n = (st.player_at(seat) for seat in WINDS)
        self._end_hand(hand, HandResult(hand=hand.number, dealer=e, players=(e, s, w, n)))

    def _revealed(self, p: HandRevealed) -> None:
        hand = self.state.hand
        if hand is None:
            raise Rejected("WMC-7.4", "no hand to reveal", p.seat)
        counts = hand.seats[p.seat].counts
        have = [t for t in range(NUM_KINDS) for _ in range(counts[t])]
        if sorted(p.tiles) != have and hand.wall.known:
            self._alert(
                "WMC-7.4",
                f"{p.seat.name} showed {format_tiles(sorted(p.tiles))}; "
                f"the record says {format_tiles(have)}",
                p.seat,
                severity=Severity.WARNING,
                rejected=False,
            )


def penalty_tile_bar(hand: HandState, seat: Wind, tile: Tile) -> tuple[str, str] | None:
    """WMC-9.3/9.4 for a win on a discard: (rule, why) when only penalty tiles can complete it.

    9.3: the set (or single-wait pair) the discard completes may not hold a penalty tile;
    9.4: Seven Pairs may not pair a penalty tile, Thirteen Terminals may not win on a tile equal
    to one, and not at all on a discard with three or more penalty tiles.
    """
    me = hand.seats[seat]
    penalty = me.penalty_live + me.penalty_dead
    if not penalty:
        return None
    free = list(me.counts[:NUM_KINDS])  # concealed tiles that are not penalty tiles
    allc = list(free)
    for t in penalty:
        allc[t] += 1
    allc[tile] += 1
    melds = len(me.melds)
    if shapes.is_thirteen_terminals(allc) and not melds:
        if len(penalty) >= 3 or tile in penalty:
            return "WMC-9.4", "Thirteen Terminals with penalty tiles (self-drawn only)"
        return None
    groups: list[tuple[Tile, ...]] = [(tile, tile), (tile, tile, tile)]
    groups += claims.chow_options(free, tile)
    for group in groups:
        rest = list(allc)
        for t in group:
            rest[t] -= 1
        held = list(group)
        held.remove(tile)  # the discard itself is no penalty tile
        if any(held.count(t) > free[t] for t in set(held)):
            continue
        if len(group) == 2:  # the pair: the rest must be sets only
            spare = next((h for h in range(NUM_KINDS - 1, 26, -1) if rest[h] == 0), None)
            if spare is None:
                continue
            rest[spare] += 2  # lend a pair of an absent honour
        if shapes.is_regular_complete(rest):
            return None
    if shapes.is_seven_pairs(allc) and not melds:
        if free[tile] >= 1:
            return None
        if not shapes.is_regular_complete(allc):  # only Seven Pairs: its own rule, not the sets'
            return "WMC-9.4", "Seven Pairs may not win on a discard that pairs a penalty tile"
    return "WMC-9.3", "the set the discard completes would hold a penalty tile"
