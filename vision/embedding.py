"""Give the tile classifier the outputs a venue profile needs: its features and its last layer.

A venue profile (``vision/profile.py``) refits the classifier's last layer for a tile set the
classifier never saw, so the run time needs the features that layer reads (the global average
pool after the last convolution, [N, C]) beside the probabilities, and enrolment needs the
shipped layer itself as the prior of its refit. The classifier is int8 (QOperator) and its last
layer one ``QGemm``; this adds three graph outputs:

* ``embedding`` [N, C]: a ``DequantizeLinear`` of the QGemm's uint8 input (its own scale and
  zero point), the exact numbers the layer multiplies;
* ``head_weight`` [43, C] and ``head_bias`` [43]: the QGemm's weights and bias in float
  (per-channel dequantized; the int32 bias times input scale × weight scale).

Nothing the file computed changes: ``probs`` stays the first output, made by the same nodes
from the same numbers (``tests/vision/test_profile.py`` checks it), and a session asked only
for ``probs`` computes nothing more. Needs the ``onnx`` package (export time only):
``python -m vision.embedding FILE...`` rewrites files in place, leaving a file that has the
outputs already as it is.
"""

from __future__ import annotations

import sys
from typing import Any

EMBEDDING, HEAD_WEIGHT, HEAD_BIAS = "embedding", "head_weight", "head_bias"


def add_embedding_output(model: Any) -> bool:
    """Add the three outputs to ``model`` (an onnx ModelProto, changed in place); False when it
    has them already."""
    import onnx
    from onnx import helper

    if any(o.name == EMBEDDING for o in model.graph.output):
        return False
    gemms = [n for n in model.graph.node if n.op_type == "QGemm"]
    if len(gemms) != 1:
        raise ValueError(f"expected one QGemm as the classifier's last layer, found {len(gemms)}")
    x, x_scale, x_zero, w, w_scale, w_zero, bias = gemms[0].input[:7]
    attrs = {a.name: helper.get_attribute_value(a) for a in gemms[0].attribute}
    if attrs.get("transB") != 1 or attrs.get("alpha", 1.0) != 1.0:
        raise ValueError("expected the QGemm to hold its weights as [classes, features]")
    model.graph.node.extend(
        [
            helper.make_node("DequantizeLinear", [x, x_scale, x_zero], [EMBEDDING]),
            helper.make_node("DequantizeLinear", [w, w_scale, w_zero], [HEAD_WEIGHT], axis=0),
            helper.make_node("Cast", [bias], ["head_bias_int"], to=onnx.TensorProto.FLOAT),
            helper.make_node("Mul", [x_scale, w_scale], ["head_bias_scale"]),
            helper.make_node("Mul", ["head_bias_int", "head_bias_scale"], [HEAD_BIAS]),
        ]
    )
    for name, shape in ((EMBEDDING, ["n", None]), (HEAD_WEIGHT, [None, None]), (HEAD_BIAS, [None])):
        model.graph.output.append(
            helper.make_tensor_value_info(name, onnx.TensorProto.FLOAT, shape)
        )
    return True


def main(argv: list[str] | None = None) -> int:
    import onnx

    for name in argv if argv is not None else sys.argv[1:]:
        model = onnx.load(name)
        if add_embedding_output(model):
            onnx.checker.check_model(model)
            onnx.save(model, name)
            print(f"{name}: outputs {EMBEDDING}, {HEAD_WEIGHT}, {HEAD_BIAS} added")
        else:
            print(f"{name}: already has {EMBEDDING!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
