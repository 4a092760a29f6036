"""The table heard once before play: each player in turn says a call, or their name, alone.

A session otherwise learns its table as play goes (``voice.seats.TableAcoustics``): how much of
each seat's voice reaches the other microphones, and how loud each seat speaks at its own. Until
it has, a claim made while another seat talks is judged on the loudest cross-talk a table may
have. ``mjref rig --check --hear-table S`` records S seconds of the rig's microphones while the
players speak in turn; :func:`hear_table` learns the table from them, :func:`save` writes it for
the voice worker (``--acoustics FILE``), which starts the session from it and refines it in play.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from voice.audio_io import SR, Audio
from voice.conduct import calibrate_venue
from voice.events import Seat
from voice.seats import BANDS_HZ, F64, SeatActivity, TableAcoustics, band_levels

FORMAT = "mjref-table-acoustics/1"


class AcousticsError(ValueError):
    """A table acoustics file that cannot be used, and why."""


@dataclass(frozen=True)
class TableHeard:
    """What the check heard: the table's acoustics, by the seats its channels face."""

    seats: tuple[Seat | None, ...]
    acoustics: TableAcoustics

    def unheard(self) -> list[str]:
        """The channels whose seat was not heard alone long enough to tell its cross-talk."""
        return [self._name(s) for s in range(len(self.seats)) if not self._heard(s)]

    def _heard(self, channel: int) -> bool:
        leak = self.acoustics.leak
        assert leak is not None
        return not np.isnan(np.delete(leak[channel], channel)).any()

    def lines(self) -> list[str]:
        """One line a channel, for the referee setting the table up."""
        leak, voice = self.acoustics.leak, self.acoustics.voice
        assert leak is not None and voice is not None
        out = []
        for s in range(len(self.seats)):
            others = [d for d in range(len(self.seats)) if d != s]
            if not self._heard(s):
                out.append(f"{self._name(s)}: not heard alone; ask this player to say a call again")
                continue
            reach = ", ".join(f"{self._name(d)} {leak[s, d]:.0f} dB" for d in others)
            loud = (
                f"voice {np.nanmax(voice[:, s]):.0f} dB over the floor at its microphone"
                if not np.isnan(voice[:, s]).all()
                else "voice too short to tell how loud it is"
            )
            out.append(f"{self._name(s)}: {loud}; heard at the others' {reach}")
        return out

    def _name(self, channel: int) -> str:
        seat = self.seats[channel]
        return f"channel {channel + 1}" if seat is None else f"{seat} (channel {channel + 1})"


def hear_table(audio: Audio, seats: Sequence[Seat | None]) -> TableHeard:
    """The table's acoustics from a recording of its players speaking in turn."""
    x = audio.reshape(len(audio), -1)
    if x.shape[1] != len(seats) or x.shape[1] < 2:
        raise AcousticsError(
            f"the recording has {x.shape[1]} channel(s) for {len(seats)} seat(s); the table is "
            "heard with one microphone a seat (two or more)"
        )
    floors = calibrate_venue(x, len(x) / SR).floors
    act = SeatActivity(band_levels(x), floors, seats)
    acoustics = TableAcoustics()
    acoustics.learn(act)
    return TableHeard(tuple(seats), acoustics)


def save(path: Path, heard: TableHeard) -> None:
    leak, voice = heard.acoustics.leak, heard.acoustics.voice
    assert leak is not None and voice is not None
    body = {
        "format": FORMAT,
        "seats": list(heard.seats),
        "leak_db": _rows(leak),  # [seat][microphone], null: not heard
        "voice_db": _rows(voice),  # [band][seat] over the floor, null: not heard
        "bands_hz": [list(b) for b in BANDS_HZ],
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(body, indent=1) + "\n", encoding="utf-8")
    tmp.replace(path)


def load(path: Path, seats: Sequence[Seat | None]) -> TableAcoustics:
    """The acoustics saved by the check, for a rig whose channels face ``seats``."""
    again = "run `mjref rig --check --hear-table` again"
    try:
        body = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise AcousticsError(f"{path}: not readable as table acoustics ({exc}); {again}") from exc
    if not isinstance(body, dict) or body.get("format") != FORMAT:
        raise AcousticsError(f"{path}: not a table acoustics file (expected format {FORMAT})")
    if body.get("seats") != list(seats):
        raise AcousticsError(
            f"{path}: heard with the channels facing {body.get('seats')}, the rig's face "
            f"{list(seats)}; {again}"
        )
    n = len(seats)
    leak = _matrix(body.get("leak_db"), (n, n), path, "leak_db")
    voice = _matrix(body.get("voice_db"), (len(BANDS_HZ), n), path, "voice_db")
    return TableAcoustics(leak=leak, voice=voice)


def _rows(a: F64) -> list[list[float | None]]:
    return [[None if np.isnan(v) else round(float(v), 2) for v in row] for row in a]


def _matrix(rows: Any, shape: tuple[int, int], path: Path, key: str) -> F64:
    ok = (
        isinstance(rows, list)
        and len(rows) == shape[0]
        and all(isinstance(r, list) and len(r) == shape[1] for r in rows)
        and all(
            v is None or (isinstance(v, int | float) and math.isfinite(v)) for r in rows for v in r
        )
    )
    if not ok:
        raise AcousticsError(
            f"{path}: {key} must be {shape[0]} rows of {shape[1]} numbers (dB) or null"
        )
    return np.array([[math.nan if v is None else float(v) for v in r] for r in rows])
