"""What the rig's inputs record through: frames, audio blocks and stills in, a ring of segments
out, and clips cut from it on request.

``record_frame(ts, bgr)`` / ``record_audio(ts, samples, rate)`` / ``record_still(ts, rgb)`` take
session time (the rig's table clock); they may be called from any thread (a camera worker, the
voice reader). A worker process records on its own time line into a folder of :meth:`incoming`;
:meth:`take_file` puts each file it finished on the ring's (named by its session time, never
over another segment). ``pin(ts)`` keeps the segments around an alert, a proposal or a win;
``release`` lets an alert's go once it is decided.
"""

from __future__ import annotations

import shutil
import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from referee.evidence import still
from rig.evidence.media import (
    AudioWriter,
    VideoWriter,
    audio_clip,
    segment_path,
    video_clip,
    write_still,
)
from rig.evidence.ring import Budget, Ring, Segment, describe


class NotKept(LookupError):
    """The ring holds nothing of that range: the message names what it keeps."""


@dataclass(frozen=True, slots=True)
class Clip:
    data: bytes
    media_type: str
    start: float
    end: float


MEDIA_TYPES = {"audio": "audio/flac", "video": "video/mp4", "still": "image/jpeg"}
INCOMING = ".incoming"  # under the ring's folder: what worker processes are writing


class Recorder:
    def __init__(
        self,
        directory: Path,
        session: str,
        budget: Budget,
        segment_s: float = 10.0,
        pin_before: float = 30.0,
        pin_after: float = 10.0,
    ) -> None:
        self.ring = Ring(directory, budget, session)
        self.dir = directory
        self.session = session
        self.segment_s = segment_s
        self.pin_before, self.pin_after = pin_before, pin_after
        base = directory / session
        self.video = VideoWriter(base / "video", self._done, segment_s)
        self.audio = AudioWriter(base / "audio", self._done, segment_s)
        self.stills_dir = base / "stills"
        self._video_lock = threading.Lock()
        self._audio_lock = threading.Lock()
        self.last_frame: float | None = None  # session time of the last frame recorded
        shutil.rmtree(directory / INCOMING, ignore_errors=True)  # a dead worker's half segment

    def switch(self, session: str) -> None:
        """Record ``session`` from now on (the rig switched, cmd/round): the open segments are
        finished under the old one; the new one's go into its own folder, on its own time line
        (its session time starts again)."""
        with self._video_lock, self._audio_lock:
            self.video.close()
            self.audio.close()
            self.ring.session = self.session = session
            base = self.dir / session
            self.video = VideoWriter(base / "video", self._done, self.segment_s)
            self.audio = AudioWriter(base / "audio", self._done, self.segment_s)
            self.stills_dir = base / "stills"
            self.last_frame = None

    def _done(self, kind: str, start: float, end: float, path: Path) -> None:
        self.ring.add(kind, start, end, path)

    # ---- recording -----------------------------------------------------------------------

    def record_frame(self, ts: float, bgr: np.ndarray) -> None:
        with self._video_lock:
            self.video.write(ts, bgr)
            self.last_frame = ts

    def video_done(self) -> None:
        """The camera stopped: finish its open segment (it can be served)."""
        with self._video_lock:
            self.video.close()

    def record_audio(self, ts: float, samples: np.ndarray, rate: int) -> None:
        with self._audio_lock:
            self.audio.write(ts, samples, rate)

    def record_still(self, ts: float, rgb: np.ndarray) -> str:
        """Keep the rectified table at ``ts``; the evidence string that cites it."""
        path = write_still(self.stills_dir, ts, rgb)
        self.ring.add("still", ts, ts, path)
        return still(ts)

    def incoming(self, kind: str) -> Path:
        """Where a worker process writes ``kind`` on its own time line (the voice worker's audio
        starts at 0 each time it starts): a folder of the ring's disk, out of the segments'."""
        return self.dir / INCOMING / kind

    def take_file(self, kind: str, start: float, end: float, path: Path) -> None:
        """A file another process finished, covering ``[start, end]`` of the session: one
        written elsewhere (the voice worker's, named by its own time) is moved into this
        session's folder under its session time, beside any segment there and never over it;
        one written there already (the camera worker's, on the session clock) stays. Indexed."""
        folder = self._folder(kind)
        if path.parent.resolve() != folder.resolve():
            folder.mkdir(parents=True, exist_ok=True)
            with self._audio_lock if kind == "audio" else self._video_lock:
                target = segment_path(folder, start, path.suffix.lstrip("."))
                shutil.move(path, target)
            path = target
        self.ring.add(kind, start, end, path)

    def _folder(self, kind: str) -> Path:
        return self.stills_dir if kind == "still" else self.dir / self.session / kind

    def pin(self, ts: float, reason: str, holds: str = "") -> None:
        """Keep ``pin_before`` s before to ``pin_after`` s after ``ts``: until ``holds`` (the
        proposal id or ``alert@SEQ`` it waits for) is released; without, for the session."""
        self.ring.pin(max(0.0, ts - self.pin_before), ts + self.pin_after, reason, holds)

    def release(self, holds: str, by: str, session: str | None = None) -> int:
        """``holds`` of ``session`` (this one) was decided by ``by``: its pin holds no more."""
        return self.ring.release(session or self.session, holds, by)

    def recorded_until(self, session: str | None = None) -> float | None:
        """Where the newest video or audio of ``session`` ends (None: none kept): a rig that
        opens the session again goes on after it, never back over it."""
        ends = [self.ring.last_end(kind, session or self.session) for kind in ("video", "audio")]
        return max((e for e in ends if e is not None), default=None)

    def flush(self) -> None:
        """Finish the open segments (they are indexed and can be served)."""
        with self._video_lock:
            self.video.close()
        with self._audio_lock:
            self.audio.close()

    def close(self) -> None:
        self.flush()
        self.ring.close()

    # ---- serving -------------------------------------------------------------------------

    def clip(self, kind: str, start: float, end: float, session: str | None = None) -> Clip:
        """The ``audio``/``video`` clip of ``[start, end]``; :class:`NotKept` when the ring
        has none of it."""
        session = session or self.session
        segments = self.ring.find(kind, start, end, session)
        try:
            if not segments:
                raise LookupError
            cut = audio_clip if kind == "audio" else video_clip
            data, first, last = cut(segments, start, end)
        except LookupError:
            raise NotKept(self._kept_message(kind, f"{start:.2f}-{end:.2f}", session)) from None
        return Clip(data, MEDIA_TYPES[kind], first, last)

    def still(self, t: float, session: str | None = None) -> Clip:
        session = session or self.session
        seg: Segment | None = self.ring.latest_still(t, session)
        if seg is None or not seg.path.is_file():
            raise NotKept(self._kept_message("still", f"at {t:.2f}", session))
        return Clip(seg.path.read_bytes(), MEDIA_TYPES["still"], seg.start, seg.end)

    def _kept_message(self, kind: str, what: str, session: str) -> str:
        kept = describe(self.ring.kept(kind, session))
        return f"no {kind} of session {session} {what}: the ring keeps {kind} {kept}"
