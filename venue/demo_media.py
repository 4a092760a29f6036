"""What the demo's simulated tables are made of: a simulated hand, its overhead video and its
table audio, made once and kept in a cache folder keyed by the seed and this module's version.

- The hands: a session of ``referee.game.sim.Simulator`` (WMC), its times divided by
  ``speed``, cut into hands (:func:`split_hands`).
- The video: ``vision.synth`` from that log, at settings the camera pipeline reads reliably
  (:data:`RENDER`: 1280×720, 5 frames/s, the camera straight over the table ("top"), the
  "text" tile faces, no arm held over a river, the renderer's even light), written lossless
  (HuffYUV in AVI).
- The audio: four microphones (voice/scene.py) with every tile clack and the spoken calls,
  synthesized with espeak-ng, at the times of the hand; the first claim is left unspoken (an
  irregularity the core reports: WMC-5.2, with a penalty proposal).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from referee.events import Event
from referee.game.sim import Simulator
from vision.synth.video import RenderSpec, frames
from voice.audio_io import SR, write_wav
from voice.scene import SEAT_INDEX, Scene, tile_clack
from voice.verify import claims_from_events

VERSION = "9"  # bump when the media change: the cache key
HAND_FOLDER = re.compile(r"v\d+-seed\d+-hand\d+-x[\d.]+")  # a hand's media, any version
RENDER = RenderSpec(1280, 720, fps=5.0, style="text", pose="top", hovers=0)
FOURCC = "HFYU"  # lossless: 1 MB a frame, 300-700 MB a hand in the cache
LEAD_S = 3.0  # audio before the video starts (the deal)
FILM_AFTER_DEAL_S = 0.5  # the video starts this long after the deal (the renderer's default)
WORDS = {"chow": "chi1", "pung": "peng4", "kong": "gang4", "win": "hu2", "selfdraw": "hu2"}
ACTIONS = ("draw", "replacement_draw", "discard", "chow", "pung", "kong", "win")


HANDS = 4  # a simulated session of the demo: one round (the smoke plays its first hand)
SETUP = ("session_started", "seat_draw", "wall_built")  # the events that open a hand


@dataclass(frozen=True)
class HandMedia:
    seed: int
    hand: int
    before: list[Event]  # the session's events before this hand (the truth so far)
    events: list[Event]  # this hand's (from its seating or wall to its last action)
    video: Path
    audio: Path
    unspoken: tuple[str, ...]  # the claims (seat kind) left unspoken

    @property
    def deal(self) -> int:
        return next(i for i, e in enumerate(self.events) if e.type == "deal")


def simulate(seed: int, speed: float = 1.0) -> list[Event]:
    events = list(Simulator(seed=seed).run(HANDS))
    return [e.model_copy(update={"ts": round(e.ts / speed, 3)}) for e in events]


def split_hands(events: list[Event]) -> list[list[Event]]:
    """The session by hand: a hand starts with the setup that follows the last one's play."""
    hands: list[list[Event]] = [[]]
    played = False
    for e in events:
        if e.type in SETUP and played:
            hands.append([])
            played = False
        played = played or e.type in ACTIONS
        hands[-1].append(e)
    return hands


def prune_stale(cache: Path) -> list[Path]:
    """Remove the hands an older version of the media left in the cache (300–700 MB each, never
    read again); the folders removed. Only folders named as :func:`hand_media` names them."""
    stale = [
        d
        for d in cache.iterdir()
        if d.is_dir() and HAND_FOLDER.fullmatch(d.name) and not d.name.startswith(f"v{VERSION}-")
    ]
    for d in stale:
        shutil.rmtree(d, ignore_errors=True)
    return stale


def _folder(cache: Path, seed: int, hand: int, speed: float) -> Path:
    return cache / f"v{VERSION}-seed{seed}-hand{hand}-x{speed:g}"


def hand_media(cache: Path, seed: int, hand: int = 0, speed: float = 1.0) -> HandMedia:
    """Hand ``hand`` of the session ``seed``: made now unless the cache has it (each file
    written whole, then renamed, so an interrupted run leaves no half file)."""
    folder = _folder(cache, seed, hand, speed)
    folder.mkdir(parents=True, exist_ok=True)
    _remove_stale_parts(folder)
    session = simulate(seed, speed)
    hands = split_hands(session)
    if not 0 <= hand < len(hands):
        raise ValueError(f"hand {hand}: the session of seed {seed} has {len(hands)} hands")
    events = hands[hand]
    before = [e for h in hands[:hand] for e in h]
    video, audio, meta = folder / "video.avi", folder / "audio.wav", folder / "meta.json"
    if not video.exists():
        part = folder / f"video.{os.getpid()}.avi"
        deal = next(e.ts for e in events if e.type == "deal")
        start, end = deal + FILM_AFTER_DEAL_S, events[-1].ts + 2.0
        spec = {**RENDER.__dict__, "seed": seed + hand, "start": start, "end": end}
        render([*before, *events], part, RenderSpec(**spec))  # the session up to this hand
        part.replace(video)
    if not audio.exists() or not meta.exists():
        unspoken = table_audio(events, audio, seed + hand, hand)
        meta.write_text(json.dumps({"unspoken": unspoken}), encoding="utf-8")
    said = tuple(str(c) for c in json.loads(meta.read_text(encoding="utf-8"))["unspoken"])
    return HandMedia(seed, hand, before, events, video, audio, said)


def _remove_stale_parts(folder: Path) -> None:
    """The part files (``video.PID.avi``, ``audio.PID.wav``) of a maker that is gone: a render
    killed before it could remove its own (hundreds of MB each)."""
    for part in folder.glob("*.*.*"):
        pid = part.name.split(".")[1]
        if pid.isdigit() and not _running(int(pid)):
            part.unlink(missing_ok=True)


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


MAKER_NICE = 10  # the maker's priority below the rigs': the cameras and microphones come first
MAKER_STOP_S = 10.0  # a maker told to stop removes its part file within this long, or is killed


async def made(cache: Path, seed: int, hand: int = 0, speed: float = 1.0) -> HandMedia:
    """:func:`hand_media`, the making done by a process of its own at a lower priority: in a
    thread of the demo it held the interpreter that runs the rigs and the dashboard (20–40 s of
    Python drawing a hand: four tables' alerts came seconds late). Cancelled, the maker is
    told to stop and removes its part file."""
    folder = _folder(cache, seed, hand, speed)
    if not all((folder / f).exists() for f in ("video.avi", "audio.wav", "meta.json")):
        argv = [sys.executable, "-m", "venue.demo_media", str(cache), str(seed), str(hand)]
        proc = await asyncio.create_subprocess_exec(
            *argv, f"{speed:g}", stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        try:
            _, err = await proc.communicate()
        except asyncio.CancelledError:
            if proc.returncode is None:
                proc.terminate()
                try:
                    await asyncio.wait_for(proc.wait(), MAKER_STOP_S)
                except TimeoutError:
                    proc.kill()
                    await proc.wait()
            raise
        if proc.returncode != 0:
            said = err.decode(errors="replace").strip().splitlines()
            raise RuntimeError(
                f"hand {hand} of seed {seed} not made: {said[-1] if said else proc.returncode}"
            )
    return await asyncio.to_thread(hand_media, cache, seed, hand, speed)


def _writer(path: Path, fps: float, size: tuple[int, int]) -> cv2.VideoWriter:
    """Lossless (HuffYUV): OpenCV's mp4v and Motion JPEG artefacts cost the recognizer tiles (a
    meld tile "not read surely", then every later discard out of turn); a venue's camera
    streams H.264 at a far higher bit rate than those writers give. FFV1 gave the same frames
    in half the space, at 65 ms of CPU a frame to write and 53 to read (HuffYUV 12 and 15): a
    quarter of a core for each table's camera only to read its video."""
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*FOURCC), fps, size)
    if not writer.isOpened():
        raise OSError(f"{path}: OpenCV cannot write a video there")
    return writer


class Stopped(RuntimeError):
    """The demo is stopping: a render in progress gives up (its partial file is removed)."""


STOP = threading.Event()


def render(events: list[Event], out: Path, spec: RenderSpec) -> int:
    writer = _writer(out, spec.fps, (spec.width, spec.height))
    n = 0
    try:
        for frame, _ in frames(events, spec):
            if STOP.is_set():
                out.unlink(missing_ok=True)
                raise Stopped(f"{out}: not rendered, the demo is stopping")
            writer.write(cv2.cvtColor(frame, cv2.COLOR_RGB2BGR))
            n += 1
    finally:
        writer.release()
    return n


def table_audio(events: list[Event], out: Path, seed: int, hand: int = 0) -> list[str]:
    """Four microphones of the hand, audio time 0 = ``LEAD_S`` before the video's first frame.
    A microphone faces a chair; hand ``hand``'s dealer sits at chair ``hand % 4`` (WMC-2.4)."""
    from voice import synth

    deal_ts = next(e.ts for e in events if e.type == "deal")
    shift = LEAD_S - deal_ts - FILM_AFTER_DEAL_S
    timed = [e.model_copy(update={"ts": round(e.ts + shift, 3)}) for e in events]
    timed = [e for e in timed if e.ts >= LEAD_S]
    rng = np.random.default_rng(seed)
    scene = Scene(timed[-1].ts + 4.0, rng)
    for e in timed:
        seat = getattr(e.payload, "seat", None)
        if e.type in ("discard", "draw", "replacement_draw") and seat is not None:
            scene.add((hand + seat) % 4, tile_clack(rng), e.ts, -28 + float(rng.uniform(-3, 3)))
    voices = [synth.Voice("espeak", v, 1.0, 50) for v in ("m3", "f2", "m1", "f4")]
    unspoken: list[str] = []
    for n, claim in enumerate(claims_from_events(timed)):
        if n == 0 and claim.kind in ("chow", "pung", "kong"):
            unspoken.append(f"{claim.seat} {claim.kind}")
            continue
        s = (hand + SEAT_INDEX[claim.seat]) % 4
        word = synth.espeak(WORDS[claim.kind], "cmn-latn-pinyin", voices[s])
        room = claim.t_exposed - claim.t_discard
        on = claim.t_discard + max(0.1, min(0.4, room - len(word) / SR - 0.2))
        scene.add(s, word, on, -14.0)
    part = out.with_name(f"audio.{os.getpid()}.wav")
    write_wav(part, scene.render())
    part.replace(out)
    return unspoken


def drop_frames(video: Path, out: Path, start: float, end: float) -> Path:
    """A copy of ``video`` without its frames from ``start`` to ``end`` s (a camera stream that
    lost them): to show that a broken pipeline does not agree with the truth."""
    cap = cv2.VideoCapture(str(video))
    fps = cap.get(cv2.CAP_PROP_FPS) or RENDER.fps
    size = (int(cap.get(cv2.CAP_PROP_FRAME_WIDTH)), int(cap.get(cv2.CAP_PROP_FRAME_HEIGHT)))
    count = int(cap.get(cv2.CAP_PROP_FRAME_COUNT))  # 0 when the file does not say
    writer = _writer(out, fps, size)
    n = 0
    while True:
        if count and end * fps >= count and n >= start * fps:
            break  # the rest is all dropped: not read
        ok, frame = cap.read()
        if not ok:
            break
        if not start <= n / fps < end:
            writer.write(frame)
        n += 1
    cap.release()
    writer.release()
    return out


def _make(argv: list[str]) -> int:
    """``python -m venue.demo_media CACHE SEED HAND SPEED``: :func:`made`'s maker."""
    os.nice(MAKER_NICE)
    signal.signal(signal.SIGTERM, lambda *_: STOP.set())
    cache, seed, hand, speed = Path(argv[0]), int(argv[1]), int(argv[2]), float(argv[3])
    try:
        hand_media(cache, seed, hand, speed)
    except Stopped:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(_make(sys.argv[1:]))
