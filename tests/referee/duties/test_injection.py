"""Injected irregularities (referee.game.inject) are each alerted with their rule and seat, and
nothing else is — the accuracy bench's targets on a small, fast sample with the rare kinds."""

from __future__ import annotations

from collections import Counter

from referee.duties import RefereeTable
from referee.game.alerts import Alert
from referee.game.inject import IrregularSimulator, Truth, truths

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
}


def _matches(alert: Alert, truth: Truth) -> bool:
    return (
        alert.rule == truth.rule
        and alert.seat is truth.seat
        and (alert.seq == truth.seq or truth.seq in alert.evidence)
    )


def test_injected_kinds_are_alerted_with_rule_and_seat_and_nothing_else() -> None:
    kinds: Counter[str] = Counter()
    for seed in range(10):
        events = list(IrregularSimulator("wmc", 100 + seed, rate=0.12).run(8))
        duty = RefereeTable()
        alerts = [a for ev in events for a in duty.apply(ev).alerts]
        truth = truths(events)
        missed = [t for t in truth if not any(_matches(a, t) for a in alerts)]
        false = [a for a in alerts if not any(_matches(a, t) for t in truth)]
        assert missed == [] and false == []
        kinds.update(t.kind for t in truth)
    assert set(kinds) >= NEW_KINDS, NEW_KINDS - set(kinds)
