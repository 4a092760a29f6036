"""The pretrained speech-embedding front end (Google's speech_embedding, as shipped in PyPI
``pyopen-wakeword``, Apache-2.0): 16 kHz audio → 32 log-mel bands every 10 ms → one 96-d
embedding every 80 ms, each over 0.78 s. Trained on far more voices than we can synthesise, it
is what lets a small head generalise to unseen speakers. Both models are TFLite files inside the
package (no download); they run through the package's bundled ``libtensorflowlite_c``.
"""

from __future__ import annotations

import ctypes as C
import os
from pathlib import Path

import numpy as np
import numpy.typing as npt

from voice.audio_io import SR, Audio

HOP = 160  # mel hop (10 ms)
MEL_WIN = 512  # mel analysis window in samples
EMB_MELS = 76  # mel frames per embedding
EMB_STEP = 8  # mel frames between embeddings (80 ms)
EMB_DIM = 96
CHUNK = HOP * EMB_STEP  # 1280 samples = 80 ms
EMB_SPAN = (EMB_MELS - 1) * HOP + MEL_WIN  # samples one embedding sees (12512)
_MEL_GROUP = (EMB_STEP - 1) * HOP + MEL_WIN  # samples for 8 mel frames (1632)

F32 = npt.NDArray[np.float32]


class FrontendError(RuntimeError):
    """The embedding front end cannot load (package or library missing, corrupt model)."""


def emb_end_sample(j: int) -> int:
    """Exclusive end sample of embedding ``j`` counted from the start of the stream."""
    return j * CHUNK + EMB_SPAN


def _package_files() -> tuple[Path, Path, Path]:
    try:
        import pyopen_wakeword
    except ImportError as exc:
        raise FrontendError("the spotter needs the PyPI package pyopen-wakeword") from exc
    root = Path(pyopen_wakeword.__file__).parent
    libs = sorted((root / "lib").glob("*tensorflowlite_c.*"))
    if not libs:
        raise FrontendError(f"no libtensorflowlite_c in {root / 'lib'} (unsupported platform?)")
    return (
        libs[0],
        root / "models" / "melspectrogram.tflite",
        root / "models" / "embedding_model.tflite",
    )


class _Tflite:
    """One TFLite interpreter with a resizable float32 input."""

    def __init__(self, lib: C.CDLL, path: Path) -> None:
        if not path.is_file():
            raise FrontendError(f"{path}: model file missing")
        self.lib = lib
        self.model = lib.TfLiteModelCreateFromFile(str(path).encode())
        if not self.model:
            raise FrontendError(f"{path}: not a loadable TFLite model")
        self.interp = lib.TfLiteInterpreterCreate(self.model, None)
        self.shape: tuple[int, ...] = ()

    def run(self, x: F32) -> F32:
        x = np.ascontiguousarray(x, dtype=np.float32)
        lib = self.lib
        if x.shape != self.shape:
            dims = (C.c_int32 * x.ndim)(*x.shape)
            lib.TfLiteInterpreterResizeInputTensor(self.interp, 0, dims, x.ndim)
            if lib.TfLiteInterpreterAllocateTensors(self.interp) != 0:
                raise FrontendError(f"cannot allocate tensors for input {x.shape}")
            self.shape = x.shape
        inp = lib.TfLiteInterpreterGetInputTensor(self.interp, 0)
        lib.TfLiteTensorCopyFromBuffer(inp, x.ctypes.data_as(C.c_void_p), x.nbytes)
        if lib.TfLiteInterpreterInvoke(self.interp) != 0:
            raise FrontendError("TFLite invoke failed")
        out = lib.TfLiteInterpreterGetOutputTensor(self.interp, 0)
        shape = [lib.TfLiteTensorDim(out, k) for k in range(lib.TfLiteTensorNumDims(out))]
        y = np.empty(shape, dtype=np.float32)
        lib.TfLiteTensorCopyToBuffer(out, y.ctypes.data_as(C.c_void_p), y.nbytes)
        return y


class Frontend:
    """Batch and streaming access to the mel + embedding models (one instance per thread)."""

    def __init__(self) -> None:
        lib_path, mel_path, emb_path = _package_files()
        from pyopen_wakeword.wakeword import TfLiteWakeWord

        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        lib = TfLiteWakeWord(lib_path).lib  # sets the ctypes signatures
        # Separate interpreters for the streaming shapes: resizing one reallocates its tensors.
        self._mel = _Tflite(lib, mel_path)
        self._mel_stream = _Tflite(lib, mel_path)
        self._emb = _Tflite(lib, emb_path)
        self._emb_one = _Tflite(lib, emb_path)

    def mels(self, audio: Audio) -> F32:
        """(frames, 32) log-mels, frame k over samples [160k, 160k+512); input in [-1, 1]."""
        if len(audio) < MEL_WIN:
            return np.zeros((0, 32), dtype=np.float32)
        net = self._mel_stream if len(audio) <= _MEL_GROUP else self._mel
        out = net.run((audio * 32767.0)[None, :])
        return (out.reshape(-1, 32) / 10.0 + 2.0).astype(np.float32)

    def embed_mels(self, mels: F32, starts: list[int]) -> F32:
        """(len(starts), 96) embeddings of mel frames [s, s+76) for each start s."""
        if not starts:
            return np.zeros((0, EMB_DIM), dtype=np.float32)
        x = np.stack([mels[s : s + EMB_MELS] for s in starts])[..., None]
        net = self._emb_one if len(starts) == 1 else self._emb
        return net.run(x).reshape(len(starts), EMB_DIM)

    def embed(self, audio: Audio) -> F32:
        """All embeddings of a clip; embedding j ends at :func:`emb_end_sample` (j)."""
        mels = self.mels(audio)
        n = (len(mels) - EMB_MELS) // EMB_STEP + 1
        return self.embed_mels(mels, [EMB_STEP * j for j in range(max(n, 0))])


class EmbeddingStream:
    """Streaming front end: mels always (cheap), embeddings only on request and cached, so a
    silent channel costs almost nothing. Equal to :meth:`Frontend.embed` on the whole stream."""

    def __init__(self, frontend: Frontend, keep_s: float = 4.0) -> None:
        self.fe = frontend
        self.samples = 0  # samples received
        self._buf = np.zeros(0, dtype=np.float32)
        self._buf_start = 0  # absolute sample index of _buf[0]
        self._mels = np.zeros((0, 32), dtype=np.float32)
        self._mel_start = 0  # absolute mel index of _mels[0]
        self._keep = int(keep_s * SR / HOP)
        self._cache: dict[int, F32] = {}

    def feed(self, audio: Audio) -> None:
        self._buf = np.concatenate([self._buf, audio.astype(np.float32)])
        self.samples += len(audio)
        n_mel = self._mel_start + len(self._mels)
        count = (self.samples - MEL_WIN - HOP * n_mel) // HOP + 1  # every complete frame now
        if count > 0:
            off = HOP * n_mel - self._buf_start
            new = self.fe.mels(self._buf[off : off + HOP * (count - 1) + MEL_WIN])
            n_mel += count
            self._mels = np.concatenate([self._mels, new])
            drop = max(0, len(self._mels) - self._keep)
            self._mels = self._mels[drop:]
            self._mel_start += drop
            for j in [j for j in self._cache if EMB_STEP * j < self._mel_start]:
                del self._cache[j]
        cut = HOP * n_mel - self._buf_start
        if cut > 0:
            self._buf = self._buf[cut:]
            self._buf_start += cut

    @property
    def last(self) -> int:
        """Index of the newest embedding that can be computed (-1: none yet)."""
        return (self._mel_start + len(self._mels) - EMB_MELS) // EMB_STEP

    def first(self) -> int:
        """Oldest embedding index still computable from kept mels."""
        return -(-self._mel_start // EMB_STEP)

    def embeddings(self, js: list[int]) -> F32:
        """Embeddings for indices ``js`` (computed once, batched)."""
        for j in js:  # one at a time: a fixed shape, no tensor reallocation
            if j not in self._cache:
                self._cache[j] = self.fe.embed_mels(self._mels, [EMB_STEP * j - self._mel_start])[0]
        return np.stack([self._cache[j] for j in js])


__all__ = ["CHUNK", "EMB_DIM", "SR", "EmbeddingStream", "Frontend", "FrontendError"]
