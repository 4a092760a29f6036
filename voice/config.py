"""Voice settings (TOML, ``[voice]`` table): which engine, which models, which seats.

Example ``voice.toml``::

    [voice]
    engine = "vosk"                 # or "spotter" (default; needs no vosk model)
    seats = ["E", "S", "W", "N"]    # one per input channel; omit for one mic (seat unknown)
    players = ["alice", "bob"]      # enrolled voice profiles to load
    [voice.vosk_models]
    cmn = "/opt/vosk/vosk-model-small-cn-0.22"
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from voice.events import Engine, Lang, Seat

REPO = Path(__file__).resolve().parents[1]


class ConfigError(ValueError):
    """The voice configuration file is unreadable or invalid."""


class VoiceConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    engine: Engine = "spotter"
    spotter_model: Path = REPO / "models" / "voice_spotter.onnx"
    threshold: float | None = Field(default=None, ge=0.0, le=1.0, allow_inf_nan=False)
    vosk_models: dict[Lang, Path] = {}
    vosk_threshold: float = Field(default=0.6, ge=0.0, le=1.0, allow_inf_nan=False)
    vocab_dir: Path | None = None
    seats: list[Seat | None] | None = None
    players: list[str] = []
    profiles_dir: Path = Path(os.path.expanduser("~/.local/share/mjref/voice/profiles"))


def load_config(path: Path | None = None) -> VoiceConfig:
    """``path``, else $MJREF_VOICE_CONFIG, else defaults."""
    if path is None and os.environ.get("MJREF_VOICE_CONFIG"):
        path = Path(os.environ["MJREF_VOICE_CONFIG"])
    if path is None:
        return VoiceConfig()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        return VoiceConfig.model_validate(data.get("voice", {}))
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"{path}: not UTF-8 text (byte {exc.start}); expected a TOML file"
        ) from exc
    except ValidationError as exc:  # one line: each wrong field and what it should be
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'voice'}: {e['msg']} (got {e['input']!r})"
            for e in exc.errors()
        )
        raise ConfigError(f"{path}: {problems}") from exc
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: {exc}") from exc
