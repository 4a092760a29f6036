"""The camera worker's recording: its frames as H.264 MP4 segments and the rectified table at
each settled change as a JPEG still, written on a thread of their own, so that encoding runs
beside the pipeline (on the second core) instead of in its way.

Each finished file is handed to ``on_file(kind, start, end, path)`` from that thread (the worker
prints it; the rig indexes it into the ring). Frames up to ``after`` are not recorded again: the
ring already holds them (a worker restarted mid-hand reads its file from the start).
"""

from __future__ import annotations

import queue
import threading
from pathlib import Path

import numpy as np

from rig.evidence.media import OnDone, VideoWriter, write_still

QUEUED = 16  # frames waiting for the encoder at most (then the pipeline waits for it)


class CameraTee:
    def __init__(
        self,
        video_dir: Path,
        stills_dir: Path,
        on_file: OnDone,
        segment_s: float = 10.0,
        after: float = float("-inf"),
    ) -> None:
        self.on_file = on_file
        self.stills_dir = stills_dir
        self.after = after
        self.video = VideoWriter(video_dir, on_file, segment_s, rgb=True)
        self.stills: dict[int, float] = {}  # frame number → the time of the still kept at it
        self.frame_number = 0  # the frame the pipeline reads now (a still is kept at it)
        self.keep_stills = True
        self.error: BaseException | None = None
        self._queue: queue.Queue[tuple[str, float, np.ndarray] | None] = queue.Queue(QUEUED)
        self._thread = threading.Thread(target=self._run, name="camera-tee", daemon=True)
        self._thread.start()

    def frame(self, t: float, rgb: np.ndarray) -> None:
        if t > self.after:
            self._put(("frame", t, rgb))

    def still(self, t: float, rectified: np.ndarray) -> None:
        """The pipeline's settled change at ``t`` (``TableReader.on_settled``)."""
        if self.keep_stills and t > self.after:
            self.stills[self.frame_number] = t
            self._put(("still", t, rectified))

    def _put(self, item: tuple[str, float, np.ndarray] | None) -> None:
        while True:
            if self.error is not None or not self._thread.is_alive():
                raise RuntimeError(f"recording failed: {self.error}") from self.error
            try:
                self._queue.put(item, timeout=0.5)
                return
            except queue.Full:
                continue  # the encoder is behind: the pipeline waits for it

    def _run(self) -> None:
        while (item := self._queue.get()) is not None:
            kind, t, image = item
            try:
                if kind == "frame":
                    self.video.write(t, image)
                else:
                    self.on_file("still", t, t, write_still(self.stills_dir, t, image))
            except Exception as exc:  # a full disk: the pipeline says so at its next frame
                self.error = exc
                return
        try:
            self.video.close()
        except Exception as exc:
            self.error = exc

    def close(self) -> None:
        """Finish the open segment (handed on) and stop the thread."""
        if self._thread.is_alive():
            self._put(None)
            self._thread.join()
