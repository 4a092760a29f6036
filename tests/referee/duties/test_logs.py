"""Hand-written logs in the EVENTS.md format replay to the expected alerts and penalties."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.duties import RefereeTable
from referee.events import parse_line
from referee.penalties import Status

LOGS = Path(__file__).parent.parent / "logs"

EXPECTED: dict[str, tuple[list[tuple[int, str, str]], dict[str, Status], dict[str, int]]] = {
    "slow_turn_confirmed.jsonl": (
        [(8, "WMC-13.1", "S"), (11, "WMC-13.4", "N")],
        {"WMC-13.1@8:S:turn_overrun": Status.CONFIRMED, "WMC-13.4@11:N:pause": Status.PENDING},
        {"Ann": 0, "Bo": -5, "Chen": 0, "Dai": 0},
    ),
    "long_hand_claim.jsonl": (
        [(7, "WMC-4.2", "N"), (7, "WMC-10.1", "N"), (11, "WMC-10.2", "N")],
        {"WMC-10.1@7:N": Status.CONFIRMED},
        {"Ann": 0, "Bo": 0, "Chen": 0, "Dai": 0},
    ),
    "false_win_empty_claim.jsonl": (
        [(8, "WMC-11.6", "S"), (10, "WMC-11.3", "W"), (15, "WMC-9.1", "W")],
        {
            "WMC-11.6@8:S": Status.PENDING,
            "WMC-11.3@10:W": Status.DISMISSED,
            "WMC-9.1@15:W": Status.PENDING,
        },
        {"Ann": 0, "Bo": 0, "Chen": 0, "Dai": 0},
    ),
    "wrong_pung_dismissed.jsonl": (
        [(8, "WMC-11.1", "N"), (10, "WMC-11.5", "N"), (14, "WMC-11.2", "S"), (15, "WMC-11.3", "S")],
        {"WMC-11.5@10:N": Status.DISMISSED, "WMC-11.3@15:S": Status.PENDING},
        {"Ann": 0, "Bo": 0, "Chen": 0, "Dai": 0},
    ),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_hand_written_log_replays_to_the_expected_alerts_and_penalties(name: str) -> None:
    alerts, statuses, totals = EXPECTED[name]
    duty = RefereeTable()
    lines = (LOGS / name).read_text(encoding="utf-8").splitlines()
    for number, line in enumerate(lines, start=1):
        duty.apply(parse_line(line, number))
    got = [(a.seq, a.rule, a.seat.name if a.seat is not None else "") for a in duty.state.alerts]
    assert got == alerts
    assert {pid: e.status for pid, e in duty.ledger.entries.items()} == statuses
    assert duty.totals() == totals
    hand = duty.state.hand
    for pid, entry in duty.ledger.entries.items():  # a dismissed restriction is lifted (WMC-0.3)
        if entry.status is Status.DISMISSED and hand is not None:
            assert all(pid not in seat.bars for seat in hand.seats)


def test_every_log_is_listed() -> None:
    assert sorted(p.name for p in LOGS.glob("*.jsonl")) == sorted(EXPECTED)
