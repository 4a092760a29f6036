"""The game engine: a pure state machine over events (session → hand → turn), WMC and MCR."""

from referee.game.alerts import Alert, Severity
from referee.game.state import HandResult, HandState, Phase, SeatState, TableState, TurnStart
from referee.game.table import Derived, Step, Table

__all__ = [
    "Alert",
    "Derived",
    "HandResult",
    "HandState",
    "Phase",
    "SeatState",
    "Severity",
    "Step",
    "Table",
    "TableState",
    "TurnStart",
]
