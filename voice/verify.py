"""Claim verification (WMC-5.2, 5.5, 5.7): was the claim the core recorded spoken, by that seat,
before the tiles were shown?

The decision "spoken or not" rests on speech at the claimer's seat in the window from the
discard (or draw) to the exposure — voice activity and seat attribution, which do not need the
word spotter to be right. The spotter only names the word, scored over the words legal at that
moment (after a discard: chow for the discarder's next player only, pung, kong, win; on one's
own turn: kong, self-draw), and hears the claimer's microphone with the other seats' voices
taken out (voice/crosstalk.py). Another seat talking or calling in the window is that seat's voice
(``seat_heard``), not a reason to stand aside: the claimer's own call would rise over its
cross-talk. A window is uncertain — no alert, a note saying why — only where the claimer could
not have been heard: his mic dead or clipped, or another voice (or noise) reaching his mic as
loud as he speaks (one mic alone: any sound that loud).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from referee.events import (
    Call,
    CallKind,
    Chow,
    Discard,
    Draw,
    Event,
    Kong,
    KongKind,
    Observation,
    Payload,
    Pung,
    ReplacementDraw,
    Source,
    WinDeclared,
)
from referee.evidence import seen_at
from voice.audio_io import SR, Audio
from voice.crosstalk import leak_gains, without_others
from voice.detect import LAG
from voice.encoder import STEP, SpeechEncoder
from voice.events import WORDS, Seat, Word
from voice.head import Head
from voice.seats import HOP, SeatActivity, Utterance

ClaimKind = Literal["chow", "pung", "kong", "win", "selfdraw"]
NEXT: dict[str, str] = {"E": "S", "S": "W", "W": "N", "N": "E"}
PRE_S = 0.3  # a call may start just before the discard lands
POST_S = 0.4  # ... and run into the exposure (except a kong: WMC-5.5)
MIN_SPEECH_S = 0.1
DROWNED_DB = 15.0  # one microphone this far over its floor throughout: nothing can be told
CAMERA_LAG_S = 1.0  # a discard or draw the camera logged moved about this long before (its
# settle time: bench/table_vision.py's median latency is 0.7 s)
OPEN_MAX_S = 10.0  # a discard logged with its claim: its window opens at most this long before
AROUND_S = 0.15  # the claimer's utterance as the spotter hears it: this much on either side …
QUIET_PERCENTILE = 20  # … and its context no louder than the microphone's quiet (this percentile)
CALL_S = 0.3  # the shortest call: a stretch this long where one could hide makes silence unsure


class ClaimError(ValueError):
    """A claim line that cannot be checked."""


@dataclass(frozen=True)
class Claim:
    """What the core recorded: ``t_discard`` is the discard claimed, or the draw before an
    own-turn kong or self-drawn win (``own_turn``)."""

    id: str
    seat: Seat
    kind: ClaimKind
    t_discard: float
    t_exposed: float
    own_turn: bool = False
    discarder: Seat | None = None

    @staticmethod
    def from_json(obj: Any) -> Claim:
        if not isinstance(obj, dict):
            raise ClaimError(f"a claim is a JSON object, got {obj!r}")
        try:
            seat = str(obj["seat"]).upper()
            kind = str(obj["kind"])
            t0 = float(obj["t_discard"] if "t_discard" in obj else obj["t_draw"])
            t1 = float(obj["t_exposed"])
        except (KeyError, TypeError, ValueError) as exc:
            raise ClaimError(
                f"claim {obj.get('id')!r}: needs id, seat, kind, t_discard (or t_draw), "
                f"t_exposed ({exc})"
            ) from exc
        if seat not in NEXT:
            raise ClaimError(f"claim {obj.get('id')!r}: seat {seat!r} is not E, S, W or N")
        if kind not in WORDS:
            raise ClaimError(f"claim {obj.get('id')!r}: kind {kind!r} is not one of {WORDS}")
        if t1 < t0:
            raise ClaimError(f"claim {obj.get('id')!r}: t_exposed is before t_discard")
        own = bool(obj.get("own_turn", "t_draw" in obj or kind == "selfdraw"))
        disc = obj.get("discarder")
        return Claim(
            str(obj.get("id", "")),
            seat,  # type: ignore[arg-type]
            kind,
            t0,
            t1,
            own,
            str(disc).upper() if disc else None,  # type: ignore[arg-type]
        )


def legal_words(claim: Claim) -> tuple[Word, ...]:
    """What could have been called at that moment (WMC-5.2, 5.4)."""
    if claim.own_turn:
        return ("kong", "selfdraw")
    chow_ok = claim.discarder is None or NEXT[claim.discarder] == claim.seat
    rest: tuple[Word, ...] = ("pung", "kong", "win")
    return ("chow", *rest) if chow_ok else rest


@dataclass(frozen=True)
class Verdict:
    id: str
    seat: Seat
    kind: ClaimKind
    spoken: bool | None
    word: Word | None = None
    conf: float | None = None
    onset: float | None = None  # seconds from the stream start
    seat_heard: Seat | None = None
    rule: str | None = None  # WMC-5.2 / 5.5 when unspoken
    reason: str = ""
    clip: str = ""
    scores: dict[str, float] = field(default_factory=dict)
    # other seats heard in the window, for the WMC-5.7 priority check: (seat, onset, word)
    others: tuple[tuple[Seat | None, float, Word | None], ...] = ()
    t_exposed: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "spoken": self.spoken,
            "word": self.word,
            "conf": None if self.conf is None else round(self.conf, 3),
            "onset": None if self.onset is None else round(self.onset, 2),
            "before_exposure_s": None
            if self.onset is None
            else round(self.t_exposed - self.onset, 2),
            "seat_heard": self.seat_heard,
            "rule": self.rule,
            "reason": self.reason,
            "clip": self.clip,
            "others": [{"seat": s, "onset": round(t, 2), "word": w} for s, t, w in self.others],
        }


@dataclass
class Spotter:
    """The word spotter, scored over a restricted word list."""

    head: Head
    encoder: SpeechEncoder

    def scores(self, mono: Audio, end: int) -> dict[Word, float]:
        ends = [e for e in (end + LAG, end + LAG + STEP) if e <= len(mono)] or [len(mono)]
        probs = self.head.probs(self.encoder.at(mono, ends)).max(axis=0)
        per_word = probs[1:].reshape(4, 5).sum(axis=0)
        return {w: float(min(1.0, per_word[i])) for i, w in enumerate(WORDS)}


class ClaimVerifier:
    """Checks claims against one recording's (or the live ring buffer's) audio.

    ``audio`` None: no audio input is configured — every answer is uncertain and says why.
    """

    def __init__(
        self,
        audio: Audio | None,
        activity: SeatActivity | None,
        seats: Sequence[Seat | None],
        *,
        spotter: Spotter | None = None,
        name: str = "audio",
    ) -> None:
        self.audio = audio
        self.activity = activity
        self.seats = list(seats)
        self.spotter = spotter
        self.name = name
        self.utterances: list[Utterance] = (
            activity.utterances(audio=audio) if activity is not None and audio is not None else []
        )

    def verify(self, claim: Claim) -> Verdict:
        if self.audio is None or self.activity is None:
            return _verdict(claim, spoken=None, reason="no audio input configured: not checked")
        if claim.seat not in self.seats:
            if self.seats == [None]:
                return self._one_mic(claim)
            return _verdict(claim, spoken=None, reason=f"no microphone for seat {claim.seat}")
        t0 = claim.t_discard - PRE_S
        t1 = claim.t_exposed + (0.0 if claim.kind == "kong" else POST_S)
        clip = _clip(self.name, t0, claim.t_exposed + 1.0)
        in_win = [u for u in self.utterances if t0 <= u.start <= t1 or (u.start < t0 < u.end - 0.2)]
        mine = [u for u in in_win if u.seat == claim.seat and u.duration >= MIN_SPEECH_S]
        others = tuple(
            (u.seat, u.start, self._other_word(claim, u)) for u in in_win if u.seat != claim.seat
        )
        if mine:
            u = min(mine, key=lambda u: u.start)
            word, conf, scores = self._word(claim, u)
            return _verdict(
                claim,
                spoken=True,
                word=word,
                conf=conf,
                onset=u.start,
                seat_heard=claim.seat,
                reason="speech at the claimer's seat",
                clip=clip,
                scores=scores,
                others=others,
            )
        if claim.kind == "kong":
            late = [
                u
                for u in self.utterances
                if u.seat == claim.seat and claim.t_exposed < u.start <= claim.t_exposed + POST_S
            ]
            if late:
                return _verdict(
                    claim,
                    spoken=False,
                    onset=late[0].start,
                    seat_heard=claim.seat,
                    rule="WMC-5.5",
                    reason="kong said only after the tiles were shown",
                    clip=clip,
                    others=others,
                )
        doubt = self._doubt(claim, t0, t1)
        if doubt:
            return _verdict(claim, spoken=None, reason=doubt, clip=clip, others=others)
        rule = "WMC-5.5" if claim.kind == "kong" else "WMC-5.2"
        heard = others[0][0] if others else None
        return _verdict(
            claim,
            spoken=False,
            seat_heard=heard,
            rule=rule,
            reason="no speech at the claimer's seat between the discard and the exposure",
            clip=clip,
            others=others,
        )

    def _one_mic(self, claim: Claim) -> Verdict:
        """One microphone: speech in the window is taken as the claimer's (one mic cannot tell
        the seat; ``seat_heard`` stays None)."""
        assert self.activity is not None
        t0, t1 = claim.t_discard - PRE_S, claim.t_exposed + POST_S
        heard = [u for u in self.utterances if t0 <= u.start <= t1 and u.duration >= MIN_SPEECH_S]
        clip = _clip(self.name, t0, claim.t_exposed + 1.0)
        if not heard:
            doubt = self._doubt(claim, t0, t1, channel=0)
            if doubt:
                return _verdict(claim, spoken=None, reason=doubt, clip=clip)
            rule = "WMC-5.5" if claim.kind == "kong" else "WMC-5.2"
            return _verdict(
                claim, spoken=False, rule=rule, reason="no speech in the window", clip=clip
            )
        word, conf, scores = self._word(claim, heard[0])
        return _verdict(
            claim,
            spoken=True,
            word=word,
            conf=conf,
            onset=heard[0].start,
            seat_heard=None,
            reason="speech in the window (one microphone: seat not heard)",
            clip=clip,
            scores=scores,
        )

    def _word(
        self, claim: Claim, u: Utterance
    ) -> tuple[Word | None, float | None, dict[str, float]]:
        if self.spotter is None or self.audio is None or self.activity is None:
            return None, None, {}
        lo = max(0, int(u.start * SR) - 3 * SR)
        hi = min(len(self.audio), int(u.end * SR) + SR)
        gains = leak_gains(self.activity, u.channel)
        mono = without_others(self.audio[lo:hi], u.channel, gains)
        s = self.spotter.scores(
            _alone(mono, u.start - lo / SR, u.end - lo / SR), int(u.end * SR) - lo
        )
        legal = {w: s[w] for w in legal_words(claim)}
        best = max(legal, key=lambda w: legal[w])
        return best, legal[best], {w: round(v, 3) for w, v in legal.items()}

    def _other_word(self, claim: Claim, u: Utterance) -> Word | None:
        """Another seat's word on the same discard (its own legal words: no chow for it unless
        it is the discarder's next player)."""
        if u.seat is None or u.seat == claim.discarder:
            return None
        other = Claim(
            claim.id,
            u.seat,
            "pung",
            claim.t_discard,
            claim.t_exposed,
            claim.own_turn,
            claim.discarder,
        )
        return self._word(other, u)[0]

    def _doubt(self, claim: Claim, t0: float, t1: float, channel: int | None = None) -> str:
        """Why silence at the seat cannot be trusted, or ''."""
        assert self.activity is not None and self.audio is not None
        c = self.seats.index(claim.seat) if channel is None else channel
        a, b = int(max(0.0, t0) * SR), int(min(t1, len(self.audio) / SR) * SR)
        if b <= a:
            return "the window is outside the recording"
        seg = self.audio[a:b, c].astype(np.float64)
        if float(np.abs(seg).max()) >= 0.999:
            return "the claimer's microphone clipped in the window"
        if float(np.sqrt(np.mean(seg**2))) < 1e-5:
            return "the claimer's microphone is silent (unplugged or muted?)"
        fa, fb = a // 320, max(a // 320 + 1, b // 320)
        if len(self.seats) == 1 or channel is not None:  # one mic: its level alone
            snr = self.activity.snr[fa:fb, :, c]
            if len(snr) and float(np.median(snr.max(axis=1))) > DROWNED_DB:
                return "the window is drowned in noise at the claimer's microphone"
        if len(self.seats) > 1:
            covered, by = self.activity.covered(c, t0, t1)
            if covered >= CALL_S:
                heard = self.seats[by] if by is not None else None
                who = f"{heard}'s voice" if heard else "another seat's voice"
                return (
                    f"{who} reaches the claimer's microphone as loud as the claimer speaks for "
                    f"{covered:.1f} s of the window: a call would not stand out"
                )
        return ""


def _verdict(claim: Claim, spoken: bool | None, **kw: Any) -> Verdict:
    return Verdict(claim.id, claim.seat, claim.kind, spoken, t_exposed=claim.t_exposed, **kw)


def _clip(name: str, t0: float, t1: float) -> str:
    return f"{name}#t={max(0.0, t0):.2f},{t1:.2f}"


def to_events(v: Verdict) -> list[Payload]:
    """What the core consumes, logged before the exposure (source ``voice``, evidence the clip):
    always an ``observation`` (sensor voice, kind ``claim_check``) — the record's note; then a
    ``call`` when the claim was heard, or when unsure (benefit of the doubt: no alert). An
    unspoken claim gets no ``call``, so the core raises WMC-5.2 (5.5 for an added kong) at the
    exposure; the observation carries the clip."""
    data = v.to_json() | {"seat": v.seat, "kind": v.kind}
    out: list[Payload] = [Observation(sensor="voice", kind="claim_check", data=data)]
    if v.spoken is not False:
        call = CallKind.WIN if v.kind == "selfdraw" else CallKind(v.kind)
        out.append(Call.model_validate({"seat": v.seat, "call": call}))
    return out


class ClaimWindows:
    """The claims, kongs and wins in a core log as it grows, with their windows: from the
    discard claimed (or the claimer's own draw, for a concealed or added kong and a self-drawn
    win) to the exposure. ``id`` is the exposure's seq."""

    def __init__(self) -> None:
        self.last_discard: tuple[str, float] | None = None
        self.discard_logged: tuple[float, bool, float] | None = None  # ts, by the camera, and
        # the earliest it may have landed had it not settled alone (see _claimed)
        self.last_draw: tuple[str, float] | None = None
        self.own_turn = False  # the last tile moved was a draw (own turn) rather than a discard
        # the last tile moved (not drawn): when it was logged, when it moved as best known, and
        # the earliest it may have moved had it not settled alone
        self.last_move: tuple[float, float, float] | None = None

    def feed(self, ev: Event) -> Claim | None:
        p = ev.payload
        seat = getattr(p, "seat", None)
        name = seat.name if seat is not None else None
        if isinstance(p, (Discard, Chow, Pung, Kong)):
            moved, earliest = self._moved(ev)
            self.last_move = (_seen(ev), moved, earliest)
        if isinstance(p, Discard):
            # a discard the camera logged with the move before it (a pung and its discard in
            # one frame: the arm over both) may have landed as soon as that move
            self.last_discard = (p.seat.name, moved)
            self.discard_logged = (_seen(ev), ev.source is Source.VISION, earliest)
            self.own_turn = False
        elif isinstance(p, (Draw, ReplacementDraw)):
            drawn = _landed(ev)
            if ev.source is Source.VISION and self.last_move is not None:
                # the camera logs a draw with the move that shows it (its discard, the win laid
                # down): seconds late on a busy machine, so the draw is known only to have come
                # after the tile moved before it, and the claimer's call may precede its log
                drawn = min(drawn, self.last_move[1])
            self.last_draw, self.own_turn = (p.seat.name, drawn), True
        elif isinstance(p, (Chow, Pung)) and self.last_discard is not None:
            kind: ClaimKind = "chow" if isinstance(p, Chow) else "pung"
            return _claim(ev, name, kind, self._claimed(ev), False)
        elif isinstance(p, Kong):
            claim = None
            if p.kind is KongKind.EXPOSED and self.last_discard is not None:
                claim = _claim(ev, name, "kong", self._claimed(ev), False)
            elif self.last_draw is not None:
                claim = _claim(ev, name, "kong", self.last_draw, True)
            self.last_discard = (p.seat.name, ev.ts)  # an added kong may be robbed
            return claim
        elif isinstance(p, WinDeclared):
            draw = self.last_draw
            if self.own_turn and draw is not None and draw[0] == name:
                return _claim(ev, name, "selfdraw", draw, True)
            if self.last_discard is not None:
                return _claim(ev, name, "win", self._claimed(ev), False)
        return None

    def _moved(self, ev: Event) -> tuple[float, float]:
        """When a move happened as best known, and the earliest it may have: as soon as the
        move before it (at most ``OPEN_MAX_S`` before its log). A move the camera logged with
        the one before it (a pung and its discard in one frame, the arm over both) did not
        settle alone: it is known only to be no earlier than that one may have been."""
        landed, last = _landed(ev), self.last_move
        if last is None or ev.source is not Source.VISION:
            return landed, landed
        together = _seen(ev) - last[0] < CAMERA_LAG_S
        earliest = min(landed, max(last[2] if together else last[1], _seen(ev) - OPEN_MAX_S))
        return (earliest if together else landed), earliest

    def _claimed(self, exposure: Event) -> tuple[str, float]:
        """The discard an exposure claims, and when it landed. One the camera logged with the
        claim (the tile taken before it settled in the river) landed at some time after the
        tile before it moved: the window opens there, or the call made before the camera's
        log falls outside it (false WMC-5.2 proposals in the live demo, their clips starting
        after the call)."""
        assert self.last_discard is not None
        seat, landed = self.last_discard
        if self.discard_logged is not None:
            logged, by_camera, earliest = self.discard_logged
            if by_camera and _seen(exposure) - logged < CAMERA_LAG_S:
                landed = min(landed, earliest)
        return seat, landed


def _seen(ev: Event) -> float:
    """When the camera saw a move (``seen:T``: its worker's frame time), not when the rig logged
    it, seconds later on a loaded machine (a false WMC-5.5 in the soak: a kong's call, made
    after the discard the camera saw, fell before a window opened from the discard's log)."""
    at = seen_at(ev.evidence) if ev.source is Source.VISION else None
    return ev.ts if at is None else min(at, ev.ts)


def _landed(ev: Event) -> float:
    """When a tile moved: the camera sees it once the table has settled after it (0.7 s later
    at the median), while a call may come at once, before the tile is seen."""
    return _seen(ev) - (CAMERA_LAG_S if ev.source is Source.VISION else 0.0)


def _shown(ev: Event) -> float:
    """When an exposure was shown, at the latest: the camera sees tiles laid down only once the
    hand that laid them has left them (an arm leaves 0.6 s after, and the table settles), so
    an exposure it logged was shown ``POST_S`` or more before; a call running into the showing
    is still in the window that ends ``POST_S`` after this, where the camera logged it. The
    check, answered once that much is heard, no longer waits a second past the camera's log."""
    return _seen(ev) - (POST_S if ev.source is Source.VISION else 0.0)


def claims_from_events(events: Sequence[Event]) -> list[Claim]:
    """The claims, kongs and wins of a whole log (:class:`ClaimWindows`)."""
    windows = ClaimWindows()
    return [c for c in map(windows.feed, events) if c is not None]


def _claim(
    ev: Event, seat: str | None, kind: ClaimKind, before: tuple[str, float], own: bool
) -> Claim:
    return Claim(
        str(ev.seq),
        seat,  # type: ignore[arg-type]
        kind,
        before[1],
        _shown(ev),
        own,
        None if own else before[0],  # type: ignore[arg-type]
    )


def _alone(mono: Audio, start: float, end: float) -> Audio:
    """The claimer's utterance as the spotter should hear it: in the seconds of context before
    and after it, what rises over the microphone's quiet (another seat's talk leaking in, which
    the spotter would read as part of his call) is turned down to that quiet; a quiet context is
    left as it is, as the spotter learnt calls."""
    n = len(mono) // HOP
    if n < 2:
        return mono
    frames = mono[: n * HOP].astype(np.float64).reshape(n, HOP)
    rms = np.sqrt(np.mean(frames**2, axis=1)) + 1e-9
    quiet = float(np.percentile(rms, QUIET_PERCENTILE))
    t = (np.arange(n) + 0.5) * HOP / SR
    around = (t < start - AROUND_S) | (t > end + AROUND_S)
    gain = np.where(around, np.minimum(1.0, quiet / rms), 1.0)
    per_sample = np.interp(np.arange(len(mono)), (np.arange(n) + 0.5) * HOP, gain)
    out: Audio = (mono * per_sample).astype(np.float32)
    return out
