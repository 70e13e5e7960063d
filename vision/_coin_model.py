"""The small learned coin-face model, run with OpenCV's DNN module (no other runtime).

``vision/models/coin_face.onnx`` reads a polar image of one coin (see
``vision._coin_geometry.polar_samples``) and gives appearance logits for the five coin kinds,
heads/tails logits and a unit-length embedding used by enrolment's nearest-neighbour
exemplars. ``coin_face.json`` beside it records the sampling it was trained with and its
calibration temperature. Both are written by ``tools/train_coins.py``.

A model joined from several (``tools/ensemble_coins.py``) may come with its two halves apart,
named by ``coin_face.json``'s ``cascade``: the members that give the kind and the face
(``coin_face_first.onnx``) and those that give their face only (``coin_face_more.onnx``). A
read that needs no embedding then runs the second half only for the coins the first leaves in
doubt: the mean of six members' face logits is the mean of the two halves' means, and a coin
whose first half is far from doubt (``margin``) is read on the first half's mean alone.
"""

from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision._dnn import load_onnx, softmax

MODEL_DIR = Path(__file__).resolve().parent / "models"
"""Where the shipped coin model lives."""

NOT_A_COIN = "none"
"""The model's kind for a circle that is no coin (dice pips, card symbols, cloth)."""

NOT_A_COIN_SKIP = 0.5
"""A cascaded read (``CoinModel.run``) runs no second half for a circle whose not-a-coin
probability is at least this: ``vision.coins.CoinParams.not_coin``'s default, above which the
read drops the circle."""


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
    cascade_margin: float = 0.0
    """With the model's halves apart (``cascade``), the least difference of the first half's
    two face logits (mean of its members) at which the second half is not run; 0: no cascade."""


@dataclass(frozen=True)
class ModelOutput:
    """Per-coin outputs of one batch."""

    kind_prob: np.ndarray
    """N x len(kinds), rows sum to 1."""
    face_prob: np.ndarray
    """N x 2 (heads, tails), rows sum to 1."""
    embedding: np.ndarray
    """N x D, unit rows. From a cascaded read (``CoinModel.run``'s ``whole`` false) the second
    half's blocks are zero where it was not run: such embeddings are not for enrolment."""


class CoinModel:
    """The ONNX coin model and its metadata; load once with :func:`load_model`."""

    def __init__(self, onnx_path: Path, meta: ModelMeta, halves: tuple[Path, Path] | None = None) -> None:
        """Read the network from ``onnx_path``, and its two halves from ``halves`` (first, more)
        when the model comes with them (``meta.cascade_margin``).

        :raises FileNotFoundError: if a model file is missing.
        """
        for path in (onnx_path, *(halves or ())):
            if not path.is_file():
                raise FileNotFoundError(f"coin model not found: {path} (train it with tools/train_coins.py)")
        self.meta = meta
        self._net = load_onnx(onnx_path)
        self._halves = None if halves is None else (load_onnx(halves[0]), load_onnx(halves[1]))
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

    def run(self, polar: np.ndarray, whole: bool = True) -> ModelOutput:
        """Run the network on N polar images (N x rows x cols float32). With ``whole`` false and
        the model's halves at hand, the second half runs only where the first is in doubt (the
        embeddings are then not whole: see ``ModelOutput.embedding``)."""
        n = len(polar)
        if n == 0:
            k, f = len(self.meta.kinds), len(self.meta.faces)
            return ModelOutput(np.zeros((0, k), np.float32), np.zeros((0, f), np.float32), np.zeros((0, 1), np.float32))
        blob = np.ascontiguousarray(polar[:, None, :, :], dtype=np.float32)
        if whole or self._halves is None:
            kind, face, embed = self._forward(self._net, blob)
        else:
            kind, face, embed = self._cascade(blob)
        embed = embed / (np.linalg.norm(embed, axis=1, keepdims=True) + 1e-6)
        return ModelOutput(
            softmax(kind / self.meta.kind_temperature), softmax(face / self.meta.face_temperature), embed
        )

    def _forward(self, net: cv2.dnn.Net, blob: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """One network's kind and face logits and embedding for a batch, as N-row arrays."""
        n = len(blob)
        net.setInput(blob)
        kind, face, embed = net.forward(self._outputs)
        return (np.asarray(kind, np.float32).reshape(n, -1), np.asarray(face, np.float32).reshape(n, -1),
                np.asarray(embed, np.float32).reshape(n, -1))

    def _cascade(self, blob: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The whole model's logits, the second half run only for the coins the first leaves in
        doubt (its two face logits closer than ``cascade_margin``); the others' second embedding
        blocks are zero."""
        assert self._halves is not None
        first, more = self._halves
        kind, face, embed = self._forward(first, blob)
        doubt = np.abs(face[:, 0] - face[:, 1]) < self.meta.cascade_margin
        if NOT_A_COIN in self.meta.kinds:
            # The kind is the first half's alone, so whether a circle is a coin is known now; a
            # circle the read drops as none (``CoinParams.not_coin``'s default) needs no face.
            p_none = softmax(kind / self.meta.kind_temperature)[:, self.meta.kinds.index(NOT_A_COIN)]
            doubt &= p_none < NOT_A_COIN_SKIP
        embed = np.hstack([embed, np.zeros((len(blob), self.embedding_size - embed.shape[1]), np.float32)])
        if doubt.any():
            _, more_face, more_embed = self._forward(more, np.ascontiguousarray(blob[doubt]))
            # Each half's face is the mean of its members' (the same number in each half):
            # the mean of the two is the whole model's.
            face[doubt] = (face[doubt] + more_face) / 2
            embed[doubt, embed.shape[1] - more_embed.shape[1]:] = more_embed
        return kind, face, embed


_local = threading.local()


def load_model(model_dir: Path = MODEL_DIR) -> CoinModel:
    """The coin model in ``model_dir``, read once per thread (a ``cv2.dnn.Net`` is not thread-safe).

    :raises FileNotFoundError: if ``coin_face.onnx``, ``coin_face.json`` or a half of the model
        that ``coin_face.json`` names is missing.
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
    cascade = raw.get("cascade")
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
        cascade_margin=float(cascade["margin"]) if cascade else 0.0,
    )
    halves = (model_dir / cascade["first"], model_dir / cascade["more"]) if cascade else None
    return CoinModel(model_dir / "coin_face.onnx", meta, halves)
