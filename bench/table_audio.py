"""Hearing the table, one command: ``python bench/table_audio.py [--hands N] [--seed S]``.

Simulated play (the referee simulator's hands, its call events taken out) made into four
microphone channels per language: at each claim, kong and win a call clip placed between the
discard (or draw) and the exposure on the claimer's channel — or, for ~30 % of them, none (the
unspoken claims; a fifth of the spoken ones 6 dB softer) — with cross-talk into the other mics
(6–20 dB down, 0.3–3 ms late, duller, drawn per pair for each hand) and the mics' gains 5 dB
apart. Half the windows hold another seat's voice: its talk over the window, or its call of a
word on the same discard (double talk when the claimer calls too). Around it:
tile clacks at every discard and draw, slammed tiles, the winning tile slammed (allowed),
phone rings, short remarks and sustained table talk, a hall noise. Voices: the real dev
recordings (../shared/data/voice-calls-dev, Mandarin, Cantonese, Japanese) and espeak-ng's
held-apart variants (never trained on; English has synthesis only).

Reported per language, and per case (silent, other chatting, other calling): unspoken-claim
precision / recall (the decision rests on speech at the claimer's seat, not on the word
spotter), the uncertain answers and why, the other seat named as the voice heard, word accuracy
given a spoken claim (held-apart
synthetic voices, and apart from them the real recordings — which the shipped spotter was
trained on, so that figure is not independent), double talk (the claimer and another seat
calling on one discard: both onsets heard, both words right), seat attribution of every placed
call, onset error, slam / ring / talking precision and recall, false conduct alerts per hour,
CPU per table (analysis only, not the rendering). Results → build/voice/table_audio.json.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from referee.events import Event  # noqa: E402
from referee.game.sim import simulate  # noqa: E402
from voice import dataset, synth  # noqa: E402
from voice.audio_io import SR, Audio, read_audio  # noqa: E402
from voice.conduct import ConductDetectors, ConductEvent, calibrate_venue  # noqa: E402
from voice.corpus import CHATTER  # noqa: E402
from voice.encoder import SpeechEncoder  # noqa: E402
from voice.events import LANGS, Lang, Seat  # noqa: E402
from voice.head import OnnxHead  # noqa: E402
from voice.scene import Scene, ring_tone, tile_clack  # noqa: E402
from voice.seats import SeatActivity, band_levels  # noqa: E402
from voice.train import shared_dev  # noqa: E402
from voice.verify import Claim, ClaimVerifier, Spotter, claims_from_events  # noqa: E402
from voice.vocab import load_vocab  # noqa: E402

SEATS: list[Seat | None] = ["E", "S", "W", "N"]
LEAD_S = 12.0  # before the first event of a hand: calibration time (play noises only)
UNSPOKEN = 0.3
ONSET_S = 0.15  # a call heard this close to where it was placed
CASES = (("silent", 0.5), ("other chatting", 0.25), ("other calling", 0.25))
"""What else is heard in a claim's window: nobody; another seat talking over it; another seat
calling a word on the same discard (double talk when the claimer speaks too)."""
QUIET = 0.2  # claimers who call 6 dB quieter than usual (under a neighbour's voice)
LEAK_DB = (6.0, 20.0)  # close-microphone cross-talk, dB down, drawn per pair for each hand
DELAY_MS = (0.3, 3.0)  # ... and how late it arrives


@dataclass
class Placed:
    seat: int
    t: float
    dur: float
    source: str  # "real" | "synthetic"


@dataclass
class Truth:
    claims: list[tuple[Claim, Placed | None, str, int | None]] = field(default_factory=list)
    # (claim, its call or None when unspoken, the case (CASES), the other seat heard or None)
    calls: list[Placed] = field(default_factory=list)  # every call clip (incl. second callers)
    conduct: list[tuple[str, float, float, int]] = field(default_factory=list)
    speech: list[tuple[int, float, float]] = field(default_factory=list)  # every voice placed
    allowed_slams: list[float] = field(default_factory=list)
    # claim id → (the other seat, its word, its onset) where another seat called on the discard
    second_calls: dict[str, tuple[int, str, float]] = field(default_factory=dict)


class Voices:
    """Call and chatter clips per language: real recordings (by speaker group) and espeak-ng
    held-apart variants, synthesised once."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.vocab = load_vocab()
        self.held = dataset._espeak_split()[1]
        self.cache: dict[tuple[str, str, str], Audio] = {}
        self.real: dict[str, dict[str, dict[str, list[Path]]]] = defaultdict(
            lambda: defaultdict(lambda: defaultdict(list))
        )
        dev = shared_dev()
        if (dev / "manifest.jsonl").exists():
            for line in (dev / "manifest.jsonl").read_text(encoding="utf-8").splitlines():
                row = json.loads(line)
                self.real[row["lang"]][row["speaker_group"]][row["label"]].append(dev / row["path"])
        self._real_audio: dict[Path, Audio] = {}

    def synth(self, lang: Lang, text: str, variant: str) -> Audio:
        key = (lang, text, variant)
        if key not in self.cache:
            voice = synth.Voice("espeak", variant, 1.0, 50)
            self.cache[key] = synth.espeak(text, self.vocab[lang].espeak_voice, voice)
        return self.cache[key]

    def call(self, lang: Lang, word: str, speaker: str) -> tuple[Audio, str]:
        """``speaker``: a real speaker group or an espeak variant."""
        clips = self.real.get(lang, {}).get(speaker, {}).get(word)
        if clips:
            path = self.rng.choice(clips)
            if path not in self._real_audio:
                x = read_audio(path, mono=True)
                end = dataset.first_word_end(x)  # a call that runs on ("碰！……"): the call
                self._real_audio[path] = x[: min(len(x), end + int(0.1 * SR))]
            return self._real_audio[path], "real"
        variant = speaker if speaker in self.held else self.rng.choice(self.held)
        phrases = self.vocab[lang].calls[word]  # type: ignore[index]
        return self.synth(lang, self.rng.choice(phrases).say, variant), "synthetic"

    def chatter(self, lang: Lang, seconds: float) -> Audio:
        """Phrases of one voice with short pauses, at least ``seconds`` long (one phrase,
        cut there, for a remark)."""
        variant = self.rng.choice(self.held)
        parts: list[Audio] = []
        while sum(len(p) for p in parts) < seconds * SR:
            parts.append(self.synth(lang, self.rng.choice(CHATTER[lang]), variant))
            parts.append(np.zeros(int(self.rng.uniform(0.1, 0.35) * SR), np.float32))
        return np.concatenate(parts)

    def speakers(self, lang: Lang) -> list[str]:
        """Four players: real speaker groups where there are any (E, S), held-apart variants."""
        groups = sorted(self.real.get(lang, {}))
        self.rng.shuffle(groups)
        out = groups[:2]
        while len(out) < 4:
            out.append(self.rng.choice(self.held))
        return out


def split_hands(events: list[Event]) -> list[list[Event]]:
    hands: list[list[Event]] = []
    for e in events:
        if e.type == "wall_built" or not hands:
            hands.append([])
        hands[-1].append(e)
    return [h for h in hands if any(e.type == "discard" for e in h)]


def render_hand(
    events: list[Event], lang: Lang, voices: Voices, rng: np.random.Generator
) -> tuple[Audio, Truth]:
    t0 = events[0].ts - LEAD_S
    shifted = [e.model_copy(update={"ts": round(e.ts - t0, 3)}) for e in events]
    end = shifted[-1].ts + 4.0
    scene = Scene(end, rng, leak_db=LEAK_DB, delay_ms=DELAY_MS)
    truth = Truth()
    rnd = voices.rng
    speakers = voices.speakers(lang)
    # the lead-in: a shuffle's worth of clacks while the wall is built
    for t in np.arange(1.0, LEAD_S - 1, 0.9):
        scene.add(int(rng.integers(4)), tile_clack(rng), float(t), -28 + float(rng.uniform(-3, 3)))
    claims = claims_from_events(shifted)
    windows = [(c.t_discard, c.t_exposed) for c in claims]
    for e in shifted:
        seat = getattr(e.payload, "seat", None)
        if e.type == "discard" and seat is not None:
            if rnd.random() < 0.04:
                scene.add(int(seat), tile_clack(rng), e.ts, -5 + float(rng.uniform(-2, 1)))
                truth.conduct.append(("slam", e.ts, e.ts + 0.05, int(seat)))
            else:
                scene.add(int(seat), tile_clack(rng), e.ts, -26 + float(rng.uniform(-3, 3)))
        elif e.type in ("draw", "replacement_draw") and seat is not None:
            scene.add(int(seat), tile_clack(rng), e.ts, -32 + float(rng.uniform(-3, 3)))
        elif e.type in ("chow", "pung", "kong") and seat is not None:
            for k in range(3):
                scene.add(int(seat), tile_clack(rng), e.ts + 0.12 * k, -27)
        elif e.type == "win" and seat is not None and rnd.random() < 0.5:
            scene.add(int(seat), tile_clack(rng), e.ts, -5)  # the winning tile, allowed once
            truth.allowed_slams.append(e.ts)
    for c in claims:
        s = "ESWN".index(c.seat)
        case = rnd.choices([k for k, _ in CASES], [w for _, w in CASES])[0]
        other = _other_voice(lang, c, s, case, speakers, voices, scene, truth)
        if rnd.random() < UNSPOKEN:
            truth.claims.append((c, None, case, other))
            continue
        clip, source = voices.call(lang, c.kind, speakers[s])
        room = c.t_exposed - c.t_discard
        lead = min(rnd.uniform(0.25, 1.2), max(0.1, room - len(clip) / SR - 0.15))
        on = c.t_discard + lead
        level = rnd.uniform(-22, -10) - (6.0 if rnd.random() < QUIET else 0.0)
        scene.add(s, clip, on, level)
        placed = Placed(s, on, len(clip) / SR, source)
        truth.claims.append((c, placed, case, other))
        truth.calls.append(placed)
        truth.speech.append((s, on, on + placed.dur))
    busy = list(windows)

    def free(t: float, dur: float) -> bool:
        return all(t + dur + 1.0 < a or t > b + 1.0 for a, b in busy)

    # sustained table talk (a WMC-13.6 finding), a few per hand; short remarks; phones
    for _ in range(int(rnd.uniform(1, 3))):
        talk = voices.chatter(lang, rnd.uniform(3.2, 6.0))
        for _try in range(30):
            t = rnd.uniform(LEAD_S + 5, end - len(talk) / SR - 2)
            if free(t, len(talk) / SR):
                s = rnd.randrange(4)
                scene.add(s, talk, t, rnd.uniform(-22, -12))
                truth.conduct.append(("talking", t, t + len(talk) / SR, s))
                truth.speech.append((s, t, t + len(talk) / SR))
                busy.append((t, t + len(talk) / SR))
                break
    for _ in range(int((end - LEAD_S) / 60)):
        remark = voices.chatter(lang, 0.1)[: int(1.2 * SR)]
        t = rnd.uniform(LEAD_S, end - 3)
        if free(t, len(remark) / SR):
            s = rnd.randrange(4)
            scene.add(s, remark, t, rnd.uniform(-24, -14))
            truth.speech.append((s, t, t + len(remark) / SR))
            busy.append((t, t + len(remark) / SR))
    if rnd.random() < 0.7:
        ring = ring_tone(rng, rings=rnd.randint(2, 4))
        for _try in range(30):
            t = rnd.uniform(LEAD_S + 5, end - len(ring) / SR - 1)
            if free(t, len(ring) / SR):
                s = rnd.randrange(4)
                scene.add(s, ring, t, rnd.uniform(-32, -22))
                truth.conduct.append(("phone", t, t + len(ring) / SR, s))
                break
    return scene.render(), truth


def _other_voice(
    lang: Lang,
    c: Claim,
    s: int,
    case: str,
    speakers: list[str],
    voices: Voices,
    scene: Scene,
    truth: Truth,
) -> int | None:
    """Another seat's voice in the claim's window (``case``): its talk over the window, or its
    call of a word on the same discard (no discarder calls on his own tile); its seat."""
    rnd = voices.rng
    if case == "silent":
        return None
    others = [k for k in range(4) if k != s and "ESWN"[k] != c.discarder]
    other = rnd.choice(others)
    if case == "other chatting":
        # over the whole window, within the stretch where speech is a call's (no WMC-13.6
        # talking: that is counted apart)
        on = c.t_discard + rnd.uniform(-0.4, 0.3)
        talk = voices.chatter(lang, c.t_exposed + 0.9 - on)[: int((c.t_exposed + 0.9 - on) * SR)]
        scene.add(other, talk, on, rnd.uniform(-22, -10))
        truth.speech.append((other, on, on + len(talk) / SR))
        return other
    word = rnd.choice(["pung", "kong", "win"])
    clip, source = voices.call(lang, word, speakers[other])
    room = max(0.1, c.t_exposed - c.t_discard - len(clip) / SR)
    on = c.t_discard + rnd.uniform(0.1, room)
    scene.add(other, clip, on, rnd.uniform(-22, -10))
    placed = Placed(other, on, len(clip) / SR, source)
    truth.second_calls[c.id] = (other, word, on)
    truth.calls.append(placed)
    truth.speech.append((other, on, on + placed.dur))
    return other


@dataclass
class Tally:
    n: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    onset_ms: list[float] = field(default_factory=list)

    def add(self, key: str, k: float = 1.0) -> None:
        self.n[key] += k


def analyse(
    x: Audio, truth: Truth, spotter: Spotter | None, tally: Tally
) -> tuple[float, list[ConductEvent]]:
    t = time.process_time()
    cal = calibrate_venue(x, 30.0)
    act = SeatActivity(band_levels(x), cal.floors, SEATS)
    verifier = ClaimVerifier(x, act, SEATS, spotter=spotter)
    verdicts = [(verifier.verify(c), c, p, case, o) for c, p, case, o in truth.claims]
    det = ConductDetectors(
        cal,
        SEATS,
        allowed_windows=[(c.t_discard, c.t_exposed) for c, *_ in truth.claims],
        win_times=[
            (c.t_exposed, c.seat) for c, *_ in truth.claims if c.kind in ("win", "selfdraw")
        ],
    )
    events = det.run(x, verifier.utterances)
    cpu = time.process_time() - t
    for v, c, placed, case, other in verdicts:
        unspoken = placed is None
        flagged = v.spoken is False
        for at in ("", f"{case}:"):  # every claim, and its case's
            tally.add(f"{at}claims")
            tally.add(f"{at}unspoken" if unspoken else f"{at}spoken")
            tally.add(f"{at}uncertain", v.spoken is None)
            tally.add(f"{at}tp", unspoken and flagged)
            tally.add(f"{at}fp", (not unspoken) and flagged)
            if placed is not None and v.spoken and v.word is not None:
                tally.add(f"{at}words_{placed.source}")
                tally.add(f"{at}words_right_{placed.source}", v.word == c.kind)
            if unspoken and other is not None:  # the voice heard named as the other seat's
                tally.add(f"{at}others_heard")
                tally.add(f"{at}others_named", v.seat_heard == "ESWN"[other])
        second = truth.second_calls.get(c.id)
        if second is not None and placed is not None:  # double talk: both calls heard?
            seat, word, on = second
            heard = [w for o, t, w in v.others if o == "ESWN"[seat] and abs(t - on) <= ONSET_S]
            both = bool(v.spoken) and abs((v.onset or -9.0) - placed.t) <= ONSET_S and bool(heard)
            tally.add("double")
            tally.add("double_onsets", both)
            if spotter is not None:
                tally.add("double_spotted")
                tally.add("double_words", both and v.word == c.kind and heard[0] == word)
        if v.spoken is None:  # why, its seat and seconds aside
            why = re.sub(
                r"\d+\.\d+ s", "… s", re.sub(r"^[ESWN]'s voice", "a seat's voice", v.reason)
            )
            tally.add(f"uncertain: {why}")
        if placed is not None and v.spoken:
            tally.onset_ms.append(abs((v.onset or 0.0) - placed.t) * 1000)
    for p in truth.calls:  # heard at its own seat?
        tally.add("placed")
        tally.add(
            "seat_right",
            any(
                u.channel == p.seat and u.start < p.t + p.dur and p.t < u.end
                for u in verifier.utterances
            ),
        )
    for u in verifier.utterances:  # speech given to a seat where nobody spoke then
        if any(u.start < p.t + p.dur and p.t < u.end for p in truth.calls):
            tally.add("call_utts")
            tally.add(
                "wrong_seat",
                not any(s == u.channel and u.start < b and a < u.end for s, a, b in truth.speech),
            )
    matched: set[int] = set()
    for e in events:
        hit = next(
            (
                i
                for i, (kind, a, b, _s) in enumerate(truth.conduct)
                if i not in matched and kind == e.kind and e.t_start < b + 0.3 and a - 0.3 < e.t_end
            ),
            None,
        )
        if hit is None:
            tally.add(f"false_{e.kind}")
        else:
            matched.add(hit)
            tally.add(f"found_{e.kind}")
            tally.add(f"seat_ok_{e.kind}", "ESWN".index(e.seat or "E") == truth.conduct[hit][3])
    for kind, *_ in truth.conduct:
        tally.add(f"true_{kind}")
    return cpu, events


def pct(a: float, b: float) -> str:
    return f"{100 * a / b:5.1f} %" if b else "    –"


def report(lang: str, tally: Tally, hours: float, cpu: float) -> dict[str, Any]:
    n = tally.n
    flagged = n["tp"] + n["fp"]
    on = sorted(tally.onset_ms)
    res: dict[str, Any] = {
        "claims": n["claims"],
        "unspoken": n["unspoken"],
        "unspoken_precision": n["tp"] / flagged if flagged else None,
        "unspoken_recall": n["tp"] / n["unspoken"] if n["unspoken"] else None,
        "uncertain": n["uncertain"],
        "word_acc_synthetic_heldapart": n["words_right_synthetic"] / n["words_synthetic"]
        if n["words_synthetic"]
        else None,
        "word_acc_real_seen_in_training": n["words_right_real"] / n["words_real"]
        if n["words_real"]
        else None,
        "words_synthetic": n["words_synthetic"],
        "words_real": n["words_real"],
        "seat_attribution": n["seat_right"] / n["placed"] if n["placed"] else None,
        "wrong_seat_utterances": n["wrong_seat"],
        "utterances_on_calls": n["call_utts"],
        "placed_calls": n["placed"],
        "double_talk": n["double"],
        "double_talk_both_onsets": n["double_onsets"] / n["double"] if n["double"] else None,
        "double_talk_both_words": n["double_words"] / n["double_spotted"]
        if n["double_spotted"]
        else None,
        "onset_err_ms_p50": on[len(on) // 2] if on else None,
        "onset_err_ms_p95": on[int(0.95 * (len(on) - 1))] if on else None,
        "hours": hours,
        "cpu_pct_of_core": 100 * cpu / (hours * 3600),
    }
    res["uncertain_why"] = {
        k.split(": ", 1)[1]: v for k, v in n.items() if k.startswith("uncertain: ")
    }
    res["cases"] = {}
    for case, _ in CASES:
        at = f"{case}:"
        got = n[f"{at}tp"] + n[f"{at}fp"]
        words = n[f"{at}words_synthetic"] + n[f"{at}words_real"]
        right = n[f"{at}words_right_synthetic"] + n[f"{at}words_right_real"]
        res["cases"][case] = {
            "claims": n[f"{at}claims"],
            "unspoken": n[f"{at}unspoken"],
            "unspoken_precision": n[f"{at}tp"] / got if got else None,
            "unspoken_recall": n[f"{at}tp"] / n[f"{at}unspoken"] if n[f"{at}unspoken"] else None,
            "uncertain": n[f"{at}uncertain"],
            "word_acc": right / words if words else None,
            "other_seat_named": n[f"{at}others_named"] / n[f"{at}others_heard"]
            if n[f"{at}others_heard"]
            else None,
        }
        print(
            f"       {case:<15} claims {int(n[f'{at}claims']):>4} (unspoken "
            f"{int(n[f'{at}unspoken']):>3}, uncertain {int(n[f'{at}uncertain'])})  unspoken P "
            f"{pct(n[f'{at}tp'], got)} R {pct(n[f'{at}tp'], n[f'{at}unspoken'])}  words "
            f"{pct(right, words)} (n {int(words)})  other seat named "
            f"{pct(n[f'{at}others_named'], n[f'{at}others_heard'])}"
        )
    for why, k in res["uncertain_why"].items():
        print(f"       uncertain {int(k)}: {why}")
    print(
        f"       double talk     claims {int(n['double']):>4} (the claimer and another seat call "
        f"on one discard)  both onsets {pct(n['double_onsets'], n['double'])}  both words "
        f"{pct(n['double_words'], n['double_spotted'])}"
    )
    false_alerts = 0.0
    for kind in ("slam", "phone", "talking"):
        found, true, false = n[f"found_{kind}"], n[f"true_{kind}"], n[f"false_{kind}"]
        res[f"{kind}_recall"] = found / true if true else None
        res[f"{kind}_precision"] = found / (found + false) if found + false else None
        res[f"{kind}_true"] = true
        false_alerts += false
    res["false_conduct_per_hour"] = false_alerts / hours
    print(
        f"  {lang:<4} claims {int(n['claims']):>4} (unspoken {int(n['unspoken']):>3}, uncertain "
        f"{int(n['uncertain'])})  unspoken P {pct(n['tp'], flagged)} R "
        f"{pct(n['tp'], n['unspoken'])}  words syn "
        f"{pct(n['words_right_synthetic'], n['words_synthetic'])} "
        f"(n {int(n['words_synthetic'])}) real* {pct(n['words_right_real'], n['words_real'])} "
        f"(n {int(n['words_real'])})  seat {pct(n['seat_right'], n['placed'])} "
        f"(n {int(n['placed'])}, wrong seat {int(n['wrong_seat'])}/{int(n['call_utts'])})  "
        f"onset p50/p95 {res['onset_err_ms_p50'] or 0:.0f}/"
        f"{res['onset_err_ms_p95'] or 0:.0f} ms"
    )
    print(
        "       "
        + "  ".join(
            f"{k} R {pct(n[f'found_{k}'], n[f'true_{k}'])} P "
            f"{pct(n[f'found_{k}'], n[f'found_{k}'] + n[f'false_{k}'])} (n {int(n[f'true_{k}'])})"
            for k in ("slam", "phone", "talking")
        )
        + f"  false conduct {res['false_conduct_per_hour']:.1f}/h  CPU "
        f"{res['cpu_pct_of_core']:.2f} % of a core  ({hours * 60:.0f} min of play)"
    )
    return res


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hands", type=int, default=2, help="hands per language (default 2)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--langs", default=",".join(LANGS))
    ap.add_argument("--no-words", action="store_true", help="skip the word spotter")
    args = ap.parse_args()
    spotter = None
    if not args.no_words:
        spotter = Spotter(OnnxHead(REPO / "models" / "voice_spotter.onnx"), SpeechEncoder())
    results: dict[str, Any] = {"hands_per_language": args.hands, "seed": args.seed}
    total = Tally()
    total_h = total_cpu = 0.0
    started = time.time()
    print(f"table audio bench: {args.hands} hand(s) per language, seed {args.seed}")
    for li, lang in enumerate(args.langs.split(",")):
        voices = Voices(random.Random(args.seed * 100 + li))
        rng = np.random.default_rng(args.seed * 100 + li)
        tally = Tally()
        hours = cpu = 0.0
        hands = split_hands(simulate(hands=args.hands, seed=args.seed * 100 + li))
        for hand in hands:
            x, truth = render_hand(hand, lang, voices, rng)
            c, _events = analyse(x, truth, spotter, tally)
            cpu += c
            hours += len(x) / SR / 3600
        results[lang] = report(lang, tally, hours, cpu)
        for k, v in tally.n.items():
            total.n[k] += v
        total.onset_ms += tally.onset_ms
        total_h += hours
        total_cpu += cpu
    results["all"] = report("all", total, total_h, total_cpu)
    print(
        "  * real recordings: the shipped spotter was trained on these speakers (not independent)"
    )
    print(f"  ({time.time() - started:.0f} s wall)")
    out = REPO / "build" / "voice" / "table_audio.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
