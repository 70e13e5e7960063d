"""Drawing found coins on a frame, for looking at reads."""

from __future__ import annotations

import cv2
import numpy as np

from vision.coins.params import CoinParams
from vision.types import Detection


def draw_coins(frame: np.ndarray, coins: list[Detection], params: CoinParams = CoinParams()) -> np.ndarray:
    """A copy of the frame with each coin's circle, kind and face drawn (for overlays)."""
    out = frame.copy()
    for d in coins:
        x, y = d.center
        r = d.bbox[2] / 2
        sure = d.confidence >= params.confident
        colour = (0, 200, 0) if sure else (0, 200, 255) if d.value is not None else (0, 0, 255)
        cv2.circle(out, (int(round(x)), int(round(y))), int(round(r)), colour, 2)
        label = f"{d.kind[0].upper()}{'' if d.value is None else str(d.value)[0]} {d.confidence:.2f}"
        cv2.putText(out, label, (int(x - r), int(y - r) - 4), cv2.FONT_HERSHEY_SIMPLEX, 0.5, colour, 1, cv2.LINE_AA)
    return out
