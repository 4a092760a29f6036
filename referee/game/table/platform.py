"""Platform rules that official MCR does not have, applied only under a platform profile.

Botzone's judge ends the hand at a false win (a ``Hu`` the fan calculator refuses, or one under
8 fan): the offender scores −30 and each other player +10 (records README §3, item 4). Official
MCR and WMC-11.6 let play continue with a penalty; that path is untouched.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from referee.game.claims import WINDS
from referee.game.state import HandResult, HandState
from referee.hands import Wind

if TYPE_CHECKING:
    from referee.game.table.base import TableBase


def false_win_ends_hand(table: TableBase, hand: HandState, seat: Wind, reason: str) -> None:
    """End the hand at a false win with the platform's settlement: the offender pays
    ``Profile.false_win_fine`` to each of the three others."""
    st = table.state
    fine = st.profile.false_win_fine
    deltas = {w: (-3 * fine if w is seat else fine) for w in WINDS}
    rule = (
        f"{st.profile.name}: a false win ends the hand; the offender pays {fine} to each other "
        "player (WMC-11.6 does not apply on this platform)"
    )
    table._finding(
        "WMC-11.6",
        f"false win by {seat.name} ({reason}): under {st.profile.name} the hand ends; "
        f"{seat.name} {-3 * fine:+d}, each other player +{fine}",
        seat,
    )
    by_seat = tuple(st.player_at(w) for w in WINDS)
    result = HandResult(
        hand=hand.number,
        dealer=st.player_at(Wind.E),
        false_win=seat,
        deltas=deltas,
        rule=rule,
        players=(by_seat[0], by_seat[1], by_seat[2], by_seat[3]),
    )
    for w, delta in deltas.items():
        name = st.player_at(w)
        st.scores[name] = st.scores.get(name, 0) + delta
    table._derive("hand_scored", **result.to_dict())
    table._end_hand(hand, result)
