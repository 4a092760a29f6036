"""The shipped int8 models compute the same on every x86-64 CPU: no weight that a U8S8 kernel
without VNNI can saturate, and every integer layer that onnxruntime computes here equal to
exact integer arithmetic (the U8S8 files read 30 fixture tiles as 22 on an AVX2 CPU)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")

from vision.detect import CLASSIFIER_FILE, DETECTOR_FILE, MODELS_DIR, letterbox, tile_crop  # noqa: E402
from vision.image_io import load_image  # noqa: E402
from vision.int8 import can_saturate, kernel_errors, to_u8u8  # noqa: E402

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def _crops() -> np.ndarray:
    img = load_image(FIXTURES / "mixed.jpg")
    boxes = [r[:4] for r in json.loads((FIXTURES / "mixed.json").read_text())]
    x = np.stack([np.asarray(tile_crop(img, b, 64)) for b in boxes]).astype(np.float32) / 255
    return x.transpose(0, 3, 1, 2)


@pytest.mark.parametrize("name", [DETECTOR_FILE, CLASSIFIER_FILE])
def test_no_shipped_weight_can_saturate_a_u8s8_kernel(name: str) -> None:
    model = onnx.load(str(MODELS_DIR / name))
    assert can_saturate(model) == []


@pytest.mark.parametrize("name", [DETECTOR_FILE, CLASSIFIER_FILE])
@pytest.mark.slow
def test_onnxruntime_computes_every_integer_layer_exactly_on_this_cpu(name: str) -> None:
    if name == DETECTOR_FILE:
        feeds = {"images": letterbox(load_image(FIXTURES / "mixed.jpg"), 416)[0][None]}
    else:
        feeds = {"crops": _crops()}
    errors = kernel_errors(MODELS_DIR / name, feeds)
    assert errors and max(errors.values()) <= 1, {k: v for k, v in errors.items() if v > 1}


def _tiny_u8s8(path: Path) -> None:
    """One 3×3 convolution, float in, uint8 out, with int8 weights at full range."""
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(0)
    consts = {
        "xs": np.float32(1 / 255),
        "xz": np.uint8(0),
        "w": rng.integers(-127, 128, (4, 16, 3, 3)).astype(np.int8),
        "ws": np.full(4, 0.01, np.float32),
        "wz": np.zeros(4, np.int8),
        "ys": np.float32(0.5),
        "yz": np.uint8(128),
        "b": rng.integers(-1000, 1000, 4).astype(np.int32),
    }
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "xs", "xz"], ["xq"]),
        helper.make_node(
            "QLinearConv",
            ["xq", "xs", "xz", "w", "ws", "wz", "ys", "yz", "b"],
            ["y"],
            name="conv",
            pads=[1, 1, 1, 1],
        ),
    ]
    graph = helper.make_graph(
        nodes,
        "tiny",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 16, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.UINT8, None)],
        [numpy_helper.from_array(np.asarray(v), k) for k, v in consts.items()],
    )
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))


def test_u8u8_computes_the_u8s8_model_exactly(tmp_path: Path) -> None:
    """A U8S8 layer with bright inputs and full-range weights (what VPMADDUBSW saturates) is
    flagged; stored as U8U8 it is not, and onnxruntime computes it exactly on any CPU."""
    import onnxruntime as ort

    path = tmp_path / "tiny.onnx"
    _tiny_u8s8(path)
    model = onnx.load(str(path))
    assert can_saturate(model) == ["conv"]
    assert to_u8u8(model) == 1 and can_saturate(model) == []
    onnx.save(model, str(path))
    x = np.ones((1, 16, 8, 8), np.float32)
    assert max(kernel_errors(path, {"x": x}).values()) <= 1
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    assert session.run(None, {"x": x})[0].shape == (1, 4, 8, 8)
