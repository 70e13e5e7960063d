"""The small learned coin-face model, run with OpenCV's DNN module (no other runtime).

``vision/models/coin_face.onnx`` reads a polar image of one coin (see
``vision._coin_geometry.polar_samples``) and gives appearance logits for the five coin kinds,
heads/tails logits and a unit-length embedding used by enrolment's nearest-neighbour
exemplars. ``coin_face.json`` beside it records the sampling it was trained with and its
calibration temperature. Both are written by ``tools/train_coins.py``.
"""

from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from vision._dnn import load_onnx, softmax

MODEL_DIR = Path(__file__).resolve().parent / "models"
"""Where the shipped coin model lives."""


@dataclass(frozen=True)
class ModelMeta:
    """How the model expects its input, from ``coin_face.json``."""

    n_radii: int
    n_angles: int
    pad: int
    inner: float
    outer: float
    base_radius: int
    kinds: tuple[str, ...]
    faces: tuple[str, ...]
    face_temperature: float
    kind_temperature: float
    normalise: str = "zscore"
    fingerprint: str = ""
    """The start of the ONNX file's SHA-256: which model an embedding came from (a table's
    learned exemplars are embeddings of the model they were learned with)."""


@dataclass(frozen=True)
class ModelOutput:
    """Per-coin outputs of one batch."""

    kind_prob: np.ndarray
    """N x len(kinds), rows sum to 1."""
    face_prob: np.ndarray
    """N x 2 (heads, tails), rows sum to 1."""
    embedding: np.ndarray
    """N x D, unit rows."""


class CoinModel:
    """The ONNX coin model and its metadata; load once with :func:`load_model`."""

    def __init__(self, onnx_path: Path, meta: ModelMeta) -> None:
        """Read the network from ``onnx_path``.

        :raises FileNotFoundError: if the model file is missing.
        """
        if not onnx_path.is_file():
            raise FileNotFoundError(f"coin model not found: {onnx_path} (train it with tools/train_coins.py)")
        self.meta = meta
        self._net = load_onnx(onnx_path)
        self._outputs = ["kind", "face", "embed"]
        self._embedding_size = 0

    @property
    def embedding_size(self) -> int:
        """How many values an embedding has (found by one run on a blank image, then kept)."""
        if not self._embedding_size:
            m = self.meta
            blank = np.zeros((1, m.n_radii, m.n_angles + 2 * m.pad), np.float32)
            self._embedding_size = int(self.run(blank).embedding.shape[1])
        return self._embedding_size

    def run(self, polar: np.ndarray) -> ModelOutput:
        """Run the network on N polar images (N x rows x cols float32)."""
        n = len(polar)
        if n == 0:
            k, f = len(self.meta.kinds), len(self.meta.faces)
            return ModelOutput(np.zeros((0, k), np.float32), np.zeros((0, f), np.float32), np.zeros((0, 1), np.float32))
        blob = np.ascontiguousarray(polar[:, None, :, :], dtype=np.float32)
        self._net.setInput(blob)
        kind, face, embed = self._net.forward(self._outputs)
        kind = np.asarray(kind, np.float32).reshape(n, -1)
        face = np.asarray(face, np.float32).reshape(n, -1)
        embed = np.asarray(embed, np.float32).reshape(n, -1)
        embed = embed / (np.linalg.norm(embed, axis=1, keepdims=True) + 1e-6)
        return ModelOutput(
            softmax(kind / self.meta.kind_temperature), softmax(face / self.meta.face_temperature), embed
        )


_local = threading.local()


def load_model(model_dir: Path = MODEL_DIR) -> CoinModel:
    """The coin model in ``model_dir``, read once per thread (a ``cv2.dnn.Net`` is not thread-safe).

    :raises FileNotFoundError: if ``coin_face.onnx`` or ``coin_face.json`` is missing.
    """
    cache: dict[Path, CoinModel] = getattr(_local, "models", None) or {}
    _local.models = cache
    if model_dir not in cache:
        cache[model_dir] = _read_model(model_dir)
    return cache[model_dir]


def _fingerprint(onnx_path: Path) -> str:
    """The first 16 hex digits of the file's SHA-256, or "" if there is no such file."""
    return hashlib.sha256(onnx_path.read_bytes()).hexdigest()[:16] if onnx_path.is_file() else ""


def _read_model(model_dir: Path) -> CoinModel:
    """Read the network and its metadata from ``model_dir``."""
    meta_path = model_dir / "coin_face.json"
    if not meta_path.is_file():
        raise FileNotFoundError(f"coin model metadata not found: {meta_path} (train it with tools/train_coins.py)")
    raw = json.loads(meta_path.read_text())
    meta = ModelMeta(
        n_radii=int(raw["n_radii"]),
        n_angles=int(raw["n_angles"]),
        pad=int(raw["pad"]),
        inner=float(raw["inner"]),
        outer=float(raw["outer"]),
        base_radius=int(raw["base_radius"]),
        kinds=tuple(raw["kinds"]),
        faces=tuple(raw["faces"]),
        face_temperature=float(raw.get("face_temperature", 1.0)),
        kind_temperature=float(raw.get("kind_temperature", 1.0)),
        normalise=str(raw.get("normalise", "zscore")),
        fingerprint=_fingerprint(model_dir / "coin_face.onnx"),
    )
    return CoinModel(model_dir / "coin_face.onnx", meta)
