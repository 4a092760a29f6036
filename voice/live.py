"""A table heard through a session, block by block: the noise floors calibrated at its start,
claims checked as the rig asks (WMC-5.2, 5.5, 5.7) and conduct sounds found as they happen
(WMC-13.6) — :mod:`voice.verify` and :mod:`voice.conduct` over a ring of the recent audio.

Times are seconds of the audio stream (sample 0 = 0.0); the rig maps them to its session clock.
Messages out are plain dicts for the voice worker to print: ``{"calibrated": …}``,
``{"verdict": …}``, ``{"conduct": …}``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from voice.audio_io import SR, Audio
from voice.conduct import ConductDetectors, ConductEvent, VenueCalibration, calibrate_venue
from voice.events import Seat
from voice.seats import SeatActivity, TableAcoustics, band_levels
from voice.verify import POST_S, PRE_S, Claim, ClaimVerifier, Spotter, Verdict

Message = dict[str, Any]
LEAD_S = 3.0  # audio before the discard the verifier sees (the speech runs' context)
TAIL_S = POST_S + 0.2  # audio after the exposure a claim waits for: its window (a call running
# into the showing) and long enough to hear a call begun at the window's end
CLIP_AFTER_S = 1.0  # the referee's clip of a claim runs this long past its window
WINDOW_S = 20.0  # conduct: each analysis sees this much (a phone's rings, a long talk) …
HOP_S = 5.0  # … every this much new audio
SETTLE_S = 2.0  # a conduct event ending this close to the analysed end waits for the next pass
FIRST_S = 5.0  # a claim heard before the calibration is done is answered on this much or more


class TableListener:
    """Calibration, claim checks and conduct detection over one audio source."""

    def __init__(
        self,
        seats: Sequence[Seat | None],
        *,
        calibrate_s: float = 30.0,
        ring_s: float = 180.0,
        spotter: Spotter | None = None,
        acoustics: TableAcoustics | None = None,
    ) -> None:
        self.seats = list(seats)
        self.calibrate_s = calibrate_s
        self.ring_n = int(ring_s * SR)
        self.spotter = spotter
        self.calibration: VenueCalibration | None = None
        self.provisional = False  # calibrated on the first seconds only, for a claim's sake
        self.blocks: deque[tuple[int, Audio]] = deque()  # (first sample, block)
        self.samples = 0  # samples heard so far
        self.analysed = 0  # conduct: analysed up to this sample
        self.pending: list[Claim] = []
        self.windows: list[tuple[float, float]] = []  # claim windows: calls there are no chatter
        self.reported: list[ConductEvent] = []
        self.ended = False
        # the table's cross-talk and voices: as heard before play (the rig's check), then in play
        self.acoustics = acoustics if acoustics is not None else TableAcoustics()

    # ---- audio in ------------------------------------------------------------------------

    def feed(self, block: Audio) -> list[Message]:
        x = block.reshape(len(block), -1).astype(np.float32)
        self.blocks.append((self.samples, x))
        self.samples += len(x)
        while (
            self.blocks and self.blocks[0][0] + len(self.blocks[0][1]) < self.samples - self.ring_n
        ):
            self.blocks.popleft()
        out: list[Message] = []
        if (self.calibration is None or self.provisional) and self.samples >= self.calibrate_s * SR:
            out += self._calibrate()
        if self.calibration is not None and not self.provisional:
            while self.samples - self.analysed >= HOP_S * SR:
                out += self._conduct(self.analysed + int(HOP_S * SR))
        return out + self._answer()

    def finish(self) -> list[Message]:
        """The source ended: calibrate on what there is, analyse the rest, answer every claim."""
        self.ended = True
        out: list[Message] = []
        if (self.calibration is None or self.provisional) and self.samples >= SR:
            out += self._calibrate()
        if self.calibration is not None and self.samples > self.analysed:
            out += self._conduct(self.samples, final=True)
        return out + self._answer()

    def segment(self, t0: float, t1: float) -> tuple[float, Audio]:
        """The ring's audio from ``t0`` to ``t1`` (clipped to what it holds): (start, audio)."""
        a, b = max(0, int(t0 * SR)), min(self.samples, int(t1 * SR))
        parts = [
            blk[max(0, a - s) : max(0, b - s)]
            for s, blk in self.blocks
            if s < b and s + len(blk) > a
        ]
        first = next((s for s, blk in self.blocks if s + len(blk) > a), a)
        start = max(a, first)
        if not parts:
            return start / SR, np.zeros((0, len(self.seats)), np.float32)
        return start / SR, np.concatenate(parts)

    # ---- calibration -----------------------------------------------------------------------

    def _calibrate(self, provisional: bool = False) -> list[Message]:
        """The noise floors and clack level of the first ``calibrate_s`` heard (``provisional``:
        of what is heard so far, for a claim that cannot wait; the full stretch follows)."""
        start, head = self.segment(0.0, self.calibrate_s)
        self.calibration = calibrate_venue(head, self.calibrate_s)
        self.provisional = provisional
        floors = self.calibration.floors.array().mean(axis=0)
        cal = {
            "from_s": round(start, 2),
            "seconds": round(len(head) / SR, 2),
            "floors_db": [round(float(f), 1) for f in floors],
            "clack_db": round(self.calibration.clack_db, 1),
            "seats": self.seats,
        }
        return [{"calibrated": cal | ({"provisional": True} if provisional else {})}]

    # ---- claims --------------------------------------------------------------------------

    def request(self, claim: Claim) -> list[Message]:
        """Check ``claim`` once its window is heard (at once if it already is)."""
        self.pending.append(claim)
        self.windows.append((claim.t_discard - PRE_S, claim.t_exposed + TAIL_S))
        return self._answer()

    def _answer(self) -> list[Message]:
        """The claims whose windows are heard. One heard before the calibration is done does
        not wait for it (each hand's first claim fell in the first 30 s of a session and its
        alert came up to 22 s late): the floors are measured on the ``FIRST_S`` or more heard
        so far, and measured again on the whole stretch once it is heard."""
        ready = [
            c for c in self.pending if self.ended or self.samples >= (c.t_exposed + TAIL_S) * SR
        ]
        out: list[Message] = []
        if ready and self.calibration is None:
            if self.samples < FIRST_S * SR and not self.ended:
                return out
            if self.samples >= SR:
                out += self._calibrate(provisional=self.samples < self.calibrate_s * SR)
        self.pending = [c for c in self.pending if c not in ready]
        return out + [{"verdict": self._verify(c)} for c in ready]

    def _verify(self, claim: Claim) -> Message:
        t0, t1 = claim.t_discard - PRE_S, claim.t_exposed + POST_S + CLIP_AFTER_S
        clip = {"t0": round(max(0.0, t0), 2), "t1": round(t1, 2)}
        start, seg = self.segment(claim.t_discard - LEAD_S, claim.t_exposed + TAIL_S + 0.5)
        if self.calibration is None:
            v = Verdict(claim.id, claim.seat, claim.kind, None, reason="no audio heard yet")
        elif start > max(0.0, t0) + 0.05 or len(seg) < SR // 2:
            v = Verdict(
                claim.id, claim.seat, claim.kind, None, reason="the window is no longer heard"
            )
        else:
            act = self._activity(seg)
            local = replace(
                claim, t_discard=claim.t_discard - start, t_exposed=claim.t_exposed - start
            )
            v = ClaimVerifier(seg, act, self.seats, spotter=self.spotter).verify(local)
            v = replace(
                v,
                onset=None if v.onset is None else v.onset + start,
                others=tuple((s, t + start, w) for s, t, w in v.others),
                t_exposed=claim.t_exposed,
            )
        return v.to_json() | {"seat": claim.seat, "kind": claim.kind} | clip

    def _activity(self, seg: Audio) -> SeatActivity:
        assert self.calibration is not None
        floors = self.calibration.floors
        return SeatActivity(band_levels(seg), floors, self.seats, prior=self.acoustics)

    # ---- conduct -------------------------------------------------------------------------

    def _conduct(self, upto: int, *, final: bool = False) -> list[Message]:
        """Analyse the last ``WINDOW_S`` up to sample ``upto``; report what ended in it and was
        not reported from an earlier, overlapping pass."""
        assert self.calibration is not None
        self.analysed = upto
        start, seg = self.segment(upto / SR - WINDOW_S, upto / SR)
        if len(seg) < SR:
            return []
        windows = [(a - start, b - start) for a, b in self.windows]
        det = ConductDetectors(self.calibration, self.seats, allowed_windows=windows)
        act = self._activity(seg)
        self.acoustics.learn(act)  # every stretch heard tells more of the table
        end = upto / SR
        out: list[Message] = []
        for e in det.run(seg, act.utterances(audio=seg), offset=start):
            if not final and e.t_end > end - SETTLE_S:
                continue  # may go on: the next pass sees all of it
            if any(
                r.kind == e.kind
                and r.channel == e.channel
                and r.t_start < e.t_end + 0.3
                and e.t_start < r.t_end + 0.3
                for r in self.reported
            ):
                continue
            self.reported.append(e)
            out.append({"conduct": e.to_json()})
        self.reported = [r for r in self.reported if r.t_end > end - 2 * WINDOW_S]
        self.windows = [w for w in self.windows if w[1] > end - 2 * WINDOW_S]
        return out
