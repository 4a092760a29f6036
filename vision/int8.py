"""Int8 ONNX models that compute the same on every x86-64 CPU, and the check that they do.

onnxruntime runs a QOperator model with uint8 activations and int8 weights (U8S8) through
kernels that differ by CPU: with VNNI the products are summed exactly in 32 bits; on AVX2 and
AVX-512 without VNNI, VPMADDUBSW first sums two products into 16 bits and saturates
(255 × 127 × 2 > 32767). The same file then reads other tiles on a venue's AVX2 machine than on
the VNNI machine it was measured on. Weights stored as uint8 (U8U8) take onnxruntime's kernels
that widen both operands to 16 bits first and cannot saturate, on every x86-64 CPU:
:func:`to_u8u8` makes that file from a U8S8 one without changing a single product
((w + 128) − 128 is the same weight). :func:`kernel_errors` compares each integer layer that
onnxruntime computes on this CPU with the exact integer arithmetic the file describes.

Needs the ``onnx`` package (export and test time only; the run time loads the files with
onnxruntime alone). ``python -m vision.int8 FILE...`` rewrites files in place and checks them.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

# Integer ops: input indices of (x, x scale, x zero point, w, w scale, w zero point,
# y scale, y zero point, bias).
_LAYOUT = {"QLinearConv": (0, 1, 2, 3, 4, 5, 6, 7, 8), "QGemm": (0, 1, 2, 3, 4, 5, 7, 8, 6)}


def to_u8u8(model: Any) -> int:
    """Store every symmetric int8 weight of ``model`` (an onnx ModelProto, changed in place)
    as uint8 (w + 128, zero point 128); returns how many weight tensors were changed."""
    from onnx import numpy_helper

    inits = {i.name: i for i in model.graph.initializer}
    done: set[str] = set()
    for node in model.graph.node:
        if node.op_type not in _LAYOUT:
            continue
        w, wz = (node.input[_LAYOUT[node.op_type][i]] for i in (3, 5))
        q, z = numpy_helper.to_array(inits[w]), numpy_helper.to_array(inits[wz])
        if w in done or q.dtype != np.int8:
            continue
        if np.any(z != 0) or q.min() < -127:
            raise ValueError(f"{node.name}: weights are not symmetric int8 (zero point 0)")
        inits[w].CopyFrom(numpy_helper.from_array((q.astype(np.int16) + 128).astype(np.uint8), w))
        inits[wz].CopyFrom(numpy_helper.from_array(np.full(z.shape, 128, np.uint8), wz))
        done.add(w)
    return len(done)


def can_saturate(model: Any) -> list[str]:
    """Names of the integer layers whose int8 weights reach past ±64, which U8S8 kernels
    without VNNI can saturate (onnxruntime itself treats 7-bit weights as safe)."""
    from onnx import numpy_helper

    inits = {i.name: i for i in model.graph.initializer}
    out = []
    for node in model.graph.node:
        if node.op_type in _LAYOUT:
            q = numpy_helper.to_array(inits[node.input[_LAYOUT[node.op_type][3]]])
            if q.dtype == np.int8 and int(np.abs(q.astype(np.int16)).max()) > 64:
                out.append(node.name)
    return out


def kernel_errors(path: Path, feeds: Mapping[str, np.ndarray]) -> dict[str, int]:
    """For each integer layer of the model at ``path``, run on ``feeds`` by onnxruntime on this
    CPU: the most quantization levels its output is off from exact integer arithmetic on the
    same inputs (0 or 1, for rounding, when the kernels are exact)."""
    import onnx
    import onnxruntime as ort
    from onnx import helper, numpy_helper

    model = onnx.load(str(path))
    inits = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    nodes = [n for n in model.graph.node if n.op_type in _LAYOUT]
    wanted = {n.input[0] for n in nodes} | {n.output[0] for n in nodes}
    known = {o.name for o in model.graph.output}
    for name in sorted(wanted - known):
        model.graph.output.append(helper.make_tensor_value_info(name, onnx.TensorProto.UINT8, None))
    opts = ort.SessionOptions()
    opts.log_severity_level = 3
    session = ort.InferenceSession(
        model.SerializeToString(), sess_options=opts, providers=["CPUExecutionProvider"]
    )
    names = [o.name for o in session.get_outputs()]
    values = dict(zip(names, session.run(None, dict(feeds)), strict=True))
    errors = {}
    for node in nodes:
        x, xs, xz, w, ws, wz, ys, yz, b = (
            node.input[i] if i < len(node.input) else "" for i in _LAYOUT[node.op_type]
        )
        q = values[x].astype(np.int64) - int(inits[xz])
        weight = inits[w].astype(np.int64)
        weight -= inits[wz].astype(np.int64).reshape((-1,) + (1,) * (weight.ndim - 1))
        attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
        if node.op_type == "QLinearConv":
            acc = _conv(q, weight, attrs)
            shape: tuple[int, ...] = (1, -1, 1, 1)
        else:
            acc = q @ (weight.T if attrs.get("transB") else weight)
            shape = (1, -1)
        if b:
            acc += inits[b].astype(np.int64).reshape(shape)
        scale = np.float32(inits[xs]) * inits[ws].astype(np.float32) / np.float32(inits[ys])
        exact = np.rint(acc.astype(np.float32) * scale.reshape(shape)) + int(inits[yz])
        got = values[node.output[0]].astype(np.float32)
        errors[node.name] = int(np.abs(got - np.clip(exact, 0, 255)).max())
    return errors


def _conv(x: np.ndarray, w: np.ndarray, attrs: Mapping[str, Any]) -> np.ndarray:
    """A grouped 2-D convolution in int64 (exact)."""
    sh, sw = attrs.get("strides", [1, 1])
    dh, dw = attrs.get("dilations", [1, 1])
    top, left, bottom, right = attrs.get("pads", [0, 0, 0, 0])
    group = int(attrs.get("group", 1))
    x = np.pad(x, ((0, 0), (0, 0), (top, bottom), (left, right)))
    n, _, h, width = x.shape
    m, cg, kh, kw = w.shape
    oh, ow = (h - dh * (kh - 1) - 1) // sh + 1, (width - dw * (kw - 1) - 1) // sw + 1
    out = np.zeros((n, m, oh, ow), np.int64)
    mg = m // group
    for g in range(group):
        xg, wg = x[:, g * cg : (g + 1) * cg], w[g * mg : (g + 1) * mg]
        for i in range(kh):
            for j in range(kw):
                patch = xg[:, :, i * dh : i * dh + sh * oh : sh, j * dw : j * dw + sw * ow : sw]
                out[:, g * mg : (g + 1) * mg] += np.einsum("nchw,mc->nmhw", patch, wg[:, :, i, j])
    return out


def main(argv: list[str] | None = None) -> int:
    """Rewrite each ONNX file given as U8U8 in place."""
    import onnx

    for name in argv if argv is not None else sys.argv[1:]:
        model = onnx.load(name)
        changed = to_u8u8(model)
        onnx.save(model, name)
        print(f"{name}: {changed} weight tensors stored as uint8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
