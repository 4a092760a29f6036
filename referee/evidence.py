"""Evidence strings that cite a recording: ``audio:``, ``video:`` and ``still:`` (the contract);
and ``seen:T``, when a sensor saw what an event says.

Events and alerts carry ``evidence: tuple[str, ...]``; besides the older forms (a seq, ``frame:N``,
``line:N``) a recording is cited by its time range on the table session's clock, in seconds with
two decimals::

    audio:812.40-815.90      a clip of the microphones
    audio:812.40-815.90@E    … attributed to a seat
    video:812.40-815.90      a clip of the camera
    still:812.40             the rectified table still kept at the settled change seen at 812.40

The rig writes these, the dashboard fetches what they name; both parse with :func:`parse_clip`.
Pure: no I/O.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

ClipKind = Literal["audio", "video", "still"]
CLIP_KINDS: tuple[ClipKind, ...] = ("audio", "video", "still")
SEATS = ("E", "S", "W", "N")

_NUMBER = r"\d+(?:\.\d+)?"
_RANGE = re.compile(
    rf"^(?P<kind>audio|video):(?P<start>{_NUMBER})-(?P<end>{_NUMBER})(?:@(?P<seat>.+))?$"
)
_STILL = re.compile(rf"^still:(?P<ts>{_NUMBER})$")
_EXPECTED = "expected audio:START-END[@SEAT], video:START-END or still:T (seconds, e.g. 812.40)"


@dataclass(frozen=True, slots=True)
class ClipRef:
    """A cited recording: ``kind`` over ``[start, end]`` seconds (a still has start == end)."""

    kind: ClipKind
    start: float
    end: float
    seat: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in CLIP_KINDS:
            raise ValueError(f"clip kind {self.kind!r}: expected one of {', '.join(CLIP_KINDS)}")
        for name, value in (("start", self.start), ("end", self.end)):
            if not math.isfinite(value) or value < 0:
                raise ValueError(f"clip {name} {value!r}: expected seconds ≥ 0")
        if self.kind == "still" and self.start != self.end:
            raise ValueError(f"expected a still at one instant, got {self.start}-{self.end}")
        if self.kind != "still" and not self.end > self.start:
            raise ValueError(f"clip range {self.start}-{self.end}: expected end after start")
        if self.seat is not None and (self.kind != "audio" or self.seat not in SEATS):
            raise ValueError(
                f"clip seat {self.seat!r}: expected a seat E, S, W or N, on an audio clip only"
            )

    @property
    def ts(self) -> float:
        """The instant of a still (the start of a clip)."""
        return self.start

    def format(self) -> str:
        """The evidence string, times with two decimals."""
        if self.kind == "still":
            return f"still:{self.start:.2f}"
        seat = f"@{self.seat}" if self.seat else ""
        return f"{self.kind}:{self.start:.2f}-{self.end:.2f}{seat}"

    def __str__(self) -> str:
        return self.format()


def audio(start: float, end: float, seat: str | None = None) -> str:
    """``audio:START-END[@SEAT]`` for a clip of the microphones."""
    return ClipRef("audio", _round(start), _round(end), seat).format()


def video(start: float, end: float) -> str:
    """``video:START-END`` for a clip of the camera."""
    return ClipRef("video", _round(start), _round(end)).format()


def still(ts: float) -> str:
    """``still:T`` for the rectified table still of the settled change seen at ``ts``."""
    t = _round(ts)
    return ClipRef("still", t, t).format()


def seen(ts: float) -> str:
    """``seen:T``: the sensor saw what the event says at session time ``ts`` (the rig logs it
    when it arrives, later on a loaded machine: the event's own ``ts``); not a recording."""
    return f"seen:{_round(ts):.2f}"


def seen_at(evidence: Iterable[object]) -> float | None:
    """The time a ``seen:T`` item names, or None."""
    for item in evidence:
        if isinstance(item, str) and item.startswith("seen:"):
            try:
                return float(item[5:])
            except ValueError:
                return None
    return None


def is_clip(text: object) -> bool:
    """Whether an evidence item is one of the recording forms (valid or not)."""
    return isinstance(text, str) and text.split(":", 1)[0] in CLIP_KINDS and ":" in text


def parse_clip(text: str) -> ClipRef:
    """The :class:`ClipRef` an evidence string names; ``ValueError`` saying what is expected."""
    if (m := _RANGE.match(text)) is not None:
        kind: ClipKind = "audio" if m["kind"] == "audio" else "video"
        return ClipRef(kind, float(m["start"]), float(m["end"]), m["seat"])
    if (m := _STILL.match(text)) is not None:
        t = float(m["ts"])
        return ClipRef("still", t, t)
    raise ValueError(f"evidence {text!r}: {_EXPECTED}")


def clips_in(evidence: Iterable[object]) -> list[ClipRef]:
    """The recordings an event's evidence cites, in order; other forms (seqs, frames) are skipped.

    A malformed recording string raises: a citation that cannot be fetched is a bug to see.
    """
    return [parse_clip(item) for item in evidence if isinstance(item, str) and is_clip(item)]


def _round(value: float) -> float:
    if not math.isfinite(value):
        raise ValueError(f"clip time {value!r}: expected finite seconds")
    return round(value, 2)
