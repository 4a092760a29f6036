"""A tournament's seating for all its rounds, made once and shown before the day (#35).

Every player sits once a round at a table of four. Where the rounds allow it no two players meet
twice (a social-golfer search: 16 players in 5 rounds and 36 in 7 both have such seatings); each
player sits in every wind about equally; team-mates sit apart when asked; a player who needs a
fixed table keeps it. The search is seeded, so the same players, rounds and seed give the same
seating. A hand-made seating (CSV: round, table, E, S, W, N) is checked by the same rules.

Tables: a local search over each round's tables (swaps of two players between two tables,
annealed), whose cost counts every meeting beyond the first and every team-mate beside another.
16 players meet each other exactly once in 5 rounds only in the affine plane of order 4, which a
local search finds slowly: for 16 players it starts from that plane, relabelled by the seed.
Winds: each table's four are then put in the order that evens out their winds best, table after
table in a random order, over a few dozen passes.
"""

from __future__ import annotations

import csv
import io
import itertools
import math
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

WINDS = ("E", "S", "W", "N")
SEATS_A_TABLE = 4
STEPS_A_PLAYER_ROUND = 4000  # the search's swaps, per player and round
TEAM_WEIGHT = 1.0  # a team-mate beside another weighs as a second meeting
WIND_PASSES = 400  # at most; the passes stop once every player's winds are as even as can be
HEAT = 0.1  # the search's starting temperature (a cost of 1 is a second meeting)


class SeatingError(ValueError):
    """Players or a seating that break the tournament's rules, with every problem named."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


@dataclass(frozen=True)
class Player:
    id: str
    team: str | None = None
    table: int | None = None  # a fixed table (1-based), for a player who needs one


Table = tuple[str, str, str, str]  # the players by seat wind, E S W N


@dataclass(frozen=True)
class Seating:
    rounds: tuple[tuple[Table, ...], ...]  # round → table → the players by wind

    def meetings(self) -> Counter[frozenset[str]]:
        """How often each pair of players sits at one table."""
        out: Counter[frozenset[str]] = Counter()
        for round_ in self.rounds:
            for table in round_:
                out.update(frozenset(p) for p in itertools.combinations(table, 2))
        return out

    def repeats(self) -> int:
        """Meetings beyond each pair's first."""
        return sum(n - 1 for n in self.meetings().values() if n > 1)

    def winds(self) -> dict[str, Counter[str]]:
        out: dict[str, Counter[str]] = {}
        for round_ in self.rounds:
            for table in round_:
                for wind, p in zip(WINDS, table, strict=True):
                    out.setdefault(p, Counter())[wind] += 1
        return out

    def wind_spread(self) -> int:
        """The most uneven player: how many more times he sits in his commonest wind than in
        his rarest."""
        return max(
            (max(c[w] for w in WINDS) - min(c[w] for w in WINDS) for c in self.winds().values()),
            default=0,
        )

    def to_csv(self) -> str:
        out = io.StringIO()
        w = csv.writer(out, lineterminator="\n")
        w.writerow(["round", "table", *WINDS])
        for r, round_ in enumerate(self.rounds, 1):
            for t, table in enumerate(round_, 1):
                w.writerow([r, t, *table])
        return out.getvalue()


def make_seating(
    players: Sequence[Player], rounds: int, seed: int = 0, *, teams_apart: bool = False
) -> Seating:
    """A seating of ``players`` for ``rounds`` rounds (see the module's docstring)."""
    _check_players(players, rounds)
    rng = random.Random(seed)
    n = len(players)  # the search works on the players' numbers
    pinned = {i: p.table - 1 for i, p in enumerate(players) if p.table is not None}
    team = [p.team if teams_apart else None for p in players]
    plane = [_pinned(r, pinned) for r in _affine_plane(rounds, rng)] if n == 16 else [None]
    grid = [r for r in plane if r is not None]
    if len(grid) != rounds:  # no plane, or fixed tables it cannot keep
        grid = [_random_round(n, pinned, rng) for _ in range(rounds)]
    _anneal(grid, pinned, team, rng)
    named = [[[players[i].id for i in t] for t in r] for r in grid]
    return Seating(_seat_winds(named, rng))


def _check_players(players: Sequence[Player], rounds: int) -> None:
    problems = []
    ids = [p.id for p in players]
    if not ids or len(ids) % SEATS_A_TABLE:
        problems.append(f"{len(ids)} players: a tournament seats tables of four (a multiple of 4)")
    dup = sorted(i for i, n in Counter(ids).items() if n > 1)
    if dup:
        problems.append(f"players listed twice: {', '.join(dup)}")
    if rounds < 1:
        problems.append(f"{rounds} rounds: at least one")
    tables = len(ids) // SEATS_A_TABLE
    fixed = Counter(p.table for p in players if p.table is not None)
    for t, n in sorted(fixed.items()):
        if not 1 <= t <= tables:
            problems.append(f"fixed table {t}: the tables are 1 to {tables}")
        elif n > SEATS_A_TABLE:
            problems.append(f"fixed table {t} is asked for by {n} players (it seats four)")
    if problems:
        raise SeatingError(problems)


def _random_round(n: int, pinned: dict[int, int], rng: random.Random) -> list[list[int]]:
    out: list[list[int]] = [[] for _ in range(n // SEATS_A_TABLE)]
    for p, t in pinned.items():
        out[t].append(p)
    free = [p for p in range(n) if p not in pinned]
    rng.shuffle(free)
    for t in range(len(out)):
        while len(out[t]) < SEATS_A_TABLE:
            out[t].append(free.pop())
    return out


def _pinned(round_: list[list[int]], pinned: dict[int, int]) -> list[list[int]] | None:
    """The round's tables renumbered so that each pinned player sits at his table; None when
    two pinned to different tables share one, or two pinned to one table do not."""
    where: dict[int, int] = {}  # table in the round → the table it must be
    for p, want in pinned.items():
        at = next(t for t, table in enumerate(round_) if p in table)
        if where.setdefault(at, want) != want:
            return None
    if len(set(where.values())) != len(where):
        return None
    rest = iter(t for t in range(len(round_)) if t not in where)
    free = iter(t for t in range(len(round_)) if t not in where.values())
    order = {**{want: at for at, want in where.items()}, **dict(zip(free, rest, strict=True))}
    return [round_[order[t]] for t in range(len(round_))]


def _affine_plane(rounds: int, rng: random.Random) -> list[list[list[int]]]:
    """The affine plane of order 4 (its 5 parallel classes of lines: every pair of its 16
    points on exactly one line), its points relabelled at random: 5 rounds in which nobody
    meets anyone twice, and after them the same again (as few second meetings as can be)."""
    # GF(4) = {0, 1, a, a+1} as 0..3: addition is XOR, multiplication by the log table
    log, exp = [0, 0, 1, 2], [1, 2, 3]

    def mul(x: int, y: int) -> int:
        return 0 if x == 0 or y == 0 else exp[(log[x] + log[y]) % 3]

    order = list(range(16))
    rng.shuffle(order)
    point = {(x, y): order[4 * x + y] for x in range(4) for y in range(4)}
    classes = [[[point[(c, y)] for y in range(4)] for c in range(4)]]  # x = c
    for m in range(4):  # y = m x + c
        classes.append([[point[(x, mul(m, x) ^ c)] for x in range(4)] for c in range(4)])
    rng.shuffle(classes)
    return [[list(t) for t in classes[r % 5]] for r in range(rounds)]  # then again


def _anneal(
    grid: list[list[list[int]]], pinned: dict[int, int], team: list[str | None], rng: random.Random
) -> None:
    """Swap two players between two tables of a round when it lowers the cost (and now and
    then when it does not, less often as the search cools), keeping the best seating seen."""
    n = len(team)
    met = [[0] * n for _ in range(n)]
    for round_ in grid:
        for table in round_:
            for a, b in itertools.combinations(table, 2):
                met[a][b] += 1
                met[b][a] += 1
    clash = [
        [
            TEAM_WEIGHT if a != b and team[a] is not None and team[a] == team[b] else 0.0
            for b in range(n)
        ]
        for a in range(n)
    ]

    def moved(p: int, left: list[int], joined: list[int]) -> float:
        """The change in cost when ``p`` leaves a table of ``left`` for one of ``joined``."""
        mp, cp = met[p], clash[p]
        return sum((mp[o] >= 1) + cp[o] for o in joined) - sum((mp[o] >= 2) + cp[o] for o in left)

    # as few repeats as the rounds allow: one meeting each pair, then second meetings
    floor = max(0, sum(6 for r in grid for _ in r) - n * (n - 1) // 2)
    cost = sum(max(0, met[a][b] - 1) for a in range(n) for b in range(a + 1, n)) + sum(
        clash[a][b] for r in grid for t in r for a, b in itertools.combinations(t, 2)
    )
    best, best_grid = cost, [[list(t) for t in r] for r in grid]
    steps = STEPS_A_PLAYER_ROUND * n * len(grid)
    movable = [
        [(t, i) for t, table in enumerate(r) for i, p in enumerate(table) if p not in pinned]
        for r in grid
    ]
    for step in range(steps):
        if best <= floor:
            break
        r = rng.randrange(len(grid))
        (ta, ia), (tb, ib) = rng.sample(movable[r], 2)
        if ta == tb:
            continue
        table_a, table_b = grid[r][ta], grid[r][tb]
        a, b = table_a[ia], table_b[ib]
        rest_a = [p for p in table_a if p != a]
        rest_b = [p for p in table_b if p != b]
        delta = moved(a, rest_a, rest_b) + moved(b, rest_b, rest_a)
        heat = HEAT * (1 - step / steps) + 0.02
        if delta > 0 and rng.random() >= math.exp(-delta / heat):
            continue
        table_a[ia], table_b[ib] = b, a
        for o in rest_a:
            met[a][o] -= 1
            met[o][a] -= 1
            met[b][o] += 1
            met[o][b] += 1
        for o in rest_b:
            met[b][o] -= 1
            met[o][b] -= 1
            met[a][o] += 1
            met[o][a] += 1
        cost += delta
        if cost < best - 1e-9:
            best, best_grid = cost, [[list(t) for t in rr] for rr in grid]
    grid[:] = best_grid


def _seat_winds(grid: list[list[list[str]]], rng: random.Random) -> tuple[tuple[Table, ...], ...]:
    """Each table's players by wind: table after table in a random order, the order of its four
    that evens out each one's winds best (the sum of squares of how often each sits in each)
    given every other table, ties drawn at random; pass after pass until no player is further
    off even than the rounds force (0 sittings when they are a multiple of four, else 1), at most
    WIND_PASSES (without the random order and draws the passes stall with some player two
    sittings off; 200 players in 8 rounds take some 150 passes to even out)."""
    seated = [[(t[0], t[1], t[2], t[3]) for t in rnd] for rnd in grid]
    seen: dict[str, Counter[str]] = {p: Counter() for rnd in seated for t in rnd for p in t}
    for rnd in seated:
        for table in rnd:
            for w, p in zip(WINDS, table, strict=True):
                seen[p][w] += 1
    places = [(r, t) for r in range(len(seated)) for t in range(len(seated[r]))]
    best = 0 if len(seated) % len(WINDS) == 0 else 1
    for _ in range(WIND_PASSES):
        if max(max(c[w] for w in WINDS) - min(c[w] for w in WINDS) for c in seen.values()) <= best:
            break
        rng.shuffle(places)
        for r, t in places:
            for w, p in zip(WINDS, seated[r][t], strict=True):
                seen[p][w] -= 1
            orders = list(itertools.permutations(seated[r][t]))
            cost = [
                sum((seen[p][w] + 1) ** 2 for w, p in zip(WINDS, o, strict=True)) for o in orders
            ]
            a, b, c, d = rng.choice(
                [o for o, k in zip(orders, cost, strict=True) if k == min(cost)]
            )
            seated[r][t] = (a, b, c, d)
            for w, p in zip(WINDS, seated[r][t], strict=True):
                seen[p][w] += 1
    return tuple(tuple(r) for r in seated)


def read_seating(text: str, players: Sequence[Player]) -> Seating:
    """A hand-made seating (CSV with a header: round, table, E, S, W, N), checked: every player
    once a round, at tables of four numbered from 1, nobody unknown; a fixed table kept."""
    known = {p.id: p for p in players}
    problems: list[str] = []
    rows: dict[int, dict[int, Table]] = {}
    reader = csv.reader(io.StringIO(text))
    header = next(reader, None)
    if header is None or [h.strip().lower() for h in header] != ["round", "table", *"eswn"]:
        raise SeatingError(["the first line must be the header: round,table,E,S,W,N"])
    for n, row in enumerate(reader, 2):
        if not row or not "".join(row).strip():
            continue
        if len(row) != 6 or not row[0].strip().isdigit() or not row[1].strip().isdigit():
            problems.append(f"line {n}: expected round,table,E,S,W,N (round and table numbers)")
            continue
        r, t = int(row[0]), int(row[1])
        table = (row[2].strip(), row[3].strip(), row[4].strip(), row[5].strip())
        for p in table:
            if p not in known:
                problems.append(f"line {n}: {p!r} is not a player of the tournament")
            elif known[p].table is not None and known[p].table != t:
                problems.append(f"line {n}: {p} has fixed table {known[p].table}, not {t}")
        if t in rows.setdefault(r, {}):
            problems.append(f"line {n}: round {r} table {t} is given twice")
        rows[r][t] = table
    if not rows and not problems:
        problems.append("no tables in the seating")
    for r in sorted(rows):
        seats = [p for t in rows[r].values() for p in t]
        twice = sorted(p for p, k in Counter(seats).items() if k > 1)
        if twice:
            problems.append(f"round {r}: seated twice: {', '.join(twice)}")
        missing = sorted(set(known) - set(seats))
        if missing:
            problems.append(f"round {r}: not seated: {', '.join(missing)}")
        if sorted(rows[r]) != list(range(1, len(rows[r]) + 1)):
            problems.append(f"round {r}: tables must be numbered 1 to {len(rows[r])}")
    if sorted(rows) != list(range(1, len(rows) + 1)):
        problems.append(f"rounds must be numbered 1 to {len(rows)}")
    if problems:
        raise SeatingError(problems)
    return Seating(tuple(tuple(rows[r][t] for t in sorted(rows[r])) for r in sorted(rows)))
