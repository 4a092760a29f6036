"""Referee accuracy: injected irregularities vs. the alerts the referee core raises.

Simulates ``--hands`` hands (sessions of one half, 8 hands each) with irregularities injected at
``--rate`` per decision point (referee.game.inject), replays each log through a fresh
``RefereeTable`` and matches every alert against the ground truth the log carries. Targets
(issue 4): recall 100% (every injected irregularity alerted with the right rule ID and seat) and
precision 100% (no alert that no injection explains — a clean hand raises none). Prints the
confusion table per rule and per injected kind (one kind may need several rules, e.g. a draw out
of turn: WMC-4.2 and the long hand WMC-10.1; it counts as alerted when all of them are), and
flags kinds injected fewer than ``MIN_PER_KIND`` times per 1,000 hands. An irregularity that
happened stands (WMC-0.4, issue 32), so the record never parts from the table: the bench also
reports the share of later legal events refused (events after an injection in its hand, not
injected themselves) and the hands where a seat's tile count in the record parted from the
table's (``referee.game.racks``, read from the events alone, against each seat's WMC-10.1
count after every event); both must be 0. Exits 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import itertools
import time
from collections import Counter
from dataclasses import dataclass, field

from referee.duties import RefereeTable
from referee.game.alerts import Alert
from referee.game.inject import KINDS, REFUSED, IrregularSimulator, Truth, truths
from referee.game.racks import RackCount

HANDS_PER_SESSION = 8
MIN_PER_KIND = 20
"""Per 1,000 hands: every kind injected at least this often (scaled with ``--hands``)."""


def matches(alert: Alert, truth: Truth) -> bool:
    return (
        alert.rule == truth.rule
        and alert.seat is truth.seat
        and (alert.seq == truth.seq or truth.seq in alert.evidence)
    )


@dataclass(slots=True)
class Tally:
    injected: Counter[str] = field(default_factory=Counter)  # per rule
    found: Counter[str] = field(default_factory=Counter)
    false: Counter[str] = field(default_factory=Counter)
    kind_injected: Counter[str] = field(default_factory=Counter)  # per injected kind
    kind_found: Counter[str] = field(default_factory=Counter)
    kind_rules: dict[str, set[str]] = field(default_factory=dict)
    clean_hands: int = 0
    clean_alerts: int = 0
    sessions: int = 0
    later_legal: int = 0  # events after an injection in its hand, not injected themselves
    later_refused: int = 0  # … that the engine refused
    parted_hands: int = 0  # hands where a seat's count in the record parted from the table's


def run(hands: int, rate: float, seed: int) -> Tally:
    tally = Tally()
    injected, found, false = tally.injected, tally.found, tally.false
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
        truth = truths(events)
        refused_kinds = {t.seq for t in truth if t.kind in REFUSED}
        racks = RackCount()
        parted = set()
        for ev in events:
            alerts.extend(duty.apply(ev).alerts)
            if ev.seq not in refused_kinds:
                racks.apply(ev)
            hand = duty.table.state.hand
            if hand is not None and racks.parted(hand):
                parted.add(hand.number)
        tally.parted_hands += len(parted)
        by_act: dict[tuple[int, str, str], list[bool]] = {}
        for t in truth:
            injected[t.rule] += 1
            hit = any(matches(a, t) for a in alerts)
            if hit:
                found[t.rule] += 1
            by_act.setdefault((t.seq, t.seat.name, t.kind), []).append(hit)
            tally.kind_rules.setdefault(t.kind, set()).add(t.rule)
        for (_seq, _seat, kind), hits in by_act.items():
            tally.kind_injected[kind] += 1
            tally.kind_found[kind] += all(hits)
        for a in alerts:
            if not any(matches(a, t) for t in truth):
                false[a.rule] += 1
        # clean hands: hands whose events carry no truth raise no alert
        starts = [e.seq for e in events if e.type == "wall_built"] + [len(events)]
        marked = {t.seq for t in truth}
        refused = {a.seq for a in alerts if a.rejected}
        for lo, hi in itertools.pairwise(starts):
            first = min((s for s in marked if lo <= s < hi), default=None)
            if first is None:
                clean_hands += 1
                clean_alerts += sum(1 for a in alerts if lo <= a.seq < hi)
                continue
            later = [s for s in range(first + 1, hi) if s not in marked]
            tally.later_legal += len(later)
            tally.later_refused += sum(1 for s in later if s in refused)
    tally.clean_hands, tally.clean_alerts, tally.sessions = clean_hands, clean_alerts, sessions
    return tally


def _rule_key(rule: str) -> list[int]:
    return [int(x) for x in rule[4:].split(".")]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=1000)
    ap.add_argument("--rate", type=float, default=0.03, help="irregularities per decision point")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    t0 = time.process_time()
    tally = run(args.hands, args.rate, args.seed)
    injected, found, false = tally.injected, tally.found, tally.false
    clean, clean_alerts, sessions = tally.clean_hands, tally.clean_alerts, tally.sessions
    cpu = time.process_time() - t0
    rules = sorted(set(injected) | set(false), key=_rule_key)
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
    later, later_refused = tally.later_legal, tally.later_refused
    share = later_refused / later if later else 0.0
    print(f"later legal events refused {later_refused}/{later} ({share:.2%}, target 0)")
    print(f"hands whose tile counts parted from the table's {tally.parted_hands} (target 0)")
    print()
    floor = MIN_PER_KIND * args.hands / 1000
    print(f"{'kind':<32} {'rules':<22} {'injected':>8} {'alerted':>8} {'missed':>7}")
    rare: list[str] = []
    for kind in KINDS:
        n, ok = tally.kind_injected[kind], tally.kind_found[kind]
        cited = " ".join(sorted(tally.kind_rules.get(kind, ()), key=_rule_key))
        flag = ""
        if args.rate > 0 and n < floor:
            flag = f"  < {floor:g}"
            rare.append(kind)
        print(f"{kind:<32} {cited:<22} {n:>8} {ok:>8} {n - ok:>7}{flag}")
    acts, acts_ok = sum(tally.kind_injected.values()), sum(tally.kind_found.values())
    print(f"{'total':<32} {'':<22} {acts:>8} {acts_ok:>8} {acts - acts_ok:>7}")
    if rare:
        print(f"injected fewer than {floor:g} times: {', '.join(rare)}")
    ok = hit == total and fp == 0 and clean_alerts == 0
    ok = ok and later_refused == 0 and tally.parted_hands == 0
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
