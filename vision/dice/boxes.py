"""Frame checks and the geometry of die boxes: overlap, containment, one die seen twice."""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt

from vision.dice.params import CONFIDENT
from vision.types import Detection


def _check_frame(frame: object) -> npt.NDArray[np.uint8]:
    """The frame as a BGR uint8 array, or ValueError naming what is wrong."""
    if not isinstance(frame, np.ndarray):
        raise ValueError(f"frame must be a numpy array, got {type(frame).__name__}")
    if frame.dtype != np.uint8:
        raise ValueError(f"frame dtype must be uint8, got {frame.dtype}")
    if not (frame.ndim == 2 or (frame.ndim == 3 and frame.shape[2] == 3)):
        raise ValueError(f"frame shape must be (H, W, 3) BGR or (H, W) grey, got {frame.shape}")
    if frame.shape[0] < 16 or frame.shape[1] < 16:
        raise ValueError(f"frame shape {frame.shape} is too small (at least 16x16)")
    if frame.ndim == 2:
        return np.asarray(cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR), np.uint8)
    return np.asarray(frame, np.uint8)


def _iou(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> float:
    ax0, ay0, ax1, ay1 = a[0] - a[2] / 2, a[1] - a[3] / 2, a[0] + a[2] / 2, a[1] + a[3] / 2
    bx0, by0, bx1, by1 = b[0] - b[2] / 2, b[1] - b[3] / 2, b[0] + b[2] / 2, b[1] + b[3] / 2
    iw = max(0.0, min(ax1, bx1) - max(ax0, bx0))
    ih = max(0.0, min(ay1, by1) - max(ay0, by0))
    inter = iw * ih
    union = a[2] * a[3] + b[2] * b[3] - inter
    return inter / union if union > 0 else 0.0


def _contains(box: tuple[float, float, float, float], point: tuple[float, float]) -> bool:
    """Whether ``point`` lies inside the centre-size ``box``, shrunk by a tenth for touching dice."""
    return abs(point[0] - box[0]) < 0.4 * box[2] and abs(point[1] - box[1]) < 0.4 * box[3]


def _rescale(raw: float, confident_at: float) -> float:
    """Map the raw read probability so that ``confident_at`` becomes ``CONFIDENT`` (monotone, 0..1)."""
    t = min(max(confident_at, 1e-6), 1.0 - 1e-6)
    if raw < t:
        return CONFIDENT * raw / t
    return CONFIDENT + (1.0 - CONFIDENT) * (raw - t) / (1.0 - t)


def _same_die(
    a: tuple[float, float, float, float], b: tuple[float, float, float, float], iou: float
) -> bool:
    """Two candidates are one die when they overlap a lot or one's centre is deep inside the other."""
    if _iou(a, b) > iou:
        return True
    small = min(max(a[2], a[3]), max(b[2], b[3]))
    return bool(np.hypot(a[0] - b[0], a[1] - b[1]) < 0.35 * small)


def _overlap(a: Detection, b: Detection) -> bool:
    """Whether either detection's centre lies in the other's box."""
    def inside(p: tuple[float, float], box: tuple[int, int, int, int]) -> bool:
        return box[0] <= p[0] <= box[0] + box[2] and box[1] <= p[1] <= box[1] + box[3]
    return inside(a.center, b.bbox) or inside(b.center, a.bbox)
