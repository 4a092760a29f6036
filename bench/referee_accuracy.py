"""Referee accuracy: injected irregularities vs. the alerts the referee core raises.

Simulates ``--hands`` hands (sessions of one half, 8 hands each) with irregularities injected at
``--rate`` per decision point (referee.game.inject), replays each log through a fresh
``RefereeTable`` and matches every alert against the ground truth the log carries. Targets
(issue 4): recall 100% (every injected irregularity alerted with the right rule ID and seat) and
precision 100% (no alert that no injection explains — a clean hand raises none). Prints the
confusion table per rule; exits 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import itertools
import time
from collections import Counter

from referee.duties import RefereeTable
from referee.game.alerts import Alert
from referee.game.inject import IrregularSimulator, Truth, truths

HANDS_PER_SESSION = 8


def matches(alert: Alert, truth: Truth) -> bool:
    return (
        alert.rule == truth.rule
        and alert.seat is truth.seat
        and (alert.seq == truth.seq or truth.seq in alert.evidence)
    )


def run(
    hands: int, rate: float, seed: int
) -> tuple[Counter[str], Counter[str], Counter[str], int, int, int]:
    injected: Counter[str] = Counter()
    found: Counter[str] = Counter()
    false: Counter[str] = Counter()
    clean_hands = clean_alerts = sessions = 0
    done = 0
    while done < hands:
        n = min(HANDS_PER_SESSION, hands - done)
        sim = IrregularSimulator("wmc", seed + sessions, rate=rate)
        events = list(sim.run(n))
        sessions += 1
        done += n
        duty = RefereeTable()
        alerts: list[Alert] = []
        for ev in events:
            alerts.extend(duty.apply(ev).alerts)
        truth = truths(events)
        for t in truth:
            injected[t.rule] += 1
            if any(matches(a, t) for a in alerts):
                found[t.rule] += 1
        for a in alerts:
            if not any(matches(a, t) for t in truth):
                false[a.rule] += 1
        # clean hands: hands whose events carry no truth raise no alert
        starts = [e.seq for e in events if e.type == "wall_built"] + [len(events)]
        for lo, hi in itertools.pairwise(starts):
            if not any(lo <= t.seq < hi for t in truth):
                clean_hands += 1
                clean_alerts += sum(1 for a in alerts if lo <= a.seq < hi)
    return injected, found, false, clean_hands, clean_alerts, sessions


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=1000)
    ap.add_argument("--rate", type=float, default=0.03, help="irregularities per decision point")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    t0 = time.process_time()
    injected, found, false, clean, clean_alerts, sessions = run(args.hands, args.rate, args.seed)
    cpu = time.process_time() - t0
    rules = sorted(set(injected) | set(false), key=lambda r: [int(x) for x in r[4:].split(".")])
    print(f"{args.hands} hands in {sessions} sessions, rate {args.rate}, {cpu:.1f} s CPU")
    print(f"{'rule':<10} {'injected':>9} {'alerted':>8} {'missed':>7} {'false':>6}")
    for r in rules:
        print(f"{r:<10} {injected[r]:>9} {found[r]:>8} {injected[r] - found[r]:>7} {false[r]:>6}")
    total, hit, fp = sum(injected.values()), sum(found.values()), sum(false.values())
    alerts = hit + fp
    recall = hit / total if total else 1.0
    precision = hit / alerts if alerts else 1.0
    print(f"{'total':<10} {total:>9} {hit:>8} {total - hit:>7} {fp:>6}")
    print(f"recall {recall:.2%}  precision {precision:.2%}")
    print(f"clean hands {clean}, alerts on them {clean_alerts}")
    return 0 if hit == total and fp == 0 and clean_alerts == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
