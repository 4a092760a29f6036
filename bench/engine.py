"""Engine throughput on one core: events applied per second (replay) and simulated hands/s.

Targets (issue 3): ≥ 50,000 events/s replay, ≥ 200 simulated hands/s.
Replay is measured twice: on parsed events (the engine alone) and from JSONL text (parsing and
validation at the boundary included).
"""

from __future__ import annotations

import argparse
import time

from referee.events import parse_line
from referee.game.sim import Simulator
from referee.game.table import Table


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--hands", type=int, default=400)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--profile", default="wmc", choices=("wmc", "mcr"))
    args = ap.parse_args()

    t0 = time.perf_counter()
    sim = Simulator(args.profile, args.seed)
    events = list(sim.run(args.hands))
    sim_s = time.perf_counter() - t0
    wins = sum(1 for r in sim.table.state.results if r.winner is not None)

    lines = [e.model_dump_json() for e in events]
    best_apply = best_parse = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        table = Table()
        for ev in events:
            table.apply(ev)
        best_apply = min(best_apply, time.perf_counter() - t0)
        t0 = time.perf_counter()
        table = Table()
        for line in lines:
            table.apply(parse_line(line))
        best_parse = min(best_parse, time.perf_counter() - t0)
    assert table.state.to_dict() == sim.table.state.to_dict()

    n = len(events)
    print(
        f"profile {args.profile}: {args.hands} hands, {n} events, {wins} wins, "
        f"{len(sim.alerts)} alerts"
    )
    print(f"simulate          {args.hands / sim_s:10,.0f} hands/s   (target ≥ 200)")
    print(f"replay (parsed)   {n / best_apply:10,.0f} events/s  (target ≥ 50,000)")
    print(f"replay (JSONL)    {n / best_parse:10,.0f} events/s  (parse + validate + apply)")


if __name__ == "__main__":
    main()
