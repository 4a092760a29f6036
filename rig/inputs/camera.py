"""The camera as an input: a recorded observation file, or the camera worker's process."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from referee.events import Event, LogLineError, Source, parse_line
from rig.inputs.base import Draft, Input, Sink
from table_io.clock import Clock


class CameraFileInput(Input):
    """A recorded observation/event file (JSONL, the envelope of EVENTS.md) standing in for the
    camera: each line is validated, re-stamped by the core and cites ``camera:<line>``.
    ``follow`` keeps reading lines appended later; ``skip`` lines were logged before a restart."""

    name = "camera"

    def __init__(
        self, path: Path, clock: Clock, silent_after: float, follow: bool, skip: int = 0
    ) -> None:
        self.path = path
        self.clock = clock
        self.silent_after = silent_after
        self.follow = follow
        self.done = skip  # lines already logged

    async def run(self, sink: Sink) -> None:
        with self.path.open("rb") as f:
            line_no, pending = 0, b""
            while True:
                pending += f.readline()
                if not pending.endswith(b"\n"):  # at the end, maybe in the middle of a line
                    if not self.follow:
                        if pending.strip() and line_no + 1 > self.done:
                            self._line(line_no + 1, pending.decode("utf-8", "replace"), sink)
                        return
                    await self.clock.sleep(0.02)  # the camera pipeline writes more
                    continue
                line_no += 1
                text, pending = pending.decode("utf-8", "replace"), b""
                sink.alive(self.name)
                if line_no > self.done and text.strip():
                    self._line(line_no, text, sink)
                self.done = max(self.done, line_no)

    def _line(self, n: int, text: str, sink: Sink) -> None:
        try:
            ev = parse_line(text, n)
        except LogLineError as exc:
            sink.alert(self.name, "warning", f"{self.path.name}: {exc}; line skipped")
            return
        evidence = (*ev.evidence, f"camera:{n}")
        sink.submit(self.name, Draft(ev.payload, ev.source, ev.confidence, evidence))


@dataclass(frozen=True)
class VideoRecording:
    """The camera worker also writes its frames as MP4 segments into ``dir`` and the rectified
    table of each settled change as a still into ``stills``; each finished file is handed to
    ``on_file`` (the ring), its times on the session clock already (the worker's frames are).
    ``kept_until`` says where the ring's video ends: a restarted worker records on from there."""

    dir: Path
    stills: Path
    segment_s: float
    on_file: Callable[[str, float, float, Path], None]
    kept_until: Callable[[], float | None]

    def argv(self) -> list[str]:
        out = ["--record", str(self.dir), "--stills", str(self.stills)]
        out += ["--segment-s", str(self.segment_s)]
        until = self.kept_until()
        if until is not None:  # a segment ends a frame's step after its last frame
            out += ["--record-after", f"{until - 0.001:.3f}"]
        return out


CAUGHT_UP = '{"caught_up":true}'  # the line after the log the worker is given at its start
WIND_DOWN_S = 3.0  # a recording worker told to stop finishes its open segment in this time


class CameraInput(Input):
    """The camera (a video file, a camera index or an RTSP stream), read by ``rig.camera_worker``
    in its own process: the pipeline of vision/camera.py and fusion. The worker is given the
    table's log first and then every event the other inputs add (``logged``), and answers with
    the game actions it saw, each submitted with its evidence (frame, still, ``video:`` clip).
    With ``recording`` the worker's segments and stills go into the ring as they are written."""

    name = "camera"

    def __init__(
        self,
        argv: list[str],
        clock: Clock,
        silent_after: float,
        history: Callable[[], list[Event]],
        recording: VideoRecording | None = None,
    ) -> None:
        self.argv = argv
        self.clock = clock
        self.silent_after = silent_after
        self.history = history  # the log so far (read at each start of the worker)
        self.recording = recording
        self._stdin: asyncio.StreamWriter | None = None

    def logged(self, events: Iterable[Event]) -> None:
        """Events the core logged: the worker's fusion follows those it did not send itself."""
        if self._stdin is None or self._stdin.is_closing():
            return
        for ev in events:
            if ev.source is not Source.VISION:
                self._stdin.write(ev.model_dump_json().encode() + b"\n")

    async def run(self, sink: Sink) -> None:
        record = self.recording.argv() if self.recording is not None else []
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "rig.camera_worker",
            *self.argv,
            *record,
            "--now",
            f"{self.clock.now():.3f}",
            "--now-at",
            f"{time.time():.3f}",
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        for ev in self.history():
            proc.stdin.write(ev.model_dump_json().encode() + b"\n")
        proc.stdin.write(CAUGHT_UP.encode() + b"\n")  # nothing is read before the whole log
        self._stdin = proc.stdin
        ended = False
        try:
            async for raw in proc.stdout:
                ended = self._line(raw, sink) or ended
            code = await proc.wait()
        finally:
            self._stdin = None
            if proc.returncode is None:
                await self._stop(proc, sink)
        if code != 0 or not ended:
            err = (await proc.stderr.read()).decode(errors="replace").strip().splitlines()
            raise RuntimeError(f"camera worker exited {code}: {err[-1] if err else 'no output'}")

    def _line(self, raw: bytes, sink: Sink) -> bool:
        """One line of the worker; True when it says its file ended."""
        try:
            msg = json.loads(raw)
        except ValueError:  # capture's own status line (a live source offline, back)
            text = raw.decode(errors="replace").strip()
            sink.alert(self.name, "warning", text[:300])
            return False
        sink.alive(self.name)
        if "event" in msg:
            ev = parse_line(json.dumps(msg["event"]))
            sink.submit(self.name, Draft(ev.payload, ev.source, ev.confidence, ev.evidence))
        elif "alert" in msg:
            a = msg["alert"]
            sink.alert(self.name, "warning", f"{a['rule']}: {a['message']}"[:300])
        elif "segment" in msg and self.recording is not None:
            seg = msg["segment"]
            try:
                self.recording.on_file(seg["kind"], seg["start"], seg["end"], Path(seg["path"]))
            except (OSError, ValueError) as exc:  # not kept: say so, keep the camera running
                sink.alert(self.name, "warning", f"recording not kept: {exc}"[:300])
        return "end" in msg

    async def _stop(self, proc: asyncio.subprocess.Process, sink: Sink) -> None:
        """The input stops while the worker runs: a recording worker is told (its stdin
        closes) and given ``WIND_DOWN_S`` to finish its open segment, which is kept; then (or
        at once, not recording) it is killed."""
        try:
            if self.recording is not None and proc.stdin is not None and proc.stdout is not None:
                proc.stdin.close()
                async with asyncio.timeout(WIND_DOWN_S):
                    async for raw in proc.stdout:
                        if b'"segment"' in raw:  # what it saw after the stop is not logged
                            self._line(raw, sink)
                    await proc.wait()
        except (TimeoutError, asyncio.CancelledError, OSError):
            pass  # stopped again, or too slow: the open segment is lost
        finally:
            if proc.returncode is None:
                proc.kill()
                await proc.wait()
