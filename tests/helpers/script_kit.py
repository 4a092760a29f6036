"""Checks on a hand-written game (``referee.game.script.Script``), shared by the rule tests."""

from __future__ import annotations

from referee.game.script import Script
from referee.game.table import Step


def rules(step: Step) -> list[str]:
    """The rules a step's alerts cite, in order."""
    return [a.rule for a in step.alerts]


def play(script: Script, *lines: str) -> None:
    """Each line is a legal action that raises nothing."""
    for line in lines:
        step = script.do(line)
        assert step.accepted and not step.alerts, (line, step.alerts)
