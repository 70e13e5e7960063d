"""Whether a calibrated table's corner markers look as they did when the camera was last followed.

Following the camera (``vision.calibration.track``) looks for every corner marker again, a
good part of a dice game's read. Where the pixels around each
marker are those of the frame last followed (sensor noise aside), the markers are where they
were, and following again would give what it gave then: the same calibration (a steady camera
keeps it) or the same complaint (a hand still over a marker, a camera still moved). A
:class:`MarkerWatch` tells that case apart for a few grey windows' worth of work.
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

WINDOW_GROW = 0.5
"""Each marker's window is its square grown by this many of its sides on each side: its
white quiet zone and a little cloth, where any move of the camera shows first."""

CHANGED_GREY = 24
"""A window has changed when a pixel of it, both frames' windows lightly blurred, differs by
more than this many grey levels: a marker's black-on-white edges moved by even half a pixel
change it by far more, sensor noise by far less. Following the camera ignores moves under
``TrackParams.tolerance_mm`` (several pixels), so a move too small to show here is one it would
ignore too."""

Box = tuple[int, int, int, int]
"""x0, y0, x1, y1 in frame pixels."""


class MarkerWatch:
    """The grey windows around the markers of the frame the camera was last followed on, and
    the calibration that following left."""

    def __init__(self) -> None:
        self._calibration: Any = None
        self._boxes: list[Box] = []
        self._windows: list[npt.NDArray[np.uint8]] = []
        self._shape: tuple[int, ...] = ()

    def remember(self, frame: npt.NDArray[np.uint8], calibration: Any) -> None:
        """Keep ``frame``'s windows around ``calibration``'s markers: the camera was followed on
        this frame, and ``calibration`` is what that gave."""
        h, w = frame.shape[:2]
        clipped = [(max(0, x0), max(0, y0), min(w, x1), min(h, y1)) for x0, y0, x1, y1 in marker_boxes(calibration)]
        self._calibration = calibration
        self._boxes = [box for box in clipped if box[2] - box[0] >= 4 and box[3] - box[1] >= 4]
        self._windows = [_window(frame, box) for box in self._boxes]
        self._shape = frame.shape

    def unchanged(self, frame: npt.NDArray[np.uint8], calibration: Any) -> bool:
        """Whether ``calibration`` is the one remembered and every remembered window of
        ``frame`` looks as it did (``CHANGED_GREY``); false when nothing is remembered, for
        another calibration or a frame of another size."""
        if calibration is not self._calibration or not self._boxes or frame.shape != self._shape:
            return False
        return all(int(cv2.absdiff(_window(frame, box), seen).max()) <= CHANGED_GREY
                   for box, seen in zip(self._boxes, self._windows))


def marker_boxes(calibration: Any) -> list[Box]:
    """The window (``WINDOW_GROW``) around each corner marker of a calibration, in frame
    pixels; none for a calibration that knows no markers."""
    spec = getattr(calibration, "markers", None)
    if spec is None:
        return []
    boxes = []
    for marker_id in spec.ids:
        quad = np.asarray(calibration.table_to_image(spec.corners_mm(marker_id, calibration.table_size_mm)), np.float64)
        if not np.isfinite(quad).all():
            continue
        grow = WINDOW_GROW * float(np.sqrt(max(abs(cv2.contourArea(quad.astype(np.float32))), 1.0)))
        boxes.append((int(np.floor(quad[:, 0].min() - grow)), int(np.floor(quad[:, 1].min() - grow)),
                      int(np.ceil(quad[:, 0].max() + grow)), int(np.ceil(quad[:, 1].max() + grow))))
    return boxes


def _window(frame: npt.NDArray[np.uint8], box: Box) -> npt.NDArray[np.uint8]:
    """The box of the frame in grey, lightly blurred (sensor noise a little evened out)."""
    x0, y0, x1, y1 = box
    part = np.ascontiguousarray(frame[y0:y1, x0:x1])
    grey = part if part.ndim == 2 else cv2.cvtColor(part, cv2.COLOR_BGR2GRAY)
    return np.asarray(cv2.GaussianBlur(grey, (3, 3), 0), np.uint8)
