"""Which face an eight-sided die shows: read from the numeral on its top face.

The dice reader (``vision.dice``) finds eight-sided dice and tells them from six-sided ones,
but its 40-pixel crop of a whole die leaves the numeral a few pixels tall, and it never
reads it surely. This small network (``tools/train_d8.py``) looks again, at a larger crop of each die
the reader took for a d8, and gives one logit per face 1..8. Run with OpenCV's DNN module;
the model file is optional (``find_dice`` then leaves a d8's face to the players).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

from vision._dnn import softmax
from vision._patch_check import PatchCheck, Spot, load_check, logits, patches, quarter_turns

FACES = 8
"""The network's outputs: the faces 1..8."""
CONTEXT = 1.1
"""Crop side over the die's box side (``dice_d8.json`` may name another)."""
CROP_SIDE = 48
"""The network's input side, pixels (``dice_d8.json`` may name another)."""
D8_MODEL = "dice_d8.onnx"
"""The network's file name in the model folder."""

Box = tuple[float, float, float, float]
"""A die's box: centre x, centre y, width, height in frame pixels."""


def _spots(boxes: Sequence[Box]) -> list[Spot]:
    return [(cx, cy, float(max(w, h))) for cx, cy, w, h in boxes]


def d8_patches(
    frame: npt.NDArray[np.uint8], boxes: Sequence[Box], crop_side: int = CROP_SIDE, context: float = CONTEXT
) -> list[npt.NDArray[np.uint8]]:
    """One ``crop_side`` square crop per die box: the box's centre, ``context`` times its longer side."""
    return patches(frame, _spots(boxes), crop_side, context)


def d8_net(model_dir: Path) -> PatchCheck | None:
    """The face reader of ``model_dir``, loaded once per thread, or ``None`` when it has none.

    :raises ValueError: for a ``dice_d8.json`` that is not what training writes.
    """
    return load_check(model_dir / D8_MODEL, CROP_SIDE, CONTEXT)


def d8_face_logits(
    net: PatchCheck, frame: npt.NDArray[np.uint8], boxes: Sequence[Box], quarters: Sequence[int] = (0,)
) -> npt.NDArray[np.float32]:
    """For each die box, the logit of each face 1..8 (shape: boxes x 8; one batch), averaged
    over the crop seen at each of ``quarters`` (quarter turns, 0..3)."""
    return logits(net, frame, _spots(boxes), FACES, quarters=quarters)


def d8_face_probabilities(
    net: PatchCheck, frame: npt.NDArray[np.uint8], boxes: Sequence[Box], turns: int = 1
) -> npt.NDArray[np.float32]:
    """For each die box, the probability of each face 1..8 (shape: boxes x 8; one batch), the
    logits averaged over ``turns`` (1, 2 or 4) quarter turns of the crop."""
    return softmax(d8_face_logits(net, frame, boxes, quarter_turns(turns)))
