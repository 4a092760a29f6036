"""Seating a tournament (#35): the time ``dashboard.seating.make_seating`` takes for a field, the
second meetings it leaves and how even the winds are — against a baseline of seated at random
(each round shuffled, winds as they fall), the organiser's draw from a hat.

A second meeting is a pair at one table once more after their first; 0 is the best, and only
possible while every player can still meet three new ones a round (16 players: 5 rounds; 36: 7;
200: far more than 8). The wind spread is the most uneven player's commonest wind less his
rarest. The search is seeded: the same field, rounds and seed give the same seating.

    .venv/bin/python bench/seating.py [--field 200x8] [--seed S] [--json]   (./run bench seating)
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time

from dashboard.seating import Player, Seating, make_seating

FIELDS = ((16, 5), (36, 7), (200, 8))


def at_random(players: list[Player], rounds: int, seed: int) -> Seating:
    rng = random.Random(seed)
    ids = [p.id for p in players]
    out = []
    for _ in range(rounds):
        rng.shuffle(ids)
        out.append(tuple(tuple(ids[i : i + 4]) for i in range(0, len(ids), 4)))
    return Seating(tuple(out))  # type: ignore[arg-type]


def measure(n: int, rounds: int, seed: int) -> dict[str, object]:
    players = [Player(f"P{i:03d}", team=f"T{i % (n // 4)}") for i in range(n)]
    t0 = time.perf_counter()
    seating = make_seating(players, rounds, seed)
    took = time.perf_counter() - t0
    apart = make_seating(players, rounds, seed, teams_apart=True)
    hat = at_random(players, rounds, seed)
    return {
        "players": n,
        "rounds": rounds,
        "seconds": round(took, 2),
        "repeated_pairs": seating.repeats(),
        "wind_spread": seating.wind_spread(),
        "teams_apart_repeated_pairs": apart.repeats(),
        "random_repeated_pairs": hat.repeats(),
        "random_wind_spread": hat.wind_spread(),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--field", help="one field, PLAYERSxROUNDS (default: 16x5, 36x7, 200x8)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    fields = FIELDS
    if args.field:
        n, _, r = args.field.partition("x")
        fields = ((int(n), int(r)),)
    rows = [measure(n, r, args.seed) for n, r in fields]
    if args.json:
        print(json.dumps(rows))
        return 0
    for x in rows:
        ratio = x["repeated_pairs"] / max(1, int(x["random_repeated_pairs"]))  # type: ignore[call-overload]
        print(
            f"{x['players']:>4} players × {x['rounds']} rounds: {x['seconds']:>6} s, "
            f"{x['repeated_pairs']} second meetings (teams apart: "
            f"{x['teams_apart_repeated_pairs']}), winds within {x['wind_spread']}; at random "
            f"{x['random_repeated_pairs']} second meetings, winds within "
            f"{x['random_wind_spread']} (ratio search/random {ratio:.2f})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
