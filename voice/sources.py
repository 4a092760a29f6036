"""Audio sources: a file for review, tests and the demo; sounddevice for the live rig.

Both yield :class:`Block` s of (samples, channels) at 16 kHz with the stream's sample counter;
times are ``t0 + sample / 16000`` where ``t0`` is read once from the injected clock, so sample
counting — not callback jitter — sets the timestamps.
"""

from __future__ import annotations

import contextlib
import queue
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from voice.audio_io import SR, Audio, read_audio
from voice.clock import Clock, MonotonicClock
from voice.events import AudioAlert
from voice.ring import RingBuffer

BLOCK = 1280  # 80 ms


class AudioDeviceError(OSError):
    """No such input device, or it cannot capture as asked (rate, channels); PortAudio missing."""


@dataclass
class Block:
    data: Audio  # (samples, channels)
    start: int  # sample number of data[0]
    alerts: list[AudioAlert] = field(default_factory=list)


def level_dbfs(block: Audio) -> list[float]:
    """RMS level per channel in dBFS: the setup meter (speech at the mic ≈ -30 to -15)."""
    b = block.reshape(len(block), -1).astype(np.float64)
    return [
        round(float(10 * np.log10(np.mean(b[:, c] ** 2) + 1e-12)), 1) for c in range(b.shape[1])
    ]


class FileSource:
    """A WAV/FLAC/OGG file, any rate, resampled to 16 kHz; time 0 is the file's start."""

    def __init__(self, path: Path, *, block: int = BLOCK, t0: float = 0.0) -> None:
        self.path = path
        self.audio = read_audio(path)
        self.channels = self.audio.shape[1]
        self.block = block
        self.t0 = t0

    def __iter__(self) -> Iterator[Block]:
        for i in range(0, len(self.audio), self.block):
            yield Block(self.audio[i : i + self.block], i)


def list_devices() -> list[dict[str, Any]]:
    """Input devices as PortAudio sees them (index, name, channels, default rate)."""
    try:
        import sounddevice as sd

        devices = sd.query_devices()
    except OSError as exc:  # PortAudio missing (Debian libportaudio2)
        raise AudioDeviceError(f"cannot list audio devices: {exc}") from exc
    out = []
    for i, d in enumerate(devices):
        if int(d["max_input_channels"]) > 0:
            out.append(
                {
                    "index": i,
                    "name": str(d["name"]),
                    "channels": int(d["max_input_channels"]),
                    "default_samplerate": float(d["default_samplerate"]),
                }
            )
    return out


class LiveSource:
    """sounddevice capture at 16 kHz: ``channels`` mics on one device, one stream.

    The PortAudio callback only copies into a queue and the ring buffer; an overflow flag, or
    blocks lost because the consumer fell behind (the queue was full), become a ``dropout``
    alert (sample numbers then skip the lost samples, so timestamps stay true), and no block for
    ``stall_s`` a ``stalled`` alert.
    """

    def __init__(
        self,
        device: int | str | None = None,
        *,
        channels: int = 1,
        block: int = BLOCK,
        clock: Clock | None = None,
        ring_s: float = 120.0,
        stall_s: float = 2.0,
    ) -> None:
        self.device = device
        self.channels = channels
        self.block = block
        self.clock = clock or MonotonicClock()
        self.ring = RingBuffer(ring_s, channels)
        self.stall_s = stall_s
        self.t0: float | None = None
        self.dropouts = 0
        self._q: queue.Queue[tuple[Audio, int, bool]] = queue.Queue(maxsize=256)
        self._captured = 0  # samples the callback has seen, queued or not
        self._stream: Any = None
        self._stop = threading.Event()

    def _callback(self, indata: Any, frames: int, time_info: Any, status: Any) -> None:
        if self.t0 is None:
            self.t0 = self.clock.now() - frames / SR  # first sample's time, then counted
        data = np.array(indata, dtype=np.float32, copy=True).reshape(frames, self.channels)
        self.ring.write(data)
        start, self._captured = self._captured, self._captured + frames
        with contextlib.suppress(queue.Full):  # the consumer sees a gap in the sample numbers
            self._q.put_nowait((data, start, bool(status.input_overflow)))

    def start(self) -> None:
        """Open the device; :class:`AudioDeviceError` says which device and why it cannot."""
        which = "the default input device" if self.device is None else f"device {self.device!r}"
        try:
            import sounddevice as sd
        except OSError as exc:  # PortAudio itself is missing (Debian libportaudio2)
            raise AudioDeviceError(f"cannot capture audio: {exc}") from exc
        try:
            self._stream = sd.InputStream(
                samplerate=SR,
                channels=self.channels,
                dtype="float32",
                blocksize=self.block,
                device=self.device,
                callback=self._callback,
            )
            self._stream.start()
        except (sd.PortAudioError, ValueError) as exc:
            raise AudioDeviceError(
                f"cannot capture from {which} ({exc}): expected an input device that takes "
                f"{self.channels} channel(s) at {SR} Hz; see `mjref voice devices`"
            ) from exc

    def stop(self) -> None:
        self._stop.set()
        if self._stream is not None:
            self._stream.stop()
            self._stream.close()
            self._stream = None

    def time_of(self, sample: int) -> float:
        return (self.t0 or 0.0) + sample / SR

    def __iter__(self) -> Iterator[Block]:
        n = 0
        while not self._stop.is_set():
            try:
                data, start, overflow = self._q.get(timeout=self.stall_s)
            except queue.Empty:
                alert = AudioAlert(
                    kind="stalled",
                    channel=None,
                    t=self.clock.now(),
                    detail=f"no audio for {self.stall_s:.1f} s",
                )
                yield Block(np.zeros((0, self.channels), np.float32), n, [alert])
                continue
            alerts = []
            lost = start - n
            if overflow or lost:
                self.dropouts += 1
                detail = "input overflow: samples lost"
                if lost:
                    detail = f"processing fell behind: {lost} samples ({lost / SR:.2f} s) lost"
                alert = AudioAlert(kind="dropout", channel=None, t=self.time_of(n), detail=detail)
                alerts.append(alert)
            yield Block(data, start, alerts)
            n = start + len(data)
