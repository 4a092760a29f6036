"""Stabiliser: a slot changes only when the same reading is seen over several readings.

Each slot keeps its committed reading and the recent candidates; a new reading is committed
once it wins ``agree`` of the last ``window`` readings. An occluded slot is not read at all:
occlusion is a state (shown, counted) and never deletes or changes a tile. The confidence of a
committed slot is the share of readings that agreed times the recognizer's mean confidence; its
runners-up (``alternatives``: what else the recognizer thought it might be, and how likely) are
kept too, for the core to weigh against the rules (a tile the player cannot hold is not it).
A face the recognizer is unsure of (agreeing readings under ``sure`` on average) is read again,
up to ``patience`` readings, and then is the tile with the most probability over all of them:
a small, soft face flickers between two or three tiles (a 2p read 3p, 3p, 2p, 2p), and the first
two readings that agree are not always the right ones.
A slot the record has named (``name``: the reading the rules took) keeps that tile and its
sideways mark until the slot is seen empty: river and meld tiles never change, and a later
misreading of a tile already known would only be noise.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

Reading = tuple[str, bool]  # (label or "empty"/"back", sideways)
Alternatives = tuple[tuple[str, float], ...]  # other labels, most likely first


@dataclass
class SlotState:
    reading: Reading = ("empty", False)
    confidence: float = 1.0
    recent: list[tuple[Reading, float, Alternatives]] = field(default_factory=list)
    occluded: bool = False
    alternatives: Alternatives = ()
    named: bool = False  # the tile is the record's, kept until the slot is seen empty

    @property
    def pending(self) -> bool:
        return bool(self.recent)


NOT_TILES = ("empty", "back")


@dataclass
class Stabiliser:
    agree: int = 2
    window: int = 3
    sure: float = 0.6
    patience: int = 6
    slots: dict[str, SlotState] = field(default_factory=dict)

    def state(self, key: str) -> SlotState:
        return self.slots.setdefault(key, SlotState())

    def occlude(self, key: str, hidden: bool) -> None:
        self.state(key).occluded = hidden

    def name(self, key: str, reading: Reading) -> None:
        """The record says which tile lies here, and whether sideways (the record may be
        later than the camera: a slot seen empty since, the tile claimed, stays empty)."""
        s = self.state(key)
        if s.reading[0] != "empty":
            s.reading, s.named, s.recent, s.alternatives = reading, True, [], ()

    def see(self, key: str, reading: Reading, conf: float, alternatives: Alternatives = ()) -> bool:
        """One reading of a slot; True when it changes the committed state."""
        s = self.state(key)
        s.occluded = False
        doubted = s.named and reading[0] != "empty" and reading != s.reading
        if doubted:  # another tile: the record's stands, but the slot is read again until
            reading, alternatives = s.reading, ()  # sure (an arm's shadow going, the tile taken)
        if reading == s.reading and not s.recent and not doubted:
            return False
        s.recent = [*s.recent, (reading, conf, alternatives)][-self.patience :]
        last = s.recent[-self.window :]
        votes = Counter(r for r, _, _ in last)
        best, n = votes.most_common(1)[0]
        if n < self.agree:
            return False
        agreed = [(c, a) for r, c, a in last if r == best]
        mean = sum(c for c, _ in agreed) / len(agreed)
        confidence, alternatives = n / len(last) * mean, _mean(a for _, a in agreed)
        if best[0] not in NOT_TILES and not s.named and mean < self.sure:
            if len(s.recent) < self.patience:
                return False
            best, confidence, alternatives = _most_likely(s.recent)
        changed = best != s.reading
        s.reading, s.named = best, s.named and best[0] != "empty"
        s.confidence, s.alternatives = confidence, alternatives
        s.recent = []
        return changed


def _mean(readings: Iterable[Alternatives]) -> Alternatives:
    """The runners-up of agreeing readings, each label's probability averaged over them."""
    got = list(readings)
    total: dict[str, float] = {}
    for alternatives in got:
        for label, p in alternatives:
            total[label] = total.get(label, 0.0) + p
    ranked = sorted(total.items(), key=lambda item: -item[1])
    return tuple((label, round(p / len(got), 4)) for label, p in ranked)


def _most_likely(
    recent: list[tuple[Reading, float, Alternatives]],
) -> tuple[Reading, float, Alternatives]:
    """The tile with the most probability over the readings of a face (its sideways mark the
    one most of them saw), its mean probability, and the others'."""
    faces = [(r, c, a) for r, c, a in recent if r[0] not in NOT_TILES]
    (best, p), *others = _mean(((r[0], c), *a) for r, c, a in faces)
    sideways = Counter(r[1] for r, _, _ in faces).most_common(1)[0][0]
    return (best, sideways), p, tuple(others)
