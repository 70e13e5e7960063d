"""Is a die the finder found lying flat, or cocked against something (RULES G-3)?

A small network (``tools/train_cocked.py``) looks at each die with the ground around it: a
cocked die shows a side face and leans on another die or a coin, which a crop of the die
alone (the reader's) mostly cuts away. Run with OpenCV's DNN module; the model file is
optional (``find_dice`` then relies on the reader's own "cocked" class).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

from vision._patch_check import PatchCheck, Spot, load_check, patches, probability

CONTEXT = 2.0
"""Crop side over the die's box side: the die and about half a die of ground on every side
(``dice_cocked.json`` may name another)."""
CROP_SIDE = 24
"""The network's input side, pixels (``dice_cocked.json`` may name another)."""
COCKED_MODEL = "dice_cocked.onnx"
"""The network's file name in the model folder."""

Box = tuple[int, int, int, int]
"""A die's box: x, y, width, height in frame pixels."""


def _spots(boxes: Sequence[Box]) -> list[Spot]:
    return [(x + w / 2, y + h / 2, float(max(w, h))) for x, y, w, h in boxes]


def cocked_patches(
    frame: npt.NDArray[np.uint8], boxes: Sequence[Box], crop_side: int = CROP_SIDE, context: float = CONTEXT
) -> list[npt.NDArray[np.uint8]]:
    """One ``crop_side`` square crop per die box: the box's centre, ``context`` times its side."""
    return patches(frame, _spots(boxes), crop_side, context)


def cocked_net(model_dir: Path) -> PatchCheck | None:
    """The check of ``model_dir``, loaded once per thread, or ``None`` when it has none.

    :raises ValueError: for a ``dice_cocked.json`` that is not what training writes.
    """
    return load_check(model_dir / COCKED_MODEL, CROP_SIDE, CONTEXT)


def cocked_probability(check: PatchCheck, frame: npt.NDArray[np.uint8], boxes: Sequence[Box]) -> npt.NDArray[np.float32]:
    """The probability that each die box holds a cocked die (one batch)."""
    return probability(check, frame, _spots(boxes))
