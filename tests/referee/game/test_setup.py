"""Session and hand setup through the engine: the seat draw (WMC-2.2, 2.3, 8.2) and the dice
that name the breaker and the break number (WMC-3.3).

The oracle is written from the text of WMC.md, not from :mod:`referee.game.wall`.
"""

from __future__ import annotations

import itertools

import pytest

from referee.events import (
    DiceRolled,
    Event,
    Payload,
    SeatDraw,
    SessionStarted,
    WallBuilt,
    make_event,
)
from referee.game.script import Script
from referee.game.state import Phase
from referee.game.table import Step, Table
from referee.hands import Wind

PLAYERS = ("Ann", "Bo", "Chen", "Dai")  # provisional places: venue E, S, W, N

# WMC-2.2: "5, 9 → the roller; 2, 6, 10 → the roller's right (下家); 3, 7, 11 → opposite;
# 4, 8, 12 → left (上家)". Places go counter-clockwise E, S, W, N, so the right is place + 1.
STEPS_FROM_ROLLER = {
    **dict.fromkeys((5, 9), 0),
    **dict.fromkeys((2, 6, 10), 1),
    **dict.fromkeys((3, 7, 11), 2),
    **dict.fromkeys((4, 8, 12), 3),
}


def counted(roller: int, total: int) -> int:
    return (roller + STEPS_FROM_ROLLER[total]) % 4


class Feed:
    """Events with consecutive seq numbers into a fresh table."""

    def __init__(self) -> None:
        self.table = Table()
        self.seq = 0

    def __call__(self, payload: Payload) -> Step:
        ev: Event = make_event(payload, seq=self.seq, ts=float(self.seq))
        self.seq += 1
        return self.table.apply(ev)


def test_wmc_2_2_every_total_counts_from_the_roller_as_the_rules_list_it() -> None:
    assert sorted(STEPS_FROM_ROLLER) == list(range(2, 13))
    assert counted(0, 9) == 0 and counted(0, 6) == 1 and counted(0, 11) == 2 and counted(0, 4) == 3


@pytest.mark.parametrize("roller", range(4))
def test_wmc_2_3_seat_draw_first_taker_and_seats_for_every_roll(roller: int) -> None:
    winds = (Wind.W, Wind.E, Wind.N, Wind.S)  # the wind tiles in the order they are taken
    for roll1, roll2 in itertools.product(range(2, 13), repeat=2):
        feed = Feed()
        feed(SessionStarted(players=PLAYERS))
        step = feed(SeatDraw(roller=roller, roll1=roll1, roll2=roll2, winds=winds))
        assert step.accepted and not step.alerts
        # The roller rolls; the counted player rolls again; that count names the first taker.
        first = counted(counted(roller, roll1), roll2)
        # Players take counter-clockwise; whoever took East sits at venue East, and so on.
        expected = [""] * 4
        for i, wind in enumerate(winds):
            expected[wind] = PLAYERS[(first + i) % 4]
        st = feed.table.state
        assert st.players == expected, (roller, roll1, roll2)
        assert st.player_at(Wind.E) == expected[0]  # East deals the first hand (WMC-2.4)
        (derived,) = step.derived
        assert derived.type == "seats_assigned"
        assert derived.payload["first_taker"] == PLAYERS[first]
        # odd second roll → start at the odd number tile's end, even → the even end
        assert derived.payload["start_end"] == ("odd" if roll2 % 2 else "even")
        assert derived.payload["seats"] == {w.name: expected[w] for w in Wind}


def test_wmc_2_3_each_wind_is_taken_once() -> None:
    feed = Feed()
    feed(SessionStarted(players=PLAYERS))
    step = feed(SeatDraw(roller=0, roll1=5, roll2=5, winds=(Wind.E, Wind.E, Wind.W, Wind.N)))
    assert [a.rule for a in step.alerts] == ["WMC-2.3"] and not step.accepted
    assert feed.table.state.players == list(PLAYERS)


def test_wmc_8_2_no_seat_draw_during_a_hand() -> None:
    feed = Feed()
    feed(SessionStarted(players=PLAYERS))
    feed(SeatDraw(roller=0, roll1=5, roll2=5, winds=(Wind.E, Wind.S, Wind.W, Wind.N)))
    feed(WallBuilt())
    step = feed(SeatDraw(roller=1, roll1=7, roll2=3, winds=(Wind.E, Wind.S, Wind.W, Wind.N)))
    assert [a.rule for a in step.alerts] == ["WMC-8.2"]


# ---- the break (WMC-3.3) ------------------------------------------------------------------


@pytest.mark.parametrize(("d1", "d2"), [((1, 1), (6, 6)), ((2, 3), (4, 4)), ((6, 6), (1, 2))])
def test_wmc_3_3_dealer_roll_names_the_breaker_and_both_rolls_the_break(
    d1: tuple[int, int], d2: tuple[int, int]
) -> None:
    feed = Feed()
    feed(SessionStarted(players=PLAYERS))
    feed(WallBuilt())  # no seat draw: a warning (WMC-2.1), places kept
    step = feed(DiceRolled(seat=Wind.E, dice=d1))
    breaker = counted(0, sum(d1))  # East (the dealer) is seat 0 and rolls first
    assert [d.payload for d in step.derived] == [{"breaker": Wind(breaker).name}]
    wrong = Wind((breaker + 1) % 4)
    refused = feed(DiceRolled(seat=wrong, dice=d2))
    assert [a.rule for a in refused.alerts] == ["WMC-3.3"] and not refused.accepted
    step = feed(DiceRolled(seat=Wind(breaker), dice=d2))
    number = sum(d1) + sum(d2)
    (broken,) = step.derived
    assert broken.type == "wall_broken" and broken.payload["number"] == number
    # Count ``number`` stacks from the breaker's right end; beyond 17, go on at the left
    # neighbour's wall (its rightmost stack counts as 18). The live wall starts after them.
    side, stack = (breaker, number) if number < 17 else ((breaker - 1) % 4, number - 17)
    assert broken.payload["head"] == {"side": Wind(side).name, "stack": stack}
    hand = feed.table.state.hand
    assert hand is not None and hand.phase is Phase.DEAL
    assert (hand.wall.breaker, hand.wall.number) == (breaker, number)
    again = feed(DiceRolled(seat=Wind.E, dice=(1, 1)))
    assert [a.rule for a in again.alerts] == ["WMC-3.3"]


def test_wmc_2_4_a_hands_players_stay_seated_until_the_next_wall() -> None:
    """The deal passes as the hand ends, but its players are at the table still (the winner's
    hand shown, a late claim check, the score card): names follow the hand at the table."""
    s = Script()
    s.start()
    for line in ("E discard 5p", "S call win", "S win", "S reveal 234m567m789p99s55p5p"):
        s.do(line)
    st = s.table.state
    result = st.results[-1]
    assert st.dealer_place == 1  # the next dealer is named
    assert st.player_at(Wind.S) == result.winner_name == "Bo"  # who won sits at S still
    assert st.place_of(Wind.S) == 1
    s.do("E discard 1m")  # refused (no hand): the record keeps naming the hand's players
    assert [st.player_at(w) for w in Wind] == list(result.players)
    s.next_hand()
    assert [st.player_at(w) for w in Wind] == ["Bo", "Chen", "Dai", "Ann"]  # Bo deals now
