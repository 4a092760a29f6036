"""Voice spotter evaluation, one command: ``python bench/voice_eval.py [--quick]``.

1. Leave-one-speaker-out on the real dev recordings (../shared/data/voice-calls-dev): for each
   speaker group, a head is trained without it (synthetic + the other groups) and that group's
   clips go through the streaming detector: calls right, false alarms on its negative clips.
2. Held-apart synthetic voices (espeak-ng variants and a Kokoro voice never trained on), all
   four languages, through the shipped model (models/voice_spotter.onnx).
3. False alarms per hour on a long synthetic table-talk stream (no calls).
4. Latency (word end → CallHeard) with a source paced in real time; CPU per channel.
Needs the features built by ``python -m voice.train features``; results → build/voice/eval.json.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from voice import augment, dataset, synth, train  # noqa: E402
from voice.audio_io import SR, Audio  # noqa: E402
from voice.corpus import CHATTER  # noqa: E402
from voice.detect import Detection, SpotterDetector  # noqa: E402
from voice.encoder import SpeechEncoder  # noqa: E402
from voice.events import LANGS  # noqa: E402
from voice.head import Head, OnnxHead, class_of  # noqa: E402
from voice.pipeline import CallPipeline  # noqa: E402

BLOCK = 1280


def run_detector(det: SpotterDetector, x: Audio) -> list[Detection]:
    out: list[Detection] = []
    for i in range(0, len(x), BLOCK):
        out += det.feed(x[i : i + BLOCK])
    return out + det.flush()


def in_room(clip: Audio, rng: np.random.Generator, snr: tuple[float, float] = (10, 30)) -> Audio:
    """A clip in a moderately noisy, reverberant room, 1.2 s before and 0.8 s after."""
    x = augment.reverb(clip, rng) if rng.random() < 0.5 else clip
    pre, post = int(1.2 * SR), int(0.8 * SR)
    speech = np.concatenate([np.zeros(pre, np.float32), x, np.zeros(post, np.float32)])
    bed = augment.noise_bed(rng, len(speech))
    y = augment.mix_at_snr(speech, bed, float(rng.uniform(*snr)))
    return (y / (np.abs(y).max() + 1e-9) * 10 ** (rng.uniform(-30, -6) / 20)).astype(np.float32)


def score(
    results: list[tuple[str, int, list[Detection]]],
) -> dict[str, dict[str, float]]:
    """Per language: calls right (exactly the right word), false alarms on negatives."""
    per: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for lang, label, dets in results:
        s = per[lang]
        if label == 0:
            s["neg"] += 1
            s["fa"] += 1 if dets else 0
        else:
            cls = class_of(label)
            assert cls is not None
            s["calls"] += 1
            words = {d.word for d in dets}
            s["right"] += 1 if words == {cls[1]} else 0
            s["lang_right"] += 1 if words == {cls[1]} and dets[0].lang == cls[0] else 0
    return {k: dict(v) for k, v in per.items()}


def print_table(title: str, table: dict[str, dict[str, float]]) -> None:
    print(f"\n{title}")
    print(
        f"  {'lang':<5} {'calls':>5} {'right':>7} {'(lang ok)':>9} {'negatives':>9}"
        f" {'false alarms':>12}"
    )
    for lang in [*LANGS, "all"]:
        if lang == "all":
            s: dict[str, float] = defaultdict(float)
            for v in table.values():
                for k, n in v.items():
                    s[k] += n
        elif lang in table:
            s = defaultdict(float, table[lang])
        else:
            continue
        calls, neg = s["calls"], s["neg"]
        right = f"{100 * s['right'] / calls:.1f}%" if calls else "-"
        lok = f"{100 * s['lang_right'] / calls:.1f}%" if calls else "-"
        fa = f"{100 * s['fa'] / neg:.1f}%" if neg else "-"
        print(f"  {lang:<5} {int(calls):>5} {right:>7} {lok:>9} {int(neg):>9} {fa:>12}")


def loso(
    enc: SpeechEncoder, quick: bool, shipped_threshold: float, rooms: int
) -> dict[str, dict[str, float]]:
    """Each clip is heard in ``rooms`` rooms (noise, reverb, level drawn from the clip's own
    seed): one draw per clip moved the calls-right figure by up to 10 points."""
    dev = train.shared_dev()
    if not (dev / "manifest.jsonl").exists():
        print("\n[loso] skipped: no dev recordings at", dev)
        return {}
    specs = dataset.real_specs(dev)
    groups = sorted({s.group for s in specs})
    if quick:  # one speaker group per language
        groups = [next(g for g in groups if g.startswith(lang)) for lang in ("cmn", "yue", "ja")]
    results: list[tuple[str, int, list[Detection]]] = []
    for g in groups:
        t0 = time.time()
        x, y = train.train_data(quick, exclude={g})
        head = train.fit(x, y, epochs=6 if quick else 12, threshold=shipped_threshold, log=False)
        n = 0
        for s in specs:
            if s.group != g:
                continue
            clip = dataset.render(s)
            for room in range(rooms):
                heard = in_room(clip, np.random.default_rng([s.seed, room]), (25, 35))
                results.append((s.lang, s.label, run_detector(SpotterDetector(head, enc), heard)))
            n += 1
        print(f"[loso] {g}: {n} clips, fold {time.time() - t0:.0f} s", flush=True)
    return score(results)


def heldout(enc: SpeechEncoder, head: Head, quick: bool) -> dict[str, dict[str, float]]:
    specs = dataset.synthetic_specs(heldout=True)
    rnd = random.Random(1)
    if quick:
        specs = rnd.sample(specs, len(specs) // 4)
    rng = np.random.default_rng(2)
    results = []
    for s in specs:
        try:
            clip = dataset.render(s)
        except Exception:
            continue
        results.append(
            (s.lang, s.label, run_detector(SpotterDetector(head, enc), in_room(clip, rng)))
        )
    return score(results)


def table_talk(minutes: float, seed: int = 5) -> Audio:
    """Chatter in four languages (held-apart voices), tile noise, a shuffler; no calls."""
    rnd = random.Random(seed)
    rng = np.random.default_rng(seed)
    _train_v, held_v = dataset._espeak_split()
    from voice.vocab import load_vocab

    vocab = load_vocab()
    n = int(minutes * 60 * SR)
    out = np.zeros(n, np.float32)
    k = 0
    while k < n:
        lang = rnd.choice(LANGS)
        phrases = rnd.sample(CHATTER[lang], rnd.randint(1, 4))
        v = synth.Voice("espeak", rnd.choice(held_v), rnd.uniform(0.8, 1.3), rnd.randint(25, 80))
        try:
            clip = synth.espeak(" ".join(phrases), vocab[lang].espeak_voice, v)
        except Exception:
            continue
        clip = clip / (np.abs(clip).max() + 1e-9) * 10 ** (rnd.uniform(-26, -8) / 20)
        m = min(len(clip), n - k)
        out[k : k + m] += clip[:m]
        k += m + int(rnd.uniform(0.3, 3.0) * SR)
    bed = augment.noise_bed(rng, n)
    return out + bed * 10 ** (-45 / 20)


def fa_per_hour(enc: SpeechEncoder, head: Head, minutes: float) -> dict[str, float]:
    x = table_talk(minutes)
    t0 = time.process_time()
    dets = run_detector(SpotterDetector(head, enc), x)
    cpu = time.process_time() - t0
    hours = len(x) / SR / 3600
    return {
        "minutes": minutes,
        "false_alarms": len(dets),
        "per_hour": len(dets) / hours,
        "cpu_per_audio_s": cpu / (len(x) / SR),
        "words": ", ".join(sorted({f"{d.lang}:{d.word}" for d in dets})),
    }


def latency(enc: SpeechEncoder, head: Head, n_calls: int) -> dict[str, float]:
    """Real-time paced single channel: word end → CallHeard, wall clock."""
    specs = [
        s for s in dataset.synthetic_specs(heldout=True) if s.label > 0 and s.source == "espeak"
    ]
    rnd = random.Random(3)
    clips, ends = [], []
    k = int(0.5 * SR)
    rng = np.random.default_rng(4)
    for s in rnd.sample(specs, n_calls):
        clip = dataset.render(s)
        clip = clip / (np.abs(clip).max() + 1e-9) * 0.3
        clips.append((k, clip))
        idx = np.flatnonzero(np.abs(clip) > 0.01)
        ends.append(k + int(idx[-1]))
        k += len(clip) + int(rng.uniform(1.5, 2.5) * SR)
    x = rng.normal(0, 1e-3, k + SR).astype(np.float32)
    for at, clip in clips:
        x[at : at + len(clip)] += clip
    pipe = CallPipeline([SpotterDetector(head, enc)])
    lat: list[float] = []
    start = time.monotonic()
    cpu0 = time.process_time()
    for i in range(0, len(x), BLOCK):
        due = start + (i + BLOCK) / SR
        now = time.monotonic()
        if due > now:
            time.sleep(due - now)
        for call in pipe.feed(x[i : i + BLOCK]):
            t_emit = time.monotonic() - start
            end = min(
                (e for e in ends if e / SR <= call.t_end + 0.3),
                key=lambda e: abs(e / SR - call.t_end),
            )
            lat.append(t_emit - end / SR)
    wall = time.monotonic() - start
    cpu = time.process_time() - cpu0
    arr = np.asarray(lat) * 1000
    return {
        "calls": n_calls,
        "heard": len(lat),
        "p50_ms": float(np.percentile(arr, 50)) if len(arr) else -1,
        "p95_ms": float(np.percentile(arr, 95)) if len(arr) else -1,
        "cpu_pct_of_core": 100 * cpu / wall,
    }


def cpu_four_channels(enc: SpeechEncoder, head: Head, seconds: float) -> dict[str, float]:
    """Four channels of table talk (each mic hears the talk, attenuated), unpaced."""
    talk = table_talk(seconds / 60, seed=9)
    x = np.stack([talk * g for g in (1.0, 0.5, 0.35, 0.25)], axis=1).astype(np.float32)
    pipe = CallPipeline([SpotterDetector(head, enc) for _ in range(4)])
    t0 = time.process_time()
    for i in range(0, len(x), BLOCK):
        pipe.feed(x[i : i + BLOCK])
    cpu = time.process_time() - t0
    silence = np.zeros((int(seconds * SR), 4), np.float32)
    pipe2 = CallPipeline([SpotterDetector(head, enc) for _ in range(4)])
    t1 = time.process_time()
    for i in range(0, len(silence), BLOCK):
        pipe2.feed(silence[i : i + BLOCK])
    cpu_idle = time.process_time() - t1
    return {
        "talk_pct_per_channel": 100 * cpu / seconds / 4,
        "idle_pct_per_channel": 100 * cpu_idle / seconds / 4,
    }


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--quick", action="store_true", help="fewer clips, shorter stream (~5 min)")
    ap.add_argument("--model", type=Path, default=train.MODEL)
    ap.add_argument("--skip-loso", action="store_true")
    ap.add_argument("--rooms", type=int, default=3, help="rooms each real clip is heard in")
    args = ap.parse_args()
    t0 = time.time()
    enc = SpeechEncoder()
    head = OnnxHead(args.model)
    print(f"model {args.model.name}: {dict(head.meta.info)} threshold {head.meta.threshold}")
    res: dict[str, object] = {"quick": args.quick}
    if not args.skip_loso:
        res["loso"] = tab = loso(enc, args.quick, head.meta.threshold, args.rooms)
        if tab:
            print_table(
                f"Leave-one-speaker-out, real dev recordings, each clip in {args.rooms} rooms "
                "(per language present)",
                tab,
            )
    res["heldout"] = tab = heldout(enc, head, args.quick)
    print_table("Held-apart synthetic voices (espeak-ng variants + Kokoro jf_tebukuro)", tab)
    minutes = 10.0 if args.quick else 60.0
    res["table_talk"] = fa = fa_per_hour(enc, head, minutes)
    print(
        f"\nTable talk, {minutes:.0f} min synthetic, no calls: {fa['false_alarms']} false alarms "
        f"= {fa['per_hour']:.1f}/hour  {fa['words']}"
    )
    res["latency"] = lat = latency(enc, head, 15 if args.quick else 60)
    print(
        f"\nLatency, paced 80 ms blocks, {lat['heard']}/{lat['calls']} calls heard: "
        f"p50 {lat['p50_ms']:.0f} ms, p95 {lat['p95_ms']:.0f} ms; "
        f"CPU {lat['cpu_pct_of_core']:.1f}% of a core"
    )
    res["cpu"] = cpu = cpu_four_channels(enc, head, 30.0 if args.quick else 120.0)
    print(
        f"CPU per channel (4 channels): table talk {cpu['talk_pct_per_channel']:.1f}% of a core, "
        f"silence {cpu['idle_pct_per_channel']:.1f}%"
    )
    print(
        f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB, "
        f"total {time.time() - t0:.0f} s"
    )
    out = REPO / "build" / "voice" / "eval.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(res, indent=1, default=str))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
