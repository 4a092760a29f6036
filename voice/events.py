"""What the voice package tells the referee core: one typed event per heard call."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Word = Literal["chow", "pung", "kong", "win", "selfdraw"]
Lang = Literal["cmn", "yue", "en", "ja"]
Seat = Literal["E", "S", "W", "N"]
Engine = Literal["spotter", "vosk"]

WORDS: tuple[Word, ...] = ("chow", "pung", "kong", "win", "selfdraw")
LANGS: tuple[Lang, ...] = ("cmn", "yue", "en", "ja")


class CallHeard(BaseModel):
    """A spoken claim (WMC 5.2); times are seconds on the rig's monotonic clock.

    ``seat`` is None when the rig has one microphone: the referee core then pairs the call with
    the meld the camera sees.
    """

    model_config = ConfigDict(frozen=True)

    word: Word
    lang: Lang
    seat: Seat | None
    t_start: float
    t_end: float
    conf: float = Field(ge=0.0, le=1.0)
    engine: Engine
    channel: int = Field(ge=0)


class AudioAlert(BaseModel):
    """A capture problem the referee should see (a deaf table cannot enforce rule 5.2)."""

    model_config = ConfigDict(frozen=True)

    kind: Literal["dropout", "stalled", "silent"]
    channel: int | None
    t: float
    detail: str
