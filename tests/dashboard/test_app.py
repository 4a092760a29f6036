"""The skeleton: migrations, refusal on an old schema, health and metrics, on SQLite and
PostgreSQL."""

from __future__ import annotations

from pathlib import Path

import pytest
from dashkit import Dash, prepare

from dashboard.app import create_app
from dashboard.db import make_engine
from dashboard.db.migrate import SchemaOutdated, current, head
from dashboard.settings import Settings
from rig.cli import main


def test_refuses_unmigrated_database_naming_the_command(tmp_path: Path) -> None:
    with pytest.raises(SchemaOutdated, match="mjref dashboard migrate --data"):
        create_app(Settings(data=tmp_path))


def test_cli_migrate_then_refusal_is_gone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = str(tmp_path / "d")
    assert main(["dashboard", "--data", data, "--port", "1"]) == 2  # not migrated yet
    assert "mjref dashboard migrate --data" in capsys.readouterr().err
    assert main(["dashboard", "migrate", "--data", data]) == 0
    engine = make_engine(Settings(data=Path(data)).db_url)
    assert current(engine) == head() is not None  # every migration applied
    with engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"


def test_cli_bad_input_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["dashboard", "--data", str(tmp_path), "--port", "0"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("mjref: --port") and "\n" not in err


@pytest.mark.slow
def test_health_and_metrics(db_url: str | None, tmp_path: Path) -> None:
    with Dash(prepare(db_url, tmp_path / "data")) as d:
        r = d.client.get("/healthz")
        assert r.status_code == 200
        assert r.json()["database"] == ("postgresql" if db_url else "sqlite")
        m = d.client.get("/metrics")
        assert m.status_code == 200 and "mjref_dash_events_ingested" in m.text
