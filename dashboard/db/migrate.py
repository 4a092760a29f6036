"""Alembic from code: ``mjref dashboard migrate`` upgrades; the app refuses an old schema."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine

SCRIPTS = Path(__file__).parent / "migrations"


class SchemaOutdated(RuntimeError):
    """The database lacks migrations; the message names the command that applies them."""


def _config() -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(SCRIPTS))
    return cfg


def head() -> str | None:
    return ScriptDirectory.from_config(_config()).get_current_head()


def current(engine: Engine) -> str | None:
    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def upgrade(engine: Engine) -> None:
    cfg = _config()
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "head")


def require_current(engine: Engine, db_arg: str) -> None:
    """Raise :class:`SchemaOutdated` unless every migration is applied."""
    at, want = current(engine), head()
    if at != want:
        raise SchemaOutdated(
            f"the database is at migration {at or 'none'}, the dashboard needs {want}: run "
            f"`mjref dashboard migrate{db_arg}` first"
        )
