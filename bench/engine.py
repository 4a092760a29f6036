"""Engine throughput on one core: events applied per second (replay) and simulated hands/s.

Targets (issue 3): ≥ 50,000 events/s replay, ≥ 200 simulated hands/s.

Every figure is given twice: from wall time (``perf_counter``) and from this process's CPU time
(``process_time``). On a shared machine (training jobs at nice 19 on the same cores) wall time
counts the time other processes held the core; CPU time does not, so the CPU-time rate is the
one to compare with the target. Each measurement is the best of ``--repeat`` runs.

Replay is measured on parsed events (the engine alone) and from JSONL text (parsing and
validation at the boundary included). ``--json`` prints one JSON object instead of the table.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from dataclasses import dataclass

from referee.events import Event, parse_line
from referee.game.sim import Simulator
from referee.game.table import Table

SIM_TARGET = 200.0  # hands/s
REPLAY_TARGET = 50_000.0  # events/s


@dataclass(frozen=True)
class Timing:
    wall_s: float
    cpu_s: float


def best_of(repeat: int, run: Callable[[], object]) -> Timing:
    """The fastest of ``repeat`` runs, by CPU time and by wall time (taken separately)."""
    wall = cpu = float("inf")
    for _ in range(repeat):
        w0, c0 = time.perf_counter(), time.process_time()
        run()
        cpu = min(cpu, time.process_time() - c0)
        wall = min(wall, time.perf_counter() - w0)
    return Timing(wall, cpu)


def measure(profile: str, hands: int, seed: int, repeat: int) -> dict[str, object]:
    events: list[Event] = []
    sims: list[Simulator] = []

    def simulate() -> None:
        sim = Simulator(profile, seed)
        events[:] = sim.run(hands)
        sims.append(sim)

    sim_t = best_of(repeat, simulate)
    sim = sims[-1]
    wins = sum(1 for r in sim.table.state.results if r.winner is not None)
    lines = [e.model_dump_json() for e in events]
    tables: list[Table] = []

    def replay_parsed() -> None:
        table = Table()
        for ev in events:
            table.apply(ev)
        tables.append(table)

    def replay_jsonl() -> None:
        table = Table()
        for line in lines:
            table.apply(parse_line(line))
        tables.append(table)

    parsed_t = best_of(repeat, replay_parsed)
    jsonl_t = best_of(repeat, replay_jsonl)
    final = sim.table.state.to_dict()
    assert all(t.state.to_dict() == final for t in tables), "replay differs from the live game"
    n = len(events)
    return {
        "profile": profile,
        "hands": hands,
        "events": n,
        "wins": wins,
        "alerts": len(sim.alerts),
        "simulate_hands_per_s": {"cpu": hands / sim_t.cpu_s, "wall": hands / sim_t.wall_s},
        "replay_parsed_events_per_s": {"cpu": n / parsed_t.cpu_s, "wall": n / parsed_t.wall_s},
        "replay_jsonl_events_per_s": {"cpu": n / jsonl_t.cpu_s, "wall": n / jsonl_t.wall_s},
    }


def _row(label: str, rate: object, unit: str, target: float | None) -> str:
    assert isinstance(rate, dict)
    cpu, wall = rate["cpu"], rate["wall"]
    mark = ""
    if target is not None:
        mark = f"(target ≥ {target:,.0f}: {'PASS' if cpu >= target else 'FAIL'} by CPU time)"
    return f"{label:<18}{cpu:10,.0f} {unit} CPU  {wall:10,.0f} {unit} wall  {mark}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--hands", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=3, help="best of this many runs")
    ap.add_argument("--profile", action="append", choices=("wmc", "zj33", "mcr"), help="repeatable")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    results = [
        measure(p, args.hands, args.seed, args.repeat) for p in (args.profile or ["wmc", "mcr"])
    ]
    if args.json:
        print(json.dumps(results, indent=1))
        return
    for r in results:
        print(
            f"profile {r['profile']}: {r['hands']} hands, {r['events']} events, "
            f"{r['wins']} wins, {r['alerts']} alerts (best of {args.repeat})"
        )
        print(_row("simulate", r["simulate_hands_per_s"], "hands/s ", SIM_TARGET))
        print(_row("replay (parsed)", r["replay_parsed_events_per_s"], "events/s", REPLAY_TARGET))
        print(_row("replay (JSONL)", r["replay_jsonl_events_per_s"], "events/s", None))


if __name__ == "__main__":
    main()
