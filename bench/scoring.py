"""Scoring speed: our full WMC scorer against the PyPI ``mahjong`` riichi scorer, hand by hand.

What is measured: the wall time (``time.perf_counter_ns``) of one full evaluation of one declared
win, taken separately for every hand of a seeded sample of random legal winning hands
(``referee.samples.random_winning_hand``). Ours is ``referee.scoring.score(hand, "wmc")`` on the
already-built ``WinningHand``; the peer is ``HandCalculator.estimate_hand_value`` on the same hand,
with its inputs (136-tile arrays, ``Meld`` objects, ``HandConfig``) built outside the timed region.
Both scorers first run a warm-up pass over a separate sample (its own seed), so no measured hand
was seen before — a scorer that memoises whole hands gains nothing it would not gain in play. The
garbage collector is off while timing, as in ``timeit``.

Why the peer is fair-ish: it does the same kind of work for the same input — decompose the
concealed tiles in every way (freedom of count), find every set the winning tile may complete,
evaluate a pattern list on each arrangement and keep the best — and it is a mature, optimised,
pure-Python library. The differences: it scores Japanese (riichi) rules, i.e. about 40 yaku, fu
and han with dora and a limit table, where WMC has 44 additive patterns with series rules, a
5-point minimum and a 320 limit; riichi has no Three Similar Triplets, Two Concealed Triplets or
Consecutive Triplets and WMC has no fu. A hand the peer rejects (no yaku, or a situational flag
its rules forbid, e.g. tenhou with a concealed kan) still counts: it did the evaluation work.
Our flags map to its config where the situations coincide: final draw → haitei, final discard →
houtei, win on kong → rinshan, robbing a kong → chankan, heaven → tenhou, earth (a win on East's
first discard) → renhou; seat/prevalent wind → player/round wind; open tanyao allowed (as 1.3).

The target is ours no slower than the peer: both ratios ours/peer (median and p99) <= 1.0.
The exit status is 0 whatever the ratios; any exception exits non-zero.

    .venv/bin/python bench/scoring.py [--hands N] [--seed S] [--json]      (or: ./run bench scoring)
"""

from __future__ import annotations

import argparse
import gc
import json
import platform
import random
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from mahjong.constants import EAST as PEER_EAST
from mahjong.hand_calculating.hand import HandCalculator
from mahjong.hand_calculating.hand_config import HandConfig, OptionalRules
from mahjong.meld import Meld as PeerMeld

from referee.hands import Flag, Meld, MeldKind, WinningHand
from referee.samples import random_winning_hand
from referee.scoring import score

DEFAULT_SEED = 2026
DEFAULT_HANDS = 10_000
WARMUP_HANDS = 500
TARGET_RATIO = 1.0

T = TypeVar("T")

_PEER_MELD_TYPE = {
    MeldKind.CHOW: PeerMeld.CHI,
    MeldKind.PUNG: PeerMeld.PON,
    MeldKind.KONG: PeerMeld.KAN,
}


@dataclass(frozen=True, slots=True)
class PeerInput:
    """The arguments of one ``estimate_hand_value`` call."""

    tiles: list[int]
    win_tile: int
    melds: list[PeerMeld]
    config: HandConfig


@dataclass(slots=True)
class Timings:
    """Per-hand nanoseconds for one scorer, in sample order, and how its evaluations ended."""

    ns: list[int] = field(default_factory=list)
    outcomes: Counter[str] = field(default_factory=Counter)


# ---- hands and peer inputs ----


def sample_hands(seed: int, count: int) -> list[WinningHand]:
    """``count`` random legal winning hands from one seeded generator."""
    rng = random.Random(seed)
    return [random_winning_hand(rng) for _ in range(count)]


class _CopyAllocator:
    """Hands out distinct 136-format copies (kind * 4 + copy) of each of the 34 kinds."""

    def __init__(self) -> None:
        self._used = [0] * 34

    def take(self, kind: int) -> int:
        copy = self._used[kind]
        self._used[kind] += 1
        return kind * 4 + copy


def _peer_meld(meld: Meld, copies: _CopyAllocator) -> PeerMeld:
    tiles = [copies.take(t) for t in meld.tiles]
    called = None
    if meld.claimed_tile is not None:
        called = tiles[meld.tiles.index(meld.claimed_tile)]
    return PeerMeld(
        meld_type=_PEER_MELD_TYPE[meld.kind],
        tiles=tiles,
        opened=not meld.concealed,
        called_tile=called,
    )


def _peer_config(hand: WinningHand) -> HandConfig:
    flags = hand.flags
    return HandConfig(
        is_tsumo=hand.self_drawn,
        is_haitei=Flag.FINAL_DRAW in flags,
        is_houtei=Flag.FINAL_DISCARD in flags,
        is_rinshan=Flag.WIN_ON_KONG in flags,
        is_chankan=Flag.ROBBING_KONG in flags,
        is_tenhou=Flag.HEAVEN in flags,
        is_renhou=Flag.EARTH in flags,
        player_wind=PEER_EAST + int(hand.seat),
        round_wind=PEER_EAST + int(hand.prevalent),
        options=OptionalRules(has_open_tanyao=True),
    )


def peer_input(hand: WinningHand) -> PeerInput:
    """The same hand in the peer's terms (our tile indices 0–33 are its 34-format kinds)."""
    copies = _CopyAllocator()
    melds = [_peer_meld(m, copies) for m in hand.melds]
    concealed = [copies.take(t) for t in hand.concealed]
    win_tile = copies.take(hand.win_tile)
    tiles = [t for m in melds for t in m.tiles] + concealed + [win_tile]
    return PeerInput(tiles, win_tile, melds, _peer_config(hand))


# ---- timing ----


def run_ours(hand: WinningHand) -> str:
    """One timed-scope call of our scorer; the outcome name."""
    return "valid" if score(hand, "wmc").valid else "false win"


def run_peer(args: PeerInput) -> str:
    """One timed-scope call of the peer; the outcome name (its error code, or ``ok``)."""
    response = HandCalculator.estimate_hand_value(
        args.tiles, args.win_tile, melds=args.melds, config=args.config
    )
    return response.error or "ok"


def _timed(call: Callable[[T], str], arg: T) -> tuple[int, str]:
    start = time.perf_counter_ns()
    outcome = call(arg)
    return time.perf_counter_ns() - start, outcome


def measure(hands: Sequence[WinningHand]) -> tuple[Timings, Timings]:
    """Time ours and the peer on each hand, interleaved so drift affects both alike."""
    ours, peer = Timings(), Timings()
    gc.collect()
    gc.disable()
    try:
        for hand in hands:
            ns, outcome = _timed(run_ours, hand)
            ours.ns.append(ns)
            ours.outcomes[outcome] += 1
            args = peer_input(hand)
            ns, outcome = _timed(run_peer, args)
            peer.ns.append(ns)
            peer.outcomes[outcome] += 1
    finally:
        gc.enable()
    return ours, peer


def warm_up(seed: int) -> None:
    """Run both scorers on hands that will not be measured (imports, caches, code paths)."""
    measure(sample_hands(seed + 1, WARMUP_HANDS))


# ---- report ----


def _percentile_us(ns: Sequence[int], pct: int) -> float:
    if len(ns) < 2:
        return ns[0] / 1000
    return statistics.quantiles(ns, n=100, method="inclusive")[pct - 1] / 1000


def summary(ns: Sequence[int], outcomes: Counter[str]) -> dict[str, Any]:
    """Median and p99 in µs (unrounded), and the outcome counts."""
    return {
        "median_us": statistics.median(ns) / 1000,
        "p99_us": _percentile_us(ns, 99),
        "outcomes": dict(outcomes.most_common()),
    }


def cpu_name() -> str:
    """The CPU model from /proc/cpuinfo where there is one, else what ``platform`` knows."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def report(hands: Sequence[WinningHand], seed: int, ours: Timings, peer: Timings) -> dict[str, Any]:
    """Everything printed, as one JSON-ready dict."""
    mine, theirs = summary(ours.ns, ours.outcomes), summary(peer.ns, peer.outcomes)
    ratio = {key: round(mine[f"{key}_us"] / theirs[f"{key}_us"], 3) for key in ("median", "p99")}
    for row in (mine, theirs):
        row["median_us"], row["p99_us"] = round(row["median_us"], 2), round(row["p99_us"], 2)
    return {
        "hands": len(hands),
        "seed": seed,
        "ours": mine,
        "peer": theirs,
        "ratio": ratio,
        "target": {"ratio_max": TARGET_RATIO, "pass": max(ratio.values()) <= TARGET_RATIO},
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "cpu": cpu_name(),
    }


def print_text(result: dict[str, Any]) -> None:
    """The human-readable report."""
    ours, peer, ratio = result["ours"], result["peer"], result["ratio"]
    print(f"hands: {result['hands']} (seed {result['seed']})")
    for label, row in (("ours (wmc score)", ours), ("peer (mahjong, riichi)", peer)):
        print(f"{label:24} median {row['median_us']:9.2f} µs   p99 {row['p99_us']:9.2f} µs")
    print(f"{'ratio ours/peer':24} median {ratio['median']:9.3f}      p99 {ratio['p99']:9.3f}")
    print(f"ours outcomes: {_counts(ours['outcomes'])}")
    print(f"peer outcomes: {_counts(peer['outcomes'])}")
    print(f"target: ratio <= {TARGET_RATIO}: {'PASS' if result['target']['pass'] else 'FAIL'}")
    print(f"python: {result['python']}")
    print(f"cpu: {result['cpu']}")


def _counts(outcomes: dict[str, int]) -> str:
    return ", ".join(f"{name} {n}" for name, n in outcomes.items())


# ---- entry point ----


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--hands", type=int, default=DEFAULT_HANDS, help="hands to measure")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="sample seed")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if args.hands < 1:
        parser.error("--hands must be at least 1")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    hands = sample_hands(args.seed, args.hands)
    warm_up(args.seed)
    ours, peer = measure(hands)
    result = report(hands, args.seed, ours, peer)
    if args.json:
        print(json.dumps(result, ensure_ascii=False))
    else:
        print_text(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
