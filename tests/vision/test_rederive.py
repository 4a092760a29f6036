"""Re-deriving a recorded rendered game (`mjref review rederive`): the same models give the same
record; a classifier that misreads one tile (two classes' rows of its last layer swapped in a
copy) changes exactly the events that read that tile, each with the observation behind it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from camera_kit import game

from referee.events import Event, Source
from referee.logread import read_log_file
from referee.tiles import tile_name
from rig.cli import main
from vision.classes import class_of_label
from vision.synth.video import RenderSpec, render_video

onnx = pytest.importorskip("onnx")
numpy_helper = pytest.importorskip("onnx.numpy_helper")
pytestmark = pytest.mark.slow
MODELS = Path(__file__).resolve().parents[2] / "models"
SWAP = ("N", "W")  # E discards N in the clip and holds W: a misread that the rules allow


def swap_classes(dst: Path, a: str, b: str) -> Path:
    """A copy of models/ whose classifier names every ``a`` as ``b`` and back: the rows of the
    two classes in its last (quantised) Gemm — weights, their scales and zero points, bias."""
    dst.mkdir(parents=True, exist_ok=True)
    shutil.copy(MODELS / "tile_detector.onnx", dst / "tile_detector.onnx")
    model = onnx.load(str(MODELS / "tile_classifier.onnx"))
    gemm = [n for n in model.graph.node if n.op_type in ("QGemm", "Gemm")][-1]
    rows = set(gemm.input[3:7]) if gemm.op_type == "QGemm" else set(gemm.input[1:])
    i, j = class_of_label(a), class_of_label(b)
    swapped = 0
    for init in model.graph.initializer:
        if init.name in rows and init.dims and init.dims[0] > max(i, j):
            arr: np.ndarray = numpy_helper.to_array(init).copy()
            arr[[i, j]] = arr[[j, i]]
            init.CopyFrom(numpy_helper.from_array(arr, init.name))
            swapped += 1
    assert swapped >= 2, "the classifier's last layer was not found"
    onnx.save(model, str(dst / "tile_classifier.onnx"))
    return dst


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A rendered game filmed from the deal (20 s, 960x540, 5 fps) and its camera log, the
    video beside the log under the same name (as the camera's recordings lie)."""
    where = tmp_path_factory.mktemp("recorded")
    events = list(game())
    source = where / "source.jsonl"
    source.write_text("".join(e.to_json() + "\n" for e in events))
    video = where / "game.mp4"
    spec = RenderSpec(960, 540, fps=5, style="text", pose="low", seed=0, end=30.0)
    render_video(events, video, where / "truth.jsonl", spec)
    log = where / "game.jsonl"
    code = main(["vision", "run", str(video), "--setup", str(source), "--events-out", str(log)])
    assert code == 0
    return log


def _events(path: Path) -> list[Event]:
    return read_log_file(path).sessions[0].events


def test_the_same_models_give_no_difference(
    recorded: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["review", "rederive", str(recorded), "--models", str(MODELS), "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0
    assert report["differences"] == [] and report["hands"] == []
    assert report["compared"] > 8  # the clip holds real play: draws and discards of 4 seats


def test_a_model_that_misreads_one_tile_lists_exactly_the_events_that_read_it(
    recorded: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = SWAP
    old = _events(recorded)
    want = [e.seq for e in old if e.source is Source.VISION and _reads(e) in SWAP]
    assert want, f"the clip shows no {a} or {b}: the test would prove nothing"
    models = swap_classes(tmp_path / "models", a, b)
    out = tmp_path / "new.jsonl"
    args = ["review", "rederive", str(recorded), "--models", str(models)]
    code = main([*args, "--json", "--events-out", str(out)])
    report = json.loads(capsys.readouterr().out)
    assert code == 1  # differences found
    diffs = report["differences"]
    assert [d["kind"] for d in diffs] == ["changed"] * len(want)
    assert [d["old"]["seq"] for d in diffs] == want
    for d in diffs:
        was, now = d["old"]["payload"]["tile"], d["new"]["payload"]["tile"]
        assert {was, now} == set(SWAP)
        cause = d["new_observation"]
        assert cause["zone"] == "river" and cause["frame"].startswith("frame:")
        assert d["slots"] == [f"{cause['seat']} river slot {_slot(cause, now)}: {was} → {now}"]
        cited = next(e for e in old if e.seq == d["old"]["seq"]).evidence
        assert f"seq:{d['old_observation']['seq']}" in cited
    assert len(_events(out)) == len(old)  # the re-derived log is written whole

    code = main(args)
    text = capsys.readouterr().out
    assert f"discard E {a} → discard E {b}" in text and "1 event difference(s)" in text


def _reads(e: Event) -> str | None:
    tile = getattr(e.payload, "tile", None)
    return tile_name(tile) if isinstance(tile, int) and e.type != "observation" else None


def _slot(cause: dict[str, object], tile: str) -> int:
    slots = cause["slots"]
    assert isinstance(slots, list)
    return next(int(s[0]) for s in slots if s[1] == tile)


def test_a_log_without_its_video_or_models_is_one_clear_line(
    recorded: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    alone = tmp_path / "alone.jsonl"
    shutil.copy(recorded, alone)
    assert main(["review", "rederive", str(alone), "--models", str(MODELS)]) == 2
    err = capsys.readouterr().err.strip()
    assert "no recording found beside it" in err and "--video" in err and "\n" not in err
    assert main(["review", "rederive", str(recorded), "--models", str(tmp_path)]) == 2
    assert "tile_detector.onnx" in capsys.readouterr().err
    setup = tmp_path / "setup.jsonl"
    setup.write_text("".join(e.to_json() + "\n" for e in game()[:6]))
    assert main(["review", "rederive", str(setup), "--models", str(MODELS)]) == 2
    assert "no camera event" in capsys.readouterr().err
