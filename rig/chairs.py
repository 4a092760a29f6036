"""Microphones face chairs; seat winds move round the chairs from hand to hand (WMC-2.4).

A channel of ``[voice] seats`` names the chair its microphone faces by the chair's venue wind
(E, S, W, N as marked on the table: the winds of the session's first hand). The core speaks in
seat winds, the voice worker in chairs: this translates between them at a session time, with
the dealer's chair of the hand being played then. The hand's winds hold until the next wall is
built, so the winner's slam or a late verdict on the winning claim still maps to the hand it
belongs to.
"""

from __future__ import annotations

from bisect import bisect_right

from referee.game.state import TableState
from referee.hands import Wind


class Chairs:
    def __init__(self) -> None:
        self._since: list[float] = [float("-inf")]  # session time each dealer chair began
        self._dealer: list[int] = [0]

    def follow(self, ts: float, state: TableState) -> None:
        """Note the dealer's chair of the hand in play (after an event at ``ts`` was applied)."""
        dealer = state.seated_dealer_place
        if dealer != self._dealer[-1]:
            self._since.append(ts)
            self._dealer.append(dealer)

    def dealer_at(self, ts: float) -> int:
        return self._dealer[bisect_right(self._since, ts) - 1]

    def chair(self, seat: str, ts: float) -> str:
        """The chair (venue wind) where seat wind ``seat`` sat at ``ts``."""
        return Wind((self.dealer_at(ts) + Wind[seat]) % 4).name

    def seat(self, chair: str, ts: float) -> str:
        """The seat wind of the player in ``chair`` at ``ts``."""
        return Wind((Wind[chair] - self.dealer_at(ts)) % 4).name
