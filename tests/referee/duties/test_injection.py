"""Injected irregularities (referee.game.inject) are each alerted with their rule and seat, and
nothing else is — the accuracy bench's targets on a small, fast sample with the rare kinds — and
each one that happened stands: play goes on with the record's tile counts the table's."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import pytest

from referee.duties import RefereeTable
from referee.game.alerts import Alert
from referee.game.inject import KINDS, REFUSED, IrregularSimulator, Truth, truths
from referee.game.racks import RackCount

NEW_KINDS = {
    "chow_not_left",
    "chow_not_left_stands",
    "wrong_meld",
    "wrong_meld_corrected",
    "claim_changed",
    "out_of_priority",
    "early_replacement",
    # issue 17
    "fifth_copy_drawn",
    "older_discard_claimed",
    "dead_hand_win",
    "long_hand_claim",
    "fast_chow_punged",
    "unspoken_chow_punged",
    "touched_wall_win",
    "deal_long",
    "deal_short",
    "deal_short_topped_up",
    # issue 32
    "kong_discard_before_replacement",
    "replacement_from_live_wall",
    "discard_out_of_turn",
}


def _matches(alert: Alert, truth: Truth) -> bool:
    return (
        alert.rule == truth.rule
        and alert.seat is truth.seat
        and (alert.seq == truth.seq or truth.seq in alert.evidence)
    )


@dataclass
class Session:
    truth: list[Truth]
    alerts: list[Alert]
    refused_after: list[tuple[str, int, str]]  # (kind injected earlier in the hand, seq, type)
    parted: list[tuple[str, int, str]]  # … where a seat's count left the table's


def _replay(seed: int) -> Session:
    events = list(IrregularSimulator("wmc", 100 + seed, rate=0.12).run(8))
    truth = truths(events)
    kind_at = {t.seq: t.kind for t in truth}
    duty, racks = RefereeTable(), RackCount()
    alerts: list[Alert] = []
    refused_after, parted = [], []
    earlier = ""  # the last kind injected in this hand
    for ev in events:
        step = duty.apply(ev)
        alerts += step.alerts
        if ev.type == "wall_built":
            earlier = ""
        kind = kind_at.get(ev.seq)
        if kind not in REFUSED:
            racks.apply(ev)  # it happened
        if kind is None and earlier and any(a.rejected and a.seq == ev.seq for a in step.alerts):
            refused_after.append((earlier, ev.seq, ev.type))
        hand = duty.table.state.hand
        if hand is not None and racks.parted(hand):
            parted.append((earlier or "none", ev.seq, ev.type))
            racks.counts = {w: hand.seats[w].size for w in racks.counts}  # one finding a parting
        earlier = kind or earlier
    return Session(truth, alerts, refused_after, parted)


@pytest.fixture(scope="module")
def sessions() -> list[Session]:
    return [_replay(seed) for seed in range(10)]


@pytest.mark.slow
def test_injected_kinds_are_alerted_with_rule_and_seat_and_nothing_else(
    sessions: list[Session],
) -> None:
    kinds: Counter[str] = Counter()
    for s in sessions:
        missed = [t for t in s.truth if not any(_matches(a, t) for a in s.alerts)]
        false = [a for a in s.alerts if not any(_matches(a, t) for t in s.truth)]
        assert missed == [] and false == []
        kinds.update(t.kind for t in s.truth)
    assert set(kinds) >= NEW_KINDS, NEW_KINDS - set(kinds)


def test_every_injected_kind_that_happened_stands_and_play_goes_on(
    sessions: list[Session],
) -> None:
    """WMC-0.4: after each kind, no later legal event is refused, and every seat's tile count in
    the record stays the table's (read from the events alone) — the record never parts from it."""
    seen = {t.kind for s in sessions for t in s.truth}
    assert seen == set(KINDS), set(KINDS) - seen
    assert [r for s in sessions for r in s.refused_after] == []
    assert [p for s in sessions for p in s.parted] == []
