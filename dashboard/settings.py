"""The dashboard's settings: environment (``MJREF_DASH_…``) first, the CLI on top."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

TIEBREAKS = ("rank_points", "score", "wins", "best_hand", "name")
"""Keys the organiser may order standings by (``--tiebreak``): table points (4-2-1-0 per
session, shared on a tie), the score, hands won, the best hand's value; the name settles last."""


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="MJREF_DASH_", extra="forbid")

    data: Path = Path("dashboard-data")
    db: str | None = None  # default: sqlite under ``data``
    mqtt: str | None = None  # default: the in-process bus
    venue: str = "local"
    host: str = "127.0.0.1"
    port: int = Field(8080, ge=1, le=65535)
    secure_cookies: bool = False  # set behind TLS: cookies get the Secure flag
    session_hours: float = Field(12.0, gt=0)
    login_failures: int = Field(5, ge=1)  # per name and address, then locked out …
    login_window: float = Field(300.0, gt=0)  # … for this many seconds
    tiebreaks: tuple[str, ...] = ("rank_points", "score", "wins", "best_hand", "name")
    teams: dict[str, str] = Field(default_factory=dict)  # player → team
    hands_per_session: int = Field(8, ge=1)
    evidence_token: str = ""  # the rigs' clip servers trust this bearer token (rig evidence.token)
    clip_timeout: float = Field(
        10.0, gt=0
    )  # seconds to wait for a rig's clip  # "hand 6 of 8": a session id is a half (WMC-8.1)

    @property
    def db_url(self) -> str:
        return self.db or f"sqlite:///{self.data / 'dashboard.sqlite'}"

    def check(self) -> list[str]:
        """Problems a pydantic type cannot see, one line each."""
        bad = [t for t in self.tiebreaks if t not in TIEBREAKS]
        return (
            [f"tie-break {', '.join(bad)} unknown; expected some of {', '.join(TIEBREAKS)}"]
            if bad
            else []
        )
