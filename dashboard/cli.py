"""``mjref dashboard`` (serve, or ``migrate``), ``mjref users add``, ``mjref tokens issue``."""

from __future__ import annotations

import argparse
import getpass
import sys
import time
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from sqlalchemy.exc import SQLAlchemyError

from dashboard.settings import Settings


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--db",
        help="database URL (default: SQLite under --data), e.g. postgresql://user:pass@host/mjref",
    )
    p.add_argument("--data", type=Path, help="data folder (default: ./dashboard-data)")


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("dashboard", help="the referees' dashboard and venue service")
    p.add_argument(
        "action",
        nargs="?",
        choices=("serve", "migrate"),
        default="serve",
        help="serve (default), or migrate: apply the database migrations",
    )
    _common(p)
    p.add_argument("--mqtt", help="the venue's broker, mqtt://HOST[:PORT] (default: in-process)")
    p.add_argument("--venue", help="the venue's name in the topic tree (default: local)")
    p.add_argument("--host", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, help="port to listen on (default 8080)")
    p.set_defaults(handler=dashboard_main)

    u = subparsers.add_parser("users", help="dashboard users")
    us = u.add_subparsers(dest="users_command", metavar="ACTION", required=True)
    add = us.add_parser("add", help="add a user (asks for the password)")
    add.add_argument("name")
    add.add_argument(
        "--role", required=True, choices=("head_referee", "referee", "scorekeeper", "viewer")
    )
    add.add_argument(
        "--password-stdin",
        action="store_true",
        help="read the password from standard input instead of asking",
    )
    _common(add)
    add.set_defaults(handler=users_add)

    t = subparsers.add_parser("tokens", help="rig tokens (each writes one table only)")
    ts = t.add_subparsers(dest="tokens_command", metavar="ACTION", required=True)
    issue = ts.add_parser("issue", help="issue a token for TABLE (printed once)")
    issue.add_argument("table")
    _common(issue)
    issue.set_defaults(handler=tokens_issue)


def settings_from(args: argparse.Namespace) -> Settings:
    given = {k: getattr(args, k, None) for k in ("db", "data", "mqtt", "venue", "host", "port")}
    return Settings(**{k: v for k, v in given.items() if v is not None})


def _fail(message: str) -> int:
    print(f"mjref: {message}", file=sys.stderr)
    return 2


def _make_data(settings: Settings) -> None:
    """The data folder (SQLite lives there): made if missing; one clear error if it cannot be."""
    if settings.db is not None:
        return
    try:
        settings.data.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ValueError(
            f"--data {settings.data}: {exc.strerror or exc}; expected a folder it can write"
        ) from None


def _open(args: argparse.Namespace, *, migrate: bool = False) -> tuple[Settings, Any]:
    """The database of ``args``: refused unless migrated, or (``migrate``) brought up to date."""
    from dashboard.app import db_hint
    from dashboard.db import make_engine, session_factory
    from dashboard.db.migrate import require_current, upgrade

    settings = settings_from(args)
    _make_data(settings)
    engine = make_engine(settings.db_url)
    if migrate:
        upgrade(engine)
    else:
        require_current(engine, db_hint(settings))
    return settings, session_factory(engine)


def dashboard_main(args: argparse.Namespace) -> int:
    from dashboard.db.migrate import SchemaOutdated

    try:
        settings = settings_from(args)
        if args.action == "migrate":
            from dashboard.db import make_engine
            from dashboard.db.migrate import current, upgrade

            _make_data(settings)
            engine = make_engine(settings.db_url)
            upgrade(engine)
            print(
                f"database {engine.url.render_as_string(hide_password=True)} at migration "
                f"{current(engine)}"
            )
            return 0
        import uvicorn

        from dashboard.app import create_app

        app = create_app(settings)
    except ValidationError as exc:
        first = exc.errors()[0]
        return _fail(f"--{first['loc'][0]}: {first['msg']}")
    except (SchemaOutdated, ValueError) as exc:
        return _fail(str(exc))
    except SQLAlchemyError as exc:
        return _fail(f"cannot open the database: {str(exc).splitlines()[0]}")
    # No per-message deflate: the pushes are small JSON, and compressing each for every
    # connected client cost more of the dashboard's CPU than the whole alert (bench/README.md).
    uvicorn.run(
        app,
        host=settings.host,
        port=settings.port,
        log_level="info",
        ws_per_message_deflate=False,
    )
    return 0


def users_add(args: argparse.Namespace) -> int:
    from dashboard import store
    from dashboard.auth import UserError, add_user
    from dashboard.db.migrate import SchemaOutdated

    try:
        _, factory = _open(args)
        if args.password_stdin:
            password = sys.stdin.readline().rstrip("\n")
        else:
            password = getpass.getpass(f"password for {args.name}: ")
            if getpass.getpass("again: ") != password:
                return _fail("the two passwords differ")
        add_user(factory, args.name, args.role, password, time.time())
        store.audit(
            factory, time.time(), "cli", "user_added", target=args.name, detail={"role": args.role}
        )
    except (SchemaOutdated, UserError, ValueError) as exc:
        return _fail(str(exc))
    except SQLAlchemyError as exc:
        return _fail(f"cannot open the database: {str(exc).splitlines()[0]}")
    print(f"user {args.name} added as {args.role}")
    return 0


def tokens_issue(args: argparse.Namespace) -> int:
    from dashboard import store
    from dashboard.auth import UserError, issue_token
    from dashboard.db.migrate import SchemaOutdated

    try:
        _, factory = _open(args)
        token = issue_token(factory, args.table, time.time())
        store.audit(factory, time.time(), "cli", "token_issued", table_id=args.table)
    except (SchemaOutdated, UserError, ValueError) as exc:
        return _fail(str(exc))
    except SQLAlchemyError as exc:
        return _fail(f"cannot open the database: {str(exc).splitlines()[0]}")
    print(token)
    return 0
