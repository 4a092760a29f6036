"""The referee core's state machine: one table, one session, one event at a time.

:class:`Table` is built in layers along the phases of a hand, each layer a module named for the
rules it holds (as python-chess layers BaseBoard → Board):

- :mod:`~referee.game.table.base` — ``apply``, alerts, derived events, shared helpers
- :mod:`~referee.game.table.setup` — session, seat draw, wall, dice, deal (WMC-2, 3)
- :mod:`~referee.game.table.turns` — draw, discard, river, flower, replacement draw (WMC-4, 6)
- :mod:`~referee.game.table.claims` — call, chow, pung, claim window, priority (WMC-5)
- :mod:`~referee.game.table.kongs` — exposed, concealed and added kongs (WMC-5.5, 5.6)
- :mod:`~referee.game.table.wins` — win, false win, scoring, exhaustive draw (WMC-7, 11.6, 12)
- :mod:`~referee.game.table.reveals` — a win by a hand nobody has seen, ruled when it is shown
  (WMC-7.4), and a reveal that never comes
- :mod:`~referee.game.table.irregularities` — corrections, penalty tiles, flipped tiles, dead
  hands, referee decisions (WMC-9, 10, 11)

Each layer may use the ones before it; :class:`Table`, the last, maps each event type to its
handler.
"""

from __future__ import annotations

from referee.events import REFEREE_TYPES, Payload
from referee.game.table.base import Derived, Rejected, Scorer, Step
from referee.game.table.claims import CLAIM_CHANGE_POINTS, CLAIM_CHANGE_REPEAT
from referee.game.table.irregularities import Irregularities
from referee.game.table.wins import penalty_tile_bar

__all__ = [
    "CLAIM_CHANGE_POINTS",
    "CLAIM_CHANGE_REPEAT",
    "Derived",
    "Rejected",
    "Scorer",
    "Step",
    "Table",
    "penalty_tile_bar",
]


class Table(Irregularities):
    """One table's rules engine (WMC by default; ``session_started`` picks the profile)."""

    def __init__(
        self,
        table_id: str = "T1",
        session_id: str = "S1",
        profile_name: str = "wmc",
        *,
        scorer: Scorer | None = None,
    ) -> None:
        super().__init__(table_id, session_id, profile_name, scorer=scorer)
        self._handlers = {
            "session_started": self._session_started,
            "seat_draw": self._seat_draw,
            "wall_built": self._wall_built,
            "dice_rolled": self._dice,
            "deal": self._deal,
            "deal_corrected": self._deal_corrected,
            "draw": self._draw,
            "replacement_draw": self._replacement,
            "flower": self._flower,
            "discard": self._discard,
            "discard_corrected": self._discard_corrected,
            "call": self._call,
            "chow": self._chow,
            "pung": self._pung,
            "kong": self._kong,
            "win": self._win,
            "hand_revealed": self._revealed,
            "rack_counted": self._rack_counted,
            "exhaustive_draw": self._exhaustive,
            "observation": _ignore,
            "voice_setup": self._voice_setup,
            "claim_check": self._claim_check,
            "conduct_heard": self._conduct,
            "machine": self._machine,
            "referee_decision": _ignore,
            "tiles_exposed": self._tiles_exposed,
            "penalty_tiles_returned": self._penalty_returned,
            "wall_flipped": self._wall_flipped,
            "dead_hand": self._dead_hand,
            "meld_corrected": self._meld_corrected,
        }
        for type_ in REFEREE_TYPES:
            self._handlers[type_] = _ignore
        # A referee's dismissal (or revocation) of a restriction the engine applied lifts it.
        self._handlers["penalty_decision"] = self._decision


def _ignore(_p: Payload) -> None:
    """Observations and referee decisions do not change the game state."""
