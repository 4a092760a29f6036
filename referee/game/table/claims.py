"""Claims on a discard: the call (WMC-5.2, 11.2), the claim window (4.4, 5.1) and priority (5.7),
chow (5.4) and pung (5.3), and a wrong meld exposed on a claim (11.1, 11.5).

The pure rules of who may claim what live in :mod:`referee.game.claims`; this layer applies them
to the table.
"""

from __future__ import annotations

from referee.events import (
    Call,
    CallKind,
    Chow,
    ClaimCheck,
    Pung,
    VoiceSetup,
)
from referee.game import claims, shapes
from referee.game.alerts import Severity
from referee.game.claims import NEXT
from referee.game.state import (
    HandState,
    OpenChow,
    Phase,
    TurnStart,
    WrongMeld,
)
from referee.game.table.base import Rejected
from referee.game.table.turns import Turns
from referee.hands import Meld, MeldKind, Relative, Wind
from referee.tiles import NUM_KINDS, Tile, format_tiles, tile_name

CLAIM_CHANGE_REPEAT = 3
"""WMC-11.2: changing a called claim before exposing is no penalty "unless too frequent"; from a
player's third change in the session the alert is a warning with a point-penalty proposal."""
CHOW_WAIT = 1.0
"""WMC-5.4: say "chow", wait about 1 s, then expose; a chow exposed sooner (or unspoken, 5.2)
leaves the tile open to a pung or kong by priority until the chower discards (002:
如果无扬声叫吃，或于叫吃前、同时或之后太快亮牌或打牌，则他家有权按"鸣牌优先规条"把牌碰、杠了去)."""
CLAIM_CHANGE_POINTS = 10
"""The rules fix no amount for a too-frequent change (WMC-11.2): proposed as 10, like a repeated
unspoken claim (WMC-5.2), for the referee to change."""
UNSPOKEN_POINTS = 10
"""WMC-5.2: "unspoken claims get a warning; repeated ones a point penalty (WMC-13.3)" — the
amount is not fixed: proposed as 10 from a player's second unspoken claim, for the referee."""
CLAIM_WORDS = {"selfdraw": "self-drawn win", "win": "win on a discard"}
HEARD_RANK = {"win": 0, "pung": 1, "kong": 1, "chow": 2}
"""WMC-5.7 by the word heard, lower is stronger (claims of chow and pung are compared)."""


class Claims(Turns):
    """Call, chow and pung on the last discard."""

    def _call(self, p: Call) -> None:
        hand = self._hand("WMC-5.2", "call")
        seat = p.seat
        if (
            hand.phase is Phase.DISCARD
            and seat is hand.turn
            and p.call in (CallKind.KONG, CallKind.WIN)
        ):
            said = hand.own_call
            if said is not None and said[0] is seat and said[1] is not p.call:
                self._claim_changed(seat, said[1], p.call, said[2], excused=False)
            hand.own_call = (seat, p.call, self._seq)  # own-turn kong or self-drawn win
            return
        if hand.phase is Phase.REPLACE and hand.robbable is not None:
            if seat is hand.turn or p.call is not CallKind.WIN:
                raise Rejected("WMC-5.6", "only a win may be called on an added kong", seat)
            hand.calls[seat] = p.call
            hand.call_seq[seat] = self._seq
            return
        if self._chow_open_to(hand, seat, p.call):
            hand.calls[seat] = p.call
            hand.call_seq[seat] = self._seq
            hand.call_ts[seat] = self._ts
            return
        if hand.last_discard is None or hand.phase not in (Phase.WINDOW, Phase.DISCARD):
            raise Rejected("WMC-5.1", f"{seat.name} called {p.call} with no discard to claim", seat)
        discarder = hand.last_discard[0]
        if seat is discarder:
            raise Rejected("WMC-5.1", "a player cannot claim his own discard", seat)
        before = hand.calls.get(seat)
        if before is not None and before is not p.call:
            mine = claims.rank(before, seat, discarder)
            excused = p.call is CallKind.WIN and any(
                other is not seat and claims.rank(call, other, discarder) < mine
                for other, call in hand.calls.items()
            )
            self._claim_changed(seat, before, p.call, hand.call_seq[seat], excused=excused)
        hand.calls[seat] = p.call
        hand.call_seq[seat] = self._seq
        hand.call_ts[seat] = self._ts

    def _claim_changed(
        self, seat: Wind, before: CallKind, now: CallKind, said: int, *, excused: bool
    ) -> None:
        """WMC-11.2: a called claim changed (or to a win) before exposing — no penalty unless
        too frequent: info each time, from the player's CLAIM_CHANGE_REPEAT-th change in the
        session a warning with a point-penalty proposal. Switching to a win when outranked is
        the claimer's right (WMC-5.7) and is not counted."""
        what = f"{seat.name} changed the call {before} to {now} before exposing"
        if excused:
            self._finding(
                "WMC-11.2",
                f"{what}: a switch to a win when outranked (WMC-5.7), not counted",
                seat,
                severity=Severity.INFO,
                evidence=(said,),
            )
            return
        st = self.state
        name = st.player_at(seat)
        n = st.claim_changes.get(name, 0) + 1
        st.claim_changes[name] = n
        if n < CLAIM_CHANGE_REPEAT:
            self._finding(
                "WMC-11.2",
                f"{what}: no penalty (change no. {n} of {name} this session)",
                seat,
                severity=Severity.INFO,
                evidence=(said,),
            )
            return
        self._finding(
            "WMC-11.2",
            f"{what}: change no. {n} of {name} this session — too frequent, the referee may "
            "penalise",
            seat,
            severity=Severity.WARNING,
            penalty="points",
            points=CLAIM_CHANGE_POINTS,
            evidence=(said,),
        )

    def _window(self, seat: Wind, kind: CallKind) -> tuple[Wind, Tile, bool]:
        """Check a claim may be made now: (discarder, tile, needs recall of an unmerged draw)."""
        hand = self._hand("WMC-5.1", f"{kind} claim")
        recall = False
        if hand.phase is Phase.WINDOW and hand.last_discard is not None:
            pass
        elif self._chow_open_to(hand, seat, kind):
            assert hand.open_chow is not None
            chow = hand.open_chow
            return self._claim_checks(hand, seat, kind, chow.discarder, chow.tile), chow.tile, False
        elif (
            hand.phase is Phase.DISCARD
            and hand.unmerged is not None
            and hand.last_discard is not None
            and kind is not CallKind.CHOW
            and seat is not hand.turn
        ):
            recall = True  # WMC-4.4: drawn but not merged → the tile goes back
        elif hand.phase is Phase.DISCARD and hand.after is TurnStart.DRAW and hand.discards:
            raise Rejected(
                "WMC-4.4",
                f"{kind} refused: claims end once the next player has drawn and merged",
                seat,
            )
        else:
            raise Rejected("WMC-5.1", f"{kind} refused: there is no discard to claim", seat)
        assert hand.last_discard is not None
        discarder, tile = hand.last_discard
        return self._claim_checks(hand, seat, kind, discarder, tile), tile, recall

    def _claim_checks(
        self, hand: HandState, seat: Wind, kind: CallKind, discarder: Wind, tile: Tile
    ) -> Wind:
        """Who may claim the discard: not its discarder, not a dead hand (10.2), nothing but a
        win on the riverbed (6.2), nobody outranked by a legal pending call (5.7)."""
        if seat is discarder:
            raise Rejected("WMC-5.1", "a player cannot claim his own discard", seat)
        dead = hand.seats[seat].dead
        if dead and (dead == "long" or kind is CallKind.WIN):
            # The refusal answers the seat's call: one offence, one finding (no WMC-11.3 on top).
            hand.calls.pop(seat, None)
            raise Rejected(
                "WMC-10.2",
                f"{seat.name} has a {dead} hand: "
                + ("no win, claim or kong" if dead == "long" else "no win")
                + " this hand",
                seat,
            )
        if hand.riverbed and kind is not CallKind.WIN:
            raise Rejected("WMC-6.2", f"the riverbed tile may only be won on, never {kind}ed", seat)
        mine = claims.rank(kind, seat, discarder)
        for other, call in hand.calls.items():
            if other is seat or claims.rank(call, other, discarder) >= mine:
                continue
            if self._call_is_legal(other, call, discarder, tile):
                raise Rejected(
                    "WMC-5.7",
                    f"{seat.name}'s {kind} is outranked by {other.name}'s {call} "
                    "(win 1a/1b/1c > pung/kong > chow)",
                    seat,
                )
        return discarder

    @staticmethod
    def _chow_open_to(hand: HandState, seat: Wind, kind: CallKind) -> bool:
        """WMC-5.2, 5.4: the tile of a chow exposed unspoken or too fast may still be punged or
        konged by another player, until the chower discards."""
        chow = hand.open_chow
        return (
            chow is not None
            and kind in (CallKind.PUNG, CallKind.KONG)
            and hand.phase is Phase.DISCARD
            and hand.turn is chow.seat
            and hand.after is TurnStart.CLAIM
            and seat is not chow.seat
        )

    def _reopen_chow(self, hand: HandState, claimer: Wind, kind: CallKind) -> None:
        """A pung or kong takes an open chow's tile (WMC-5.4): the chow's hand tiles go back to
        the chower, the discard lies again and the claim goes on as on a fresh discard."""
        chow = hand.open_chow
        if chow is None or hand.last_discard is not None:
            return  # a claim on the last discard itself
        hand.open_chow = None
        me = hand.seats[chow.seat]
        meld = me.melds.pop()
        for t in meld.tiles:
            if t != chow.tile:
                me.counts[t] += 1
        hand.seats[chow.discarder].river.append(chow.tile)
        hand.last_discard = (chow.discarder, chow.tile)
        hand.claims_made -= 1
        hand.drawn = None
        hand.phase = Phase.WINDOW
        hand.turn = NEXT[chow.discarder]
        why = (
            "was not spoken (no priority, WMC-5.2)"
            if chow.rule == "WMC-5.2"
            else f"was exposed {chow.gap:.1f} s after the call (wait about {CHOW_WAIT:g} s)"
        )
        self._finding(
            chow.rule,
            f"{claimer.name}'s {kind} takes {tile_name(chow.tile)} by priority: {chow.seat.name}'s "
            f"chow {format_tiles(meld.tiles)} {why}; its tiles go back to his hand",
            chow.seat,
            severity=Severity.INFO,
            evidence=(chow.seq,),
        )

    def _spoken(self, seat: Wind, kind: CallKind) -> None:
        """WMC-5.2: every claim is spoken; an unspoken one stands here but is flagged (by the
        calls before it, or — with the microphones checking — by the claim check after it)."""
        hand = self.state.hand
        if hand is not None and self.state.spoken_by != "calls":
            self._await_check(seat, str(kind), seat in hand.calls)
        elif hand is not None and seat not in hand.calls:
            self._alert(
                "WMC-5.2",
                f"{seat.name}'s {kind} was not spoken",
                seat,
                severity=Severity.WARNING,
                rejected=False,
            )

    def _await_check(self, seat: Wind, kind: str, called: bool) -> None:
        """The exposure now applied awaits the microphones' claim check (``voice``); with no
        audio input (``none``) nothing is checked — the voice_setup event says why."""
        if self.state.spoken_by == "voice":
            st = self.state
            st.to_check[self._seq] = (seat, kind, called, st.player_at(seat))

    def _voice_setup(self, p: VoiceSetup) -> None:
        self.state.spoken_by = p.checks

    def _claim_check(self, p: ClaimCheck) -> None:
        """WMC-5.2, 5.5: the microphones' answer for an exposure. Spoken or uncertain: the event
        is the record's note, no alert. Unspoken: a warning, and from the player's second in the
        session a point-penalty proposal. A call logged before the exposure (the spotter heard
        it) outweighs silence at the seat: the sensors disagree, so no alert."""
        st = self.state
        pending = st.to_check.pop(p.claim_seq, None)
        if pending is None:  # the calls decided, nothing does, or no such claim stood (a false
            return  # win, a claim refused): the event is in the record only
        seat, kind, called, name = pending  # the player then (a win's check follows the hand)
        if kind in ("chow", "pung"):
            self._priority_heard(p, seat, kind)
        if p.spoken is not False or called:
            return
        n = st.unspoken.get(name, 0) + 1
        st.unspoken[name] = n
        rule = p.rule or ("WMC-5.5" if kind == "kong" else "WMC-5.2")
        what = CLAIM_WORDS.get(kind, kind)
        said = "said only after it was shown" if rule == "WMC-5.5" else "not spoken"
        message = f"{seat.name}'s {what} was {said} (microphones: {p.reason or 'no call heard'})"
        if n == 1:
            self._finding(
                rule,
                message + ": a warning",
                seat,
                severity=Severity.WARNING,
                penalty="warning",
                evidence=(p.claim_seq, self._seq),
            )
            return
        self._finding(
            rule,
            f"{message}: unspoken claim no. {n} of {name} this session — a point penalty "
            "(WMC-13.3)",
            seat,
            severity=Severity.WARNING,
            penalty="points",
            points=UNSPOKEN_POINTS,
            evidence=(p.claim_seq, self._seq),
        )

    def _priority_heard(self, p: ClaimCheck, seat: Wind, kind: str) -> None:
        """WMC-5.7: another seat heard calling a stronger claim on the same discard before this
        chow or pung was exposed (the microphones' ``others``; the word is the spotter's guess,
        so this is a note for a referee, not a ruling)."""
        for other in p.others:
            word, who, onset = other.get("word"), other.get("seat"), other.get("onset")
            if who in (None, seat.name) or word not in HEARD_RANK:
                continue
            if HEARD_RANK[word] < HEARD_RANK[kind]:
                at = f" at {onset:.1f} s" if isinstance(onset, (int, float)) else ""
                self._finding(
                    "WMC-5.7",
                    f"{who} was heard calling {word}{at} on the discard {seat.name} took by "
                    f"{kind}: a {word} has priority (win > pung/kong > chow) — for a referee",
                    Wind[who],
                    severity=Severity.INFO,
                    evidence=(p.claim_seq,),
                )
                return

    def _call_is_legal(self, seat: Wind, call: CallKind, discarder: Wind, tile: Tile) -> bool:
        """WMC-5.7: only a legal claim has priority."""
        hand = self.state.hand
        assert hand is not None
        me = hand.seats[seat]
        if call is CallKind.CHOW:
            return claims.relative(seat, discarder) is Relative.LEFT and bool(me.chows(tile))
        if call is CallKind.PUNG:
            return me.holds((tile, tile))
        if call is CallKind.KONG:
            return me.holds((tile, tile, tile))
        if me.hidden:
            return True  # a hand nobody has seen may be complete: only its showing can say
        grown = list(me.counts)
        grown[tile] += 1
        return shapes.is_complete(grown, len(me.melds))

    def _recall(self, hand: HandState) -> None:
        """WMC-4.4: the next player's unmerged draw goes back to the wall."""
        tile = hand.unmerged
        assert tile is not None
        wall = hand.wall
        wall.head -= 1
        wall.tiles[wall.order[wall.head]] = tile
        hand.seats[hand.turn].remove(tile)
        if hand.seabed_seat is hand.turn:
            hand.seabed_seat = None
        hand.unmerged = None
        self._derive("draw_recalled", seat=hand.turn.name, rule="WMC-4.4")

    def _take_discard(self, hand: HandState, discarder: Wind) -> None:
        self._moved_on(hand)  # WMC-11.5: the wrong melder's discard was claimed
        hand.seats[discarder].river.pop()
        hand.last_discard = None
        hand.calls = {}
        hand.claims_made += 1

    def _chow(self, p: Chow) -> None:
        discarder, tile, _recall = self._window(p.seat, CallKind.CHOW)
        hand = self.state.hand
        assert hand is not None
        tiles = tuple(sorted(p.tiles))
        not_left = claims.relative(p.seat, discarder) is not Relative.LEFT
        if not_left or tiles not in hand.seats[p.seat].chows(tile):
            if len(tiles) == 3 and tile in tiles and self._holds(hand, p.seat, tiles, tile):
                why = "from a player who is not his left" if not_left else "is not a run"
                rule = "WMC-5.4" if not_left else "WMC-11.1"
                self._wrong_meld(hand, p.seat, "chow", tiles, (discarder, tile), why, rule)
                return
            raise Rejected(
                "WMC-5.4",
                f"chow {format_tiles(p.tiles)} is not a run with {tile_name(tile)} "
                "and two tiles from the hand",
                p.seat,
            )
        said = hand.call_ts.get(p.seat) if p.seat in hand.calls else None
        self._show_from_hand(p.seat, [t for t in tiles if t != tile])
        self._spoken(p.seat, CallKind.CHOW)
        self._take_discard(hand, discarder)
        hand.seats[p.seat].melds.append(
            Meld(MeldKind.CHOW, tiles, claimed_from=Relative.LEFT, claimed_tile=tile)
        )
        self._to_turn(hand, p.seat, TurnStart.CLAIM)
        gap = self._ts - said if said is not None else 0.0
        if said is None or gap < CHOW_WAIT:
            rule = "WMC-5.2" if said is None else "WMC-5.4"
            hand.open_chow = OpenChow(p.seat, self._seq, discarder, tile, rule, gap)

    def _pung(self, p: Pung) -> None:
        discarder, tile, recall = self._window(p.seat, CallKind.PUNG)
        hand = self.state.hand
        assert hand is not None
        shown = tuple(sorted(p.tiles)) if p.tiles is not None else (tile,) * 3
        if len(shown) == 3 and len(set(shown)) == 1 and shown[0] != tile:
            raise Rejected(
                "WMC-5.1",
                f"pung of {tile_name(shown[0])}: only the last discard ({tile_name(tile)}) can be "
                "claimed",
                p.seat,
            )
        if shown != (tile,) * 3:
            if len(shown) != 3 or tile not in shown or not self._holds(hand, p.seat, shown, tile):
                raise Rejected(
                    "WMC-5.3",
                    f"pung {format_tiles(shown)}: three tiles with {tile_name(tile)}, the others "
                    "from the hand",
                    p.seat,
                )
            self._reopen_chow(hand, p.seat, CallKind.PUNG)
            claim = (discarder, tile)
            self._wrong_meld(hand, p.seat, "pung", shown, claim, "is not a pung", recall=recall)
            return
        if not hand.seats[p.seat].holds((tile, tile)):
            self._penalty_tiles_in_claim(hand, p.seat, tile, 2)
            raise Rejected("WMC-5.3", f"pung needs a pair of {tile_name(tile)} in hand", p.seat)
        self._show_from_hand(p.seat, (tile, tile))
        self._reopen_chow(hand, p.seat, CallKind.PUNG)
        self._spoken(p.seat, CallKind.PUNG)
        if recall:
            self._recall(hand)
        self._take_discard(hand, discarder)
        hand.seats[p.seat].melds.append(
            Meld(
                MeldKind.PUNG,
                (tile,) * 3,
                claimed_from=claims.relative(p.seat, discarder),
                claimed_tile=tile,
            )
        )
        self._to_turn(hand, p.seat, TurnStart.CLAIM)

    @staticmethod
    def _holds(hand: HandState, seat: Wind, shown: tuple[Tile, ...], claimed: Tile | None) -> bool:
        """The concealed hand holds the shown tiles (less one copy of the claimed discard)."""
        held = list(shown)
        if claimed is not None:
            held.remove(claimed)
        return all(t < NUM_KINDS for t in held) and hand.seats[seat].holds(held)

    def _wrong_meld(
        self,
        hand: HandState,
        seat: Wind,
        kind: str,
        shown: tuple[Tile, ...],
        claimed: tuple[Wind, Tile] | None,
        why: str,
        rule: str = "WMC-11.1",
        *,
        recall: bool = False,
    ) -> None:
        """The record follows the table: a set exposed that is no legal set (or a claim that was
        not legal, WMC-5.4) stands as exposed, apart from the legal melds, until it is corrected
        at once (``meld_corrected``: WMC-11.1) or play moves on (WMC-11.5, :meth:`_moved_on`)."""
        me = hand.seats[seat]
        held = list(shown)
        if claimed is not None:
            held.remove(claimed[1])
        self._show_from_hand(seat, held)
        if claimed is not None:
            self._spoken(seat, CallKind(kind))
            if recall:
                self._recall(hand)
        after = hand.after
        if claimed is not None:
            self._take_discard(hand, claimed[0])  # settles an earlier wrong meld first
        me.wrong_melds.append((kind, shown))
        hand.wrong_meld = WrongMeld(
            seat, self._seq, kind, len(me.wrong_melds) - 1, claimed, after, rule
        )
        self._alert(
            rule,
            f"{seat.name}'s {kind} {format_tiles(shown)} {why}: corrected at once, the wrongly "
            "exposed tiles become penalty tiles (WMC-11.1); once play moves on it stands and "
            + (
                "the hand may not win, claim or kong (WMC-11.5)"
                if kind == "kong"
                else "the hand cannot win (WMC-11.5)"
            ),
            seat,
            severity=Severity.VIOLATION if rule == "WMC-5.4" else Severity.WARNING,
            rejected=False,
        )
        if kind == "kong":
            self._start_replacement(hand, seat, None)
        else:
            self._to_turn(hand, seat, TurnStart.CLAIM)

    @staticmethod
    def _penalty_tiles_in_claim(hand: HandState, seat: Wind, tile: Tile, need: int) -> None:
        """WMC-9.3, 9.5: penalty tiles may never be used in an exposed set (a wrong claim). The
        refusal answers the seat's call (no WMC-11.3 on top)."""
        me = hand.seats[seat]
        if me.counts[tile] + me.hidden + me.penalty.count(tile) >= need:
            hand.calls.pop(seat, None)
            raise Rejected(
                "WMC-9.5",
                f"{seat.name} needs penalty tiles for this set: they may never be used in a "
                "chow, pung or kong (a wrong claim, WMC-11)",
                seat,
            )

    def _to_turn(self, hand: HandState, seat: Wind, after: TurnStart) -> None:
        hand.turn = seat
        hand.after = after
        hand.after_kong = False
        hand.drawn = None
        hand.phase = Phase.DISCARD
