"""Adapters that turn what a source reports into referee events (DESIGN.md, data flow).

Each source (the automatic table, later vision and voice) gets a small module here: it maps the
source's own typed output onto the log's events (``referee.events``) and leaves the rules to the
engine. :class:`Sequencer` numbers the events of one table's session across all its sources.
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
