"""The board of a real table's hand: a rack's tiles nobody has seen are shown as backs."""

from __future__ import annotations

from dashboard.views import seat_view
from referee.game.script import Script


def test_a_hidden_rack_shows_its_tiles_standing_as_backs() -> None:
    s = Script()
    s.start()
    s.do("E discard 5p")
    s.do("S draw")
    hand = s.table.state.hand
    assert hand is not None
    east, south = (seat_view(hand.seats[i]) for i in (0, 1))
    assert (east["concealed"], east["hidden"]) == (13, 13)
    assert (south["concealed"], south["hidden"]) == (14, 14)
