"""Segment writers and clip cutters: H.264 MP4 through PyAV (libx264), FLAC through soundfile,
JPEG stills through OpenCV.

A writer starts a new file every ``segment_s`` seconds of session time (or when the stream
breaks: a new frame size, a gap in the audio) and hands each finished file to ``on_done``
(the ring indexes it). Frame times are kept exactly (the MP4's time base is 1 ms), so a clip
can be cut by session time later.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

import av
import cv2
import numpy as np
import numpy.typing as npt
import soundfile as sf

from rig.evidence.ring import Segment

MS = Fraction(1, 1000)
AUDIO_GAP_S = 0.25  # samples later than this after the last: a new segment

OnDone = Callable[[str, float, float, Path], None]


def segment_path(directory: Path, start: float, ext: str) -> Path:
    """A new file's path in ``directory``, named by its start (ms of session time): never one
    that is there already (``…-1``, ``-2`` beside it), so no recording lands on another."""
    stem = f"{round(start * 1000):012d}"
    path, n = directory / f"{stem}.{ext}", 0
    while path.exists():
        n += 1
        path = directory / f"{stem}-{n}.{ext}"
    return path


class VideoWriter:
    """10 s H.264 MP4 segments of BGR frames (RGB with ``rgb``) stamped with session time."""

    def __init__(
        self,
        directory: Path,
        on_done: OnDone,
        segment_s: float = 10.0,
        crf: int = 30,
        preset: str = "ultrafast",  # ≈ 13 ms a 1080p frame on one core (bench/evidence.py)
        threads: int = 1,
        rgb: bool = False,
    ) -> None:
        self.dir = directory
        self.on_done = on_done
        self.segment_s = segment_s
        self.options = {"crf": str(crf), "preset": preset, "tune": "zerolatency", "g": "50"}
        self.threads = threads
        self._to_yuv = cv2.COLOR_RGB2YUV_I420 if rgb else cv2.COLOR_BGR2YUV_I420
        self._out: Any = None
        self._stream: Any = None
        self._path: Path | None = None
        self._start = 0.0
        self._last = -1.0
        self._step = 0.1
        self._size: tuple[int, int] = (0, 0)

    def write(self, ts: float, image: np.ndarray) -> None:
        h, w = image.shape[0] & ~1, image.shape[1] & ~1  # 4:2:0 wants even sides
        if ts <= self._last:
            return  # one time line: a frame from the past is not recorded
        if self._out is not None and (ts - self._start >= self.segment_s or (w, h) != self._size):
            self.close()
        if self._out is None:
            self._open(ts, w, h)
        yuv: npt.NDArray[np.uint8] = cv2.cvtColor(
            np.ascontiguousarray(image[:h, :w]), self._to_yuv
        ).astype(np.uint8, copy=False)
        frame = av.VideoFrame.from_ndarray(yuv, format="yuv420p")  # cheaper than swscale
        frame.pts = round((ts - self._start) * 1000)
        frame.time_base = MS
        for packet in self._stream.encode(frame):
            self._out.mux(packet)
        if self._last >= self._start:
            self._step = min(max(ts - self._last, 0.01), 5.0)
        self._last = ts

    def _open(self, ts: float, w: int, h: int) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        self._path = segment_path(self.dir, ts, "mp4")
        self._out = av.open(str(self._path), "w")
        stream = self._out.add_stream("libx264", rate=10)
        stream.width, stream.height, stream.pix_fmt = w, h, "yuv420p"
        stream.codec_context.time_base = MS
        stream.codec_context.thread_count = self.threads
        stream.options = self.options
        self._stream, self._start, self._size = stream, ts, (w, h)

    def close(self) -> None:
        """Finish the open segment (if any) and hand it on."""
        if self._out is None or self._path is None:
            return
        for packet in self._stream.encode():
            self._out.mux(packet)
        self._out.close()
        path, start, end = self._path, self._start, self._last + self._step
        self._out = self._stream = self._path = None
        self.on_done("video", start, end, path)


class AudioWriter:
    """10 s FLAC segments of float samples (frames × channels) stamped with session time."""

    def __init__(self, directory: Path, on_done: OnDone, segment_s: float = 10.0) -> None:
        self.dir = directory
        self.on_done = on_done
        self.segment_s = segment_s
        self._file: sf.SoundFile | None = None
        self._path: Path | None = None
        self._start = 0.0
        self._rate = 0
        self._channels = 0
        self._frames = 0

    @property
    def _end(self) -> float:
        return self._start + self._frames / self._rate if self._rate else self._start

    def write(self, ts: float, samples: np.ndarray, rate: int) -> None:
        data = samples.reshape(len(samples), -1) if samples.ndim == 1 else samples
        if len(data) == 0:
            return
        if self._file is not None:
            broken = rate != self._rate or data.shape[1] != self._channels
            if broken or abs(ts - self._end) > AUDIO_GAP_S:
                self.close()
        while len(data):
            if self._file is None:
                self._open(ts, rate, data.shape[1])
            room = round(self.segment_s * rate) - self._frames
            part, data = data[:room], data[room:]
            assert self._file is not None
            self._file.write(np.clip(part, -1.0, 1.0).astype(np.float32))
            self._frames += len(part)
            if self._frames >= round(self.segment_s * rate):
                nxt = self._end
                self.close()
                ts = nxt

    def _open(self, ts: float, rate: int, channels: int) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        self._path = segment_path(self.dir, ts, "flac")
        self._file = sf.SoundFile(
            self._path, "w", samplerate=rate, channels=channels, format="FLAC", subtype="PCM_16"
        )
        self._start, self._rate, self._channels, self._frames = ts, rate, channels, 0

    def close(self) -> None:
        if self._file is None or self._path is None:
            return
        self._file.close()
        path, start, end = self._path, self._start, self._end
        self._file = self._path = None
        self._frames = 0
        self.on_done("audio", start, end, path)


def write_still(directory: Path, ts: float, rgb: np.ndarray, quality: int = 85) -> Path:
    """The rectified table at ``ts`` as a JPEG file."""
    directory.mkdir(parents=True, exist_ok=True)
    ok, data = cv2.imencode(
        ".jpg", cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, quality]
    )
    if not ok:
        raise ValueError(f"still at {ts:.2f}: the image cannot be encoded as JPEG")
    path = segment_path(directory, ts, "jpg")
    path.write_bytes(data.tobytes())
    return path


def frame_seconds(frame: av.VideoFrame) -> float:
    """A decoded frame's time in its file, in seconds."""
    return float((frame.pts or 0) * (frame.time_base or MS))


def decoded_times(data: bytes | Path) -> list[float]:
    """The frame times of an MP4 (for checks and the bench)."""
    source = io.BytesIO(data) if isinstance(data, bytes) else str(data)
    with av.open(source, "r") as c:
        return [frame_seconds(f) for f in c.decode(video=0)]


def segment_frames(
    segments: Sequence[Segment], start: float = 0.0
) -> Iterator[tuple[float, np.ndarray]]:
    """(session time, RGB frame) of video segments in time order, from ``start`` on; each time
    once (segments that overlap give their frames once)."""
    last = start - 1e-6
    for seg in segments:
        with av.open(str(seg.path), "r") as src:
            for frame in src.decode(video=0):
                t = seg.start + frame_seconds(frame)
                if t <= last:
                    continue
                last = t
                yuv = frame.to_ndarray(format="yuv420p")
                yield t, cv2.cvtColor(yuv, cv2.COLOR_YUV2RGB_I420)


# ---- clips -----------------------------------------------------------------------------------


def audio_clip(segments: Sequence[Segment], start: float, end: float) -> tuple[bytes, float, float]:
    """FLAC of ``[start, end]`` from the segments (in time order); the range it covers. Each
    instant once: where two recordings overlap (a microphone replaced mid-stream), the earlier
    one's samples stand."""
    parts: list[np.ndarray] = []
    rate, first, last = 0, end, start
    for seg in segments:
        with sf.SoundFile(seg.path) as f:
            if rate and f.samplerate != rate:
                continue  # a clip has one rate: the segments of the first
            rate = f.samplerate
            a = max(0, round((max(start, last) - seg.start) * rate))
            b = min(f.frames, round((end - seg.start) * rate))
            if b <= a:
                continue
            f.seek(a)
            parts.append(f.read(b - a, dtype="float32", always_2d=True))
            first, last = min(first, seg.start + a / rate), max(last, seg.start + b / rate)
    if not parts:
        raise LookupError("no audio samples in that range")
    buf = io.BytesIO()
    sf.write(buf, np.concatenate(parts), rate, format="FLAC", subtype="PCM_16")
    return buf.getvalue(), first, last


def video_clip(segments: Sequence[Segment], start: float, end: float) -> tuple[bytes, float, float]:
    """H.264 MP4 of the frames in ``[start, end]`` (decoded and encoded again: exact cuts)."""
    buf = io.BytesIO()
    out: Any = None
    stream: Any = None
    first, last = -1.0, start
    for seg in segments:
        with av.open(str(seg.path), "r") as src:
            for frame in src.decode(video=0):
                t = seg.start + frame_seconds(frame)
                if t < start or t > end or (t <= last and first >= 0):
                    continue
                if out is None:
                    out = av.open(buf, "w", format="mp4")
                    stream = out.add_stream("libx264", rate=10)
                    stream.width, stream.height, stream.pix_fmt = (
                        frame.width,
                        frame.height,
                        "yuv420p",
                    )
                    stream.codec_context.time_base = MS
                    stream.options = {"crf": "28", "preset": "ultrafast", "tune": "zerolatency"}
                    first = t
                if (frame.width, frame.height) != (stream.width, stream.height):
                    continue
                frame.pts, frame.time_base = round((t - first) * 1000), MS
                for packet in stream.encode(frame):
                    out.mux(packet)
                last = t
    if out is None:
        raise LookupError("no video frames in that range")
    for packet in stream.encode():
        out.mux(packet)
    out.close()
    return buf.getvalue(), first, last
