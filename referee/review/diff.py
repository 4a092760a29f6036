"""What a re-derived record says differently from the recorded one, event by event.

Both records hold the same setup (the events of other sources) and the camera's observations
with the game events fusion drew from them; each such event cites its observation
(``seq:N``, EVENTS.md). The game events of the two are aligned by (type, seat) in order; an
aligned pair whose payload differs is ``changed``, an event only the old record has is
``missing``, one only the new record has is ``added``. Each difference names the observation
behind it on either side and, where both sides saw the same frame, the slots read differently.
Then the hands' results (winner, value, payments) are compared, so a new rule version that
scores a hand differently is listed too.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from referee.duties import replay
from referee.events import Event, Observation

SKIP = frozenset({"observation"})


@dataclass(frozen=True)
class Cause:
    """The observation behind an event: its seq, frame, seat and zone, and its slots."""

    seq: int
    frame: str
    seat: str
    zone: str
    slots: tuple[tuple[int, str], ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "frame": self.frame,
            "seat": self.seat,
            "zone": self.zone,
            "slots": [list(s) for s in self.slots],
        }


@dataclass(frozen=True)
class Difference:
    kind: str  # added | missing | changed
    old: Event | None
    new: Event | None
    old_cause: Cause | None = None
    new_cause: Cause | None = None
    slots: tuple[str, ...] = ()  # "E river 1: N → W" where the same frame was read differently

    def line(self) -> str:
        ev = self.new if self.old is None else self.old
        assert ev is not None
        where = f"seq {self.old.seq}" if self.old is not None else f"new seq {ev.seq}"
        if self.kind == "changed" and self.new is not None:
            what = f"{_short(self.old)} → {_short(self.new)}"
        else:
            what = _short(ev)
        cause = self.new_cause or self.old_cause
        because = ""
        if cause is not None:
            read = "".join(f"; {s}" for s in self.slots)
            because = f" (observation seq {cause.seq}, {cause.frame}{read})"
        return f"{self.kind:<8} {where:<12} {what}{because}"

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "old": None if self.old is None else _plain(self.old),
            "new": None if self.new is None else _plain(self.new),
            "old_observation": None if self.old_cause is None else self.old_cause.to_json(),
            "new_observation": None if self.new_cause is None else self.new_cause.to_json(),
            "slots": list(self.slots),
        }


@dataclass
class Rederived:
    differences: list[Difference] = field(default_factory=list)
    hands: list[str] = field(default_factory=list)  # hand results that differ, in words
    compared: int = 0  # game events of the old record compared

    def text(self) -> str:
        if not self.differences and not self.hands:
            return f"no difference ({self.compared} game events compared)"
        lines = [d.line() for d in self.differences] + self.hands
        lines.append(
            f"{len(self.differences)} event difference(s), {len(self.hands)} hand result(s) "
            f"differ ({self.compared} game events compared)"
        )
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        return {
            "compared": self.compared,
            "differences": [d.to_json() for d in self.differences],
            "hands": self.hands,
        }


def compare(old: Sequence[Event], new: Sequence[Event]) -> Rederived:
    """The differences between a recorded log and its re-derivation (both in seq order)."""
    old_obs, new_obs = _observations(old), _observations(new)
    a = [e for e in old if e.type not in SKIP]
    b = [e for e in new if e.type not in SKIP]
    out = Rederived(compared=len(a))
    matcher = difflib.SequenceMatcher(None, [_key(e) for e in a], [_key(e) for e in b], False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            for x, y in zip(a[i1:i2], b[j1:j2], strict=True):
                if _content(x) != _content(y):
                    out.differences.append(_difference("changed", x, y, old_obs, new_obs))
            continue
        for x in a[i1:i2]:
            out.differences.append(_difference("missing", x, None, old_obs, new_obs))
        for y in b[j1:j2]:
            out.differences.append(_difference("added", None, y, old_obs, new_obs))
    out.hands = _hands(old, new)
    return out


def _key(e: Event) -> tuple[str, str]:
    seat = getattr(e.payload, "seat", None)
    return e.type, "" if seat is None else str(getattr(seat, "name", seat))


def _content(e: Event) -> dict[str, Any]:
    return e.payload.model_dump(mode="json")


def _plain(e: Event) -> dict[str, Any]:
    return {"seq": e.seq, "ts": e.ts, "type": e.type, "payload": _content(e)}


def _short(e: Event | None) -> str:
    if e is None:
        return "-"
    p = _content(e)
    seat = p.pop("seat", "")
    detail = " ".join(str(v) for k, v in p.items() if v not in (None, False, True) and k != "data")
    return f"{e.type} {seat} {detail}".strip()


def _observations(events: Sequence[Event]) -> dict[int, Cause]:
    out: dict[int, Cause] = {}
    for e in events:
        if isinstance(e.payload, Observation):
            data = e.payload.data
            slots = tuple((int(s[0]), str(s[1])) for s in data.get("slots", []))
            frame = str(data.get("evidence") or next(iter(e.evidence), ""))
            out[e.seq] = Cause(e.seq, frame, str(data.get("seat")), str(data.get("zone")), slots)
    return out


def _cause(e: Event | None, obs: dict[int, Cause]) -> Cause | None:
    if e is None:
        return None
    for ref in e.evidence:
        if ref.startswith("seq:") and ref[4:].isdigit() and int(ref[4:]) in obs:
            return obs[int(ref[4:])]
    return None


def _difference(
    kind: str,
    old: Event | None,
    new: Event | None,
    old_obs: dict[int, Cause],
    new_obs: dict[int, Cause],
) -> Difference:
    a, b = _cause(old, old_obs), _cause(new, new_obs)
    # the other side's reading of the same frame and zone, where it had one
    if a is not None and b is None:
        b = _same_view(a, new_obs)
    if b is not None and a is None:
        a = _same_view(b, old_obs)
    slots: tuple[str, ...] = ()
    if a is not None and b is not None:
        was, now = dict(a.slots), dict(b.slots)
        slots = tuple(
            f"{b.seat} {b.zone} slot {i}: {was.get(i, '-')} → {now.get(i, '-')}"
            for i in sorted(set(was) | set(now))
            if was.get(i) != now.get(i)
        )
    return Difference(kind, old, new, a, b, slots)


def _same_view(c: Cause, obs: dict[int, Cause]) -> Cause | None:
    return next(
        (o for o in obs.values() if (o.frame, o.seat, o.zone) == (c.frame, c.seat, c.zone)),
        None,
    )


def _hands(old: Sequence[Event], new: Sequence[Event]) -> list[str]:
    """The hands whose result differs: outcome, winner, value or payments."""
    before, after = replay(old), replay(new)
    if before is None or after is None:
        return []
    a = [r.to_dict() for r in before.state.results]
    b = [r.to_dict() for r in after.state.results]
    out = []
    keys = ("result", "winner", "value", "payments")
    for n in range(max(len(a), len(b))):
        x = {k: a[n].get(k) for k in keys} if n < len(a) else None
        y = {k: b[n].get(k) for k in keys} if n < len(b) else None
        if x != y:
            out.append(f"hand {n + 1}: {x} → {y}")
    return out
