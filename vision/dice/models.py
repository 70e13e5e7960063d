"""The finder and reader networks with the reader's crop geometry, loaded once per thread, and one frame's finder outputs kept for reuse (``_Seen``)."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from pathlib import Path

import cv2

from vision._dice_net import CROP_SCALE, CROP_SIZE, FloatArray, NUM_READ_CLASSES, READ_CLASSES_D8
from vision._dnn import load_onnx
from vision.dice.params import FINDER_MODEL, READER_MODEL


_local = threading.local()


@dataclass(frozen=True)
class _Models:
    finder: cv2.dnn.Net
    reader: cv2.dnn.Net
    crop_size: int
    """The reader's input side, pixels (``dice_reader.json``, else ``CROP_SIZE``)."""
    crop_scale: float
    """The reader's crop side over the die box side (``dice_reader.json``, else ``CROP_SCALE``)."""
    classes: int = NUM_READ_CLASSES
    """The reader's classes (``dice_reader.json``): 7 for six-sided dice only, 16 with d8 and cocked."""


def _nets(model_dir: Path) -> _Models:
    """The two networks of ``model_dir`` with the reader's crop geometry, loaded once per thread
    (a cv2.dnn.Net is not thread-safe).

    :raises FileNotFoundError: naming a missing model file.
    :raises ValueError: for a ``dice_reader.json`` that is not what training writes.
    """
    cache: dict[Path, _Models] = _local.__dict__.setdefault("models", {})
    models = cache.get(model_dir)
    if models is None:
        finder_path, reader_path = model_dir / FINDER_MODEL.name, model_dir / READER_MODEL.name
        for path in (finder_path, reader_path):
            if not path.is_file():
                raise FileNotFoundError(f"dice model missing: {path} (train it with tools/train_dice.py)")
        crop_size, crop_scale, classes = CROP_SIZE, CROP_SCALE, NUM_READ_CLASSES
        meta_path = reader_path.with_suffix(".json")
        if meta_path.is_file():
            try:
                meta = json.loads(meta_path.read_text())
                crop_size, crop_scale = int(meta["crop_size"]), float(meta["crop_scale"])
                classes = int(meta.get("classes", NUM_READ_CLASSES))
            except (ValueError, KeyError, TypeError) as exc:
                raise ValueError(f"{meta_path}: needs numbers crop_size and crop_scale ({exc})") from None
            if classes not in (NUM_READ_CLASSES, READ_CLASSES_D8):
                raise ValueError(f"{meta_path}: classes must be {NUM_READ_CLASSES} or {READ_CLASSES_D8}, got {classes}")
        models = _Models(load_onnx(finder_path), load_onnx(reader_path),
                         crop_size, crop_scale, classes)
        cache[model_dir] = models
    return models


@dataclass
class _Seen:
    """What the networks gave on one frame, kept for a second read of it at another scale:
    the finder's first looks by their long side, the reader's logits by box and turns, the
    cocked-die check's probability by box."""

    finder: dict[int, tuple[FloatArray, float]] = field(default_factory=dict)
    logits: dict[tuple[tuple[float, float, float, float], int], FloatArray] = field(default_factory=dict)
    cocked: dict[tuple[int, int, int, int], float] = field(default_factory=dict)
