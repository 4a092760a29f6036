"""Enrolment: at seating a player says each call a few times; the spotter then also matches
those takes (nearest prototype: cosine similarity of encoded windows, each minus the window of
the room just before the word), which covers an accent or a house variant the head never heard.
Profiles are small .npz files.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from voice.audio_io import SR, Audio
from voice.encoder import STEP, SpeechEncoder
from voice.head import CLASSES
from voice.vad import EnergyGate

F32 = npt.NDArray[np.float32]
PLAYER_RE = re.compile(r"^[\w.-]{1,64}$")


class EnrolError(ValueError):
    """A take without a usable word, or a bad player name / profile."""


def take_windows(enc: SpeechEncoder, audio: Audio, *, max_windows: int = 4) -> F32:
    """Encoded windows of one take, aligned as the detector aligns them (word end + 80-400 ms),
    each minus the window of the room just before the word (as the detector measures them)."""
    rng = np.random.default_rng(0)
    # Pad with noise at the take's own floor (quietest 10 ms frames), leaving room for a
    # background window before the word.
    frames = audio[: len(audio) // 160 * 160].reshape(-1, 160) if len(audio) >= 160 else audio[None]
    floor = float(np.sqrt(np.percentile(np.mean(frames.astype(np.float64) ** 2, axis=1), 10)))
    floor = max(floor, 1e-5)
    before = rng.normal(0, floor, int(2.6 * SR)).astype(np.float32)
    after = rng.normal(0, floor, int(1.0 * SR)).astype(np.float32)
    x = np.concatenate([before, audio.astype(np.float32), after])
    gate = EnergyGate()
    segs = gate.feed(x) + gate.flush()
    if not segs:
        raise EnrolError("no speech found in the take (too quiet?)")
    seg = max(segs, key=lambda s: s.end - s.start)
    if seg.end - seg.start > 2 * SR:
        raise EnrolError("the take is longer than 2 s: say only the call")
    ends = list(range(seg.end + int(0.08 * SR), seg.end + int(0.4 * SR) + 1, STEP // 2))
    wins: F32 = enc.at(x, ends[: 2 * max_windows]) - enc.at(x, [seg.start])
    return wins


@dataclass
class Profile:
    player: str
    windows: F32  # (n, FRAMES, DIM)
    labels: npt.NDArray[np.int16]  # class index per window

    def save(self, directory: Path) -> Path:
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / f"{self.player}.npz"
        np.savez(
            path,
            windows=self.windows.astype(np.float16),
            labels=self.labels,
            meta=np.asarray(json.dumps({"player": self.player, "classes": list(CLASSES)})),
        )
        return path

    @staticmethod
    def load(directory: Path, player: str) -> Profile:
        check_player(player)
        path = directory / f"{player}.npz"
        if not path.is_file():
            raise EnrolError(
                f"no voice profile for {player!r} in {directory} (run mjref voice enrol)"
            )
        try:
            with np.load(path) as z:
                meta = json.loads(str(z["meta"]))
                win, lab = z["windows"].astype(np.float32), z["labels"].astype(np.int16)
        except (OSError, ValueError, KeyError) as exc:
            raise EnrolError(f"{path}: corrupt voice profile ({exc})") from exc
        if tuple(meta.get("classes", ())) != CLASSES:
            raise EnrolError(f"{path}: made for another class list; enrol again")
        return Profile(player, win, lab)


def check_player(name: str) -> str:
    if not PLAYER_RE.match(name):
        raise EnrolError(f"player name {name!r}: use letters, digits, '.', '-' or '_'")
    return name


def build_profile(enc: SpeechEncoder, player: str, takes: list[tuple[int, Audio]]) -> Profile:
    """``takes``: (class index, audio) pairs, a few per call."""
    check_player(player)
    wins, labels = [], []
    for label, audio in takes:
        w = take_windows(enc, audio)
        wins.append(w)
        labels += [label] * len(w)
    return Profile(player, np.concatenate(wins), np.asarray(labels, dtype=np.int16))


def _unit(x: F32) -> F32:
    f = x.reshape(len(x), -1)
    result: F32 = (f / (np.linalg.norm(f, axis=1, keepdims=True) + 1e-9)).astype(np.float32)
    return result


class ProfileAdapter:
    """Raises a call's probability when the window matches an enrolled take of it."""

    def __init__(self, profiles: list[Profile], *, sim_threshold: float = 0.56) -> None:
        if not profiles:
            raise EnrolError("no profiles to adapt to")
        self.protos = _unit(np.concatenate([p.windows for p in profiles]))
        self.labels = np.concatenate([p.labels for p in profiles])
        self.sim_threshold = sim_threshold

    def similarity(self, windows: F32, background: F32) -> F32:
        """(B, classes) best cosine similarity to an enrolled take of each class."""
        sims = _unit(windows - background[None]) @ self.protos.T
        out = np.full((len(windows), len(CLASSES)), -1.0, dtype=np.float32)
        for c in np.unique(self.labels):
            out[:, c] = sims[:, self.labels == c].max(axis=1)
        return out

    def adapt(self, probs: F32, windows: F32, background: F32) -> F32:
        """Where a window matches an enrolled take, mix that call in with weight 0.5-1."""
        sim = self.similarity(windows, background)
        t = self.sim_threshold
        out = probs.copy()
        for b in range(len(windows)):
            c = int(sim[b, 1:].argmax()) + 1
            if sim[b, c] >= t:
                w = 0.5 + 0.5 * float(sim[b, c] - t) / (1.0 - t)
                out[b] *= 1.0 - w
                out[b, c] += w
        return out
