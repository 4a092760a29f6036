"""Irregularities and penalties: a wrong meld corrected or withdrawn (WMC-11.1, 11.5), penalty
tiles exposed and returned (9.1, 0.3), a flipped wall tile (4.9), a referee's dead-hand ruling
(10.2) and a dismissal that lifts a restriction (0.3), the automatic table's alerts.
"""

from __future__ import annotations

from referee.events import (
    ConductHeard,
    DeadHand,
    DealCorrected,
    MachineEvent,
    MeldCorrected,
    PenaltyDecision,
    PenaltyTilesReturned,
    TilesExposed,
    WallFlipped,
)
from referee.game import claims
from referee.game.alerts import Severity
from referee.game.claims import NEXT
from referee.game.state import (
    HandState,
    Phase,
    TurnStart,
    WrongMeld,
)
from referee.game.table.base import Rejected
from referee.game.table.reveals import Reveals
from referee.hands import HandError, Meld, MeldKind, Relative
from referee.penalties import Decision, LedgerError, Status, Verdict
from referee.tiles import NUM_KINDS, Tile, format_tiles, tile_name

DEAL_EXCESS_POINTS = 10
"""WMC-3.5 fixes no amount for correcting a long deal: proposed as 10, like a repeated unspoken
claim (WMC-5.2), for the referee to change."""
PHONE_POINTS = 10
"""WMC-13.6: "a ringing device costs points" — no amount fixed: proposed as 10, for the referee."""
SLAM_WIN_S = 1.5
"""A slam this close to the winner's win is the winning tile laid (WMC-13.6: allowed once)."""


class Irregularities(Reveals):
    """Corrections, penalty tiles, flipped tiles, dead hands, conduct and referee decisions."""

    def _conduct(self, p: ConductHeard) -> None:
        """WMC-13.6 heard by the microphones: talking outside calls and a slammed tile are
        warnings (the winner's slam of the winning tile, once, is allowed); a ringing phone
        costs points (a proposal)."""
        seat = p.seat
        span = f"at {p.t_start:.1f}–{p.t_end:.1f} s"
        if p.kind == "slam":
            win = self.state.last_win
            if (
                win is not None
                and win[0] is seat
                and not win[2]
                and abs(p.t_start - win[1]) <= SLAM_WIN_S
            ):
                self.state.last_win = (win[0], win[1], True)
                return
        who = f"{seat.name}: " if seat is not None else ""
        if p.kind == "phone":
            self._finding(
                "WMC-13.6",
                f"{who}a phone rang {span} ({p.detail}): phones off, a ringing device costs points",
                seat,
                severity=Severity.WARNING,
                penalty="points" if seat is not None else "",
                points=PHONE_POINTS if seat is not None else 0,
            )
            return
        what = "talking during play outside a call" if p.kind == "talking" else "a tile slammed"
        self._finding(
            "WMC-13.6",
            f"{who}{what} {span} ({p.detail})",
            seat,
            severity=Severity.WARNING,
            penalty="warning" if seat is not None else "",
        )

    def _meld_corrected(self, p: MeldCorrected) -> None:
        """WMC-11.1: a wrong meld put right at once — to a legal set, or withdrawn; the wrongly
        exposed hand tiles become live penalty tiles."""
        hand = self._playing("meld corrected")
        seat = p.seat
        wrong = hand.wrong_meld
        if wrong is None or wrong.seat is not seat:
            raise Rejected(
                "WMC-11.5",
                f"{seat.name} has no wrong meld open to correction: once play moved on a meld "
                "cannot be corrected",
                seat,
            )
        me = hand.seats[seat]
        kind, shown = me.wrong_melds[wrong.index]
        claimed = wrong.claimed
        spare = list(shown)  # exposed tiles from the hand (not the claimed discard)
        if claimed is not None:
            spare.remove(claimed[1])
        if p.tiles:
            meld = self._corrected_set(hand, wrong, tuple(sorted(p.tiles)))
            need = list(meld.tiles)
            if claimed is not None:
                need.remove(claimed[1])
            from_hand: list[Tile] = []
            for t in need:
                if t in spare:
                    spare.remove(t)
                else:
                    from_hand.append(t)
            if not self._holds(hand, seat, tuple(from_hand), None):
                raise Rejected(
                    "WMC-11.1",
                    f"{seat.name} cannot make {format_tiles(meld.tiles)} from the exposed tiles "
                    "and his hand",
                    seat,
                )
            self._show_from_hand(seat, from_hand)
            me.melds.append(meld)
            done = f"corrected to {meld.kind} {format_tiles(meld.tiles)}"
        else:
            self._withdraw(hand, wrong)
            done = "withdrawn" + (
                f"; {claimed[0].name}'s {tile_name(claimed[1])} is claimable again"
                if claimed is not None
                else ""
            )
        me.wrong_melds.pop(wrong.index)
        hand.wrong_meld = None
        me.penalty_live += spare
        self._finding(
            "WMC-11.1",
            f"{seat.name}'s wrong {kind} {format_tiles(shown)} {done} at once: "
            + (
                f"{format_tiles(spare)} wrongly exposed become live penalty tiles"
                if spare
                else "no tile was wrongly exposed"
            ),
            seat,
            severity=Severity.VIOLATION if spare else Severity.INFO,
            penalty="penalty_tiles" if spare else "",
            evidence=(wrong.seq,),
        )

    def _corrected_set(self, hand: HandState, wrong: WrongMeld, tiles: tuple[Tile, ...]) -> Meld:
        """The legal set a wrong meld is corrected to: a kong stays a kong; a claim may become
        a pung or (from the left player) a chow of the claimed discard."""
        seat = wrong.seat
        claimed = wrong.claimed
        bad = Rejected("WMC-11.1", f"{format_tiles(tiles)} is no legal set here", seat)
        if claimed is None:
            if len(tiles) != 4 or len(set(tiles)) != 1:
                raise bad
            return Meld(MeldKind.KONG, tiles, concealed=True)
        discarder, tile = claimed
        if tile not in tiles:
            raise bad
        side = claims.relative(seat, discarder)
        if wrong.kind == "kong":
            if tiles != (tile,) * 4:
                raise bad
            return Meld(MeldKind.KONG, tiles, claimed_from=side, claimed_tile=tile)
        if tiles == (tile,) * 3:
            return Meld(MeldKind.PUNG, tiles, claimed_from=side, claimed_tile=tile)
        try:
            meld = Meld(MeldKind.CHOW, tiles, claimed_from=side, claimed_tile=tile)
        except HandError:
            raise bad from None
        if side is not Relative.LEFT:
            raise bad
        return meld

    def _withdraw(self, hand: HandState, wrong: WrongMeld) -> None:
        """The wrong claim (or concealed kong) taken back before the claimer discarded (or drew
        the replacement): the discard lies again, claimable, and the turn is as before."""
        seat = wrong.seat
        claimed = wrong.claimed
        if wrong.kind == "kong":
            ok = hand.phase is Phase.REPLACE and hand.turn is seat
        else:
            ok = hand.phase is Phase.DISCARD and hand.turn is seat and hand.after is TurnStart.CLAIM
        if not ok:
            raise Rejected(
                "WMC-11.1",
                f"{seat.name} already discarded: the wrong meld can only be corrected to a legal "
                "set now",
                seat,
            )
        hand.replacing = ""
        hand.robbable = None
        hand.calls = {}
        hand.drawn = None
        if claimed is None:
            hand.phase = Phase.DISCARD
            hand.after = wrong.after
            return
        discarder, tile = claimed
        hand.seats[discarder].river.append(tile)
        hand.last_discard = claimed
        hand.claims_made -= 1
        hand.phase = Phase.WINDOW
        hand.turn = NEXT[discarder]

    def _decision(self, p: PenaltyDecision) -> None:
        """WMC-0.3: a referee dismissed (or revoked) a proposal whose restriction the engine
        applied — lift it. The decision is checked by the same ledger rules as the duties'
        (referee.penalties), so both agree; one that cannot apply changes nothing here (the
        duties answer it with a WMC-0.3 alert)."""
        hand = self.state.hand
        if hand is None or hand.phase is Phase.IDLE:
            return
        entry = hand.bar_ledger.entries.get(p.proposal)
        if entry is None:
            return
        try:
            hand.bar_ledger.decide(
                Decision(p.proposal, Verdict(p.verdict), p.referee, p.reason, 0.0, p.points)
            )
        except LedgerError:
            return
        if entry.status not in (Status.DISMISSED, Status.REVOKED):
            return
        seat = entry.proposal.seat
        me = hand.seats[seat]
        if me.lift(p.proposal):
            self._derive(
                "restriction_lifted",
                seat=seat.name,
                proposal=p.proposal,
                rule=entry.proposal.rule,
                verdict=p.verdict,
                referee=p.referee,
                dead=me.dead or None,
            )

    def _tiles_exposed(self, p: TilesExposed) -> None:
        """WMC-9.1: tiles shown from a concealed hand become live penalty tiles."""
        hand = self._playing("tiles exposed")
        me = hand.seats[p.seat]
        for t in p.tiles:
            if t >= NUM_KINDS or not me.holds([u for u in p.tiles if u == t]):
                raise Rejected(
                    "WMC-9.1", f"{p.seat.name} holds no concealed {tile_name(t)}", p.seat
                )
        if not me.holds(p.tiles):
            raise Rejected(
                "WMC-9.1", f"{p.seat.name} holds fewer concealed tiles than those shown", p.seat
            )
        self._show_from_hand(p.seat, p.tiles)
        me.penalty_live += p.tiles
        self._finding(
            "WMC-9.1",
            f"{p.seat.name} exposed {format_tiles(p.tiles)}: live penalty tiles, discardable at "
            "the current or next discard only (9.2), never in a set (9.3)",
            p.seat,
            severity=Severity.WARNING,
            penalty="penalty_tiles",
        )

    def _penalty_returned(self, p: PenaltyTilesReturned) -> None:
        """A referee returns penalty tiles to the concealed hand (WMC-0.3)."""
        hand = self._playing("penalty tiles returned")
        me = hand.seats[p.seat]
        for t in p.tiles:
            if t in me.penalty_live:
                me.penalty_live.remove(t)
            elif t in me.penalty_dead:
                me.penalty_dead.remove(t)
            else:
                raise Rejected("WMC-9.1", f"{tile_name(t)} is not a penalty tile", p.seat)
            me.counts[t] += 1

    def _wall_flipped(self, p: WallFlipped) -> None:
        """WMC-4.9: the next wall tile flipped on one's own turn must be taken as a live penalty
        tile (no claim on the last discard); any other flip is a warning."""
        hand = self._playing("wall flipped")
        seat = p.seat
        if p.next and hand.phase is Phase.WINDOW and seat is hand.turn and hand.wall.live > 0:
            wall = hand.wall
            tile = self._take_tile(wall, wall.head, p.tile, seat)
            self._moved_on(hand)
            wall.head += 1
            hand.seats[seat].penalty_live.append(tile)
            hand.after = TurnStart.DRAW
            hand.after_kong = False
            hand.phase = Phase.DISCARD
            hand.last_discard = None
            hand.calls = {}
            hand.unmerged = None
            hand.drawn = None
            if hand.wall.live == 0:
                hand.seabed_seat = seat
                self._derive("seabed_drawn", seat=seat.name)
            self._finding(
                "WMC-4.9",
                f"{seat.name} flipped his next wall tile {tile_name(tile)}: he must take it as a "
                "live penalty tile; no claim on the last discard",
                seat,
                severity=Severity.WARNING,
                penalty="penalty_tiles",
            )
            return
        self._finding(
            "WMC-4.9",
            f"{seat.name} flipped a wall tile "
            + (
                "out of turn: the rightful drawer may take it or have it shuffled back"
                if p.next
                else "that was not his to draw: the referee shuffles it with 12+ nearby tiles"
            ),
            seat,
            severity=Severity.WARNING,
            penalty="warning",
        )

    def _deal_corrected(self, p: DealCorrected) -> None:
        """WMC-3.5: a long deal found before the seat's first discard — the referee takes the
        excess back into the wall, with a point penalty (000: 裁判員可以從其手牌隨機取走多余張數，
        并把之與牌墻的牌混入，但會扣分處罰)."""
        hand = self._playing("deal corrected")
        seat = p.seat
        off = hand.deal_off.get(seat, 0)
        if off <= 0:
            raise Rejected(
                "WMC-3.5",
                f"{seat.name} has no long deal to correct (only before his first discard)",
                seat,
            )
        if len(p.tiles) > off or not self._holds(hand, seat, tuple(p.tiles), None):
            raise Rejected(
                "WMC-3.5",
                f"{seat.name} cannot return {format_tiles(p.tiles)}: {off} tile(s) over, "
                "from his concealed hand",
                seat,
            )
        me = hand.seats[seat]
        wall = hand.wall
        me.take(p.tiles)
        for t in p.tiles:
            wall.head -= 1  # back into the wall (a recorded wall: as its next tiles)
            if wall.known:
                wall.tiles[wall.order[wall.head]] = t
        if off > len(p.tiles):
            hand.deal_off[seat] = off - len(p.tiles)
        else:
            del hand.deal_off[seat]
        self._finding(
            "WMC-3.5",
            f"{seat.name}'s long deal corrected before his first discard: "
            f"{format_tiles(p.tiles)} back into the wall, with a point penalty",
            seat,
            penalty="points",
            points=DEAL_EXCESS_POINTS,
            evidence=(hand.deal_seq,),
        )

    def _dead_hand(self, p: DeadHand) -> None:
        """A referee's dead-hand ruling (WMC-10.2, e.g. after WMC-5.5 or 11.5)."""
        hand = self._playing("dead hand")
        self._bar(hand, p.seat, "WMC-10.2", "long" if p.long else "short", proposed=False)

    def _machine(self, p: MachineEvent) -> None:
        """A message from the automatic table: no effect on the game (the game events it implies
        are logged after it); an alert it carries is raised, and the event stands."""
        alert = p.alert
        if alert is not None:
            self._alert(
                alert.rule, alert.message, severity=Severity(alert.severity), rejected=False
            )
