"""A frame's scale from the printed table's corner markers, without a calibration.

``referee markers`` prints every table with four ArUco markers of a known size in its
corners. Each marker seen gives the millimetres per pixel where it lies; over three or more,
a plane through them gives the scale anywhere in the frame (a camera tilted over the table
sees its far side smaller). ``vision.read.read_table`` uses this when it is given no
calibration, so a photo of the referee's own table is read at its scale: coins searched for
at their size and told apart by it, dice taken down to the fainter finder score.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.markers import MarkerSpec, Points, as_u8, detect_markers, to_gray

MIN_MARKERS = 2
"""Fewest markers that give a scale: one alone may be a stray print."""

MAX_SPREAD = 1.5
"""Largest ratio between the markers' own scales: beyond it they are not one flat table's."""

SEARCH_SIDE = 800
"""Markers are first looked for in the frame halved until its long side is at most this (a
full search of a 1280x960 frame took 5.7 ms, of the 640x480 one 2.5 ms, finding as many), then
each corner is placed again at full resolution (the halved image's corners gave scales 0.9%
off at the median, the full frame's 0.4%)."""

REFINE_WINDOW = 3
"""Half-side, in reduced-image pixels, of the window each corner is placed again in at full resolution."""

REFINE_STOP = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 30, 0.01)
"""When the corner refinement stops: 30 steps, or a step under a hundredth of a pixel."""


@dataclass(frozen=True)
class MarkerScale:
    """Millimetres per pixel over a frame, a plane ``a + b x + c y`` through its markers' scales."""

    coefficients: tuple[float, float, float]
    """(a, b, c): millimetres per pixel at frame point (x, y) is a + b x + c y."""
    markers: int
    """How many markers it was measured on."""
    centre: tuple[float, float]
    """The frame's centre, pixels."""
    quads: tuple[tuple[tuple[float, float], ...], ...] = ()
    """The markers' corners (4 x 2 frame pixels each), where the printed table's white is seen
    (``vision.white_reference``)."""

    @property
    def mm_per_px(self) -> float:
        """Millimetres per pixel at the frame's centre."""
        return self.mm_per_px_at(self.centre)

    def mm_per_px_at(self, point_px: tuple[float, float]) -> float:
        """Millimetres per pixel at a frame point (never below a tenth of the centre's)."""
        a, b, c = self.coefficients
        at_centre = a + b * self.centre[0] + c * self.centre[1]
        return float(max(a + b * point_px[0] + c * point_px[1], 0.1 * at_centre))


def marker_scale(frame: np.ndarray, spec: MarkerSpec = MarkerSpec()) -> MarkerScale | None:
    """The frame's scale from the printed table's corner markers, or ``None`` when fewer than
    ``MIN_MARKERS`` are seen or their scales disagree (more than ``MAX_SPREAD`` apart).

    :raises ValueError: for anything but a BGR or grey uint8 frame.
    """
    # A grey frame is only read, never changed: no copy of it is needed.
    is_gray = isinstance(frame, np.ndarray) and frame.ndim == 2 and frame.dtype == np.uint8
    gray = frame if is_gray else to_gray(frame)
    h, w = gray.shape[:2]
    small, shrink = gray, 1.0
    while max(small.shape[:2]) > SEARCH_SIDE:
        # Halved by exact area averaging, OpenCV's fast case (an odd ratio costs several times more).
        small = as_u8(cv2.resize(small, (small.shape[1] // 2, small.shape[0] // 2), interpolation=cv2.INTER_AREA))
        shrink /= 2.0
    coarse = detect_markers(small, spec)
    if len(coarse) < MIN_MARKERS:
        return None
    found = coarse
    if shrink < 1.0:
        # Each corner placed again to a fraction of a full-resolution pixel.
        corners = (np.concatenate(list(coarse.values())) / shrink).astype(np.float32).reshape(-1, 1, 2)
        window = max(2, int(round(REFINE_WINDOW / shrink)))
        cv2.cornerSubPix(gray, corners, (window, window), (-1, -1), REFINE_STOP)
        refined = corners.reshape(-1, 4, 2).astype(np.float64)
        found = {i: refined[k] for k, i in enumerate(coarse)}
    return scale_of(found, spec, (w, h))


def scale_of(found: dict[int, Points], spec: MarkerSpec, size: tuple[int, int]) -> MarkerScale | None:
    """The plane of millimetres per pixel through markers found in a frame of ``size`` (w, h)."""
    rows = []
    for quad in found.values():
        side = float(np.mean([np.hypot(*(quad[i] - quad[(i + 1) % 4])) for i in range(4)]))
        if side > 0:
            cx, cy = quad.mean(axis=0)
            rows.append((float(cx), float(cy), spec.size_mm / side))
    if len(rows) < MIN_MARKERS:
        return None
    scales = np.array([s for *_, s in rows])
    if scales.max() > MAX_SPREAD * scales.min():
        return None
    centre = (size[0] / 2.0, size[1] / 2.0)
    if len(rows) >= 3:
        design = np.array([(1.0, x, y) for x, y, _ in rows])
        a, b, c = (float(v) for v in np.linalg.lstsq(design, scales, rcond=None)[0])
    else:
        a, b, c = float(scales.mean()), 0.0, 0.0  # two markers: their mean, everywhere
    quads = tuple(tuple((float(x), float(y)) for x, y in quad) for quad in found.values())
    result = MarkerScale((a, b, c), len(rows), centre, quads)
    if not result.mm_per_px > 0:
        return None
    return result
