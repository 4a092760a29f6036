"""Ordinary mistakes at the `mjref` edge: an output that cannot be written is one line and exit
2; anything a command did not foresee still ends in one line (exit 3), not a traceback."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

import rig.cli as cli
from referee.game.sim import Simulator


@pytest.fixture
def log(tmp_path: Path) -> Path:
    path = tmp_path / "game.jsonl"
    path.write_text("".join(e.model_dump_json() + "\n" for e in Simulator("wmc", 4).run(1)))
    return path


@pytest.mark.parametrize("where", ["no-such-folder/x", "file/x", "."])
def test_outputs_that_cannot_be_written(
    tmp_path: Path, log: Path, where: str, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "file").write_text("a file, not a folder")
    target = tmp_path / where
    assert cli.main(["simulate", "--hands", "1", "--out", str(target)]) == 2
    assert cli.main(["sheet", str(log), "--html", str(target)]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert [line.split(":")[0] for line in lines] == ["mjref simulate", "mjref sheet"]
    assert all(f"cannot write {target}: " in line for line in lines)
    assert all("(expected a writable path in an existing folder)" in line for line in lines)


def test_a_table_id_a_log_cannot_hold(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        cli.main(["simulate", "--table", "T 1\udcff"])
    assert stop.value.code == 2
    assert "expected 1-32 letters, digits, '-' or '_'" in capsys.readouterr().err


def _crashing_parser(error: Exception) -> argparse.ArgumentParser:
    def handler(args: argparse.Namespace) -> int:
        raise error  # what no command should let through

    parser = argparse.ArgumentParser(prog="mjref")
    parser.add_argument("command")
    parser.set_defaults(handler=handler)
    return parser


@pytest.mark.parametrize(
    ("error", "line", "code"),
    [
        (
            IndexError("list index out of range"),
            "internal error: IndexError: list index out of range "
            "(please report it with the command; MJREF_DEBUG=1 shows where)",
            3,
        ),
        (
            UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte"),
            "the input is not UTF-8 text (byte 0: invalid start byte)",
            2,
        ),
        (PermissionError(13, "Permission denied", "/x/y"), "/x/y: Permission denied", 2),
    ],
)
def test_the_last_resort_is_one_line_and_an_exit_code(
    error: Exception,
    line: str,
    code: int,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr(cli, "build_parser", lambda command=None: _crashing_parser(error))
    monkeypatch.delenv("MJREF_DEBUG", raising=False)
    assert cli.main(["replay"]) == code
    assert capsys.readouterr().err == f"mjref replay: {line}\n"
    monkeypatch.setenv("MJREF_DEBUG", "1")
    with pytest.raises(type(error)):
        cli.main(["replay"])


def test_irregularities_are_for_the_wmc_profile_only(capsys: pytest.CaptureFixture[str]) -> None:
    """The injector knows the WMC rules only: on mcr it ran without end (a 3.4 GB log)."""
    assert cli.main(["simulate", "--profile", "mcr", "--irregularities", "0.05"]) == 2
    assert "--irregularities works with --profile wmc only, not mcr" in capsys.readouterr().err
