"""What every source of a table's events shares (DESIGN.md, data flow).

Each sensor turns its own typed output into the log's events (``referee.events``) on its own
side (``table_io.bridge``, ``voice.bridge``): the core never imports a sensor.
:class:`Sequencer` numbers the events of one table's session across all its sources; the rig
owns the one instance of a table.
"""

from __future__ import annotations


class Sequencer:
    """The next ``seq`` of a table's session log, shared by every source feeding it."""

    def __init__(self, start: int = 0) -> None:
        self.next = start

    def take(self) -> int:
        seq = self.next
        self.next += 1
        return seq
