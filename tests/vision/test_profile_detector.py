"""A venue profile's own detector: loaded and used in place of the shipped one, the shipped one
without it, a profile of another detector version refused, a damaged detector file a clear error;
the training images enrolment makes for it; the shipped int8 weights read back in float; the
camera's tile test a profile carries."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from tile_kit import jade_sheet_photo, skip_without_fonts

from rig.cli import main as mjref
from vision.camera import TableReader
from vision.dataset import Box
from vision.detect import DETECTOR_FILE, MODELS_DIR, NAMED_IOU, TileRecognizer, nms
from vision.enrol import Photo, enrol
from vision.enrol_detector import held_back, rendered_photos
from vision.enrol_scenes import (
    SCENE_TILES,
    SIDE,
    Labelled,
    empty_table,
    scene_sizes,
    scenes,
    through_windows,
    view_heights,
    write_yolo,
)
from vision.metrics import iou_matrix
from vision.onnx_model import ModelError
from vision.profile import DETECTOR_ONNX, ProfileError, VenueProfile
from vision.slot_test import SlotTest
from vision.synth.scene import DIM_LOOK
from vision.synth.sheet_photo import render_sheet_photo

onnx = pytest.importorskip("onnx")  # a dev dependency: editing a detector file

skip_without_fonts("jade")


def _shifted_detector(path: Path, logits: float) -> None:
    """The shipped detector with its tile score moved by ``logits`` (-30: it finds nothing)."""
    model = onnx.load(str(MODELS_DIR / DETECTOR_FILE))
    for init in model.graph.initializer:
        if init.name.startswith("model.23.cv3.") and init.name.endswith(".2.bias"):
            bias = onnx.numpy_helper.to_array(init) + logits
            init.CopyFrom(onnx.numpy_helper.from_array(bias.astype(np.float32), init.name))
    onnx.save(model, str(path))


def _blind_detector(path: Path) -> None:
    _shifted_detector(path, -30.0)


@pytest.fixture(scope="module")
def profiles(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The same enrolment saved twice: without a detector of its own, and with one (the
    shipped one, surer of every box by 3 logits)."""
    root = tmp_path_factory.mktemp("profiles")
    fitted = enrol(TileRecognizer(), [jade_sheet_photo(1), jade_sheet_photo(2)], "jade")
    fitted.save(root / "plain")
    _shifted_detector(root / "surer.onnx", 3.0)
    fitted.detector = root / "surer.onnx"
    fitted.save(root / "own")
    return root / "plain", root / "own"


def _scores(rec: TileRecognizer, photo: Photo) -> list[float]:
    return sorted(round(d.conf, 4) for d in rec.detect(photo.image))


def test_a_profile_with_its_own_detector_loads_and_uses_it(profiles: tuple[Path, Path]) -> None:
    plain, own = profiles
    meta = json.loads((own / "profile.json").read_text())
    assert meta["detector"]["file"] == DETECTOR_ONNX and len(meta["detector"]["sha256"]) == 16
    rec, shipped = TileRecognizer(profile=own), TileRecognizer(profile=plain)
    assert rec.detector.path == own / DETECTOR_ONNX
    photo = jade_sheet_photo(3)  # the venue's tiles, read with the profile's (surer) detector
    assert len(rec.detect(photo.image)) >= 40
    assert np.median(rec.candidates(photo.image, 0.05)[:, 4]) > np.median(
        shipped.candidates(photo.image, 0.05)[:, 4]
    )
    assert _scores(rec, photo) != _scores(shipped, photo)


def test_an_image_not_of_the_venues_tiles_is_read_with_the_shipped_detector(
    profiles: tuple[Path, Path], tmp_path: Path
) -> None:
    """One table, one tile set: where the gate takes no tile for the venue's, the profile reads
    the image as it would without its own detector."""
    plain, own = profiles
    rec, shipped = TileRecognizer(profile=own), TileRecognizer(profile=plain)
    for photo in rendered_photos([8200], "text") + rendered_photos([8201], "glyph"):
        assert len(rec.candidates(photo.image, 0.05)) > 0
        assert _scores(rec, photo) == _scores(shipped, photo)
    blind = VenueProfile.load(own)  # a detector that finds no tile: nothing is the venue's
    _blind_detector(tmp_path / "blind.onnx")
    blind.detector = tmp_path / "blind.onnx"
    venue = jade_sheet_photo(3)
    assert len(TileRecognizer(profile=blind).candidates(venue.image, 0.05)) == 0
    assert _scores(TileRecognizer(profile=blind), venue) == _scores(shipped, venue)


def test_of_overlapping_boxes_of_its_own_detector_the_one_named_most_surely_stays(
    profiles: tuple[Path, Path],
) -> None:
    """In tight rows of small tiles a box straddling two tiles may score above the right one:
    the venue's detector's boxes are named before the overlapping ones are dropped."""
    _, own = profiles
    rec = TileRecognizer(profile=own)
    decided = 0
    for photo in rendered_photos([5000, 5001], "jade", DIM_LOOK):
        loose = rec.candidates(photo.image, rec.det_floor(rec.min_conf), NAMED_IOU)
        _, conf, _ = rec._classify(photo.image, loose)
        named = [i for i in nms(loose[:, :4], conf, 0.5) if conf[i] >= rec.min_conf]
        kept = rec.detect(photo.image)
        assert sorted(round(d.conf, 5) for d in kept) == sorted(round(conf[i], 5) for i in named)
        boxes = np.array([[d.x1, d.y1, d.x2, d.y2] for d in kept])
        overlap = iou_matrix(boxes, boxes) - np.eye(len(boxes))
        assert overlap.max() <= 0.5
        # where the detector's score alone would have kept another of the overlapping boxes
        scored = set(nms(loose[:, :4], loose[:, 4], 0.5).tolist())
        decided += sum(i not in scored for i in named)
    assert decided > 0


def test_a_profile_without_a_detector_keeps_the_shipped_one(profiles: tuple[Path, Path]) -> None:
    plain, _ = profiles
    assert json.loads((plain / "profile.json").read_text())["detector"] is None
    assert VenueProfile.load(plain).detector is None
    assert TileRecognizer(profile=plain).detector.path == MODELS_DIR / DETECTOR_FILE


def test_a_profile_of_another_detector_version_is_refused(
    profiles: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "old"
    shutil.copytree(profiles[1], folder)
    meta = json.loads((folder / "profile.json").read_text())
    meta["models"][DETECTOR_FILE] = "fedcba9876543210"
    (folder / "profile.json").write_text(json.dumps(meta))
    with pytest.raises(ModelError, match=r"fitted against tile_detector\.onnx fedcba9876543210"):
        TileRecognizer(profile=folder)
    photo = tmp_path / "p.jpg"
    jade_sheet_photo(3).image.save(photo)
    assert mjref(["tiles", "detect", str(photo), "--profile", str(folder)]) == 2
    err = capsys.readouterr().err
    assert "fedcba9876543210" in err and "enrol the venue's tiles again" in err


def test_a_damaged_or_missing_detector_file_is_a_clear_error(
    profiles: tuple[Path, Path], tmp_path: Path
) -> None:
    folder = tmp_path / "damaged"
    shutil.copytree(profiles[1], folder)
    own = folder / DETECTOR_ONNX
    own.write_bytes(own.read_bytes()[:5000])
    with pytest.raises(ProfileError, match="detector file was changed or damaged"):
        VenueProfile.load(folder)
    with pytest.raises(ModelError, match="changed or damaged"):
        TileRecognizer(profile=folder)
    # the hash made to match the damaged file: the model loader names the file
    meta = json.loads((folder / "profile.json").read_text())
    from vision.profile import model_hash

    meta["detector"]["sha256"] = model_hash(own)
    (folder / "profile.json").write_text(json.dumps(meta))
    with pytest.raises(ModelError, match=str(own)):
        TileRecognizer(profile=folder)
    own.unlink()
    with pytest.raises(ProfileError, match="not in the folder"):
        VenueProfile.load(folder)
    (folder / "profile.json").write_text('{"format": 2, "detector": ')
    with pytest.raises(ProfileError, match="corrupt venue profile"):
        VenueProfile.load(folder)


def test_the_shipped_int8_detector_reads_back_as_float_weights() -> None:
    """Enrolment fine-tunes from the shipped file itself: every convolution of YOLO11n comes
    back, each int8 weight exactly (q − zero point) · scale."""
    from vision.train import onnx_conv_weights

    weights = onnx_conv_weights(MODELS_DIR / DETECTOR_FILE)
    model = onnx.load(str(MODELS_DIR / DETECTOR_FILE))
    inits = {i.name: onnx.numpy_helper.to_array(i) for i in model.graph.initializer}
    q = inits["model.0.conv.weight_quantized"].astype(np.float64)
    zero = inits["model.0.conv.weight_zero_point"].astype(np.float64).reshape(-1, 1, 1, 1)
    scale = inits["model.0.conv.weight_scale"].reshape(-1, 1, 1, 1)
    assert np.allclose(weights["model.0.conv.weight"], (q - zero) * scale, atol=1e-7)
    assert weights["model.0.conv.weight"].shape == (16, 3, 3, 3)
    convs = {k.removesuffix(".weight") for k in weights if k.endswith(".weight")}
    assert len(convs) == 88  # 82 int8 convolutions and the 6 float output ones
    assert [k for k in convs if k + ".bias" not in weights] == ["model.23.dfl.conv"]


@pytest.mark.slow  # 12 scenes read
def test_training_scenes_hold_the_venue_tiles_labelled_on_its_own_table() -> None:
    photos = [(p.image, p.boxes) for p in (jade_sheet_photo(1), jade_sheet_photo(2))]
    made = scenes(photos, 12, seed=0, side=416)
    assert len(made) == 12
    for item in made:
        assert item.image.size == (SIDE, SIDE) and item.boxes
        for x1, y1, x2, y2 in item.boxes:
            assert 0 <= x1 < x2 <= SIDE and 0 <= y1 < y2 <= SIDE
    rec = TileRecognizer()
    # the labelled tiles are where the shipped detector finds tiles (IoU ≥ 0.5 mostly)
    found = sum(len(rec.detect(m.image, min_conf=0.2)) for m in made)
    labelled = sum(len(m.boxes) for m in made)
    assert 0.7 * labelled <= found <= 1.2 * labelled
    # the venue's table with its tiles painted out shows (almost) none
    (scene,) = rendered_photos([7], "jade")
    assert len(rec.candidates(scene.image, 0.3)) >= 0.9 * len(scene.boxes) >= 20
    assert len(rec.candidates(empty_table(scene.image, scene.boxes), 0.3)) <= 1


def test_training_scenes_show_the_tiles_at_the_sizes_the_run_time_shows_them() -> None:
    """640-px photos of small tiles are read whole: their scenes hold no tile at the larger
    sizes the run time's windows show; a large photo of the same tiles is read through windows."""
    photos = [(p.image, p.boxes) for p in rendered_photos([4000, 4001], "jade", DIM_LOOK)]
    high = float(np.percentile(view_heights(photos), 90))
    assert not through_windows(photos, 416)
    made = scenes(photos, 30, seed=0, side=416)
    pasted = [m for n, m in enumerate(made) if n % 6 != 1]  # not the known faces
    sizes = [
        float(np.median([max(x2 - x1, y2 - y1) for x1, y1, x2, y2 in m.boxes])) for m in pasted
    ]
    assert max(sizes) <= 1.4 * high
    large = []  # the same tiles on a table of 2,000 px: 8–11 px in the detector's whole view
    for img, boxes in photos:
        table = Image.new("RGB", (2000, 2000), (40, 90, 60))
        table.paste(img, (700, 700))
        large.append(
            (table, [Box(b.x1 + 700, b.y1 + 700, b.x2 + 700, b.y2 + 700, b.cls) for b in boxes])
        )
    assert through_windows(large, 416)
    assert np.allclose(view_heights(large), view_heights(photos) * 640 / 2000)
    # a strip stretched to a square (read squashed at the run time): its tiles hundreds of px
    img, boxes = photos[0]
    stretched = img.crop((0, 0, 80, SIDE)).resize((SIDE, SIDE))
    strip = [(stretched, [Box(b.x1 * 8, b.y1, b.x2 * 8, b.y2, b.cls) for b in boxes if b.x2 < 80])]
    assert view_heights(strip).max() > 100 and scene_sizes(strip)[1] == SCENE_TILES[1]


def test_training_scenes_are_written_as_ultralytics_reads_them(tmp_path: Path) -> None:
    photos = [(p.image, p.boxes) for p in (jade_sheet_photo(1), jade_sheet_photo(2))]
    made = scenes(photos, 3, seed=1, side=416)
    paths = write_yolo(made, tmp_path)
    for path, item in zip(paths, made, strict=True):
        rows = (tmp_path / "labels" / (path.stem + ".txt")).read_text().split("\n")[:-1]
        assert len(rows) == len(item.boxes)
        cls, cx, cy, w, h = (float(v) for v in rows[0].split())
        x1, y1, x2, y2 = item.boxes[0]
        assert (
            cls == 0 and abs(cx * SIDE - (x1 + x2) / 2) < 0.01 and abs(w * SIDE - (x2 - x1)) < 0.01
        )
        assert abs(cy * SIDE - (y1 + y2) / 2) < 0.01 and abs(h * SIDE - (y2 - y1)) < 0.01
        assert Image.open(path).size == (SIDE, SIDE)


def test_the_detector_is_checked_on_photos_it_did_not_train_on() -> None:
    assert held_back(1) == [] and held_back(2) == [1] and held_back(4) == [3]
    assert held_back(5) == [4] and held_back(10) == [4, 9]


@pytest.mark.slow  # an enrolment
def test_enrol_without_the_train_extra_says_what_it_skipped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from vision.adapt import available

    if available() is None:
        pytest.skip("torch and ultralytics are installed here: the detector would be trained")
    rows = []
    for seed in (1, 2):
        photo = jade_sheet_photo(seed)
        photo.image.save(tmp_path / f"s{seed}.jpg", quality=92)
        rows.append({"image": f"s{seed}.jpg", "tiles": [_tile(b) for b in photo.boxes]})
    labels = tmp_path / "labels.jsonl"
    labels.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert mjref(["tiles", "enrol", str(labels), "--out", str(tmp_path / "p")]) == 0
    err = capsys.readouterr().err
    assert "detector: shipped: torch" in err and "pip install torch==2.14.1" in err
    assert "classifier: shipped: torch" in err and "./run train-setup" in err
    meta = json.loads((tmp_path / "p" / "profile.json").read_text())
    assert meta["detector"] is None and meta["fitted"]["detector"].startswith("shipped: torch")
    assert meta["classifier"] is None and meta["fitted"]["classifier"].startswith("shipped: torch")


def _tile(b: Box) -> dict[str, object]:
    from vision.classes import class_label

    return {"box": [b.x1, b.y1, b.x2, b.y2], "tile": class_label(b.cls)}


@pytest.mark.slow  # 7 photos read
def test_from_rig_drafts_labels_from_the_recorded_stills(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stills = tmp_path / "ring" / "sess-1" / "stills"
    stills.mkdir(parents=True)
    for n in range(7):
        img, _ = render_sheet_photo("text", 10 + n)  # a style the shipped models know
        img.save(stills / f"{(n + 1) * 5000:012d}.jpg", quality=90)
    (stills / f"{99000:012d}.jpg").write_bytes(b"not a jpeg")  # a damaged still: skipped
    out = tmp_path / "profile"
    code = mjref(
        ["tiles", "enrol", "--from-rig", str(tmp_path / "ring"), "--out", str(out), "--photos", "4"]
    )
    assert code == 0
    captured = capsys.readouterr()
    assert f"mjref tiles enrol {out / 'enrolment' / 'labels.jsonl'} --out {out}" in captured.out
    assert "skipped" in captured.err and "000000099000.jpg" in captured.err
    from vision.enrol import read_labels

    rows = read_labels(out / "enrolment" / "labels.jsonl")
    assert len(rows) == 3  # 4 spread from 8: the first, two between, the damaged last
    assert [Path(r[0]).name.split("-")[0] for r in rows] == ["00", "01", "02"]
    assert all(Path(r[0]).is_file() and r[1] and len(r[1]) >= 40 for r in rows)
    assert not (out / "profile.json").exists()  # drafted only: the referee corrects, then enrols


def test_from_rig_without_stills_names_what_it_looked_for(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "ring").mkdir()
    args = ["tiles", "enrol", "--from-rig", str(tmp_path / "ring"), "--out", str(tmp_path / "p")]
    assert mjref(args) == 2
    assert "no stills/*.jpg inside" in capsys.readouterr().err
    assert mjref(["tiles", "enrol", "--out", str(tmp_path / "p")]) == 2
    assert "one of the three" in capsys.readouterr().err


@pytest.mark.slow
def test_eval_with_a_profile_prints_recall_precision_class_and_tile_accuracy(
    profiles: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    photo = jade_sheet_photo(3)
    labelled = tmp_path / "set"
    write_yolo([Labelled(photo.image, [(b.x1, b.y1, b.x2, b.y2) for b in photo.boxes])], labelled)
    rows = (labelled / "labels" / "s00000.txt").read_text().splitlines()
    classes = [b.cls for b in photo.boxes]  # write_yolo is 1-class: put the classes back
    (labelled / "labels" / "s00000.txt").write_text(
        "".join(f"{c} {r.split(' ', 1)[1]}\n" for c, r in zip(classes, rows, strict=True))
    )
    plain, own = profiles
    assert mjref(["tiles", "eval", str(labelled), "--names", "ours", "--profile", str(plain)]) == 0
    out = capsys.readouterr().out
    found = next(line for line in out.splitlines() if "tiles found" in line)
    figures = dict(
        re.findall(r"(recall|precision|class accuracy|tile accuracy) ([01]\.\d{4})", found)
    )
    assert set(figures) == {"recall", "precision", "class accuracy", "tile accuracy"}
    assert float(figures["recall"]) >= 0.95 and float(figures["class accuracy"]) >= 0.9
    assert "detector: shipped" in out
    assert mjref(["tiles", "eval", str(labelled), "--names", "ours", "--profile", str(own)]) == 0
    out = capsys.readouterr().out
    assert "detector: the profile's own" in out


def test_a_detector_trains_on_every_core_not_one_fewer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ultralytics sets torch to one thread fewer than the cores when it picks the CPU (one of
    two): the trainers (enrolment's and vision/train.py's) give them back when training starts."""
    from vision.adapt import available

    if available() is not None:
        pytest.skip(str(available()))
    import torch  # type: ignore[import-not-found,unused-ignore]

    from vision.train import on_every_core, yolo_class

    monkeypatch.setenv("YOLO_OFFLINE", "1")
    monkeypatch.setenv("YOLO_CONFIG_DIR", str(tmp_path))
    before = torch.get_num_threads()
    try:
        torch.set_num_threads(2)
        yolo = yolo_class()("yolo11n.yaml")
        assert on_every_core(yolo) == 2
        torch.set_num_threads(1)  # what ultralytics' select_device does on 2 cores
        yolo.callbacks["on_train_start"][-1](None)
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)


@pytest.mark.slow
def test_enrolment_fine_tunes_the_detector_into_an_int8_file_of_the_same_cost(
    tmp_path: Path,
) -> None:
    """Where the train extra is installed (./run train-setup): two minutes of fine-tuning on
    small, dim scenes give a detector of the shipped network, side and int8 U8U8 storage,
    which the profile saves and the recognizer uses."""
    from vision.adapt import available

    if available() is not None:
        pytest.skip(str(available()))
    import torch  # type: ignore[import-not-found,unused-ignore]

    from vision.adapt import SCENES, VAL_IMAGES, adapt_detector
    from vision.synth.scene import DIM_LOOK

    photos = rendered_photos([4000, 4001], "jade", DIM_LOOK)
    base = TileRecognizer()
    threads = torch.get_num_threads()
    made = adapt_detector(
        [(p.image, p.boxes) for p in photos], base.detector.path, tmp_path / "w", 2.0
    )
    assert made.epochs >= 1 and made.images == SCENES and made.seconds < 150
    assert torch.get_num_threads() == threads  # ultralytics' one thread fewer is not left behind
    # the validation ultralytics runs anyway reads a token set, not the training images again
    assert len(list((tmp_path / "w" / "det" / "val" / "images").iterdir())) == VAL_IMAGES
    adapted = made.path
    model = onnx.load(str(adapted))
    weights = {i.name: i for i in model.graph.initializer}
    qconvs = [n for n in model.graph.node if n.op_type == "QLinearConv"]
    assert len(qconvs) == 82 and all(
        weights[n.input[3]].data_type == onnx.TensorProto.UINT8 for n in qconvs
    )
    rec = TileRecognizer(detector=adapted)
    assert rec.side == base.side == 416 and rec.detector.output_shape[1] == 5
    profile = enrol(rec, photos, "dim", detector=(base.detector.path, adapted, "own: a test"))
    profile.save(tmp_path / "p")
    assert TileRecognizer(profile=tmp_path / "p").detector.path == tmp_path / "p" / DETECTOR_ONNX


@pytest.mark.slow  # 36 readings of rendered scenes
def test_a_reader_that_loses_known_tiles_is_seen_losing_them(tmp_path: Path) -> None:
    """Enrolment's last guard: a profile must read every tile of the rendered known styles that
    the shipped models read (vision/enrol_classifier.py)."""
    from vision.enrol_detector import known_changes

    shipped = TileRecognizer()
    assert known_changes(shipped, shipped)["lost"] == 0
    _blind_detector(tmp_path / "blind.onnx")
    changes = known_changes(shipped, TileRecognizer(detector=tmp_path / "blind.onnx"))
    assert changes["lost"] >= 200 and changes["gained"] == 0 and changes["extra_after"] == 0


def test_a_profile_carries_the_cameras_tile_test_and_refuses_a_bad_one(
    profiles: tuple[Path, Path], tmp_path: Path
) -> None:
    """Enrolled from the camera, a profile holds the tile test fitted on the plan's clips
    (vision/slot_test.py), and the table reader reading with it uses it; one enrolled from
    photos keeps the defaults."""
    assert TableReader(TileRecognizer(profile=profiles[0])).slot_test == SlotTest()
    folder = tmp_path / "lodge"
    shutil.copytree(profiles[0], folder)
    meta = json.loads((folder / "profile.json").read_text())
    meta["slot_test"] = {"chroma": 0.05, "pale": 1.13}
    (folder / "profile.json").write_text(json.dumps(meta))
    assert TableReader(TileRecognizer(profile=folder)).slot_test == SlotTest(0.05, 1.13)
    meta["slot_test"]["chroma"] = 0.5  # looser than the default: a shadow would be a tile
    (folder / "profile.json").write_text(json.dumps(meta))
    with pytest.raises(ProfileError, match=r"slot_test.chroma 0.5: expected over 0 and at most"):
        VenueProfile.load(folder)
