"""Load an ONNX model from disk with errors that say which file and what was expected."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import onnxruntime as ort


class ModelError(RuntimeError):
    """A model file that is missing, corrupt, or not the model we expected."""


class OnnxModel:
    """One onnxruntime session: a single float32 NCHW input, outputs as numpy arrays."""

    def __init__(self, path: Path, role: str, threads: int = 0) -> None:
        self.path = path
        self.role = role
        if not path.is_file():
            raise ModelError(
                f"{path}: no such model file; expected the {role} (see models/MODELS.md)"
            )
        opts = ort.SessionOptions()
        opts.log_severity_level = 3
        if threads:
            opts.intra_op_num_threads = threads
            opts.inter_op_num_threads = 1
        try:
            self.session = ort.InferenceSession(
                str(path), sess_options=opts, providers=["CPUExecutionProvider"]
            )
        except Exception as exc:  # onnxruntime raises its own Fail/InvalidProtobuf classes
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise ModelError(
                f"{path}: not a valid ONNX model ({first}); expected the {role} exported by "
                "vision/train.py (see models/MODELS.md)"
            ) from None
        inputs = self.session.get_inputs()
        if len(inputs) != 1 or len(inputs[0].shape) != 4:
            raise ModelError(f"{path}: expected one NCHW image input for the {role}")
        self.input_name: str = inputs[0].name
        self.input_shape: list[Any] = list(inputs[0].shape)
        self.output_shape: list[Any] = list(self.session.get_outputs()[0].shape)
        self.output_names: list[str] = [o.name for o in self.session.get_outputs()]
        self.metadata: dict[str, str] = dict(self.session.get_modelmeta().custom_metadata_map)

    def run(self, batch: np.ndarray) -> np.ndarray:
        out = self.session.run(
            self.output_names[:1], {self.input_name: batch.astype(np.float32, copy=False)}
        )
        result: np.ndarray = np.asarray(out[0])
        return result

    def run_named(self, batch: np.ndarray, names: list[str]) -> list[np.ndarray]:
        """The named outputs only (a session computes no more than they need)."""
        out = self.session.run(names, {self.input_name: batch.astype(np.float32, copy=False)})
        return [np.asarray(o) for o in out]

    def fixed_side(self, default: int) -> int:
        """The square input side: fixed in the graph, else ultralytics' ``imgsz`` metadata."""
        side = self.input_shape[-1]
        if isinstance(side, int) and side > 0:
            return side
        raw = self.metadata.get("imgsz")
        if raw:
            try:
                value = json.loads(raw)
                return int(value[0] if isinstance(value, list) else value)
            except (ValueError, TypeError, IndexError):
                pass
        return default
