"""Session and set-up of a hand: profile and players (WMC-2.1), the seat draw (2.3, 8.2), the wall
(1.1, 3.2), the dice that name the breaker and break the wall (3.3), the deal (3.4, 3.5).
"""

from __future__ import annotations

from referee.events import (
    Deal,
    DiceRolled,
    SeatDraw,
    SessionStarted,
    WallBuilt,
)
from referee.game.alerts import SYS_HAND, Severity, damage_mark
from referee.game.claims import WINDS
from referee.game.profile import profile
from referee.game.state import (
    HandResult,
    HandState,
    Phase,
    TurnStart,
)
from referee.game.table.base import Rejected, TableBase
from referee.game.wall import UNKNOWN, Wall, counted_seat, make_wall
from referee.hands import Wind
from referee.tiles import NUM_KINDS, Tile, format_tiles, minus, tile_name

PLAY = (Phase.DISCARD, Phase.WINDOW, Phase.REPLACE)
"""The phases of a hand after its deal."""


class Setup(TableBase):
    """Session, seats, wall, dice and deal."""

    def _session_started(self, p: SessionStarted) -> None:
        st = self.state
        if st.hands_played or (st.hand is not None and st.hand.phase is not Phase.IDLE):
            raise Rejected("WMC-2.1", "session_started after play began")
        st.profile = profile(p.profile)
        st.players = list(p.players)
        st.follow_suit = p.follow_suit
        st.scores = dict.fromkeys(p.players, 0)
        st.first_prevalent = p.prevalent

    def _seat_draw(self, p: SeatDraw) -> None:
        st = self.state
        if st.hand is not None and st.hand.phase is not Phase.IDLE:
            raise Rejected("WMC-8.2", "seat draw during a hand; seats change only after a round")
        if st.hands_played % 4:
            raise Rejected(
                "WMC-8.2",
                f"seat change after hand {st.hands_played}: seats change only after a round of 4",
            )
        if sorted(p.winds) != list(Wind):
            raise Rejected("WMC-2.3", "the four wind tiles must each be taken once")
        first = counted_seat(counted_seat(p.roller, p.roll1), p.roll2)
        new = list(st.players)
        first_taker = st.players[first]
        for i, wind in enumerate(p.winds):
            new[wind] = st.players[(first + i) % 4]
        st.players = new
        st.seated = True
        for name in new:
            st.scores.setdefault(name, 0)
        self._derive(
            "seats_assigned",
            first_taker=first_taker,
            start_end="odd" if p.roll2 % 2 else "even",
            seats={w.name: new[w] for w in Wind},
        )

    def _wall_built(self, p: WallBuilt) -> None:
        st = self.state
        prof = st.profile
        tiles: list[Tile] | None = None
        if p.tiles is not None:
            tiles = list(p.tiles)
            want = [4] * NUM_KINDS + ([1] * 8 if prof.flowers else [])
            have = [0] * len(want)
            for t in tiles:
                if t >= len(want):
                    raise Rejected("WMC-1.1", f"tile {tile_name(t)} is not in a {prof.name} set")
                have[t] += 1
            if len(tiles) != prof.total_tiles or have != want:
                raise Rejected(
                    "WMC-1.1",
                    f"the wall must hold each tile of the set once per copy "
                    f"({prof.total_tiles} tiles), got {len(tiles)}",
                )
        if not st.seated and prof.dice:  # a platform seats the players as it lists them
            self._alert(
                "WMC-2.1",
                "a hand started without a seat draw; players keep their places",
                severity=Severity.WARNING,
                rejected=False,
            )
        if not st.seated:
            st.seated = True
            for name in st.players:
                st.scores.setdefault(name, 0)
        if st.hand is not None and st.hand.phase is not Phase.IDLE:
            self._unfinished(st.hand, "a new wall came")
        self._new_hand(make_wall(prof, tiles))

    def _new_hand(self, wall: Wall) -> HandState:
        st = self.state
        st.dealer_place = st.hands_played % 4
        p = st.players
        seated = (
            p[st.dealer_place],
            p[(st.dealer_place + 1) % 4],
            p[(st.dealer_place + 2) % 4],
            p[(st.dealer_place + 3) % 4],
        )
        st.hand = hand = HandState(st.hands_played, st.dealer_place, wall, seated)
        if not st.profile.dice:  # no break (WMC-3.3): the platform deals at once
            hand.phase = Phase.DEAL
        hand.marks.extend(st.next_marks)
        st.next_marks.clear()
        return hand

    def _unfinished(self, hand: HandState, why: str) -> None:
        """A new hand began while this one is in play: its end never reached the record. It is
        closed without a result — no payments — and the deal passes on (WMC-2.4)."""
        hand.marks.append(f"{SYS_HAND}@{self._seq}")
        self._alert(
            SYS_HAND,
            f"hand {hand.number + 1} has no result in the record ({why} while it was in play, "
            f"{hand.phase.name.lower()}): closed without payments, marked for a "
            "referee to settle or void (hand_ruled)",
            severity=Severity.CRITICAL,
            rejected=False,
        )
        st = self.state
        e, s, w, n = (st.player_at(seat) for seat in WINDS)
        self._end_hand(
            hand, HandResult(hand=hand.number, dealer=e, players=(e, s, w, n), unfinished=True)
        )

    def _dice(self, p: DiceRolled) -> None:
        st = self.state
        old = st.hand
        if p.seat is Wind.E and old is not None and old.phase in PLAY and damage_mark(old.marks):
            # In a hand whose record is already damaged, the dealer's roll means its end and
            # the next wall were lost too. (In a sound hand a stray roll is refused below.)
            self._unfinished(old, "the dealer rolled for a new hand")
        if (st.hand is None or st.hand.phase is Phase.IDLE) and p.seat is Wind.E:
            # The dealer rolls, so a wall stands: its wall_built never reached the record.
            hand = self._new_hand(Wall(st.profile, None))
            hand.marks.append(f"{SYS_HAND}@{self._seq}")
            self._alert(
                SYS_HAND,
                f"hand {hand.number + 1}: the dealer rolled with no wall in the record; the hand "
                "is taken as started on an unseen wall and marked for a referee",
                severity=Severity.WARNING,
                rejected=False,
            )
        hand = self._hand("WMC-3.3", "dice")
        total = p.dice[0] + p.dice[1]
        if hand.phase is Phase.ROLL_DEALER:
            if p.seat is not Wind.E:
                raise Rejected(
                    "WMC-3.3", "the dealer (East) rolls first to name the breaker", p.seat
                )
            hand.dice.append(p.dice)
            hand.phase = Phase.ROLL_BREAKER
            self._derive("breaker_named", breaker=Wind(counted_seat(0, total)).name)
        elif hand.phase is Phase.ROLL_BREAKER:
            first = hand.dice[0][0] + hand.dice[0][1]
            breaker = counted_seat(0, first)
            if p.seat != breaker:
                raise Rejected(
                    "WMC-3.3", f"the breaker {Wind(breaker).name} rolls the second time", p.seat
                )
            hand.dice.append(p.dice)
            number = first + total
            hand.wall.break_at(breaker, number)
            hand.phase = Phase.DEAL
            head = hand.wall.order[0] // 2
            spp = hand.wall.stacks_per_side
            self._derive(
                "wall_broken",
                breaker=Wind(breaker).name,
                number=number,
                head={"side": Wind(head // spp).name, "stack": head % spp},
            )
        else:
            raise Rejected("WMC-3.3", "dice rolled after the wall was broken", p.seat)

    def _deal(self, p: Deal) -> None:
        """WMC-3.4, 3.5: the deal, recorded as dealt. A wrong count (a camera's hands, or a seat
        that took a tile too many or too few from a recorded wall) stands with a WMC-3.5 alert:
        found before the seat's first discard it is put right (short: a draw; long:
        ``deal_corrected``), found at it a dead hand (10.1)."""
        hand = self._hand("WMC-3.4", "deal")
        if hand.phase is not Phase.DEAL:
            raise Rejected("WMC-3.4", "the deal comes after the break (two rolls of the dice)")
        wall = hand.wall
        dealt: list[list[Tile]] = [[], [], [], []]
        known = wall.known
        if known:
            for seat, index in wall.deal_positions():
                dealt[seat].append(wall.tiles[wall.order[index]])
            returned, taken = self._dealt_off_wall(wall, dealt, p.hands or {})
            for _seat, index in wall.deal_positions():
                wall.take(wall.order[index])
            wall.head = 53 - len(returned)
            for k, t in enumerate(returned):  # left in the wall: the next to be drawn
                wall.tiles[wall.order[wall.head + k]] = t
            for _t in range(taken):
                wall.take(wall.order[wall.head])
                wall.head += 1
            for seat, tiles in (p.hands or {}).items():
                dealt[seat] = list(tiles)
        else:
            # Face down (a real table): each seat holds what was seen of its tiles, the rest
            # hidden — as many as the camera counted in its rack, else the deal's due.
            count = [0] * 42
            for seat, tiles in (p.hands or {}).items():
                dealt[seat] = list(tiles)
                for t in tiles:
                    count[t] += 1
            if max(count[:NUM_KINDS]) > 4 or max(count[NUM_KINDS:]) > 1:
                raise Rejected("WMC-1.1", "the dealt hands hold more copies than the set has")
            for seat in Wind:
                if p.hands is None or seat not in p.hands:
                    due = 14 if seat is Wind.E else 13
                    seen = (p.counts or {}).get(seat, due)
                    dealt[seat] = [UNKNOWN] * seen
            wall.head = sum(len(got) for got in dealt)
        for place, got in enumerate(dealt):
            me = hand.seats[place]
            for t in got:
                me.add(t)
        hand.drawn = dealt[0][-1] if known and dealt[0] else None
        hand.phase = Phase.DISCARD
        hand.turn = Wind.E
        hand.after = TurnStart.DEAL
        hand.deal_seq = self._seq
        for seat in Wind:
            off = len(dealt[seat]) - (14 if seat is Wind.E else 13)
            if off:
                hand.deal_off[seat] = off
                self._wrong_deal_count(seat, off)

    @staticmethod
    def _dealt_off_wall(
        wall: Wall, dealt: list[list[Tile]], hands: dict[Wind, tuple[Tile, ...]]
    ) -> tuple[list[Tile], int]:
        """A recorded wall's deal against the hands as seen: a seat may hold fewer tiles than
        the wall dealt it (those stay in the wall at its head) or more (taken from the head).
        Returns (tiles left at the head, tiles taken beyond the deal); any other difference
        is refused (WMC-3.5: the wall says what was dealt)."""
        returned: list[Tile] = []
        extra: list[tuple[Wind, list[Tile]]] = []
        for seat, tiles in sorted(hands.items()):
            mine, seen = sorted(dealt[seat]), sorted(tiles)
            if seen == mine:
                continue
            over, under = minus(seen, mine), minus(mine, seen)
            if over and under:
                raise Rejected(
                    "WMC-3.5",
                    f"{seat.name} was dealt {format_tiles(mine)} by the wall, not "
                    f"{format_tiles(tiles)}",
                    seat,
                )
            if under:
                returned += under
            else:
                extra.append((seat, over))
        line = returned + [wall.tiles[wall.order[i]] for i in range(53, wall.size - wall.dead_size)]
        at = 0
        for seat, over in extra:
            if sorted(line[at : at + len(over)]) != over:
                raise Rejected(
                    "WMC-3.5",
                    f"{seat.name} holds {format_tiles(over)} beyond the deal, not the next tiles "
                    "of the wall",
                    seat,
                )
            at += len(over)
        return returned, at

    def _wrong_deal_count(self, seat: Wind, off: int) -> None:
        due = 14 if seat is Wind.E else 13
        if off < 0:
            fix = "he takes the missing tile(s) from the wall, free"
        else:
            fix = "the referee returns the excess to the wall at random, with a point penalty"
        self._finding(
            "WMC-3.5",
            f"{seat.name} was dealt {due + off} tiles where {due} are due (a "
            f"{'long' if off > 0 else 'short'} deal): before his first discard {fix}; found "
            "after it, a dead hand (WMC-10.1)",
            seat,
            severity=Severity.WARNING,
        )
