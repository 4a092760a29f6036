"""Fine-tuning the shipped classifier: its float weights are recovered from the exported file,
and training shows it faces as an overhead camera films them (training venv only)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from vision.detect import CLASSIFIER_FILE, DETECTOR_FILE, MODELS_DIR, TileRecognizer, tile_crop

torch = pytest.importorskip("torch")
pytest.importorskip("onnx")
pytest.importorskip("cv2")

from vision.train import _camera_look, classifier_from_onnx, tilenet, to_input  # noqa: E402

FIXTURES = Path(__file__).parent / "fixtures"


def _fixture_crops(side: int) -> np.ndarray:
    crops = []
    for name in ("mixed", "hand_row", "turned_row"):
        img = Image.open(FIXTURES / f"{name}.jpg").convert("RGB")
        for x1, y1, x2, y2, _ in json.loads((FIXTURES / f"{name}.json").read_text()):
            crops.append(np.asarray(tile_crop(img, (x1, y1, x2, y2), side)))
    return np.stack(crops)


def test_the_recovered_classifier_names_tiles_as_the_shipped_file_does() -> None:
    """Its float weights are not kept; fine-tuning starts from the file."""
    rec = TileRecognizer(threads=1, turns=1)
    crops = _fixture_crops(rec.crop)
    net = tilenet()
    net.load_state_dict(classifier_from_onnx(MODELS_DIR / CLASSIFIER_FILE, crops, rec.crop))
    net.eval()
    with torch.no_grad():
        ours = torch.softmax(net(to_input(crops, rec.crop)), 1).numpy()
    shipped = rec.classify_crops([Image.fromarray(c) for c in crops])
    assert len(crops) >= 20
    assert (ours.argmax(1) == shipped.argmax(1)).mean() >= 0.95
    assert np.abs(ours - shipped).max() < 0.1  # int8 against float
    net.train()  # batch norm from the batch: the statistics it was set from, the same function
    net[-2].eval()  # (but no dropout)
    with torch.no_grad():
        trained = torch.softmax(net(to_input(crops, rec.crop)), 1).numpy()
    assert np.abs(trained - ours).max() < 0.02


def test_a_file_that_is_not_our_classifier_is_refused_by_name() -> None:
    with pytest.raises(SystemExit, match="not a TileNet layer"):
        classifier_from_onnx(MODELS_DIR / DETECTOR_FILE, _fixture_crops(64), 64)


def test_the_camera_look_makes_a_face_soft_and_keeps_its_size() -> None:
    rng = np.random.default_rng(0)
    checker = np.kron((np.indices((8, 8)).sum(0) % 2).astype(np.float32), np.ones((8, 8)))
    t = torch.from_numpy(np.stack([checker] * 3))
    seen = [_camera_look(t, rng) for _ in range(20)]
    assert all(s.shape == t.shape and 0 <= float(s.min()) <= float(s.max()) <= 1 for s in seen)

    def edges(x: object) -> float:
        a = np.asarray(x)[0]
        return float(np.abs(np.diff(a, axis=0)).mean() + np.abs(np.diff(a, axis=1)).mean())

    assert max(edges(s) for s in seen) < edges(t)
