"""Checks on a hand-written game (``referee.game.script.Script``), shared by the rule tests."""

from __future__ import annotations

from referee.game.script import Script
from referee.game.table import Step

# The hand the rule tests deal (an unseen wall, overrides by seat): E holds 14; S waits on 5p;
# no tile more than 4 times.
HANDS = {
    "E": "123m456m789mESWNP",
    "S": "234m567m789p111p5p",
    "W": "678p123s789s22sFF",
    "N": "55s66s77sCCC2p9pEE",
}


def rules(step: Step) -> list[str]:
    """The rules a step's alerts cite, in order."""
    return [a.rule for a in step.alerts]


def play(script: Script, *lines: str) -> None:
    """Each line is a legal action that raises nothing."""
    for line in lines:
        step = script.do(line)
        assert step.accepted and not step.alerts, (line, step.alerts)
