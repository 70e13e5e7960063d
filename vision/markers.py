"""Printed ArUco calibration markers: where they lie on the table, finding them in a frame.

Four markers from OpenCV's ``DICT_4X4_50`` dictionary lie inside the corners of the play
area, each with a white quiet zone around it:

=====  ============  ===================================
id     corner        marker's top-left corner, table mm
=====  ============  ===================================
0      top-left      ``(margin, margin)``
1      top-right     ``(W - margin - size, margin)``
2      bottom-right  ``(W - margin - size, H - margin - size)``
3      bottom-left   ``(margin, H - margin - size)``
=====  ============  ===================================

Table millimetres have their origin at the play area's top-left corner as printed on the sheet,
x to the right and y down (the sheet seen from above, like an image), so a top-down view of
the table is never mirrored. Each marker is printed upright, so its four detected corners
(ArUco's order: its own top-left, top-right, bottom-right, bottom-left) map to known points.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

DICTIONARY_NAME = "DICT_4X4_50"
"""The one ArUco dictionary the referee prints and looks for."""
CORNER_NAMES = ("top-left", "top-right", "bottom-right", "bottom-left")
"""Which corner of the play area the 1st..4th marker id of a :class:`MarkerSpec` marks."""

Points = NDArray[np.float64]
"""An ``N x 2`` array of points (pixels or millimetres)."""


@dataclass(frozen=True)
class MarkerSpec:
    """Which markers mark the corners of the play area, and how big they are printed."""

    ids: tuple[int, int, int, int] = (0, 1, 2, 3)
    """Marker ids at the top-left, top-right, bottom-right and bottom-left corners."""
    size_mm: float = 40.0
    """Side of the black square, in millimetres."""
    margin_mm: float = 8.0
    """White gap from the play area's edges to the marker (its quiet zone on the sheet)."""
    dictionary: str = DICTIONARY_NAME
    """The ArUco dictionary name (only ``DICT_4X4_50`` is supported)."""

    def __post_init__(self) -> None:
        if self.dictionary != DICTIONARY_NAME:
            raise ValueError(f"markers.dictionary must be {DICTIONARY_NAME!r}, not {self.dictionary!r}")
        if len(self.ids) != 4 or len(set(self.ids)) != 4 or not all(0 <= i < 50 for i in self.ids):
            raise ValueError(f"markers.ids must be 4 different ids in 0..49, not {list(self.ids)}")
        if not 5.0 <= self.size_mm <= 500.0:
            raise ValueError(f"markers.size_mm must be between 5 and 500 mm, not {self.size_mm}")
        if not 0.0 <= self.margin_mm <= 200.0:
            raise ValueError(f"markers.margin_mm must be between 0 and 200 mm, not {self.margin_mm}")

    def corner_of(self, marker_id: int) -> str:
        """``"top-left"`` for the first id, and so on."""
        return CORNER_NAMES[self.ids.index(marker_id)]

    def origin_mm(self, marker_id: int, table_size_mm: tuple[float, float]) -> tuple[float, float]:
        """Top-left corner of the marker's black square in table millimetres."""
        width, height = table_size_mm
        far_x = width - self.margin_mm - self.size_mm
        far_y = height - self.margin_mm - self.size_mm
        near = self.margin_mm
        origins = ((near, near), (far_x, near), (far_x, far_y), (near, far_y))
        return origins[self.ids.index(marker_id)]

    def corners_mm(self, marker_id: int, table_size_mm: tuple[float, float]) -> Points:
        """The marker's four corners in table mm, in ArUco's order (its TL, TR, BR, BL)."""
        x0, y0 = self.origin_mm(marker_id, table_size_mm)
        s = self.size_mm
        return np.array([(x0, y0), (x0 + s, y0), (x0 + s, y0 + s), (x0, y0 + s)], dtype=np.float64)

    def reserved_mm(self) -> float:
        """How far from each edge a corner marker and its quiet zone reach (zones keep clear)."""
        return self.margin_mm + self.size_mm + self.margin_mm

    def to_json(self) -> dict[str, object]:
        """JSON-friendly form (the ``markers`` field of a calibration file)."""
        return {
            "dictionary": self.dictionary,
            "ids": list(self.ids),
            "size_mm": self.size_mm,
            "margin_mm": self.margin_mm,
        }


@dataclass(frozen=True)
class DetectParams:
    """Thresholds for finding markers."""

    min_perimeter_rate: float = 0.02
    """Smallest marker perimeter as a fraction of the frame's larger side (OpenCV's default 0.03)."""
    refine_window_px: int = 5
    """Half-size of the sub-pixel corner refinement window."""
    error_correction_rate: float = 0.6
    """Share of the dictionary's correctable bits to accept (OpenCV's default)."""
    roi_grow: float = 1.5
    """When looking near an expected position, search this many marker sizes around it."""


def dictionary() -> cv2.aruco.Dictionary:
    """OpenCV's ``DICT_4X4_50`` dictionary."""
    return cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)


def _detector(params: DetectParams) -> cv2.aruco.ArucoDetector:
    detector_params = cv2.aruco.DetectorParameters()
    detector_params.minMarkerPerimeterRate = params.min_perimeter_rate
    detector_params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    detector_params.cornerRefinementWinSize = params.refine_window_px
    detector_params.errorCorrectionRate = params.error_correction_rate
    return cv2.aruco.ArucoDetector(dictionary(), detector_params)


def to_gray(frame: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """A grey copy of a BGR (or already grey) uint8 frame.

    :raises ValueError: for anything but a 2-D or 3-channel uint8 array.
    """
    if frame.dtype != np.uint8 or frame.ndim not in (2, 3) or (frame.ndim == 3 and frame.shape[2] != 3):
        raise ValueError(f"frame must be a BGR or grey uint8 image, not {frame.dtype} {frame.shape}")
    if frame.ndim == 2:
        return frame.copy()
    gray: NDArray[np.uint8] = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    return gray


def detect_markers(
    frame: NDArray[np.uint8],
    spec: MarkerSpec = MarkerSpec(),
    params: DetectParams = DetectParams(),
) -> dict[int, Points]:
    """The spec's markers found in a frame: id to its four corners in pixels (ArUco's order).

    Markers of other ids are ignored; where one id is found twice (a reflection, a second
    sheet), the larger one wins.
    """
    gray = to_gray(frame)
    return _detect_gray(gray, spec, params, (0, 0))


def _detect_gray(
    gray: NDArray[np.uint8], spec: MarkerSpec, params: DetectParams, offset: tuple[int, int]
) -> dict[int, Points]:
    corners, ids, _rejected = _detector(params).detectMarkers(gray)
    found: dict[int, Points] = {}
    if ids is None:
        return found
    for quad, marker_id in zip(corners, ids.ravel()):
        key = int(marker_id)
        if key not in spec.ids:
            continue
        points = quad.reshape(4, 2).astype(np.float64) + np.array(offset, dtype=np.float64)
        if key not in found or _area(points) > _area(found[key]):
            found[key] = points
    return found


def detect_markers_near(
    frame: NDArray[np.uint8],
    expected: dict[int, Points],
    spec: MarkerSpec = MarkerSpec(),
    params: DetectParams = DetectParams(),
) -> dict[int, Points]:
    """Look for each marker only around where it is expected (pixels); faster than a full search.

    Each search window is the expected quad grown by ``params.roi_grow`` marker sizes on each side,
    so a camera bumped by up to about a marker's width is still followed.
    """
    gray = to_gray(frame)
    height, width = gray.shape
    found: dict[int, Points] = {}
    for marker_id, quad in expected.items():
        side = float(np.sqrt(max(_area(quad), 1.0)))
        grow = params.roi_grow * side
        x0 = int(max(0, np.floor(quad[:, 0].min() - grow)))
        y0 = int(max(0, np.floor(quad[:, 1].min() - grow)))
        x1 = int(min(width, np.ceil(quad[:, 0].max() + grow)))
        y1 = int(min(height, np.ceil(quad[:, 1].max() + grow)))
        if x1 - x0 < 8 or y1 - y0 < 8:
            continue
        window = np.ascontiguousarray(gray[y0:y1, x0:x1])
        # Perimeter rate is relative to the window here, so any marker that fits counts.
        local = _detect_gray(window, spec, DetectParams(
            min_perimeter_rate=0.1,
            refine_window_px=params.refine_window_px,
            error_correction_rate=params.error_correction_rate,
        ), (x0, y0))
        if marker_id in local:
            found[marker_id] = local[marker_id]
    return found


def _area(quad: Points) -> float:
    x, y = quad[:, 0], quad[:, 1]
    return float(abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))) / 2.0)


def marker_image(marker_id: int, side_px: int) -> NDArray[np.uint8]:
    """The marker's black-and-white square, ``side_px`` pixels wide, without a quiet zone.

    :raises ValueError: for an id outside the dictionary or a side too small to print its cells.
    """
    if not 0 <= marker_id < 50:
        raise ValueError(f"marker id must be in 0..49 ({DICTIONARY_NAME}), not {marker_id}")
    if side_px < 6:
        raise ValueError(f"a marker needs at least 6 pixels a side, not {side_px}")
    image: NDArray[np.uint8] = cv2.aruco.generateImageMarker(dictionary(), marker_id, side_px)
    return image
