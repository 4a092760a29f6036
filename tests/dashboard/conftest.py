"""Fixtures: a real SQLite file and a real PostgreSQL server (started here, skipped cleanly
when it is not installed), each migrated and with one user per role."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest
from dashkit import Dash, prepare
from pgcluster import PgCluster, PostgresUnavailable

_names = itertools.count()


@pytest.fixture(scope="session")
def pg() -> Iterator[PgCluster]:
    try:
        cluster = PgCluster().start()
    except PostgresUnavailable as exc:
        pytest.skip(f"no PostgreSQL: {exc}")
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str | None:
    if request.param == "sqlite":
        return None  # the default: a file under the data folder
    cluster: PgCluster = request.getfixturevalue("pg")
    return cluster.create_database(f"t{next(_names)}")


@pytest.fixture
def dash(tmp_path: Path) -> Iterator[Dash]:
    """A dashboard on SQLite (the embedded default)."""
    with Dash(prepare(None, tmp_path / "data")) as d:
        yield d
