"""Per-frame fault injection on the simulated table's output, seeded so failures replay."""

from __future__ import annotations

import random
from dataclasses import dataclass, field, fields


@dataclass(frozen=True, slots=True)
class FaultSpec:
    """Probabilities per frame. Parse from the CLI form ``drop=0.01,corrupt=0.01,...``."""

    drop: float = 0.0
    corrupt: float = 0.0  # flip one bit somewhere in the frame (delimiters included)
    dup: float = 0.0
    garbage: float = 0.0  # a burst of random bytes (zeros included) before the frame
    split: float = 0.0  # write the frame one byte at a time

    @classmethod
    def parse(cls, text: str) -> FaultSpec:
        values: dict[str, float] = {}
        names = {f.name for f in fields(cls)}
        for item in filter(None, (part.strip() for part in text.split(","))):
            name, sep, value = item.partition("=")
            if not sep or name not in names:
                raise ValueError(f"bad fault {item!r}; known: {', '.join(sorted(names))}")
            probability = float(value)
            if not 0.0 <= probability <= 1.0:
                raise ValueError(f"fault {name} must be a probability, got {value}")
            values[name] = probability
        return cls(**values)


@dataclass(slots=True)
class FaultCounts:
    drop: int = 0
    corrupt: int = 0
    dup: int = 0
    garbage: int = 0
    split: int = 0


@dataclass(slots=True)
class FaultInjector:
    spec: FaultSpec
    rng: random.Random
    counts: FaultCounts = field(default_factory=FaultCounts)

    def apply(self, frame: bytes) -> list[bytes]:
        """The writes that carry ``frame`` through the faulty line (possibly none)."""
        spec, rng = self.spec, self.rng
        if spec.drop and rng.random() < spec.drop:
            self.counts.drop += 1
            return []
        if spec.corrupt and rng.random() < spec.corrupt:
            self.counts.corrupt += 1
            damaged = bytearray(frame)
            damaged[rng.randrange(len(damaged))] ^= 1 << rng.randrange(8)
            frame = bytes(damaged)
        chunks = [frame]
        if spec.garbage and rng.random() < spec.garbage:
            self.counts.garbage += 1
            chunks.insert(0, rng.randbytes(rng.randint(1, 64)))
        if spec.dup and rng.random() < spec.dup:
            self.counts.dup += 1
            chunks.append(frame)
        if spec.split and rng.random() < spec.split:
            self.counts.split += 1
            chunks = [bytes([b]) for chunk in chunks for b in chunk]
        return chunks
