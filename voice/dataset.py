"""Training windows for the spotter: synthesize or load a clip, put it in a noisy room, and
encode the 2 s windows that end where the detector decides (just after the word ends). Clips are
processed in parallel chunks and cached as .npz."""

from __future__ import annotations

import json
import random
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from voice import augment, synth
from voice.audio_io import SR, Audio, read_audio
from voice.corpus import CHATTER, JA_IPA_CHATTER
from voice.encoder import DIM, FRAMES, SPAN, STEP, SpeechEncoder
from voice.events import LANGS, WORDS
from voice.head import CLASSES
from voice.vocab import load_vocab

# Decision point: the detector looks at the window ending 80-560 ms after the word's end.
END_LAG = (0.08, 0.56)


@dataclass(frozen=True)
class ClipSpec:
    """A clip to render: real (``path``) or synthetic (``voice`` + text forms)."""

    label: int  # index into CLASSES
    lang: str
    group: str  # speaker group (real) or voice key (synthetic)
    source: str  # "real" | "espeak" | "kokoro" | "hibari"
    text: str = ""
    path: str = ""
    engine_voice: str = ""
    speed: float = 1.0
    pitch: int = 50
    n_aug: int = 1
    seed: int = 0
    clean: bool = False  # a quiet room (SNR 40 dB, no reverb): the rig also meets silence


def label_index(lang: str, word: str) -> int:
    return CLASSES.index(f"{lang}:{word}") if word in WORDS else 0


def render(spec: ClipSpec) -> Audio:
    if spec.source == "real":
        return read_audio(Path(spec.path), mono=True)
    v = synth.Voice(spec.source, spec.engine_voice, spec.speed, spec.pitch)
    if spec.source == "espeak":
        vocab = load_vocab()
        return synth.espeak(spec.text, vocab[spec.lang].espeak_voice, v)  # type: ignore[index]
    if spec.source == "kokoro":
        return synth.kokoro(spec.text, v)
    return synth.hibari(spec.text, v)


def canvas(
    clip: Audio, rng: np.random.Generator, babble: list[Audio], *, clean: bool = False
) -> tuple[Audio, int, int, float]:
    """The clip in a noisy room, ending ≥1.95 s in, 0.7 s after; returns (audio, on, off)."""
    x = clip
    factor = 1.0
    if not clean:
        if rng.random() < 0.5:
            factor = float(rng.uniform(0.9, 1.1))
            x = augment.speed(x, factor)
        if rng.random() < 0.6:
            x = augment.reverb(x, rng)
    # A window spans 2 s: put the word's end past that point, so its windows are full.
    pre = int(SR * (max(0.3, 1.95 - len(x) / SR) + rng.uniform(0.0, 0.6)))
    n = pre + len(x) + int(0.7 * SR)
    speech = np.zeros(n, dtype=np.float32)
    speech[pre : pre + len(x)] = x
    bed = augment.noise_bed(rng, n, babble if not clean else None)
    snr = 40.0 if clean else float(rng.uniform(3, 30))
    y = augment.mix_at_snr(speech, bed, snr)
    peak = float(np.abs(y).max()) + 1e-9
    y = y / peak * 10 ** (float(rng.uniform(-38, -3)) / 20)
    return y.astype(np.float32), pre, pre + len(x), factor


def first_word_end(clip: Audio) -> int:
    """End of the first speech segment (≥150 ms) the gate finds in a clip."""
    from voice.vad import EnergyGate

    pad = np.zeros(int(0.5 * SR), np.float32)
    x = np.concatenate([pad, clip, pad]) + np.random.default_rng(0).normal(0, 1e-4, len(clip) + SR)
    gate = EnergyGate()
    segs = [
        s for s in gate.feed(x.astype(np.float32)) + gate.flush() if s.end - s.start >= 0.15 * SR
    ]
    if not segs:
        return len(clip)
    return min(len(clip), segs[0].end - len(pad))


def decision_ends(n: int, off: int, positive: bool, rng: np.random.Generator) -> list[int]:
    """Up to 4 window ends (samples) to keep from a canvas of ``n`` samples whose word ends at
    ``off``: on a grid with a random phase, as a live stream meets it."""
    grid = range(SPAN - STEP + int(rng.integers(0, STEP)), n + 1, STEP)
    ends = [e for e in grid if END_LAG[0] <= (e - off) / SR <= END_LAG[1]]
    if not positive:  # negatives also teach what mid-speech windows look like
        ends += [e for e in grid if e not in ends and rng.random() < 0.3]
    rng.shuffle(ends)
    return ends[:4]


def process(
    specs: list[ClipSpec], babble_specs: list[ClipSpec]
) -> dict[str, npt.NDArray[np.generic]]:
    """Render, augment and encode a chunk of specs (runs in a worker process)."""
    enc = SpeechEncoder()
    babble: list[Audio] = []
    for b in babble_specs:
        try:
            babble.append(render(b))
        except Exception:
            continue
    xs: list[npt.NDArray[np.float16]] = []
    ys: list[int] = []
    groups: list[str] = []
    for spec in specs:
        try:
            clip = render(spec)
        except Exception:
            continue
        if len(clip) < 800 or (len(clip) > int(1.8 * SR) and spec.source != "real"):
            continue
        call_end = len(clip)
        if spec.source == "real" and spec.label != 0:
            call_end = first_word_end(clip)  # real calls may run on ("碰！……"): label the call
        rng = np.random.default_rng(spec.seed)
        for a in range(spec.n_aug):
            clean = spec.clean or (a == 0 and spec.source == "real")
            y, on, _off, factor = canvas(clip, rng, babble, clean=clean)
            ends = decision_ends(len(y), on + int(call_end / factor), spec.label != 0, rng)
            if ends:
                xs.append(enc.at(y, ends).astype(np.float16))
                ys += [spec.label] * len(ends)
                groups += [spec.group] * len(ends)
    return {
        "x": np.concatenate(xs) if xs else np.zeros((0, FRAMES, DIM), np.float16),
        "y": np.asarray(ys, dtype=np.int16),
        "group": np.asarray(groups),
    }


def _espeak_split() -> tuple[list[str], list[str]]:
    """espeak variants for training and the ones held apart (every 5th) for evaluation."""
    names = sorted(synth.espeak_variants())
    return [n for i, n in enumerate(names) if i % 5 != 2], [
        n for i, n in enumerate(names) if i % 5 == 2
    ]


KOKORO_HELD = "jf_tebukuro"


def synthetic_specs(
    *, heldout: bool, scale: float = 1.0, seed: int = 0, clean: bool = False
) -> list[ClipSpec]:
    """Synthetic clips: calls from the vocabulary, hard negatives and chatter, per language.

    ``heldout`` selects the voices kept apart from training (for evaluation only).
    """
    rnd = random.Random(seed + (1 if heldout else 0))
    train_v, held_v = _espeak_split()
    variants = held_v if heldout else train_v
    vocab = load_vocab()
    specs: list[ClipSpec] = []

    def add(
        label: int,
        lang: str,
        text: str,
        source: str,
        voice: str,
        speed: float = 1.0,
        pitch: int = 50,
    ) -> None:
        specs.append(
            ClipSpec(
                label=label,
                lang=lang,
                group=f"syn:{source}:{voice}",
                source=source,
                text=text,
                engine_voice=voice,
                seed=rnd.randrange(1 << 30),
                speed=speed,
                pitch=pitch,
                clean=clean,
            )
        )

    n_neg = max(1, int(12 * scale)) if not heldout else 3
    for lang in LANGS:
        lv = vocab[lang]
        for word, p in lv.phrases():
            for v in (
                variants
                if scale >= 1 or heldout
                else rnd.sample(variants, max(2, int(len(variants) * scale)))
            ):
                add(
                    label_index(lang, word),
                    lang,
                    p.say,
                    "espeak",
                    v,
                    speed=rnd.uniform(0.75, 1.35),
                    pitch=rnd.randint(20, 85),
                )
        negs = [p.say for p in lv.hard_negatives] + list(CHATTER[lang])
        for text in negs:
            for v in rnd.sample(variants, min(len(variants), n_neg)):
                add(
                    0,
                    lang,
                    text,
                    "espeak",
                    v,
                    speed=rnd.uniform(0.75, 1.35),
                    pitch=rnd.randint(20, 85),
                )
    try:
        kvoices = [KOKORO_HELD] if heldout else [v for v in synth.KOKORO_VOICES if v != KOKORO_HELD]
        for kv in kvoices:
            for word, p in vocab["ja"].phrases():
                for _ in range(2 if heldout else max(1, int(5 * scale))):
                    add(
                        label_index("ja", word),
                        "ja",
                        p.ipa or "",
                        "kokoro",
                        kv,
                        speed=rnd.uniform(0.8, 1.3),
                    )
            for ipa in [p.ipa for p in vocab["ja"].hard_negatives if p.ipa] + list(JA_IPA_CHATTER):
                add(0, "ja", ipa, "kokoro", kv, speed=rnd.uniform(0.8, 1.3))
        if not heldout:
            for word, p in vocab["en"].phrases():
                for _ in range(max(1, int(6 * scale))):
                    add(
                        label_index("en", word),
                        "en",
                        p.text,
                        "hibari",
                        "heart",
                        speed=rnd.uniform(0.8, 1.3),
                    )
            for text in CHATTER["en"]:
                add(0, "en", text, "hibari", "heart", speed=rnd.uniform(0.8, 1.3))
    except synth.SynthError:
        pass
    return specs


def real_specs(root: Path, n_aug: int = 8) -> list[ClipSpec]:
    """The dev recordings (shared/data/voice-calls-dev), never copied into the project."""
    specs = []
    for k, line in enumerate((root / "manifest.jsonl").read_text(encoding="utf-8").splitlines()):
        row = json.loads(line)
        word = row["label"] if row["label"] in WORDS else "negative"
        specs.append(
            ClipSpec(
                label=label_index(row["lang"], word),
                lang=row["lang"],
                group=row["speaker_group"],
                source="real",
                path=str(root / row["path"]),
                n_aug=n_aug,
                seed=1000 + k,
            )
        )
    return specs


def babble_specs(seed: int) -> list[ClipSpec]:
    rnd = random.Random(seed)
    vocab = load_vocab()
    out = []
    for _ in range(8):
        lang = rnd.choice(LANGS)
        out.append(
            ClipSpec(
                label=0,
                lang=lang,
                group="babble",
                source="espeak",
                text=" ".join(rnd.sample(CHATTER[lang], 4)),
                engine_voice=rnd.choice(synth.espeak_variants()),
                speed=1.1,
            )
        )
    del vocab
    return out


def build(specs: list[ClipSpec], out: Path, workers: int = 2) -> Path:
    """Encode all specs into ``out`` (.npz with x, y, group), in ``workers`` processes."""
    from concurrent.futures import ProcessPoolExecutor

    chunks = [specs[i : i + 40] for i in range(0, len(specs), 40)]
    parts: list[dict[str, npt.NDArray[np.generic]]] = []
    with ProcessPoolExecutor(workers) as pool:
        futs = [pool.submit(process, c, babble_specs(i)) for i, c in enumerate(chunks)]
        for i, f in enumerate(futs):
            parts.append(f.result())
            print(f"[dataset] {out.name}: chunk {i + 1}/{len(chunks)}", flush=True)
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez(
        out,
        x=np.concatenate([p["x"] for p in parts]),
        y=np.concatenate([p["y"] for p in parts]),
        group=np.concatenate([p["group"] for p in parts]),
        specs=np.asarray([json.dumps(asdict(s)) for s in specs[:0]]),
    )
    return out
