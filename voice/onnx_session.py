"""onnxruntime sessions for the voice models, with errors that name the file and the model."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def load_session(path: Path, kind: str, error: type[RuntimeError]) -> Any:
    """A one-thread CPU session (the rig shares 2 cores among its channels and the referee);
    ``error`` says what is missing or unreadable."""
    import onnxruntime as ort

    if not path.is_file():
        raise error(f"{path}: {kind} model not found")
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    opts.log_severity_level = 4
    try:
        return ort.InferenceSession(
            str(path), sess_options=opts, providers=["CPUExecutionProvider"]
        )
    except Exception as exc:  # onnxruntime raises its own untyped errors
        raise error(f"{path}: not a readable ONNX model ({exc})") from exc
