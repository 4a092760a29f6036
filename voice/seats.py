"""Who is speaking: per-seat speech from one microphone per seat (or an array).

Every mic hears every voice at a table, and the mics' gains differ, so the loudest raw channel
is not always the speaker's. Levels are therefore taken over each channel's own calibrated noise
floor (the hall noise reaches all mics alike, so this cancels a gain difference), in frequency
bands (two people talking at once each dominate some bands), and a channel counts as speaking
only where it is not explained as cross-talk: within ``xt_db`` of the loudest channel in a band.
Where two channels are close with the same onset (one sound at two mics), the one whose signal
arrives first (GCC-PHAT) is the speaker's; two seats talking at once start apart and both stand.
How loud each seat speaks at its own mic (:meth:`SeatActivity.voice_db`) says where another
voice's cross-talk could hide a call of its own (:meth:`SeatActivity.covered`): only there is a
seat's silence unsure.
With a mic array at the table centre, :func:`seat_from_tdoa` names the seat from time
differences instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from voice.audio_io import SR, Audio
from voice.events import Seat

HOP = 320  # 20 ms frames
NFFT = 512
XT_OVER_DB = 4.0  # own speech: this far over what cross-talk from the others explains
VOICE_DB = 24.0  # a seat not yet heard enough: its speech is taken this far over its floor
SAME_ONSET_S = 0.06  # one sound at two mics starts within a few frames (the delay is ≤ 3 ms)
CORE_FRAMES = 5  # 0.1 s: the unbroken speech an utterance needs (a voiced vowel)
MIN_VOICE_FRAMES = 25  # own-speech frames (0.5 s) that tell how loud a seat speaks
LEAK_OVER_DB = 10.0  # cross-talk is measured where a seat alone speaks this far over the margin
LEAK_CELLS = 30  # … in this many frame-bands (a call or two); a quieter far mic reads as noise,
# which only makes the cross-talk seem louder than it is
BANDS_HZ = ((150, 500), (500, 1000), (1000, 2000), (2000, 4000))
F64 = npt.NDArray[np.float64]


class ChannelMapError(ValueError):
    """A channel → seat mapping that does not fit the audio."""


def channel_map(spec: str | None, channels: int, seat: Seat | None = None) -> list[Seat | None]:
    """``"E,S,W,N"`` → one seat per channel (``-`` for an unused channel); mono takes ``seat``."""
    if spec is None:
        if channels == 1:
            return [seat]
        if channels == 4:
            return ["E", "S", "W", "N"]
        raise ChannelMapError(
            f"{channels} channels: say which seat each is with --channels (e.g. E,S,W,N)"
        )
    names = [s.strip().upper() for s in spec.split(",")]
    if len(names) != channels:
        raise ChannelMapError(f"--channels names {len(names)} seats, the audio has {channels}")
    out: list[Seat | None] = []
    for n in names:
        if n in ("-", ""):
            out.append(None)
        elif n in ("E", "S", "W", "N"):
            out.append(n)  # type: ignore[arg-type]
        else:
            raise ChannelMapError(f"--channels: {n!r} is not a seat (E, S, W, N or -)")
    known = [s for s in out if s is not None]
    if len(set(known)) != len(known):
        raise ChannelMapError("--channels names a seat twice")
    return out


def band_levels(audio: Audio) -> F64:
    """(frames, bands, channels) energy in dB, 20 ms hop."""
    x = audio.reshape(len(audio), -1).astype(np.float32)
    n = max(0, (len(x) - NFFT) // HOP + 1)
    if n == 0:
        return np.full((0, len(BANDS_HZ), x.shape[1]), -120.0)
    win = np.hanning(NFFT).astype(np.float32)
    idx = np.arange(NFFT)[None, :] + HOP * np.arange(n)[:, None]
    out = np.empty((n, len(BANDS_HZ), x.shape[1]))
    freqs = np.fft.rfftfreq(NFFT, 1 / SR)
    for c in range(x.shape[1]):
        spec = np.abs(np.fft.rfft(x[idx, c] * win, axis=1)) ** 2
        for b, (lo, hi) in enumerate(BANDS_HZ):
            sel = (freqs >= lo) & (freqs < hi)
            out[:, b, c] = 10 * np.log10(spec[:, sel].mean(axis=1) + 1e-12)
    return out


def frame_time(frame: int) -> float:
    """Centre of a 20 ms analysis frame, seconds from the start."""
    return (frame * HOP + NFFT / 2) / SR


@dataclass(frozen=True)
class Calibration:
    """Per-channel noise floor per band (dB), measured at the start of a session."""

    floor: tuple[tuple[float, ...], ...]  # [band][channel]

    @staticmethod
    def measure(levels: F64, percentile: float = 20.0) -> Calibration:
        if len(levels) == 0:
            raise ValueError("no audio to calibrate on")
        f = np.percentile(levels, percentile, axis=0)
        return Calibration(tuple(tuple(float(v) for v in row) for row in f))

    def array(self) -> F64:
        return np.asarray(self.floor, dtype=np.float64)


@dataclass(frozen=True)
class Utterance:
    """Speech attributed to one seat (channel), seconds from the stream start."""

    channel: int
    seat: Seat | None
    start: float
    end: float
    snr_db: float  # loudest band over the floor
    lead_db: float  # margin over the next channel (attribution confidence)

    @property
    def duration(self) -> float:
        return round(self.end - self.start, 3)  # (start and end are rounded to the ms)


@dataclass
class SeatActivity:
    """Frame-wise own-speech per channel, and its utterances.

    ``margin_db``: over the floor to be speech; ``xt_db``: how far below the loudest channel a
    band may be and still be this channel's own voice (cross-talk at a table arrives ≥ 8 dB down).
    """

    levels: F64
    calibration: Calibration
    seats: Sequence[Seat | None]
    margin_db: float = 12.0
    xt_db: float = 5.0
    prior: TableAcoustics | None = None  # what the session learnt before, where this cannot tell

    def __post_init__(self) -> None:
        snr = self.levels - self.calibration.array()[None, :, :]
        self.snr = snr
        loud = snr.max(axis=2, keepdims=True)
        first = (snr > self.margin_db) & (snr >= loud - self.xt_db)
        self.measured_leak = self._leak(snr, first.sum(axis=1) >= 2)  # NaN: not measured
        known = self.prior.leak if self.prior is not None else None
        self.known_leak = _or(self.measured_leak, known, np.nan)  # NaN: neither measured nor learnt
        self.leak = _or(self.known_leak, None, -self.xt_db)
        self.pred = _cross_talk(snr, self.leak)
        own, self.own = _own_speech(snr, self.pred, self.margin_db)
        self.measured_voice = np.full(snr.shape[1:], np.nan)  # (bands, channels), dB
        # per band, where its speech reaches it: a low voice has no treble, nor a high one bass
        for ch in range(snr.shape[2]):
            for band in range(snr.shape[1]):
                heard = self.own[:, ch] & own[:, band, ch]
                if heard.sum() >= MIN_VOICE_FRAMES:
                    self.measured_voice[band, ch] = float(np.median(snr[heard, band, ch]))

    def voice_db(self, channel: int) -> F64:
        """How loud this seat's own speech is at its microphone, per band (dB over the floor):
        the median of its own-speech frames that reach the band — below a call's loud vowels,
        so that a call said softer than usual counts too — else what the session learnt, else
        ``VOICE_DB``."""
        known = self.prior.voice if self.prior is not None else None
        level: F64 = _or(self.measured_voice, known, VOICE_DB)[:, channel]
        return level

    def covered(self, channel: int, t0: float, t1: float) -> tuple[float, int | None]:
        """The longest stretch of [t0, t1) in which a call of this seat at its usual level
        would not stand out as its own speech (:meth:`_would_show`): the others' voices reach
        its mic about as loud (seconds, and the channel whose voice covers it most). Quieter
        cross-talk hides nothing: a call would rise over it."""
        a, b = max(0, int(t0 * SR) // HOP), max(0, int(t1 * SR) // HOP)
        hidden = ~self._would_show(channel, a, b)
        # a call shows where 0.1 s of it rises unbroken (``utterances``' core): gaps in the
        # other voice shorter than that hide it still
        longest = max((y - x for x, y in _runs(hidden, CORE_FRAMES - 1)), default=0)
        if not longest:
            return 0.0, None
        others = [s for s in range(self.snr.shape[2]) if s != channel]
        heard = self.snr[a:b][hidden][:, :, others].max(axis=(0, 1))
        return longest * HOP / SR, others[int(np.argmax(heard))]

    def _would_show(self, channel: int, a: int, b: int) -> npt.NDArray[np.bool_]:
        """Frames ``a:b`` in which a call of this seat at its usual level (:meth:`voice_db`)
        would count as its own speech: its mic would hear the call over what is there, the
        other mics its cross-talk, and own speech is judged on those levels as in
        ``__post_init__``."""
        level = self.voice_db(channel)  # (bands,)
        snr = self.snr[a:b]
        call = level[None, :, None] + np.where(np.eye(snr.shape[2]) > 0, 0.0, self.leak)[channel]
        now = 10 * np.log10(10 ** (snr / 10) + 10 ** (call / 10))  # at its mic, leaked at others
        _, own = _own_speech(now, _cross_talk(now, self.leak), self.margin_db)
        shows: npt.NDArray[np.bool_] = own[:, channel]
        return shows

    def _leak(self, snr: F64, single: npt.NDArray[np.bool_]) -> F64:
        """Cross-talk s → d in dB (of the levels over each floor), measured where s alone
        speaks clearly; NaN where too little was heard to measure."""
        c = snr.shape[2]
        leak = np.full((c, c), np.nan)
        for s in range(c):
            alone = single[:, s] & (single.sum(axis=1) == 1)
            strong = snr[alone][:, :, s] > self.margin_db + LEAK_OVER_DB  # (frames, bands)
            if strong.sum() < LEAK_CELLS:
                continue
            for d in range(c):
                if d != s:
                    diff = (snr[alone][:, :, d] - snr[alone][:, :, s])[strong]
                    leak[s, d] = min(-3.0, float(np.percentile(diff, 90)))
        return leak

    def utterances(
        self,
        min_s: float = 0.1,
        gap_s: float = 0.25,
        audio: Audio | None = None,
        core_s: float = CORE_FRAMES * HOP / SR,
    ) -> list[Utterance]:
        """Runs of own-speech frames, gaps under ``gap_s`` bridged, holding ``core_s`` of
        unbroken speech (a voiced vowel; a tile's click is shorter); where two channels claim
        the same stretch within 3 dB, ``audio`` lets GCC-PHAT keep the one that leads."""
        out: list[Utterance] = []
        gap = int(gap_s * SR / HOP)
        for c in range(self.own.shape[1]):
            for a, b in _runs(self.own[:, c], gap):
                core = max((y - x for x, y in _runs(self.own[a:b, c], 0)), default=0)
                if (b - a) * HOP / SR < min_s or core * HOP / SR < core_s:
                    continue  # too short, or clicks (tiles laid) bridged into a run
                seg = self.snr[a:b]
                mine = seg[:, :, c].max(axis=1)
                others = np.delete(seg, c, axis=2).max(axis=(1, 2)) if seg.shape[2] > 1 else None
                lead = float(np.median(mine - others)) if others is not None else 99.0
                out.append(
                    Utterance(
                        c,
                        self.seats[c],
                        round(frame_time(a) - HOP / 2 / SR, 3),
                        round(frame_time(b - 1) + HOP / 2 / SR, 3),
                        round(float(mine.max()), 1),
                        round(lead, 1),
                    )
                )
        if audio is not None:
            out = _resolve_ties(out, audio)
        return sorted(out, key=lambda u: u.start)


def _cross_talk(snr: F64, leak: F64) -> F64:
    """What each channel would show from the others' voices alone (frames, bands, channels):
    more than that is its own."""
    c = snr.shape[2]
    pred = np.full_like(snr, -np.inf)
    for s in range(c):
        for d in range(c):
            if s != d:
                pred[:, :, d] = np.maximum(pred[:, :, d], snr[:, :, s] + leak[s, d])
    return pred


def _own_speech(
    snr: F64, pred: F64, margin_db: float
) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
    """Own speech by band (frames, bands, channels) and by frame (frames, channels): over the
    margin and ``XT_OVER_DB`` over the cross-talk, in two bands or clearly in one (a voice low in
    treble)."""
    own = (snr > margin_db) & (snr >= pred + XT_OVER_DB)
    strong = own & (snr > margin_db + 6)
    return own, (own.sum(axis=1) >= 2) | strong.any(axis=1)


@dataclass
class TableAcoustics:
    """What a session learns of its table as it is heard: the cross-talk from each seat to each
    other microphone and how loud each seat speaks at its own, refined from every stretch
    analysed. A claim's window of a few seconds seldom tells either; without them the
    cross-talk is taken as loud as it may be (``xt_db``) and a seat's voice as ``VOICE_DB``."""

    leak: F64 | None = None  # (seat, mic) dB, NaN: not heard yet
    voice: F64 | None = None  # (band, seat) dB

    def learn(self, act: SeatActivity) -> None:
        self.leak = _blend(self.leak, act.measured_leak)
        self.voice = _blend(self.voice, act.measured_voice)


def _blend(known: F64 | None, new: F64) -> F64:
    """The running estimate: what was known moved a third of the way to each new measurement
    (a seat moving its chair changes its cross-talk), the unmeasured kept."""
    if known is None:
        return new.copy()
    out: F64 = np.where(
        np.isnan(new), known, np.where(np.isnan(known), new, known + (new - known) / 3)
    )
    return out


def _or(measured: F64, known: F64 | None, default: float) -> F64:
    """``measured`` where it is, else ``known`` where that is, else ``default``."""
    out = measured if known is None else np.where(np.isnan(measured), known, measured)
    filled: F64 = np.where(np.isnan(out), default, out)
    return filled


def _runs(mask: npt.NDArray[np.bool_], gap: int) -> list[tuple[int, int]]:
    idx = np.flatnonzero(mask)
    if len(idx) == 0:
        return []
    runs: list[tuple[int, int]] = []
    start = prev = int(idx[0])
    for i in idx[1:]:
        i = int(i)
        if i - prev - 1 > gap:
            runs.append((start, prev + 1))
            start = i
        prev = i
    runs.append((start, prev + 1))
    return runs


def gcc_phat(sig: Audio, ref: Audio, max_lag: int) -> int:
    """Delay of ``sig`` relative to ``ref`` in samples (positive: ``sig`` arrives later)."""
    n = len(sig) + len(ref)
    s = np.fft.rfft(sig, n) * np.conj(np.fft.rfft(ref, n))
    cc = np.fft.irfft(s / (np.abs(s) + 1e-12), n)
    cc = np.concatenate([cc[-max_lag:], cc[: max_lag + 1]])
    return int(np.argmax(np.abs(cc))) - max_lag


def _resolve_ties(utts: list[Utterance], audio: Audio) -> list[Utterance]:
    """Overlapping utterances on two channels with < 3 dB between them and the same onset
    (one sound heard at two mics): keep the one whose channel the sound reaches first (the
    nearer mic)."""
    drop: set[int] = set()
    for i, u in enumerate(utts):
        for j, v in enumerate(utts):
            if j <= i or i in drop or j in drop or u.channel == v.channel:
                continue
            if (
                not (u.start < v.end and v.start < u.end)
                or abs(u.start - v.start) > SAME_ONSET_S
                or abs(u.lead_db) > 3
                or abs(v.lead_db) > 3
            ):
                continue  # (two seats talking at once start apart: both are kept)
            a, b = int(max(u.start, v.start) * SR), int(min(u.end, v.end) * SR)
            if b - a < 800:
                continue
            lag = gcc_phat(audio[a:b, u.channel], audio[a:b, v.channel], max_lag=160)
            if lag > 0:
                drop.add(i)
            elif lag < 0:
                drop.add(j)
    return [u for k, u in enumerate(utts) if k not in drop]


SPEED_OF_SOUND = 343.0


def seat_from_tdoa(
    audio: Audio,
    mic_xy: Sequence[tuple[float, float]],
    seat_angles: dict[Seat, float] | None = None,
) -> Seat:
    """A mic array at the table centre: the direction of the voice from GCC-PHAT time
    differences (least squares over mic pairs, far field), then the seat nearest that angle
    (degrees; default E at 270° — the rig's camera view, S 0°, W 90°, N 180°)."""
    angles = seat_angles or {"S": 0.0, "W": 90.0, "N": 180.0, "E": 270.0}
    xy = np.asarray(mic_xy, dtype=np.float64)
    rows, taus = [], []
    span = float(np.max(np.linalg.norm(xy[:, None] - xy[None], axis=2)))
    max_lag = int(np.ceil(span / SPEED_OF_SOUND * SR)) + 2
    for i in range(len(xy)):
        for j in range(i + 1, len(xy)):
            lag = gcc_phat(audio[:, i], audio[:, j], max_lag)
            rows.append(xy[j] - xy[i])  # arrival at i minus arrival at j = (xj - xi)·u / c
            taus.append(lag / SR * SPEED_OF_SOUND)
    u, *_ = np.linalg.lstsq(np.asarray(rows), np.asarray(taus), rcond=None)
    angle = float(np.degrees(np.arctan2(u[1], u[0]))) % 360
    return min(angles, key=lambda s: abs((angles[s] - angle + 180) % 360 - 180))
