"""`mjref tiles …` through its argparse registration (the CLI's JSON shape, error lines)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from rig.cli import main as mjref
from vision import cli
from vision.classes import LABELS, class_of_label
from vision.detect import Detection

FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.mark.slow
def test_detect_json_lines_and_error_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "broken.jpg"
    broken.write_bytes(b"nope")
    images = [FIXTURES / "mixed.jpg", tmp_path / "missing.png", broken, FIXTURES / "hand_row.jpg"]
    code = mjref(["tiles", "detect", *map(str, images), "--json", "--min-conf", "0.3"])
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert code == 1 and [line["image"] for line in lines] == list(map(str, images))
    assert "no such file" in lines[1]["error"] and "not a readable image" in lines[2]["error"]
    for line in (lines[0], lines[3]):
        assert set(line) == {"image", "tiles"} and line["tiles"]
        for tile in line["tiles"]:
            assert set(tile) == {"box", "tile", "conf"}
            assert len(tile["box"]) == 4 and tile["tile"] in LABELS and 0.3 <= tile["conf"] <= 1


def test_detect_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert mjref(["tiles", "detect", str(FIXTURES / "turned_row.jpg")]) == 0
    assert "tiles:" in capsys.readouterr().out


@pytest.mark.slow
def test_eval_on_a_labelled_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fixture_labels: Callable[[str], Any]
) -> None:
    (tmp_path / "images").mkdir()
    (tmp_path / "labels").mkdir()
    for name in ("hand_row", "mixed"):
        shutil.copy(FIXTURES / f"{name}.jpg", tmp_path / "images")
        from PIL import Image

        w, h = Image.open(FIXTURES / f"{name}.jpg").size
        rows = [
            f"{class_of_label(r[4])} {(r[0] + r[2]) / 2 / w} {(r[1] + r[3]) / 2 / h} "
            f"{(r[2] - r[0]) / w} {(r[3] - r[1]) / h}"
            for r in fixture_labels(name)
        ]
        (tmp_path / "labels" / f"{name}.txt").write_text("\n".join(rows))
    assert mjref(["tiles", "eval", str(tmp_path), "--names", "ours", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["images"] == 2 and out["tiles"] == 21
    assert out["mAP50"] > 0.5 and out["tile_accuracy"] > 0.5


def test_eval_wants_a_yolo_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert mjref(["tiles", "eval", str(tmp_path)]) == 2
    assert "images/" in capsys.readouterr().err


def test_score_reads_the_row_and_scores(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    fixture_labels: Callable[[str], Any],
) -> None:
    """The hand-reading and scoring path, with the detector's answer fixed to the exact labels."""

    class Exact:
        def __init__(self, *args: object, **kwargs: object) -> None:
            pass

        def detect(self, img: object, min_conf: float = 0.0, **kw: object) -> list[Detection]:
            rows = fixture_labels("hand_row")
            return [Detection(r[0], r[1], r[2], r[3], class_of_label(r[4]), 0.9) for r in rows]

    monkeypatch.setattr(cli, "TileRecognizer", Exact)
    code = mjref(["tiles", "score", str(FIXTURES / "hand_row.jpg"), "--json", "--self"])
    out = capsys.readouterr()
    assert code == 0, out.err
    result = json.loads(out.out)
    assert result["read"] == [
        ["2m", "3m", "4m", "2m", "3m", "4m", "6p", "6p", "6p", "8s", "8s"],
        ["3s", "4s", "5s"],
    ]
    assert result["valid"] is True and result["total"] > 0
    assert mjref(["tiles", "score", str(FIXTURES / "hand_row.jpg"), "--win", "8s"]) == 0
    assert "Total:" in capsys.readouterr().out


def test_score_with_the_real_model_reads_most_of_the_row(
    capsys: pytest.CaptureFixture[str],
) -> None:
    mjref(["tiles", "detect", str(FIXTURES / "hand_row.jpg"), "--json", "--min-conf", "0.15"])
    read = [t["tile"] for t in json.loads(capsys.readouterr().out)["tiles"]]
    want = ["2m", "3m", "4m", "2m", "3m", "4m", "6p", "6p", "6p", "8s", "8s", "3s", "4s", "5s"]
    right = sum(min(read.count(t), want.count(t)) for t in set(want))
    assert right >= 12, read


def test_missing_models_folder_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = mjref(["tiles", "--models", str(tmp_path), "detect", str(FIXTURES / "mixed.jpg")])
    assert code == 2 and "no such model file" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["detect", "IMG", "--min-conf", "1.5"], "--min-conf"),
        (["detect", "IMG", "--min-conf", "-0.1"], "--min-conf"),
        (["detect", "IMG", "--min-conf", "nan"], "--min-conf"),
        (["detect", "IMG", "--min-conf", "lots"], "--min-conf"),
        (["score", "IMG", "--min-conf", "2"], "--min-conf"),
        (["score", "IMG", "--seat", "X"], "--seat"),
        (["score", "IMG", "--win", "10m"], "--win"),
        (["eval", "DIR", "--min-conf", "7"], "--min-conf"),
        (["eval", "DIR", "--limit", "-3"], "--limit"),
    ],
)
def test_option_out_of_range_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], args: list[str], named: str
) -> None:
    """Refused before any model is loaded or photo read: exit 2, the option named."""
    args = [str(FIXTURES / "mixed.jpg") if a in ("IMG", "DIR") else a for a in args]
    with pytest.raises(SystemExit) as info:
        mjref(["tiles", *args])
    err = capsys.readouterr().err
    assert info.value.code == 2 and f"argument {named}" in err and "Traceback" not in err


def test_score_shows_what_it_read_when_the_hand_is_wrong(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    fixture_labels: Callable[[str], Any],
) -> None:
    """One tile of the 14 missed: the error says so and lists the 13 tiles that were read."""

    class MissesOne:
        def __init__(self, *args: object, **kwargs: object) -> None:
            pass

        def detect(self, img: object, min_conf: float = 0.0, **kw: object) -> list[Detection]:
            rows = fixture_labels("hand_row")[1:]
            return [Detection(r[0], r[1], r[2], r[3], class_of_label(r[4]), 0.9) for r in rows]

    monkeypatch.setattr(cli, "TileRecognizer", MissesOne)
    assert mjref(["tiles", "score", str(FIXTURES / "hand_row.jpg")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "wrong tile count" in err
    assert "(read 13 tiles: 34234m666p88s  |  345s)" in err
