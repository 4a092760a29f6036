"""Conduct sounds (WMC-13.6), one detector each, calibrated per venue: sustained talking at a
seat outside calls, a slammed tile, a ringing phone. Every event carries its clip reference.

- Talking: an utterance run at one seat (gaps under 0.8 s bridged) spanning ≥ ``chatter_s``,
  half of it speech, outside the claim windows (a call is short and allowed); not a ring tone.
- Slam: an impulse (a 2.5 ms peak ≥ 18 dB over the 40 ms before it, gone 30–60 ms later and
  not followed by a vowel: a tile, not a voice) ``slam_db`` over the venue's calibrated clack
  level (``SPEECH_SLAM_DB`` more while that seat speaks: a plosive's burst is as sharp); one slam
  per winner as the winning tile is laid is allowed.
- Phone: tonal frames (two spectral peaks hold most of the 600–4000 Hz energy: a ring tone, not
  a voice's many harmonics; one or two steady pitches) in bursts, repeating — ≥ 2 bursts less
  than 5 s apart holding ≥ 1.2 s of tone, or one of ≥ 1.5 s.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import numpy.typing as npt

from voice.audio_io import SR, Audio
from voice.events import Seat
from voice.seats import Calibration, SeatActivity, Utterance, _runs, band_levels

ConductKind = Literal["talking", "slam", "phone"]
F64 = npt.NDArray[np.float64]
PEAK = 40  # 2.5 ms peak blocks
SPEECH_SLAM_DB = 6.0  # a slam while the seat speaks: this much louder than one in silence


@dataclass(frozen=True)
class ConductEvent:
    kind: ConductKind
    rule: str
    seat: Seat | None
    channel: int
    t_start: float
    t_end: float
    detail: str
    clip: str = ""  # "AUDIO#t=START,END" (media-fragment time range)

    def to_json(self) -> dict[str, object]:
        return {
            "kind": self.kind,
            "rule": self.rule,
            "seat": self.seat,
            "channel": self.channel,
            "t_start": round(self.t_start, 2),
            "t_end": round(self.t_end, 2),
            "detail": self.detail,
            "clip": self.clip,
        }


def clip_ref(name: str, t0: float, t1: float) -> str:
    return f"{name}#t={max(0.0, t0):.2f},{t1:.2f}"


@dataclass(frozen=True)
class VenueCalibration:
    """What a venue sets (or the session start measures): the noise floors and the clack level."""

    floors: Calibration
    clack_db: float  # typical peak of a tile laid down, dBFS (2.5 ms peak)
    slam_db: float = 12.0
    chatter_s: float = 2.5  # talking: a run this long (half of it speech)
    ring_tonal: float = 0.6


def peak_db(audio: Audio) -> F64:
    """(blocks, channels) peak level in dBFS per 2.5 ms block."""
    x = audio.reshape(len(audio), -1)
    n = len(x) // PEAK
    p = np.abs(x[: n * PEAK]).reshape(n, PEAK, x.shape[1]).max(axis=1)
    return np.asarray(20 * np.log10(p.astype(np.float64) + 1e-9))


@dataclass(frozen=True)
class Impulse:
    block: int
    channel: int
    peak_db: float  # dBFS, loudest channel

    @property
    def t(self) -> float:
        return self.block * PEAK / SR


def impulses(peaks: F64) -> list[Impulse]:
    """Tile-like impulses: a sharp rise over the last 40 ms and a quick decay after."""
    if len(peaks) < 40:
        return []
    loud = peaks.max(axis=1)
    n = len(loud)
    # the quietest-but-one 2.5 ms block of the 40 ms before each block
    pad = np.concatenate([np.full(16, loud[0]), loud])
    before = np.sort(np.lib.stride_tricks.sliding_window_view(pad[:-1], 16)[:n], axis=1)[:, 4]
    cand = np.flatnonzero(loud - before >= 18.0)
    out: list[Impulse] = []
    last = -(10**9)
    for k in cand.tolist():
        if k - last < 40:  # one impulse per 100 ms
            continue
        top = k + int(np.argmax(loud[k : k + 4]))
        tail = loud[top + 12 : top + 24]
        after = loud[top + 32 : top + 100]  # 80–250 ms on: a plosive runs into its vowel
        if len(tail) == 0 or float(np.median(tail)) > loud[top] - 14.0:
            continue  # sustained: a voice or a hum
        if len(after) and float(np.percentile(after, 75)) > loud[top] - 16.0:
            continue
        out.append(Impulse(top, int(np.argmax(peaks[top])), float(loud[top])))
        last = k
    return out


def gain_offsets(floors: Calibration) -> F64:
    """Each mic's gain relative to the others' (dB), read off the hall noise it hears: levels
    less this compare across channels."""
    f = floors.array().mean(axis=0)
    return np.asarray(f - f.mean())


def calibrate_venue(audio: Audio, seconds: float = 30.0) -> VenueCalibration:
    """Noise floors and the clack level from the first ``seconds`` (play as usual)."""
    head = audio[: int(seconds * SR)]
    floors = Calibration.measure(band_levels(head))
    imps = impulses(peak_db(head) - gain_offsets(floors)[None, :])
    clack = float(np.median([i.peak_db for i in imps])) if len(imps) >= 3 else -20.0
    return VenueCalibration(floors, clack)


def _tonality(audio: Audio) -> tuple[F64, F64, npt.NDArray[np.intp]]:
    """Per 32 ms frame of the channel mix: (fraction of 600–4000 Hz energy in the two strongest
    peaks ±1 bin, level dB, the strongest bin)."""
    x = audio.reshape(len(audio), -1).mean(axis=1)
    n = max(0, (len(x) - 512) // 512 + 1)
    if n == 0:
        return np.zeros(0), np.zeros(0), np.zeros(0, np.intp)
    frames = x[: n * 512].reshape(n, 512) * np.hanning(512).astype(np.float32)
    spec = np.abs(np.fft.rfft(frames, axis=1)) ** 2
    band = spec[:, 19:129]  # 600–4000 Hz: above a voice's pitch, where a ring tone sits
    total = band.sum(axis=1) + 1e-12
    top = np.argmax(band, axis=1)
    work = band.copy()
    got = np.zeros(n)
    for _ in range(2):
        k = np.argmax(work, axis=1)
        for d in (-1, 0, 1):
            j = np.clip(k + d, 0, band.shape[1] - 1)
            got += work[np.arange(n), j]
            work[np.arange(n), j] = 0.0
    level = 10 * np.log10(total / band.shape[1] + 1e-12)
    return got / total, level, top


def _steady(bins: npt.NDArray[np.intp]) -> bool:
    """A ring holds one or two pitches through a burst; a voice's pitch and formants move."""
    values, counts = np.unique(bins, return_counts=True)
    near = [int(counts[np.abs(values - v) <= 1].sum()) for v in values]
    best = sorted(near, reverse=True)
    a = int(values[int(np.argmax(near))])
    rest = bins[np.abs(bins - a) > 1]
    b = 0
    if len(rest):
        vr, cr = np.unique(rest, return_counts=True)
        b = max(int(cr[np.abs(vr - v) <= 1].sum()) for v in vr)
    return (best[0] + b) >= 0.8 * len(bins)


@dataclass
class ConductDetectors:
    """The three detectors over one recording (or one block of a session)."""

    calibration: VenueCalibration
    seats: Sequence[Seat | None]
    name: str = "audio"
    allowed_windows: list[tuple[float, float]] = field(default_factory=list)  # claim windows
    win_times: list[tuple[float, Seat | None]] = field(default_factory=list)  # winning tile laid

    def run(
        self, audio: Audio, utterances: list[Utterance] | None = None, offset: float = 0.0
    ) -> list[ConductEvent]:
        if utterances is None:
            act = SeatActivity(band_levels(audio), self.calibration.floors, self.seats)
            utterances = act.utterances(audio=audio)
        phones = self.phones(audio)
        speech = [  # a ring tone is not a voice
            u
            for u in utterances
            if not any(u.start < p.t_end and p.t_start < u.end for p in phones)
        ]
        out = self.talking(speech) + self.slams(audio, speech) + phones
        if offset:
            out = [
                ConductEvent(
                    e.kind,
                    e.rule,
                    e.seat,
                    e.channel,
                    e.t_start + offset,
                    e.t_end + offset,
                    e.detail,
                    clip_ref(self.name, e.t_start + offset - 0.5, e.t_end + offset + 0.5),
                )
                for e in out
            ]
        return sorted(out, key=lambda e: e.t_start)

    def _allowed(self, t0: float, t1: float) -> bool:
        return any(a - 0.5 <= t0 and t1 <= b + 1.0 for a, b in self.allowed_windows)

    def talking(self, utterances: list[Utterance]) -> list[ConductEvent]:
        out: list[ConductEvent] = []
        by_ch: dict[int, list[Utterance]] = {}
        for u in utterances:
            if not self._allowed(u.start, u.end):
                by_ch.setdefault(u.channel, []).append(u)
        for ch, us in by_ch.items():
            us.sort(key=lambda u: u.start)
            group: list[Utterance] = []
            for nxt in [*us, None]:
                if nxt is not None and (not group or nxt.start - group[-1].end < 0.8):
                    group.append(nxt)
                    continue
                speech = sum(g.duration for g in group)
                span = group[-1].end - group[0].start if group else 0.0
                if span >= self.calibration.chatter_s and speech >= 0.5 * span:
                    t0, t1 = group[0].start, group[-1].end
                    out.append(
                        ConductEvent(
                            "talking",
                            "WMC-13.6",
                            group[0].seat,
                            ch,
                            t0,
                            t1,
                            f"{speech:.1f} s of speech at seat {group[0].seat or '?'} outside "
                            "a call",
                            clip_ref(self.name, t0 - 0.5, t1 + 0.5),
                        )
                    )
                group = [nxt] if nxt is not None else []
        return out

    def slams(self, audio: Audio, speech: Sequence[Utterance] = ()) -> list[ConductEvent]:
        """Impulses ``slam_db`` over the clack; within speech at the same seat
        ``SPEECH_SLAM_DB`` more (a plosive's burst is as sharp as a tile, not as loud as a slam)."""
        out: list[ConductEvent] = []
        limit = self.calibration.clack_db + self.calibration.slam_db
        excused: set[int] = set()
        peaks = peak_db(audio) - gain_offsets(self.calibration.floors)[None, :]
        last = -1.0
        for imp in impulses(peaks):
            if imp.peak_db < limit or imp.t - last < 0.3:  # (a slammed tile bounces)
                continue
            talking = any(
                u.channel == imp.channel and u.start - 0.05 <= imp.t <= u.end for u in speech
            )
            if talking and imp.peak_db < limit + SPEECH_SLAM_DB:
                continue
            last = imp.t
            seat = self.seats[imp.channel]
            win = next(
                (
                    i
                    for i, (t, s) in enumerate(self.win_times)
                    if i not in excused and abs(imp.t - t) <= 1.5 and s in (None, seat)
                ),
                None,
            )
            if win is not None:
                excused.add(win)  # WMC-13.6: the winning tile once is allowed
                continue
            out.append(
                ConductEvent(
                    "slam",
                    "WMC-13.6",
                    seat,
                    imp.channel,
                    imp.t,
                    imp.t + 0.05,
                    f"tile slammed: peak {imp.peak_db:.0f} dBFS, "
                    f"{imp.peak_db - self.calibration.clack_db:.0f} dB over the venue's clack",
                    clip_ref(self.name, imp.t - 1.0, imp.t + 1.0),
                )
            )
        return out

    def phones(self, audio: Audio) -> list[ConductEvent]:
        tonal, level, top = _tonality(audio)
        if len(tonal) == 0:
            return []
        floor = float(np.percentile(level, 20))
        mask = (tonal >= self.calibration.ring_tonal) & (level > floor + 10)
        fs = SR / 512  # frames per second
        bursts = [
            (a / fs, b / fs)
            for a, b in _runs(mask, 2)
            if (b - a) / fs >= 0.3 and _steady(top[a:b][mask[a:b]])
        ]
        out: list[ConductEvent] = []
        i = 0
        while i < len(bursts):
            j = i
            while j + 1 < len(bursts) and bursts[j + 1][0] - bursts[j][1] < 5.0:
                j += 1
            group = bursts[i : j + 1]
            long = max(b - a for a, b in group)
            tonal_s = sum(b - a for a, b in group)  # a voice holds a pitch for a vowel at most
            if (len(group) >= 2 and tonal_s >= 1.2) or long >= 1.5:
                t0, t1 = group[0][0], group[-1][1]
                ch = self._loudest(audio, t0, t1)
                out.append(
                    ConductEvent(
                        "phone",
                        "WMC-13.6",
                        self.seats[ch],
                        ch,
                        t0,
                        t1,
                        f"phone ringing: {len(group)} tonal burst(s) over {t1 - t0:.1f} s",
                        clip_ref(self.name, t0 - 0.5, t1 + 0.5),
                    )
                )
            i = j + 1
        return out

    def _loudest(self, audio: Audio, t0: float, t1: float) -> int:
        seg = audio[int(t0 * SR) : int(t1 * SR)].reshape(-1, audio.reshape(len(audio), -1).shape[1])
        floors = self.calibration.floors.array().max(axis=0)
        lv = 10 * np.log10(np.mean(seg.astype(np.float64) ** 2, axis=0) + 1e-12) - floors
        return int(np.argmax(lv))
