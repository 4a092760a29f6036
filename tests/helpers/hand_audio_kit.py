"""A real rig hearing a table hand after hand as the demo feeds it (venue/demo.py ``_voice``):
each hand a new voice input from a file whose time line starts at 0, recorded into the rig's
evidence ring by the voice worker. Each hand's audio is a tone of its own loudness, so a clip
tells which hand it was cut from."""

from __future__ import annotations

import asyncio
import io
from collections.abc import Callable
from pathlib import Path

import numpy as np
import soundfile as sf

from referee.events import PenaltyDecision, PlayerLate, SessionStarted, Source
from referee.hands import Wind
from rig.config import VoiceSection
from rig.inputs import Draft
from rig.runtime import Rig
from voice.audio_io import SR, write_wav

WAIT = 60.0  # only reached when something is broken
LEVELS = (0.1, 0.3, 0.5)  # each hand's tone (its RMS is this / √2)
SEATS = ["E", "S", "W", "N"]


def hand_wav(path: Path, seconds: float, level: float) -> Path:
    """Four microphones hearing a 440 Hz tone of ``level`` for ``seconds``."""
    t = np.arange(round(seconds * SR)) / SR
    tone = (level * np.sin(2 * np.pi * 440.0 * t)).astype(np.float32)
    write_wav(path, np.repeat(tone[:, None], 4, axis=1))
    return path


def level_of(flac: bytes) -> float:
    """The tone's level a clip holds (its RMS × √2)."""
    samples, _ = sf.read(io.BytesIO(flac), always_2d=True)
    return float(np.sqrt(np.mean(samples[:, 0] ** 2)) * np.sqrt(2))


async def until(cond: Callable[[], bool], what: str) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT
    while not cond():
        assert loop.time() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.05)  # waiting on real I/O (the voice worker's process)


async def hear(rig: Rig, wav: Path, late_after: float | None = None) -> tuple[float, float]:
    """The hand's audio heard as the demo does (a new voice input, its own time line), until
    the worker has heard it all and its segments are in the ring; with ``late_after`` a referee
    logs a player 40 s late once the ring holds that many seconds of the hand's audio (a penalty
    proposal, WMC-13.4, within the hand). The session times the ring holds it from, to."""
    assert rig.evidence is not None
    ring = rig.evidence.recorder.ring
    known = {s.id for s in ring.find("audio", 0.0, 1e9)}

    def new() -> list[float]:
        segs = [s for s in ring.find("audio", 0.0, 1e9) if s.id not in known]
        return [x for s in segs for x in (s.start, s.end)]

    inp = rig.voice_input(VoiceSection(file=wav, channels=4, seats=SEATS))  # type: ignore[arg-type]
    inp.heard_until = -1.0  # a new recording: its own time line (as the demo)
    rig.replace_input(inp)
    if late_after is not None:
        held = late_after

        def heard() -> bool:
            got = new()
            return bool(got) and max(got) - min(got) >= held

        await until(heard, f"{late_after} s of the hand's audio")
        rig.submit("referee", Draft(PlayerLate(seat=Wind.S, seconds=40), Source.REFEREE))
    await until(lambda: inp.heard_all, "the hand's audio heard")
    await rig.idle()
    return min(new()), max(new())


def start_session(rig: Rig) -> None:
    players = ("Ann", "Bo", "Chen", "Dai")
    rig.submit("referee", Draft(SessionStarted(players=players), Source.REFEREE))


def decide(rig: Rig, proposal: str) -> None:
    """A referee's decision on ``proposal`` reaches the rig (as cmd/event does)."""
    verdict = PenaltyDecision(proposal=proposal, verdict="dismiss", referee="Ann", reason="ok")
    rig.submit("referee", Draft(verdict, Source.REFEREE))
