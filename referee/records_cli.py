"""`mjref import` and `mjref export`: records of games played elsewhere, to and from our logs.

``mjref import botzone FILE`` (Botzone's text format, many matches a file) and ``mjref import
mjdata FILE…`` (the 2017 tab-separated hands, one a file; a folder means every ``*.txt`` in
it) write one JSONL log per record into ``--out DIR`` (else all to stdout); ``--check`` replays
each through the engine and compares the result with the record's fans and points instead.
``mjref export botzone|mjdata LOG`` writes a log's hands in either format.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from referee.events import Event, LogLineError, parse_line
from referee.records import Imported, RecordError, botzone, mjdata
from referee.records.botzone import ExportError
from referee.records.check import check, summary


def register(subparsers: Any) -> None:
    imp = subparsers.add_parser(
        "import", help="import recorded games (Botzone, the 2017 mjdata hands) as game logs"
    )
    imp.add_argument("format", choices=("botzone", "mjdata"))
    imp.add_argument("files", type=Path, nargs="+", metavar="FILE")
    imp.add_argument("--out", type=Path, metavar="DIR", help="one <record id>.jsonl per record")
    imp.add_argument(
        "--check",
        action="store_true",
        help="replay each record and compare with its Fan/Score lines: 'id, ok | differs: …'",
    )
    imp.set_defaults(handler=run_import)

    exp = subparsers.add_parser("export", help="write a game log in a record format")
    exp.add_argument("format", choices=("botzone", "mjdata"))
    exp.add_argument("log", type=Path, metavar="LOG")
    exp.add_argument(
        "--out",
        type=Path,
        help="botzone: the file to write; mjdata: a folder, one <table>-<session>-<hand>.txt "
        "per hand (default: stdout)",
    )
    exp.set_defaults(handler=run_export)


def _mjdata_files(paths: list[Path]) -> Iterator[Path]:
    for path in paths:
        if path.is_dir():
            yield from sorted(path.rglob("*.txt"))
        else:
            yield path


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        print(f"cannot read {path}: {exc}", file=sys.stderr)
        return None


def _load(args: argparse.Namespace) -> tuple[Imported, list[str]] | int:
    """The records of every file and the errors as 'FILE:line N: …'; 2 if a file is unreadable."""
    imported = Imported()
    errors: list[str] = []
    botzone_files = args.format == "botzone"
    files = list(args.files) if botzone_files else list(_mjdata_files(args.files))
    for path in files:
        text = _read(path)
        if text is None:
            return 2
        if botzone_files:
            part = botzone.parse(text)
            imported.records += part.records
            errors += [f"{path}:{e}" for e in part.errors]
            continue
        try:
            imported.records.append(mjdata.parse(text, f"{path.parent.name}-{path.stem}"))
        except RecordError as exc:
            errors.append(f"{path}:{exc}")
    return imported, errors


def run_import(args: argparse.Namespace) -> int:
    loaded = _load(args)
    if isinstance(loaded, int):
        return loaded
    imported, errors = loaded
    for err in errors:
        print(err, file=sys.stderr)
    if args.check:
        verdicts = [check(record) for record in imported.records]
        for verdict in verdicts:
            print(verdict.line())
        print(summary(verdicts))
        clean = all(v.status == "ok" for v in verdicts)
        return 0 if clean and not errors else 1
    if args.out is not None:
        try:
            args.out.mkdir(parents=True, exist_ok=True)
            for record in imported.records:
                _write(args.out / f"{record.id}.jsonl", record.events)
        except OSError as exc:
            print(f"cannot write to {args.out}: {exc}", file=sys.stderr)
            return 2
        print(f"wrote {len(imported.records)} log(s) to {args.out}", file=sys.stderr)
    else:
        for record in imported.records:
            sys.stdout.write("".join(ev.to_json() + "\n" for ev in record.events))
    return 1 if errors else 0


def _write(path: Path, events: list[Event]) -> None:
    path.write_text("".join(ev.to_json() + "\n" for ev in events), encoding="utf-8")


def run_export(args: argparse.Namespace) -> int:
    text = _read(args.log)
    if text is None:
        return 2
    events: list[Event] = []
    bad = 0
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            events.append(parse_line(line, number))
        except LogLineError as exc:
            print(f"{args.log}:{exc}", file=sys.stderr)
            bad += 1
    if not events:
        print(f"{args.log}: no valid events in the log", file=sys.stderr)
        return 1
    try:
        if args.format == "botzone":
            out, notes = botzone.export(events)
            files = [("", out)]
        else:
            files, notes = mjdata.export(events)
    except (ExportError, ValueError) as exc:
        print(f"{args.log}: cannot export as {args.format}: {exc}", file=sys.stderr)
        return 2
    for note in notes:
        print(f"{args.log}: {note}", file=sys.stderr)
    try:
        _emit(args, files)
    except OSError as exc:
        print(f"cannot write to {args.out}: {exc}", file=sys.stderr)
        return 2
    return 1 if bad else 0


def _emit(args: argparse.Namespace, files: list[tuple[str, str]]) -> None:
    if args.out is None:
        sys.stdout.write("".join(text for _name, text in files))
    elif args.format == "botzone":
        args.out.write_text(files[0][1], encoding="utf-8")
    else:
        args.out.mkdir(parents=True, exist_ok=True)
        for name, text in files:
            (args.out / f"{name}.txt").write_text(text, encoding="utf-8")
