"""Turns: the draw (WMC-4.1, 4.2), the discard and its river place (4.3, 4.6), flowers (MCR), the
kong's replacement draw (5.5), the seabed (6.1), the tile count (10.1), and calls that lapse
when play goes on (11.3, 11.4, 11.7).
"""

from __future__ import annotations

from collections.abc import Sequence

from referee.events import (
    CallKind,
    Discard,
    DiscardCorrected,
    Draw,
    FlowerSetAside,
    RackCounted,
    ReplacementDraw,
)
from referee.game.alerts import SYS_RECORD, Severity
from referee.game.claims import NEXT
from referee.game.state import (
    HandState,
    Phase,
    SeatState,
    TurnStart,
)
from referee.game.table.base import Rejected
from referee.game.table.setup import Setup
from referee.game.wall import UNKNOWN, Wall
from referee.hands import Wind
from referee.tiles import NUM_KINDS, Tile, is_flower, tile_name


def _seen(tile: Tile) -> Tile | None:
    """A drawn tile as the record knows it: None when it went face down into the rack."""
    return None if tile == UNKNOWN else tile


class Turns(Setup):
    """Draw, discard, flower and replacement draw."""

    def _take_tile(self, wall: Wall, index: int, named: Tile | None, seat: Wind) -> Tile:
        """Take the tile at drawing-order ``index``; a named tile that differs stands (4.9).
        From an unseen wall, unnamed, it is ``UNKNOWN``: it goes face down into the rack."""
        pos = wall.position(index, seat)
        there = wall.tiles[pos]
        if named is None:
            named = there
        elif there != UNKNOWN and there != named:
            other = self._find_in_wall(wall, named, index)
            if other is None:
                raise Rejected(
                    "WMC-1.1", f"{tile_name(named)} cannot be in the wall: all copies are out", seat
                )
            wall.tiles[other], wall.tiles[pos] = there, named
            self._alert(
                "WMC-4.9",
                f"drew {tile_name(named)} where the wall held {tile_name(there)}; the draw stands",
                seat,
                severity=Severity.WARNING,
                rejected=False,
            )
        elif there == UNKNOWN:
            if named >= NUM_KINDS and not self.profile.flowers:
                raise Rejected("WMC-1.1", "no flowers in this profile", seat)
            copies = 1 if named >= NUM_KINDS else 4
            if self._copies_out(named) >= copies:
                raise Rejected(
                    "WMC-1.1", f"{tile_name(named)} cannot be in the wall: all copies are out", seat
                )
        wall.take(pos)
        return named

    def _show_from_hand(self, seat: Wind, tiles: Sequence[Tile]) -> None:
        """Take ``tiles`` (which the seat :meth:`~SeatState.holds`) out of its concealed part,
        to be seen: those that were hidden are seen for the first time, and a fifth visible
        copy of a tile cannot have come out of anyone's hand (WMC-1.1)."""
        me = self.state.hand.seats[seat]  # type: ignore[union-attr]
        unseen = me.unseen_in(tiles)
        for t in sorted(set(unseen)):
            copies = 1 if t >= NUM_KINDS else 4
            if self._copies_out(t) + unseen.count(t) > copies:
                raise Rejected(
                    "WMC-1.1",
                    f"{seat.name} cannot hold {tile_name(t)}: all {copies} copies are in sight",
                    seat,
                )
        me.take(tiles)

    def _copies_out(self, tile: Tile) -> int:
        """Copies of ``tile`` out of the wall (WMC-1.1: four of each, one of each flower): in the
        hands, melds, wrong melds, rivers, penalty tiles and flowers set aside. An unseen wall
        cannot say what it holds, so a named tile is checked against what is out."""
        hand = self.state.hand
        assert hand is not None
        n = 0
        for s in hand.seats:
            n += s.counts[tile] + s.river.count(tile) + s.flowers.count(tile)
            n += s.penalty_live.count(tile) + s.penalty_dead.count(tile)
            n += sum(m.tiles.count(tile) for m in s.melds)
            n += sum(shown.count(tile) for _kind, shown in s.wrong_melds)
        return n

    @staticmethod
    def _find_in_wall(wall: Wall, tile: Tile, skip: int) -> int | None:
        for k in range(wall.head, wall.size - wall.tail):
            pos = wall.order[k]
            if k != skip and wall.tiles[pos] == tile:
                return pos
        return None

    def _draw(self, p: Draw) -> None:
        hand = self._playing("draw")
        seat = p.seat
        if hand.phase is not Phase.WINDOW or seat is not hand.turn:
            if hand.phase is Phase.REPLACE and seat is hand.turn:
                self._replacement_from_live_wall(hand, p)
            else:
                self._draw_out_of_turn(hand, p)
            return
        wall = hand.wall
        if wall.live_for(seat) <= 0:
            raise Rejected("WMC-6.1", "the live wall is exhausted; the dead wall is never drawn")
        if hand.calls and p.merged:
            self._lapse_calls(hand)
        tile = self._take_tile(wall, wall.head, p.tile, seat)
        self._moved_on(hand)  # WMC-11.5: the next player drew
        wall.head += 1
        hand.seats[seat].add(tile)
        hand.drawn = _seen(tile)
        hand.after = TurnStart.DRAW
        hand.after_kong = False
        hand.phase = Phase.DISCARD
        if p.merged:
            hand.last_discard = None
            hand.calls = {}
            hand.unmerged = None
        else:
            hand.unmerged = tile
        if wall.live_for(NEXT[seat]) == 0:
            hand.seabed_seat = seat
            self._derive("seabed_drawn", seat=seat.name)

    def _draw_out_of_turn(self, hand: HandState, p: Draw) -> None:
        """WMC-4.2: a draw before the left player's discard, or a second draw. The tile is in
        the drawer's hand now, so the record keeps it: a wrong count, a dead hand (10.1)."""
        seat = p.seat
        if hand.deal_off.get(seat, 0) < 0:
            self._deal_topped_up(hand, p)
            return
        wall = hand.wall
        if wall.live <= 0:
            raise Rejected("WMC-6.1", "the live wall is exhausted; the dead wall is never drawn")
        tile = self._take_tile(wall, wall.head, p.tile, seat)
        self._moved_on(hand)
        wall.head += 1
        hand.seats[seat].add(tile)
        if hand.calls.pop(seat, None) is not None:
            pass  # WMC-4.2: touching the wall waives his claim on the last discard
        if hand.phase is Phase.DISCARD and seat is hand.turn:
            what = f"{seat.name} drew a second tile"
        elif hand.phase is Phase.REPLACE:
            what = f"{seat.name} drew while {hand.turn.name}'s replacement was due"
        else:
            what = f"{seat.name} drew out of turn (the wall was {hand.turn.name}'s to draw from)"
        self._finding("WMC-4.2", what, seat)
        self._check_count(hand, seat)

    def _deal_topped_up(self, hand: HandState, p: Draw) -> None:
        """WMC-3.5: a short deal found before the seat's first discard: he takes the missing
        tile from the wall, free (000: 從墻頭取牌補足)."""
        wall = hand.wall
        if wall.live <= 0:
            raise Rejected("WMC-6.1", "the live wall is exhausted; the dead wall is never drawn")
        tile = self._take_tile(wall, wall.head, p.tile, p.seat)
        wall.head += 1
        hand.seats[p.seat].add(tile)
        off = hand.deal_off[p.seat] + 1
        if off:
            hand.deal_off[p.seat] = off
        else:
            del hand.deal_off[p.seat]

    def _lapse_calls(self, hand: HandState) -> None:
        """Calls not made good before the next draw: an empty claim (WMC-11.3) or an empty win
        (WMC-11.7); the referee picks the tiles to reveal as penalty tiles."""
        for caller, call in sorted(hand.calls.items()):
            said = (hand.call_seq[caller],) if caller in hand.call_seq else ()
            if call is CallKind.WIN:
                self._finding(
                    "WMC-11.7",
                    f"{caller.name} called a win and did not show the hand (empty win): "
                    "three tiles revealed as penalty tiles (all if three or fewer)",
                    caller,
                    penalty="penalty_tiles",
                    evidence=said,
                )
            else:
                self._finding(
                    "WMC-11.3",
                    f"{caller.name} called {call} and did not make it (empty claim): two tiles "
                    "revealed as penalty tiles (the referee may pick)",
                    caller,
                    penalty="penalty_tiles",
                    evidence=said,
                )
        hand.calls = {}

    def _check_count(self, hand: HandState, seat: Wind, evidence: tuple[int, ...] = ()) -> None:
        """WMC-10.1: 13 tiles off turn, 14 before one's discard (a kong counts 3); a wrong count
        is a dead hand for the rest of the hand (10.2)."""
        me = hand.seats[seat]
        want = 14 if hand.phase is Phase.DISCARD and seat is hand.turn else 13
        size = me.size
        if size == want:
            return
        level = "long" if size > want else "short"
        if me.dead in ("long", level):
            return  # already dead at least as heavily (a short hand may still turn long)
        self._bar(hand, seat, "WMC-10.1", level)
        self._finding(
            "WMC-10.1",
            f"{seat.name} holds {size} tiles where {want} are due: a {level} hand "
            + (
                "(no win, claim or kong this hand, WMC-10.2)"
                if level == "long"
                else "(no win this hand, WMC-10.2)"
            ),
            seat,
            severity=Severity.CRITICAL,
            penalty="no_claims" if level == "long" else "no_win",
            evidence=evidence,
        )

    def _rack_counted(self, p: RackCounted) -> None:
        """WMC-10.1 seen from above: the camera counts the backs standing in a rack. A count
        other than the record's is a tile that went in or out unseen; the record follows the
        table (the hidden part takes the difference) and the count is checked as after any
        irregular draw or discard (a long or short hand)."""
        hand = self._playing("rack counted")
        me = hand.seats[p.seat]
        standing = sum(me.counts) + me.hidden
        if p.count == standing:
            return
        known = sum(me.counts)
        if p.count < known:
            raise Rejected(
                "WMC-10.1",
                f"{p.seat.name}'s rack counted {p.count}, fewer than the {known} tiles the record "
                "saw go into it",
                p.seat,
            )
        me.hidden = p.count - known
        self._check_count(hand, p.seat)

    def _replacement(self, p: ReplacementDraw) -> None:
        hand = self._hand("WMC-5.5", "replacement draw")
        if (
            hand.phase is Phase.DISCARD
            and p.seat is hand.turn
            and hand.after is not TurnStart.CLAIM
            and not hand.early_replacement
        ):
            self._early_replacement(hand, p)
            return
        if hand.phase is not Phase.REPLACE or p.seat is not hand.turn:
            raise Rejected("WMC-5.5", "a replacement draw only follows one's own kong", p.seat)
        wall = hand.wall
        tile = self._take_tile(wall, wall.tail_index(wall.tail), p.tile, p.seat)
        self._moved_on(hand)  # WMC-11.5: a wrong kong is final after the replacement draw
        wall.tail += 1
        if wall.dead_size and wall.tail % 2 == 1:
            self._derive(
                "dead_wall_adjusted",
                rule="WMC-6.4",
                note="lower tile of the half stack to the dead wall; the upper is the seabed",
            )
        self._replaced(hand, p.seat, tile)

    def _replacement_from_live_wall(self, hand: HandState, p: Draw) -> None:
        """WMC-4.9: the replacement due after a kong (or flower) taken from the live wall, not
        the kong end: a wrong tile drawn, which stands (a warning)."""
        wall = hand.wall
        if wall.live_for(p.seat) <= 0:
            raise Rejected("WMC-6.1", "the live wall is exhausted; the dead wall is never drawn")
        tile = self._take_tile(wall, wall.head, p.tile, p.seat)
        self._moved_on(hand)
        wall.head += 1
        self._finding(
            "WMC-4.9",
            f"{p.seat.name} drew the replacement from the live wall, not the kong end; the draw "
            "stands",
            p.seat,
            severity=Severity.WARNING,
            penalty="warning",
        )
        self._replaced(hand, p.seat, tile)

    def _replaced(self, hand: HandState, seat: Wind, tile: Tile) -> None:
        """The replacement is in the seat's hand: he discards (or kongs, or wins) next."""
        hand.seats[seat].add(tile)
        hand.robbable = None
        hand.calls = {}
        hand.phase = Phase.DISCARD
        if hand.replacing == "flower" and hand.resume is not None:
            hand.turn, hand.after = hand.resume
            if hand.turn is seat:
                hand.drawn = _seen(tile)
        else:
            hand.turn = seat
            hand.after = TurnStart.REPLACEMENT
            hand.after_kong = True
            hand.drawn = _seen(tile)
        hand.resume = None
        hand.replacing = ""

    def _early_replacement(self, hand: HandState, p: ReplacementDraw) -> None:
        """WMC-5.5: the kong must be shown before the replacement draw, else it may be ruled a
        long hand. The tile is taken; the kong shown next completes the act."""
        wall = hand.wall
        if wall.live <= 0:
            raise Rejected("WMC-6.2", "no kong once the live wall is exhausted", p.seat)
        tile = self._take_tile(wall, wall.tail_index(wall.tail), p.tile, p.seat)
        wall.tail += 1
        hand.seats[p.seat].add(tile)
        hand.early_replacement = True
        self._finding(
            "WMC-5.5",
            f"{p.seat.name} drew the replacement before showing a kong: may be ruled a long hand "
            "(WMC-10.2)",
            p.seat,
            penalty="no_claims",
        )

    def _flower(self, p: FlowerSetAside) -> None:
        hand = self._hand("MCR-flowers", "flower")
        if not self.profile.flowers:
            raise Rejected("WMC-1.1", "WMC has no flowers (136 tiles)", p.seat)
        if not is_flower(p.tile) or not hand.seats[p.seat].holds((p.tile,)):
            raise Rejected("MCR-flowers", f"{p.seat.name} holds no {tile_name(p.tile)}", p.seat)
        if hand.phase is not Phase.DISCARD or not (hand.pre_play or p.seat is hand.turn):
            raise Rejected("MCR-flowers", "a flower is set aside on one's own turn", p.seat)
        self._show_from_hand(p.seat, (p.tile,))
        hand.seats[p.seat].flowers.append(p.tile)
        if hand.wall.live <= 0:
            # Nothing left to replace it: the hand can only end drawn (MCR; cf. WMC-6.3).
            hand.phase = Phase.WINDOW
            hand.riverbed = True
            hand.last_discard = None
            hand.turn = NEXT[p.seat]
            self._derive("no_replacement", seat=p.seat.name, rule="WMC-6.3")
            return
        hand.resume = (hand.turn, hand.after)
        hand.replacing = "flower"
        hand.turn = p.seat
        hand.phase = Phase.REPLACE

    def _discard(self, p: Discard) -> None:
        hand = self._playing("discard")
        seat, tile = p.seat, p.tile
        if is_flower(tile):
            raise Rejected("MCR-flowers", "a flower is set aside, never discarded", seat)
        me = hand.seats[seat]
        forgone = hand.phase is Phase.REPLACE and seat is hand.turn
        resume = hand.resume
        penalty, from_hidden = self._discard_from(me, seat, p)  # refused here: nothing changed
        if forgone:
            self._replacement_forgone(hand)
            if resume is not None and resume[0] is not seat:
                hand.turn, hand.after = resume  # a flower set aside before play (MCR)
                hand.phase = Phase.DISCARD
        if seat is not hand.turn:
            self._discard_out_of_turn(hand, p)
            return
        hand.penalty_discard = penalty
        hand.last_from_hidden = from_hidden
        early = hand.phase is not Phase.DISCARD  # WMC-4.3: discarded before drawing
        if hand.own_call is not None:
            self._empty_own_call(hand)
        if hand.open_chow is not None:
            hand.open_chow = None  # the chow is complete: pung and kong claims lapse (WMC-5.4)
            if hand.calls:
                self._lapse_calls(hand)
        if early:
            if hand.calls:
                self._lapse_calls(hand)
            if not forgone:
                self._finding("WMC-4.3", f"{seat.name} discarded before drawing", seat)
        me.river.append(tile)
        hand.discards.append((seat, tile))
        hand.last_discard = (seat, tile)
        hand.riverbed = hand.wall.live_for(NEXT[seat]) == 0
        hand.calls = {}
        hand.unmerged = None
        hand.pre_play = False
        hand.drawn = None
        hand.phase = Phase.WINDOW
        hand.turn = NEXT[seat]
        wrong_deal = hand.deal_off.pop(seat, 0)  # WMC-3.5: still wrong at his first discard
        if early or hand.early_replacement or wrong_deal:
            hand.early_replacement = False
            self._check_count(hand, seat, (hand.deal_seq,) if wrong_deal else ())

    def _discard_from(self, me: SeatState, seat: Wind, p: Discard) -> tuple[bool, bool]:
        """The discarded tile leaves the hand, or is a live penalty tile (WMC-9.2); refused
        before anything changes when the seat cannot hold it. Returns (a penalty tile, one
        that was hidden)."""
        tile = p.tile
        # A live penalty tile lies face up: the discard of one is that tile, not a hidden one.
        known = me.counts[tile] > 0
        penalty = p.penalty or not (known or (me.hidden and tile not in me.penalty_live))
        if penalty:
            self._discard_penalty_tile(me, seat, tile)
        else:
            self._show_from_hand(seat, (tile,))
        if me.penalty_live:
            me.penalty_dead += me.penalty_live  # WMC-9.2: not discarded now → dead
            me.penalty_live = []
        if p.area is not None or p.index is not None:
            self._river_place(me, seat, p)
        return penalty, not known and not penalty

    def _replacement_forgone(self, hand: HandState) -> None:
        """The kong's (or flower's) replacement was not drawn before the discard (5.5, 4.3): the
        tile stays in the kong end, nobody can rob the kong any more, and the seat is a tile
        short (the discard's count check rules it)."""
        what = "kong's" if hand.replacing == "kong" else "flower's"
        self._finding(
            "WMC-4.3",
            f"{hand.turn.name} discarded before drawing the {what} replacement",
            hand.turn,
        )
        hand.replacing = ""
        hand.robbable = None
        hand.resume = None
        hand.phase = Phase.WINDOW  # as a discard before the draw: the count check follows

    def _discard_out_of_turn(self, hand: HandState, p: Discard) -> None:
        """WMC-4.3 (嚴禁「先打後摸」): a seat discarded while another was to draw or discard. He
        drew nothing, so he is a tile short: a short hand (10.1). The tile lies in his river;
        play goes on from where the table is — the seat on turn is still on turn, and the
        discard that may be claimed is still the last one made in turn (5.1)."""
        seat = p.seat
        hand.seats[seat].river.append(p.tile)
        hand.discards.append((seat, p.tile))
        self._finding(
            "WMC-4.3",
            f"{seat.name} discarded out of turn (it was {hand.turn.name}'s turn), before drawing",
            seat,
        )
        self._check_count(hand, seat)

    def _discard_corrected(self, p: DiscardCorrected) -> None:
        """The record's last discard put right (a sensor misread its tile): the recorded tile
        goes back to the hand, the right one leaves it. Once play moved past the discard (a
        claim, a draw) the record stands, as the players acted on the tile lying there."""
        hand = self._playing("discard corrected")
        seat, tile = p.seat, p.tile
        last = hand.last_discard
        if hand.phase is not Phase.WINDOW or last is None or last[0] is not seat:
            raise Rejected(
                SYS_RECORD,
                f"{seat.name}'s discard can be corrected only while it is the last thing that "
                "happened (before a claim or the next draw)",
                seat,
            )
        me = hand.seats[seat]
        if hand.penalty_discard:
            raise Rejected(SYS_RECORD, "a penalty tile's discard is not corrected", seat)
        # The recorded tile goes back where it came from: a known one to the hand; one that was
        # hidden was never what lay there (the right tile came out of the hidden ones instead).
        back = UNKNOWN if hand.last_from_hidden else last[1]
        me.river.pop()
        me.add(back)
        try:
            if not me.holds((tile,)):
                raise Rejected("WMC-10.1", f"{seat.name} does not hold {tile_name(tile)}", seat)
            from_hidden = me.counts[tile] < 1
            self._show_from_hand(seat, (tile,))
        except Rejected:
            me.remove(back)
            me.river.append(last[1])
            raise
        hand.last_from_hidden = from_hidden
        me.river.append(tile)
        hand.discards[-1] = (seat, tile)
        hand.last_discard = (seat, tile)

    def _discard_penalty_tile(self, me: SeatState, seat: Wind, tile: Tile) -> None:
        """WMC-9.2: a live penalty tile may be discarded; a dead one never."""
        if tile in me.penalty_live:
            me.penalty_live.remove(tile)
            return
        if tile in me.penalty_dead:
            raise Rejected(
                "WMC-9.2",
                f"{seat.name}'s {tile_name(tile)} is a dead penalty tile: it may never be "
                "discarded",
                seat,
            )
        raise Rejected("WMC-10.1", f"{seat.name} does not hold {tile_name(tile)}", seat)

    def _river_place(self, me: SeatState, seat: Wind, p: Discard) -> None:
        """WMC-4.6: own river area, rows of 6, left to right — the next free place."""
        want = len(me.river)
        if p.area is not None and p.area is not seat:
            where = f"in {p.area.name}'s river area"
        elif p.index is not None and p.index != want:
            where = f"at place {p.index + 1} (row {p.index // 6 + 1}) instead of place {want + 1}"
        else:
            return
        self._finding(
            "WMC-4.6",
            f"{seat.name}'s discard lies {where}; it counts as {seat.name}'s discard, and a wrong "
            "claim it leads to is the discarder's responsibility",
            seat,
            severity=Severity.WARNING,
            penalty="warning",
        )

    def _empty_own_call(self, hand: HandState) -> None:
        """A kong or win said on one's own turn, then a discard: WMC-11.4 (no penalty as a
        rule) or an empty win, WMC-11.7."""
        assert hand.own_call is not None
        seat, call, said = hand.own_call
        hand.own_call = None
        if call is CallKind.WIN:
            self._finding(
                "WMC-11.7",
                f"{seat.name} called a self-drawn win and discarded (empty win): three tiles "
                "revealed as penalty tiles",
                seat,
                penalty="penalty_tiles",
                evidence=(said,),
            )
        else:
            self._finding(
                "WMC-11.4",
                f"{seat.name} called kong on his own turn and did not make it (empty kong): "
                "normally no penalty",
                seat,
                severity=Severity.INFO,
                evidence=(said,),
            )
