"""The hand shown (WMC-7.4): a win by a seat whose concealed tiles nobody has seen is checked and
scored when the hand is laid down, and a win whose hand is never shown is a finding.

At a real table the deal and every draw go face down into the racks: the record knows a seat's
concealed part as a count and the tiles that must be there (:class:`~referee.game.state.SeatState`
``hidden``). A ``win`` by such a seat waits (``HandState.pending_win``) for its ``hand_revealed``:
the tiles shown are checked against everything seen — the count the record implies, the tiles the
record knows he holds, a fifth visible copy (WMC-1.1: his own discards lie in his river) — then
they become his concealed tiles and the win is ruled exactly as for a hand known all along: its
shape, its patterns, its score, a false win (WMC-11.6). Until then only what the tiles in sight
allow is checked (a claim the hidden tiles could make stands; a fifth copy never).
"""

from __future__ import annotations

from referee.events import CallKind, HandRevealed, WinDeclared, WinOn
from referee.game.alerts import Severity
from referee.game.state import HandState, PendingWin, Phase, TurnStart
from referee.game.table.base import Rejected
from referee.game.table.wins import Wins
from referee.hands import HandError, Wind
from referee.tiles import NUM_KINDS, Tile, format_tiles, minus, tile_name

PLAY_GOES_ON = frozenset(
    {
        "draw",
        "replacement_draw",
        "discard",
        "chow",
        "pung",
        "kong",
        "flower",
        "exhaustive_draw",
        "wall_built",
        "dice_rolled",
        "deal",
    }
)
"""Events after which a declared win's hand can no longer be the one shown: its reveal never
came (WMC-7.4), and the record goes on from what the table did."""


class Reveals(Wins):
    """A win by a seat with hidden tiles, ruled at its reveal; a reveal that never comes."""

    def _before(self, type_: str) -> None:
        hand = self.state.hand
        if hand is None or hand.pending_win is None:
            return
        if type_ == "end_of_log":
            self._never_shown(hand, "the record ends")
        elif type_ in PLAY_GOES_ON:
            self._never_shown(hand)

    def _never_shown(self, hand: HandState, why: str = "play went on") -> None:
        pending = hand.pending_win
        assert pending is not None
        hand.pending_win = None
        seat = pending.win.seat
        self._finding(
            "WMC-7.4",
            f"{seat.name} declared a win (seq {pending.seq}) and the hand was never shown "
            f"({why}): the record cannot check or score it — for a referee",
            seat,
            severity=Severity.CRITICAL,
            evidence=(pending.seq,),
        )

    def _win(self, p: WinDeclared) -> None:
        hand = self._hand("WMC-7.2", "win")
        me = hand.seats[p.seat]
        if not me.hidden:
            super()._win(p)
            return
        if not me.dead:  # (a dead hand's win is a false win, ruled on the hand shown)
            self._may_win_now(hand, p)
        if hand.pending_win is not None:
            self._never_shown(hand, f"{p.seat.name} declared a win before it was")
        hand.pending_win = PendingWin(p, self._seq, self._ts)

    def _may_win_now(self, hand: HandState, p: WinDeclared) -> None:
        """What the tiles in sight decide before the hand is shown: a win now is self-drawn on
        one's own turn (not right after a chow or pung), robs an added kong, or takes the last
        discard of another seat within its claim window (WMC-7.2, 5.6, 5.1, 4.4, 5.7)."""
        seat = p.seat
        if hand.phase is Phase.DISCARD and seat is hand.turn and hand.unmerged is None:
            if hand.after is TurnStart.CLAIM:
                raise Rejected(
                    "WMC-7.2", "a win after a chow or pung must be claimed on the discard", seat
                )
            if p.on is WinOn.DISCARD:
                raise Rejected("WMC-7.2", f"{seat.name} is on turn: a win now is self-drawn", seat)
            return
        if p.on is WinOn.DRAW:
            raise Rejected("WMC-7.2", "a self-drawn win only on one's own turn", seat)
        if hand.phase is Phase.REPLACE:
            if hand.robbable is None or seat is hand.turn:
                raise Rejected("WMC-5.6", "only an added kong can be robbed", seat)
            return
        if not (hand.phase is Phase.DISCARD and seat is hand.turn):
            self._window(seat, CallKind.WIN)  # refuses a win with no discard he may claim

    def _revealed(self, p: HandRevealed) -> None:
        hand = self.state.hand
        pending = hand.pending_win if hand is not None else None
        if hand is None or pending is None or pending.win.seat is not p.seat:
            super()._revealed(p)
            return
        me = hand.seats[p.seat]
        saved = (list(me.counts), me.hidden)
        win = self._as_shown(hand, pending, p)  # (refused: the win still waits for its hand)
        hand.pending_win = None
        seq, ts = self._seq, self._ts
        self._seq, self._ts = pending.seq, pending.ts  # the win is ruled as of its own event
        try:
            super()._win(win)
        except Rejected:
            me.counts[:], me.hidden = saved
            raise
        finally:
            self._seq, self._ts = seq, ts

    def _as_shown(self, hand: HandState, pending: PendingWin, p: HandRevealed) -> WinDeclared:
        """The seat's concealed tiles become the ones shown (after the checks against what was
        seen); returns the win to rule, its self-drawn tile named when the log did not."""
        seat = p.seat
        me = hand.seats[seat]
        shown = sorted(p.tiles)
        apart = hand.unmerged if hand.turn is seat and hand.unmerged is not None else None
        due = sum(me.counts[:NUM_KINDS]) + me.hidden - (apart is not None)
        claimable = self._claimable(hand)
        on_tile = (
            claimable
            if claimable is not None
            and len(shown) == due + 1
            and claimable in shown
            and pending.win.on is not WinOn.DRAW
            else None
        )
        own_turn = hand.phase is Phase.DISCARD and hand.turn is seat and apart is None
        if len(shown) == due + 1 and on_tile is None and not own_turn:
            raise Rejected(
                "WMC-7.4",
                f"{seat.name}'s hand shown does not hold the tile it would win on"
                + (f" ({tile_name(claimable)})" if claimable is not None else "")
                + f": {format_tiles(shown)}",
                seat,
            )
        concealed = list(shown)
        if on_tile is not None:
            concealed.remove(on_tile)
        if len(shown) != (due if own_turn else due + 1):
            self._finding(
                "WMC-7.4",
                f"{seat.name} showed {len(shown)} tiles where the record has {due} concealed "
                f"{'' if own_turn else '+1 won on a discard'}: {format_tiles(shown)}",
                seat,
                severity=Severity.WARNING,
            )
        missing = minus([t for t in range(NUM_KINDS) for _ in range(me.counts[t])], concealed)
        if missing:
            self._finding(
                "WMC-7.4",
                f"{seat.name}'s hand shown lacks {format_tiles(missing)}, which the record saw "
                f"go into it: {format_tiles(shown)}",
                seat,
                severity=Severity.WARNING,
            )
        for t in sorted(set(concealed)):
            mine = me.counts[t]
            elsewhere = self._copies_out(t) - mine
            copies = 1 if t >= NUM_KINDS else 4
            if elsewhere + concealed.count(t) > copies:
                self._finding(
                    "WMC-1.1",
                    f"{seat.name}'s hand shown holds {concealed.count(t)} {tile_name(t)} with "
                    f"{elsewhere} in sight elsewhere (his own discards and melds included): "
                    f"more than the {copies} the set has — a misread or a tile from outside",
                    seat,
                )
        me.counts[:NUM_KINDS] = [concealed.count(t) for t in range(NUM_KINDS)]
        me.hidden = 0
        if apart is not None:
            me.add(apart)  # the drawn tile held apart (WMC-4.4) is not in the hand shown
        if on_tile is not None or pending.win.tile is not None:
            return pending.win
        if hand.phase is Phase.DISCARD and hand.turn is seat and concealed:
            return pending.win.model_copy(update={"tile": self._best_drawn(seat, concealed)})
        return pending.win

    @staticmethod
    def _claimable(hand: HandState) -> Tile | None:
        """The tile a win on a discard would take now: a robbed kong's, else the last discard."""
        if hand.phase is Phase.REPLACE:
            return hand.robbable
        return hand.last_discard[1] if hand.last_discard is not None else None

    def _best_drawn(self, seat: Wind, concealed: list[Tile]) -> Tile:
        """Self-drawn, with no sensor that saw which tile was drawn: the winner counts the most
        valuable arrangement (WMC-7.5, 7.6), so the drawn tile is the one that scores most."""
        best: tuple[int, Tile] | None = None
        for t in sorted(set(concealed)):
            try:
                result = self.scorer(self.winning_hand(seat, None, drawn=t), self.profile.scorer)
            except HandError:
                continue
            if result.valid and (best is None or result.total > best[0]):
                best = (result.total, t)
        return best[1] if best is not None else concealed[-1]
