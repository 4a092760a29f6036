"""A fixed-size multichannel ring buffer: the last N seconds of audio, kept as evidence."""

from __future__ import annotations

import threading

import numpy as np

from voice.audio_io import SR, Audio


class RingBuffer:
    """Thread-safe: the capture callback writes, the referee's evidence export reads."""

    def __init__(self, seconds: float, channels: int) -> None:
        self.size = int(seconds * SR)
        self.data = np.zeros((self.size, channels), dtype=np.float32)
        self.written = 0  # total samples ever written (the stream's sample counter)
        self._lock = threading.Lock()

    def write(self, block: Audio) -> None:
        block = block.reshape(len(block), -1)[-self.size :]
        with self._lock:
            k = self.written % self.size
            first = min(len(block), self.size - k)
            self.data[k : k + first] = block[:first]
            self.data[: len(block) - first] = block[first:]
            self.written += len(block)

    def read(self, start: int, end: int) -> Audio:
        """Samples [start, end) by stream sample number; older than the buffer → ValueError."""
        with self._lock:
            if start < self.written - self.size or end > self.written or start > end:
                raise ValueError(f"samples [{start}, {end}) not in buffer (written {self.written})")
            idx = np.arange(start, end) % self.size
            return self.data[idx].copy()
