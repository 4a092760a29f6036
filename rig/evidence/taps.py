"""Where the rig's recordings come from when no live camera worker feeds the recorder: a video
file played as the camera (``evidence.video_file``), at the pace of its frames."""

from __future__ import annotations

import asyncio
from pathlib import Path

import cv2

from rig.evidence.recorder import Recorder
from rig.inputs import Input, Sink
from table_io.clock import Clock


class VideoFileTap(Input):
    """Each frame of the file is recorded at ``t0 + i / fps`` of the session (``t0``: when the
    tap started); the file ending finishes the input."""

    name = "video"

    def __init__(self, path: Path, recorder: Recorder, clock: Clock, realtime: bool = True):
        self.path = path
        self.recorder = recorder
        self.clock = clock
        self.realtime = realtime
        self.silent_after = 30.0
        self.frames = 0

    async def run(self, sink: Sink) -> None:
        cap = cv2.VideoCapture(str(self.path))
        try:
            if not cap.isOpened():
                raise RuntimeError(f"{self.path}: cannot be opened as a video")
            fps = cap.get(cv2.CAP_PROP_FPS) or 10.0
            t0, i = self.clock.now(), 0
            while True:
                ok, frame = await asyncio.to_thread(cap.read)
                if not ok:
                    return
                ts = t0 + i / fps
                if self.realtime and (wait := ts - self.clock.now()) > 0:
                    await self.clock.sleep(wait)
                await asyncio.to_thread(self.recorder.record_frame, ts, frame)
                sink.alive(self.name)
                i += 1
                self.frames += 1
        finally:
            cap.release()
            await asyncio.to_thread(self.recorder.video_done)
