"""Drawing found dice on a frame, for looking at reads."""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt

from vision.dice.params import CONFIDENT
from vision.types import Detection


def draw_dice(frame: npt.NDArray[np.uint8], dice: list[Detection]) -> npt.NDArray[np.uint8]:
    """A copy of ``frame`` with each die's box and read drawn on it (green confident, orange not)."""
    img = frame.copy()
    for d in dice:
        x, y, w, h = d.bbox
        colour = (0, 200, 0) if d.confidence >= CONFIDENT else (0, 140, 255)
        cv2.rectangle(img, (x, y), (x + w, y + h), colour, 2)
        text = f"{d.value if d.value is not None else '?'} {d.confidence:.2f}"
        cv2.putText(img, text, (x, max(10, y - 3)), cv2.FONT_HERSHEY_SIMPLEX, 0.45, colour, 1, cv2.LINE_AA)
    return img
