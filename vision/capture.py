"""Capture: frames from a camera index, a video file or an RTSP URL, stamped on an injected clock,
with a watchdog (no frame for 20 s → offline; reconnect with back-off), as Frigate does.

A file that cannot be opened, or that holds no decodable frame (corrupt, truncated to its
header), is a :class:`CaptureError` with one clear line. A live source that stops is not an
error: the watchdog reports it offline and reopens it after 1, 2, 4 … 30 s.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import cv2
import numpy as np

# FFmpeg's own messages ("moov atom not found") would go to stderr beside our one error line.
os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")

OFFLINE_AFTER_S = 20.0
BACKOFF_S = (1.0, 2.0, 4.0, 8.0, 15.0, 30.0)


class CaptureError(RuntimeError):
    """A source that cannot be read at all (named, with what was expected)."""


class Reader(Protocol):
    """What capture needs of ``cv2.VideoCapture`` (tests give a source that stops)."""

    def isOpened(self) -> bool: ...  # OpenCV's name
    def read(self) -> tuple[bool, np.ndarray | None]: ...
    def release(self) -> None: ...


def open_source(source: str) -> Reader:
    """``0``, ``1`` … a camera index; ``rtsp://…``/``http://…`` a stream; else a file."""
    if source.isdigit():
        return cv2.VideoCapture(int(source))
    if "://" not in source and not Path(source).is_file():
        raise CaptureError(
            f"{source}: no such video file (expected a file, a camera index "
            "such as 0, or an rtsp:// URL)"
        )
    return cv2.VideoCapture(source)


def _frame_rate(cap: Any) -> float:
    fps = float(cap.get(cv2.CAP_PROP_FPS)) if isinstance(cap, cv2.VideoCapture) else 0.0
    return fps if fps > 0 else 10.0


def frame_rate(path: Path) -> float:
    """The frames per second :func:`read_file` times a file's frames by."""
    cap = open_source(str(path))
    try:
        return _frame_rate(cap)
    finally:
        cap.release()


def read_file(path: Path, t0: float = 0.0) -> Iterator[tuple[int, float, np.ndarray]]:
    """(frame number, ``t0`` + time from the file's frame rate, RGB frame) of a video file."""
    cap = open_source(str(path))
    if not cap.isOpened():
        raise CaptureError(f"{path}: not a video OpenCV can open (corrupt or not a video?)")
    fps = _frame_rate(cap)
    n = 0
    try:
        while True:
            ok, frame = cap.read()
            if not ok or frame is None:
                break
            yield n, t0 + n / fps, cv2.cvtColor(frame, cv2.COLOR_BGR2RGB)
            n += 1
    finally:
        cap.release()
    if n == 0:
        raise CaptureError(f"{path}: no frame could be decoded (a corrupt or truncated video)")


@dataclass
class Status:
    ts: float
    online: bool
    message: str


@dataclass
class Watchdog:
    """Reads a live source on the injected ``clock``; ``poll`` returns a frame or None.

    ``opener`` opens (or reopens) the source. No frame for ``offline_after`` seconds → one
    offline status; then reopen attempts spaced by the back-off; the first frame after → online.
    """

    opener: Callable[[], Reader]
    clock: Callable[[], float]
    offline_after: float = OFFLINE_AFTER_S
    statuses: list[Status] = field(default_factory=list)
    online: bool = True
    _reader: Reader | None = None
    _last_frame: float | None = None
    _attempt: int = 0
    _next_try: float = 0.0

    def poll(self) -> tuple[float, np.ndarray] | None:
        now = self.clock()
        if self._last_frame is None:
            self._last_frame = now
        if self._reader is None:
            if now < self._next_try:
                return None
            self._reader = self._open(now)
            if self._reader is None:
                return None
        ok, frame = self._reader.read()
        if ok and frame is not None:
            self._last_frame, self._attempt = now, 0
            if not self.online:
                self.online = True
                self.statuses.append(Status(now, True, "camera online again"))
            return now, frame
        if now - self._last_frame >= self.offline_after:
            if self.online:
                self.online = False
                self.statuses.append(
                    Status(
                        now, False, f"camera offline: no frame for {now - self._last_frame:.0f} s"
                    )
                )
            self._reader.release()
            self._reader = None
            self._schedule(now)
        return None

    def _open(self, now: float) -> Reader | None:
        try:
            reader = self.opener()
        except CaptureError:
            reader = None
        if reader is None or not reader.isOpened():
            self._schedule(now)
            return None
        return reader

    def _schedule(self, now: float) -> None:
        self._next_try = now + BACKOFF_S[min(self._attempt, len(BACKOFF_S) - 1)]
        self._attempt += 1


def live_frames(source: str) -> Iterator[tuple[int, float, np.ndarray]]:
    """Frames of a camera or stream under the watchdog, on the wall clock (the rig injects its
    own clock through :class:`Watchdog`); runs until interrupted."""
    import time

    dog = Watchdog(lambda: open_source(source), time.monotonic)
    n = told = 0
    while True:
        got = dog.poll()
        for status in dog.statuses[told:]:
            print(f"camera {source}: {status.message}", flush=True)
        told = len(dog.statuses)
        if got is None:
            time.sleep(0.05)
            continue
        t, frame = got
        yield n, t, cv2.cvtColor(frame, cv2.COLOR_BGR2RGB)
        n += 1
