"""The overhead camera, end to end: accuracy on whole rendered sessions in several visual
domains, and speed.

Accuracy: ``--games`` simulated sessions of ``--hands`` hands (seeds from 9001, used nowhere
else) in each domain of ``DOMAINS`` (tile faces, camera pose, table look: vision/synth/looks.py),
rendered at 1080p from the empty table before the first shuffle (the rig told players, seats,
walls and dice only) to ``SCORED_S`` past the last win, with an arm held 3 s over a river, then
read by the pipeline into the referee core (frames in memory). Printed per domain, stage by
stage: when the markers placed the table and the rectification's worst error against the true
camera (lens included); per-slot tile accuracy on settled frames and the wrong slots by zone and
cause; action precision / recall (seat, kind and tile) and recall by kind; the median latency
from the physical action to the game action; the hands whose result (winner, value, payments)
the record gives right; alerts, and the actions the rules refused that were recorded (must be 0).

Speed: the pipeline's processed frames per second at 1080p and at 4K over a rendered stretch of
play (rendering not timed), beside the peer of running the tile recognizer on every full frame,
and the peak memory of `mjref vision run` on a 4K video (its own process). One command::

    python bench/table_vision.py [--games 3] [--hands 2] [--domains studio,hall] [--json]

``--seconds S`` films only the first S seconds of each session (0: the whole session).
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
from PIL import Image  # noqa: E402

from referee.events import Event  # noqa: E402
from referee.fusion import Fusion  # noqa: E402
from referee.game.seen import table_knows  # noqa: E402
from referee.game.sim import Simulator  # noqa: E402
from referee.game.table import Table  # noqa: E402
from vision.camera import TableReader  # noqa: E402
from vision.camera_eval import Others, engine_from, run_frames, score, split_setup  # noqa: E402
from vision.detect import TileRecognizer  # noqa: E402
from vision.enrol_camera import ROUNDS, enrol_camera, plan, round_crops  # noqa: E402
from vision.profile import VenueProfile  # noqa: E402
from vision.synth.video import (  # noqa: E402
    POSES,
    RenderSpec,
    frames,
    plan_frames,
    render_video,
    shown_at,
    truth_header,
)

FIRST_SEED = 9001
ENROL_SEED = 8001  # the enrolment clips' renderer seed: no session's
SCORED_S = 8.0  # a session is filmed this long past its last win, as the hand is scored:
# a real camera does not stop as the winner lays his hand down (at 2 s, cellar's last reveal
# was cut half-read)
# visual domains: (tile faces, camera pose, table look). studio: where the thresholds were
# first set; held-out: faces and pose kept out of tuning; venue: everything else too, and the
# domain the fixes of #37 were measured on; hall: measured unseen once, then where the light
# felt's fixes were found; club: written down after that, never tuned on, until its lost hands
# showed the meld-before-discard order; parlour: written down after that (vision/synth/looks.py),
# until its lost hand was looked into; pavilion, terrace, lodge and cellar: each written down
# after the one before had been looked into; garden after the classifier's fine-tuning
DOMAINS = {
    "studio": ("glyph", "top", "standard"),
    "held-out": ("text", "low", "standard"),
    "venue": ("text", "venue", "venue"),
    "hall": ("text", "hall", "hall"),
    "club": ("text", "club", "club"),
    "parlour": ("text", "parlour", "parlour"),
    "pavilion": ("text", "pavilion", "pavilion"),
    "terrace": ("text", "terrace", "terrace"),
    "lodge": ("text", "lodge", "lodge"),
    "cellar": ("text", "cellar", "cellar"),
    "garden": ("text", "garden", "garden"),
}


def one_game(
    seed: int,
    seconds: float,
    recognizer: TileRecognizer,
    setup: str = "hidden",
    hands: int = 1,
    domain: str = "held-out",
) -> dict[str, Any]:
    events = list(Simulator(seed=seed).run(hands))
    deal = next(e.ts for e in events if e.type == "deal")
    # a hidden setup films the whole session, from the table before the first shuffle on
    start = events[0].ts if setup == "hidden" else deal
    end = start + seconds if seconds else None
    style, pose, look = DOMAINS[domain]
    spec = RenderSpec(
        1920, 1080, 5, style, pose, seed, hovers=1, start=start, end=end, look=look, after=SCORED_S
    )
    header = truth_header(events, spec)
    actions = [line for line in header if line["kind"] == "action"]
    truth: dict[int, dict[str, Any]] = {}

    def rendered() -> Iterator[tuple[int, float, np.ndarray]]:
        for frame, line in frames(events, spec):
            truth[line["i"]] = line  # before the frame is read
            yield line["i"], line["t"], frame

    # hidden: the rig is told the players, seats, walls and dice only (a real table); full: the
    # simulation's wall and deal too (how the camera was measured before the hidden tiles)
    told = table_knows(events) if setup == "hidden" else events
    before, later, _ = split_setup(told, None if setup == "full" else start)
    table, seq = engine_from(before)
    fusion = Fusion(table, seq)
    others = Others(fusion, later if setup == "hidden" else [])
    result = run_frames(
        rendered(),
        TableReader(recognizer),
        fusion,
        truth,
        on_frame=lambda _n, t, _f: others.until(t),
    )
    figures = score(result, actions)
    placed = next((n.ts for n in result.reader.notices if n.kind == "calibrated"), float("inf"))
    figures["calibrated_after_s"] = placed - start
    figures["rectification_px"] = rectification_px(result.reader, spec)
    figures["hands"], figures["hands_right"] = hands_right(events, fusion.table)
    figures["seed"] = seed
    figures["domain"] = domain
    figures["slots"] = result.slots_seen
    figures["slots_right"] = result.slots_right
    figures["actions"] = len(actions)
    figures["illegal_recorded"] = sum(a.rejected for a in fusion.table.state.alerts)
    figures["errors"] = dict(result.errors)
    return figures


def enrolment(recognizer: TileRecognizer, domain: str) -> VenueProfile:
    """The venue's once-off enrolment in this domain: a clip of each round of the plan, filmed
    by the domain's camera (seed ENROL_SEED: another light and another print of the faces than
    any session's), and the profile fitted on it."""
    style, pose, look = DOMAINS[domain]
    spec = RenderSpec(1920, 1080, 5, style, pose, ENROL_SEED, look=look)
    rounds = [
        round_crops(TableReader(recognizer), plan_frames(spec, plan(r)), r, f"round {r + 1}")
        for r in range(ROUNDS)
    ]
    return enrol_camera(recognizer, rounds, f"{domain} (bench)")


def summary(games: list[dict[str, Any]]) -> dict[str, Any]:
    """One domain's figures, stage by stage: the markers (when the table was first placed, the
    rectification's error against the true camera), the slots (settled slots right, and the
    wrong ones by zone and why: missing, junk, back-vs-face, sideways, confused), the actions
    the record gives (precision, recall by kind, latency) and the hands' results."""
    slots = sum(g["slots"] for g in games)
    out: dict[str, Any] = {
        "games": len(games),
        "calibrated_after_s": max(g["calibrated_after_s"] for g in games),
        "rectification_px": max(g["rectification_px"] for g in games),
        "slot_accuracy": sum(g["slots_right"] for g in games) / slots if slots else 0.0,
        "action_precision": statistics.mean(g["action_precision"] for g in games),
        "action_recall": statistics.mean(g["action_recall"] for g in games),
        "latency_median_s": statistics.median(g["latency_median_s"] for g in games),
        "hands": sum(g["hands"] for g in games),
    }
    out["hand_results_right"] = sum(g["hands_right"] for g in games) / out["hands"]
    for kind in ("discard", "chow", "pung", "kong", "win"):
        want = sum(g["by_kind"].get(kind, (0, 0))[1] for g in games)
        if want:
            out[f"recall_{kind}"] = sum(g["by_kind"].get(kind, (0, 0))[0] for g in games) / want
    out["alerts"] = sum(g["alerts"] for g in games)
    out["illegal_recorded"] = sum(g["illegal_recorded"] for g in games)
    errors: Counter[str] = Counter()
    for g in games:
        errors.update(g["errors"])
    out["slot_errors"] = dict(errors.most_common())  # wrong settled slots: zone and why
    return out


def rectification_px(reader: TableReader, spec: RenderSpec) -> float:
    """How far (px, the worst of a 100 mm grid over the playing area) the calibration puts a
    table point from where the true camera, its lens distortion included, shows it."""
    if reader.calibration is None:
        return float("inf")
    grid = np.array([(x, y) for x in range(-500, 501, 100) for y in range(-500, 501, 100)], float)
    shown = shown_at(POSES[spec.pose], spec.width, spec.height, grid)
    return float(np.abs(reader.calibration.project(grid) - shown).max())


def hands_right(events: list[Event], read: Table) -> tuple[int, int]:
    """(hands, hands whose result the camera's record gives right): a win's winner, value and
    payments; a drawn hand with no win recorded."""
    truth = Table()
    for e in events:
        truth.apply(e)
    got = {r.hand: r for r in read.state.results}
    right = 0
    for want in truth.state.results:
        have = got.get(want.hand)
        if want.winner is None:
            right += have is None or have.winner is None
        elif have is not None:
            right += (have.winner, have.value, have.deltas) == (
                want.winner,
                want.value,
                want.deltas,
            )
    return len(truth.state.results), right


def speed(
    width: int, height: int, recognizer: TileRecognizer, seed: int = FIRST_SEED
) -> dict[str, float]:
    """Processed frames/s over 20 s of play at 5 fps (rendering not timed, calibration at the
    first frame not timed), and the full-frame recognizer's frames/s on 3 of the same frames."""
    events = list(Simulator(seed=seed).run(1))
    deal = next(e.ts for e in events if e.type == "deal")
    spec = RenderSpec(
        width, height, fps=5, style="text", pose="low", seed=seed, start=deal + 0.5, end=deal + 20.5
    )
    reader = TableReader(recognizer)
    spent, count, full_spent, full_count = 0.0, 0, 0.0, 0
    for frame, line in frames(events, spec):
        start = time.perf_counter()
        reader.process(frame, line["t"], line["i"])
        if line["i"]:
            spent += time.perf_counter() - start
            count += 1
        if line["i"] in (10, 50, 90):
            start = time.perf_counter()
            recognizer.detect(Image.fromarray(frame))
            full_spent += time.perf_counter() - start
            full_count += 1
    fps, full = count / spent, full_count / full_spent
    return {"fps": fps, "full_frame_fps": full, "ratio": fps / full}


def run_memory_mb(width: int, height: int, seed: int = FIRST_SEED) -> float:
    """Peak memory of `mjref vision run` on a rendered 10 s video (a process of its own)."""
    events = list(Simulator(seed=seed).run(1))
    deal = next(e.ts for e in events if e.type == "deal")
    spec = RenderSpec(
        width, height, fps=5, style="text", pose="low", seed=seed, start=deal + 0.5, end=deal + 10.5
    )
    with tempfile.TemporaryDirectory() as tmp:
        video = Path(tmp) / "clip.mp4"
        render_video(events, video, Path(tmp) / "truth.jsonl", spec)
        subprocess.run(
            [
                sys.executable,
                "-c",
                "from rig.cli import main; raise SystemExit(main())",
                "vision",
                "run",
                str(video),
            ],
            check=True,
            capture_output=True,
            cwd=ROOT,
        )
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=3, help="games (one video each) a domain")
    parser.add_argument(
        "--first-seed", type=int, default=FIRST_SEED, help="tune on others than the test's"
    )
    parser.add_argument("--seconds", type=float, default=0.0)
    parser.add_argument(
        "--setup",
        choices=("hidden", "full"),
        default="hidden",
        help="hidden: the rig knows players, seats, walls and dice (a real table); full: also "
        "the simulated wall and deal (the figures before the hidden tiles)",
    )
    parser.add_argument("--hands", type=int, default=2, help="hands a game (one video)")
    parser.add_argument("--no-speed", action="store_true")
    parser.add_argument(
        "--no-enrol",
        action="store_true",
        help="read with the shipped models alone (default: each domain's venue first enrols "
        "its faces from clips of the plan, filmed by its camera: mjref vision enrol)",
    )
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--domains", default=",".join(DOMAINS), help=f"comma-separated, of {', '.join(DOMAINS)}"
    )
    args = parser.parse_args()
    domains = args.domains.split(",")
    if unknown := [d for d in domains if d not in DOMAINS]:
        parser.error(f"--domains: no domain {', '.join(unknown)}; expected {', '.join(DOMAINS)}")
    shipped = TileRecognizer(threads=1)
    recognizer = shipped
    out: dict[str, Any] = {"setup": args.setup, "hands_a_game": args.hands}
    for domain in domains:
        games = []
        if not args.no_enrol:
            profile = enrolment(shipped, domain)
            recognizer = TileRecognizer(threads=1, profile=profile)
            fitted = profile.info["fitted"]
            out.setdefault("enrolment", {})[domain] = {
                k: profile.info.get(k)
                for k in (
                    "held_out_accuracy",
                    "tuned_held_out_accuracy",
                    "held_out_shipped_accuracy",
                    "seconds",
                )
            } | {k: fitted.get(k) for k in ("active", "classifier")}
            if not args.json:
                print(f"{domain} enrolment: {out['enrolment'][domain]}", flush=True)
        for k in range(args.games):
            seed = args.first_seed + k
            games.append(one_game(seed, args.seconds, recognizer, args.setup, args.hands, domain))
            if not args.json:
                g = games[-1]
                print(
                    f"{domain} seed {g['seed']}: slots {g['slot_accuracy']:.4f} hands "
                    f"{g['hands_right']}/{g['hands']} precision {g['action_precision']:.3f} "
                    f"recall {g['action_recall']:.3f} latency {g['latency_median_s']:.2f} s "
                    f"alerts {g['alerts']} (slots {g['slots_right']}/{g['slots']}, actions "
                    f"{g['actions']}, illegal {g['illegal_recorded']})",
                    flush=True,
                )
        if games:
            out[domain] = summary(games)
    if not args.no_speed:
        out["1080p"] = speed(1920, 1080, recognizer)
        out["4k"] = speed(3840, 2160, recognizer)
        out["run_peak_memory_mb_4k"] = run_memory_mb(3840, 2160)
    print(json.dumps(out, indent=None if args.json else 1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
