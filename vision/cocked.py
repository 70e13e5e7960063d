"""Is a die the finder found lying flat, or cocked against something (RULES G-3)?

A small network (``tools/train_cocked.py``) looks at each die with the ground around it: a
cocked die shows a side face and leans on another die or a coin, which a crop of the die
alone (the reader's) mostly cuts away. Run with OpenCV's DNN module; the model file is
optional (``find_dice`` then relies on the reader's own "cocked" class).
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import cv2
import numpy as np
import numpy.typing as npt

from vision._dice_net import crop_patch, reader_input
from vision._dnn import load_onnx

CONTEXT = 2.0
"""Crop side over the die's box side: the die and about half a die of ground on every side
(``dice_cocked.json`` may name another)."""
CROP_SIDE = 24
"""The network's input side, pixels (``dice_cocked.json`` may name another)."""
COCKED_MODEL = "dice_cocked.onnx"
"""The network's file name in the model folder."""

_local = threading.local()


@dataclass(frozen=True)
class CockedCheck:
    """The network and the crops it takes (``dice_cocked.json``, else ``CROP_SIDE`` and ``CONTEXT``)."""

    net: cv2.dnn.Net
    crop_side: int = CROP_SIDE
    context: float = CONTEXT


def cocked_patches(
    frame: npt.NDArray[np.uint8],
    boxes: Sequence[tuple[int, int, int, int]],
    crop_side: int = CROP_SIDE,
    context: float = CONTEXT,
) -> list[npt.NDArray[np.uint8]]:
    """One ``crop_side`` square crop per die box (x, y, w, h): the box's centre, ``context`` times its side."""
    return [crop_patch(frame, x + w / 2, y + h / 2, context * max(w, h), size=crop_side) for x, y, w, h in boxes]


def cocked_input(patches: list[npt.NDArray[np.uint8]]) -> npt.NDArray[np.float32]:
    """The crops as the network's NCHW input, each standardised by its own mean and spread."""
    return reader_input(patches)


def cocked_net(model_dir: Path) -> CockedCheck | None:
    """The check of ``model_dir``, loaded once per thread, or ``None`` when it has none.

    :raises ValueError: for a ``dice_cocked.json`` that is not what training writes.
    """
    cache: dict[Path, CockedCheck | None] = _local.__dict__.setdefault("nets", {})
    if model_dir not in cache:
        path = model_dir / COCKED_MODEL
        check = None
        if path.is_file():
            crop_side, context = CROP_SIDE, CONTEXT
            meta_path = path.with_suffix(".json")
            if meta_path.is_file():
                try:
                    meta = json.loads(meta_path.read_text())
                    crop_side, context = int(meta["crop_side"]), float(meta["context"])
                except (ValueError, KeyError, TypeError) as exc:
                    raise ValueError(f"{meta_path}: needs numbers crop_side and context ({exc})") from None
                if crop_side < 8 or not context >= 1.0:
                    raise ValueError(f"{meta_path}: crop_side must be at least 8 and context at least 1, "
                                     f"got {crop_side} and {context}")
            check = CockedCheck(load_onnx(path), crop_side, context)
        cache[model_dir] = check
    return cache[model_dir]


def cocked_probability(
    check: CockedCheck, frame: npt.NDArray[np.uint8], boxes: Sequence[tuple[int, int, int, int]]
) -> npt.NDArray[np.float32]:
    """The probability that each die box holds a cocked die (one batch)."""
    if not boxes:
        return np.zeros(0, np.float32)
    check.net.setInput(cocked_input(cocked_patches(frame, boxes, check.crop_side, check.context)))
    logits = np.asarray(check.net.forward(), np.float32).reshape(-1)
    out: npt.NDArray[np.float32] = (1.0 / (1.0 + np.exp(-logits))).astype(np.float32)
    return out
