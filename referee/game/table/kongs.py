"""Kongs (WMC-5.5): exposed on a discard, concealed, or added to an exposed pung; said before shown
(5.2); none once the live wall is exhausted (6.2).
"""

from __future__ import annotations

from referee.events import (
    CallKind,
    Kong,
    KongKind,
)
from referee.game import claims
from referee.game.alerts import Severity
from referee.game.state import (
    HandState,
    Phase,
    TurnStart,
)
from referee.game.table.base import Rejected
from referee.game.table.claims import Claims
from referee.hands import Meld, MeldKind, Wind
from referee.tiles import format_tiles, tile_name


class Kongs(Claims):
    """Exposed, concealed and added kongs."""

    def _kong(self, p: Kong) -> None:
        seat, tile = p.seat, p.tile
        if p.kind is KongKind.EXPOSED:
            discarder, claimed, recall = self._window(seat, CallKind.KONG)
            hand = self.state.hand
            assert hand is not None
            if claimed != tile:
                raise Rejected(
                    "WMC-5.1",
                    f"kong of {tile_name(tile)}: only the last discard ({tile_name(claimed)}) can "
                    "be claimed",
                    seat,
                )
            shown = tuple(sorted(p.tiles)) if p.tiles is not None else (tile,) * 4
            if shown != (tile,) * 4:
                if len(shown) != 4 or tile not in shown or not self._holds(hand, seat, shown, tile):
                    raise Rejected(
                        "WMC-5.5",
                        f"kong {format_tiles(shown)}: four tiles with {tile_name(tile)}, the "
                        "others from the hand",
                        seat,
                    )
                self._kong_room(hand, seat)
                self._reopen_chow(hand, seat, CallKind.KONG)
                claim = (discarder, tile)
                self._wrong_meld(hand, seat, "kong", shown, claim, "is not a kong", recall=recall)
                return
            if not hand.seats[seat].holds((tile,) * 3):
                self._penalty_tiles_in_claim(hand, seat, tile, 3)
                raise Rejected(
                    "WMC-5.5",
                    f"an exposed kong needs a concealed pung of {tile_name(tile)} "
                    "(a discard cannot be added to an exposed pung)",
                    seat,
                )
            self._kong_room(hand, seat)
            self._show_from_hand(seat, (tile,) * 3)
            self._reopen_chow(hand, seat, CallKind.KONG)
            self._spoken(seat, CallKind.KONG)
            if recall:
                self._recall(hand)
            self._take_discard(hand, discarder)
            hand.seats[seat].melds.append(
                Meld(
                    MeldKind.KONG,
                    (tile,) * 4,
                    claimed_from=claims.relative(seat, discarder),
                    claimed_tile=tile,
                )
            )
            self._start_replacement(hand, seat, None)
            return
        hand = self._hand("WMC-5.5", "kong")
        if hand.phase is not Phase.DISCARD or seat is not hand.turn:
            raise Rejected("WMC-5.5", f"{p.kind} kong only on one's own turn", seat)
        if hand.seats[seat].dead == "long":
            raise Rejected("WMC-10.2", f"{seat.name} has a long hand: no kong this hand", seat)
        if hand.seabed_seat is seat and hand.after is TurnStart.DRAW:
            raise Rejected("WMC-6.2", "the player who drew the seabed may not kong", seat)
        self._kong_room(hand, seat)
        me = hand.seats[seat]
        if p.kind is KongKind.CONCEALED:
            if hand.after is TurnStart.CLAIM:
                raise Rejected("WMC-5.5", "no concealed kong right after a chow or pung", seat)
            shown = tuple(sorted(p.tiles)) if p.tiles is not None else (tile,) * 4
            if shown != (tile,) * 4:
                if len(shown) != 4 or not self._holds(hand, seat, shown, None):
                    raise Rejected(
                        "WMC-5.5", f"{seat.name} does not hold {format_tiles(shown)}", seat
                    )
                self._own_kong_spoken(hand, seat, KongKind.CONCEALED)
                self._wrong_meld(hand, seat, "kong", shown, None, "is not a kong")
                return
            if not me.holds((tile,) * 4):
                raise Rejected("WMC-5.5", f"a concealed kong needs four {tile_name(tile)}", seat)
            self._show_from_hand(seat, (tile,) * 4)
            me.melds.append(Meld(MeldKind.KONG, (tile,) * 4, concealed=True))
            self._own_kong_spoken(hand, seat, KongKind.CONCEALED)
            self._start_replacement(hand, seat, None)
            return
        index = next(
            (k for k, m in enumerate(me.melds) if m.kind is MeldKind.PUNG and m.first == tile),
            -1,
        )
        if index < 0:
            raise Rejected(
                "WMC-5.5", f"an added kong needs an exposed pung of {tile_name(tile)}", seat
            )
        meld = me.melds[index]
        if not me.holds((tile,)):
            raise Rejected(
                "WMC-5.5", f"{seat.name} does not hold the fourth {tile_name(tile)}", seat
            )
        self._show_from_hand(seat, (tile,))
        me.melds[index] = Meld(
            MeldKind.KONG,
            (tile,) * 4,
            claimed_from=meld.claimed_from,
            claimed_tile=meld.claimed_tile,
        )
        self._own_kong_spoken(hand, seat, KongKind.ADDED)
        self._start_replacement(hand, seat, tile)

    def _own_kong_spoken(self, hand: HandState, seat: Wind, kind: KongKind) -> None:
        """WMC-5.2/5.5: a kong is said before it is shown; an added kong shown without the call
        may be ruled a discard (chowable)."""
        said = hand.own_call is not None and hand.own_call[1] is CallKind.KONG
        hand.own_call = None
        if self.state.spoken_by != "calls":  # the microphones' claim check decides (WMC-5.2)
            self._await_check(seat, "kong", said)
            return
        if said:
            return
        if kind is KongKind.ADDED:
            self._finding(
                "WMC-5.5",
                f"{seat.name} showed the added kong's tile without saying kong: it may be ruled "
                "a discard",
                seat,
                severity=Severity.WARNING,
                penalty="warning",
            )
        else:
            self._alert(
                "WMC-5.2",
                f"{seat.name}'s concealed kong was not spoken",
                seat,
                severity=Severity.WARNING,
                rejected=False,
            )

    def _kong_room(self, hand: HandState, seat: Wind) -> None:
        if hand.wall.live_for(seat) <= 0:
            raise Rejected("WMC-6.2", "no kong once the live wall is exhausted", seat)
