"""A private PostgreSQL server for tests and benches: initdb + pg_ctl in a temp folder, as the
``postgres`` system user (the server refuses to run as root), on a free port; stopped after."""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path


class PostgresUnavailable(RuntimeError):
    pass


def _bin(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    for base in sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True):
        if (base / name).exists():
            return str(base / name)
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PgCluster:
    def __init__(self) -> None:
        initdb, pg_ctl = _bin("initdb"), _bin("pg_ctl")
        if initdb is None or pg_ctl is None:
            raise PostgresUnavailable("PostgreSQL is not installed (apt-get install postgresql)")
        self.as_user: list[str] = []
        if os.geteuid() == 0:
            try:
                pwd.getpwnam("postgres")
            except KeyError:
                raise PostgresUnavailable("no postgres system user to run the server") from None
            runuser = shutil.which("runuser")
            if runuser is None:
                raise PostgresUnavailable("runuser is missing")
            self.as_user = [runuser, "-u", "postgres", "--"]
        self.initdb, self.pg_ctl = initdb, pg_ctl
        self.dir = Path(tempfile.mkdtemp(prefix="mjref-pg-"))
        self.data = self.dir / "data"
        self.port = _free_port()
        self.started = False

    def _run(self, *cmd: str) -> None:
        done = subprocess.run([*self.as_user, *cmd], capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise PostgresUnavailable(f"{Path(cmd[0]).name}: {done.stderr.strip()[-300:]}")

    def start(self) -> PgCluster:
        if self.as_user:
            shutil.chown(self.dir, "postgres")
        self._run(
            self.initdb,
            "-D",
            str(self.data),
            "-A",
            "trust",
            "-U",
            "postgres",
            "-E",
            "UTF8",
            "--no-sync",
        )
        opts = (
            f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off "
            "-c max_connections=200"
        )
        self._run(
            self.pg_ctl,
            "-D",
            str(self.data),
            "-o",
            opts,
            "-l",
            str(self.dir / "log"),
            "-w",
            "start",
        )
        self.started = True
        return self

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def create_database(self, name: str) -> str:
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def stop(self) -> None:
        if self.started:
            subprocess.run(
                [*self.as_user, self.pg_ctl, "-D", str(self.data), "-m", "fast", "-w", "stop"],
                capture_output=True,
                timeout=60,
            )
            self.started = False
        shutil.rmtree(self.dir, ignore_errors=True)
