"""`mjref import` / `mjref export`: one verdict line per record and the summary, logs that
replay, malformed lines named with their file and line, clear refusals."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from record_logs import records_dir

from rig.cli import main


def _bad_botzone(tmp_path: Path) -> Path:
    """The first two sample matches, the second with a bad tile on its line 111."""
    lines = (records_dir() / "botzone-sample.txt").read_text(encoding="utf-8").splitlines()
    end = next(i for i in range(110, len(lines)) if not lines[i]) + 1
    text = lines[:end]
    text[110] = text[110].rsplit(" ", 1)[0] + " X9"  # a Deal line of match 2
    path = tmp_path / "bad.txt"
    path.write_text("\n".join(text) + "\n", encoding="utf-8")
    return path


def test_import_check_prints_a_verdict_per_record_and_the_summary(
    capsys: pytest.CaptureFixture[str],
) -> None:
    records = records_dir()
    assert main(["import", "botzone", str(records / "botzone-sample.txt"), "--check"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 17 and out[0] == "61602cb45ddc087351c04358, ok"
    assert out[-1] == "records 16, agree 16, engine refused 0, differ 0"
    assert main(["import", "mjdata", str(records / "mjdata2017"), "--check"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == [
        "LIU-2017-01-01-6, ok",
        "MO-2017-01-01-9, ok",
        "PLAY-2017-01-01-0, ok",
        "records 3, agree 3, engine refused 0, differ 0",
    ]


def test_import_writes_one_log_per_record_that_replays(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sample = records_dir() / "mjdata2017" / "PLAY" / "2017-01-01-0.txt"
    assert main(["import", "mjdata", str(sample), "--out", str(tmp_path)]) == 0
    log = tmp_path / "PLAY-2017-01-01-0.jsonl"
    capsys.readouterr()
    assert main(["replay", str(log), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["profile"] == "mcr-online" and data["alerts"] == []
    assert data["scores"] == {"P0": 57, "P1": -8, "P2": -8, "P3": -41}


def test_a_malformed_line_is_named_and_the_other_records_still_import(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = _bad_botzone(tmp_path)
    assert main(["import", "botzone", str(bad), "--check"]) == 1
    captured = capsys.readouterr()
    assert (
        captured.err.strip() == f"{bad}:line 111: unknown tile 'X9': expected one of W1–W9, "
        "B1–B9, T1–T9, F1–F4, J1–J3"
    )
    assert captured.out.splitlines() == [
        "61602cb45ddc087351c04358, ok",
        "records 1, agree 1, engine refused 0, differ 0",
    ]
    assert main(["import", "botzone", str(bad), "--out", str(tmp_path / "logs")]) == 1
    assert [p.name for p in (tmp_path / "logs").iterdir()] == ["61602cb45ddc087351c04358.jsonl"]


def test_a_record_the_engine_disagrees_with_is_reported_as_differs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = (records_dir() / "botzone-sample.txt").read_text(encoding="utf-8")
    first = text.split("\n\n")[0].replace("Score -8 33 -17 -8", "Score -8 34 -18 -8")
    path = tmp_path / "one.txt"
    path.write_text(first + "\n\n", encoding="utf-8")
    assert main(["import", "botzone", str(path), "--check"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out == [
        "61602cb45ddc087351c04358, differs: payments E S W N -8 +33 -17 -8, "
        "the record -8 +34 -18 -8",
        "records 1, agree 0, engine refused 0, differ 1",
    ]


def test_export_round_trips_a_simulated_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "game.jsonl"
    assert main(["simulate", "--profile", "mcr", "--hands", "2", "--out", str(log)]) == 0
    assert main(["export", "mjdata", str(log), "--out", str(tmp_path / "hands")]) == 0
    assert sorted(p.name for p in (tmp_path / "hands").iterdir()) == ["T1-S1-1.txt", "T1-S1-2.txt"]
    capsys.readouterr()
    assert main(["import", "mjdata", str(tmp_path / "hands"), "--check"]) == 0
    assert (
        capsys.readouterr().out.splitlines()[-1] == "records 2, agree 2, engine refused 0, differ 0"
    )
    assert main(["export", "botzone", str(log)]) == 2
    assert (
        "has flowers; Botzone plays without them (export it as mjdata)" in capsys.readouterr().err
    )


def test_export_botzone_reproduces_the_sample_but_the_self_drawn_quirk(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sample = records_dir() / "botzone-sample.txt"
    assert main(["import", "botzone", str(sample), "--out", str(tmp_path)]) == 0
    capsys.readouterr()
    texts = []
    for log in sorted(tmp_path.glob("*.jsonl")):
        assert main(["export", "botzone", str(log)]) == 0
        texts.append(capsys.readouterr().out)
    ours = "".join(texts).splitlines()
    theirs = sample.read_text(encoding="utf-8").splitlines()
    changed = [(a, b) for a, b in zip(theirs, ours, strict=True) if a != b]
    assert [a for a, _b in changed] == [
        "Player 2 Hu B5",
        "Player 3 Hu W7",
        "Player 1 Hu T2",
        "Player 3 Hu W7",
        "Player 3 Hu B1",
        "Player 3 Hu T1",
    ]  # the six self-drawn wins: ours name the tile drawn, not the last discard


def test_unreadable_files_and_logs_are_one_clear_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["import", "botzone", str(tmp_path / "nope.txt")]) == 2
    assert capsys.readouterr().err.startswith(f"cannot read {tmp_path / 'nope.txt'}")
    log = tmp_path / "bad.jsonl"
    log.write_text("not json\n", encoding="utf-8")
    assert main(["export", "botzone", str(log)]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err == [
        f"{log}:line 1: not JSON: Expecting value at column 1",
        f"{log}: no valid events in the log",
    ]
