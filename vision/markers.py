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
from typing import Protocol

import cv2
import numpy as np
from numpy.typing import NDArray

from referee.table_layouts import zone_role
from vision.zones import Zone

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
    threshold_window_max_px: int = 13
    """Largest window of ArUco's adaptive threshold, which thresholds the frame at windows of 3,
    13, 23 ... px up to this (OpenCV's default 23: three thresholdings). The 23 px window finds
    no marker the 3 and 13 px ones miss, at any size or light tried, and costs a third of the
    time; a single 13 px window places small markers' corners up to 2 px off."""

    def __post_init__(self) -> None:
        if self.threshold_window_max_px < 3:
            raise ValueError(f"threshold_window_max_px must be at least 3 pixels, not {self.threshold_window_max_px}")


def as_u8(image: object) -> NDArray[np.uint8]:
    """The same pixels typed as uint8 (OpenCV's stubs return untyped arrays; no copy for uint8 input)."""
    return np.asarray(image, dtype=np.uint8)


def dictionary() -> cv2.aruco.Dictionary:
    """OpenCV's ``DICT_4X4_50`` dictionary."""
    return cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)


def _detector(params: DetectParams) -> cv2.aruco.ArucoDetector:
    detector_params = cv2.aruco.DetectorParameters()
    detector_params.minMarkerPerimeterRate = params.min_perimeter_rate
    detector_params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    detector_params.cornerRefinementWinSize = params.refine_window_px
    detector_params.errorCorrectionRate = params.error_correction_rate
    detector_params.adaptiveThreshWinSizeMax = params.threshold_window_max_px
    return cv2.aruco.ArucoDetector(dictionary(), detector_params)


def to_gray(frame: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """A grey copy of a BGR (or already grey) uint8 frame.

    :raises ValueError: for anything but a 2-D or 3-channel uint8 array.
    """
    if frame.dtype != np.uint8 or frame.ndim not in (2, 3) or (frame.ndim == 3 and frame.shape[2] != 3):
        raise ValueError(f"frame must be a BGR or grey uint8 image, not {frame.dtype} {frame.shape}")
    if frame.ndim == 2:
        return frame.copy()
    return as_u8(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY))


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
    so a camera bumped by up to about a marker's width is still followed. Only the windows are
    made grey (the same pixels as the grey frame's, for a fraction of the frame's conversion).

    :raises ValueError: for anything but a 2-D or 3-channel uint8 frame.
    """
    if frame.dtype != np.uint8 or frame.ndim not in (2, 3) or (frame.ndim == 3 and frame.shape[2] != 3):
        raise ValueError(f"frame must be a BGR or grey uint8 image, not {frame.dtype} {frame.shape}")
    height, width = frame.shape[:2]
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
        window = to_gray(np.ascontiguousarray(frame[y0:y1, x0:x1]))
        # Perimeter rate is relative to the window here, so any marker that fits counts.
        local = _detect_gray(window, spec, DetectParams(
            min_perimeter_rate=0.1,
            refine_window_px=params.refine_window_px,
            error_correction_rate=params.error_correction_rate,
            threshold_window_max_px=params.threshold_window_max_px,
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
    return as_u8(cv2.aruco.generateImageMarker(dictionary(), marker_id, side_px))


# -- drawing the play area (the printed sheet, and synthetic views for tests) ---------------

ROLE_COLOURS: dict[str, tuple[int, int, int]] = {
    "play": (180, 90, 20),
    "aside": (40, 140, 30),
    "seat": (20, 110, 220),
    "discard": (120, 40, 160),
}
"""BGR outline colour per role of a zone (``referee.table_layouts.zone_role``); other zones are grey."""


class PrintedTable(Protocol):
    """What drawing a play area needs of a layout (``vision.layouts.Layout`` is one)."""

    @property
    def table_size_mm(self) -> tuple[float, float]:
        """Width and height of the play area, in mm."""
        ...

    @property
    def zones(self) -> tuple[Zone, ...]:
        """The zones, in drawing order."""
        ...

    @property
    def markers(self) -> MarkerSpec:
        """The corner markers."""
        ...


@dataclass(frozen=True)
class SheetStyle:
    """How the play area is drawn."""

    outline_mm: float = 2.0
    """Width of the zone outlines."""
    label_mm: float = 8.0
    """Height of a zone's name."""
    marker_label_mm: float = 3.0
    """Height of the small text naming each marker."""
    edge_mm: float = 0.4
    """Width of the thin line round the play area."""
    labels: bool = True
    """Whether to write the names at all."""


def zone_colour(zone_id: str) -> tuple[int, int, int]:
    """The outline colour of a zone (BGR), by what the rules use it for."""
    role = zone_role(zone_id)
    return ROLE_COLOURS.get(role, (110, 110, 110)) if role is not None else (110, 110, 110)


def render_table(
    layout: PrintedTable,
    px_per_mm: float,
    window_mm: tuple[float, float, float, float] | None = None,
    style: SheetStyle = SheetStyle(),
) -> NDArray[np.uint8]:
    """The play area as printed, seen from above: white paper, corner markers, zone outlines, names.

    ``window_mm`` (``x0, y0, x1, y1``) draws only part of it (one printed page); pixel ``(0, 0)``
    is then the window's top-left corner. Markers are drawn cell by cell from table millimetres,
    so they land where they belong even when a page edge cuts one.
    """
    from vision.zones import zone_title  # local: keeps the import graph of this module flat

    width_mm, height_mm = layout.table_size_mm
    x0, y0, x1, y1 = window_mm if window_mm is not None else (0.0, 0.0, width_mm, height_mm)
    if px_per_mm <= 0 or x1 <= x0 or y1 <= y0:
        raise ValueError(f"cannot draw window {window_mm} at {px_per_mm} px/mm")
    out_w, out_h = int(round((x1 - x0) * px_per_mm)), int(round((y1 - y0) * px_per_mm))
    canvas = np.full((out_h, out_w, 3), 255, dtype=np.uint8)
    shift = 4  # sub-pixel drawing: coordinates in 1/16 px

    def to_px(points: Points) -> NDArray[np.int32]:
        # Pixel u covers [u, u + 1) / px_per_mm mm of the window, so its centre is u + 0.5.
        pts = (np.asarray(points, dtype=np.float64) - (x0, y0)) * px_per_mm - 0.5
        return np.round(pts * (1 << shift)).astype(np.int32).reshape(-1, 1, 2)

    table = np.array([(0, 0), (width_mm, 0), (width_mm, height_mm), (0, height_mm)], dtype=np.float64)
    cv2.polylines(canvas, [to_px(table)], True, (150, 150, 150), max(1, round(style.edge_mm * px_per_mm)), cv2.LINE_AA, shift)
    thickness = max(1, round(style.outline_mm * px_per_mm))
    for zone in layout.zones:
        cv2.polylines(canvas, [to_px(np.array(zone.polygon))], True, zone_colour(zone.id), thickness, cv2.LINE_AA, shift)
    if style.labels:
        for zone in layout.zones:
            spot = _label_spot(zone.polygon, (x0, y0, x1, y1))
            if spot is not None:
                _text(canvas, zone_title(zone.id), ((spot[0] - x0) * px_per_mm, (spot[1] - y0) * px_per_mm),
                      style.label_mm * px_per_mm, zone_colour(zone.id))
    spec = layout.markers
    gray = np.full((out_h, out_w), 255, dtype=np.uint8)
    for marker_id in spec.ids:
        cells = marker_image(marker_id, 6)  # 4 x 4 data bits inside a one-cell black border
        ox, oy = spec.origin_mm(marker_id, layout.table_size_mm)
        cell_mm = spec.size_mm / 6.0
        # Inverse map: output pixel centre -> cell index (nearest), written only inside the marker.
        scale = 1.0 / (px_per_mm * cell_mm)
        inverse = np.array([[scale, 0.0, (0.5 / px_per_mm + x0 - ox) / cell_mm - 0.5],
                            [0.0, scale, (0.5 / px_per_mm + y0 - oy) / cell_mm - 0.5]])
        cv2.warpAffine(cells, inverse, (out_w, out_h), dst=gray, flags=cv2.INTER_NEAREST | cv2.WARP_INVERSE_MAP,
                       borderMode=cv2.BORDER_TRANSPARENT)
        if style.labels:
            corner = spec.corner_of(marker_id)
            below = corner.startswith("top")
            ty = oy + spec.size_mm + spec.margin_mm / 2.0 if below else oy - spec.margin_mm / 2.0
            _text(canvas, f"marker {marker_id} {corner}", ((ox + spec.size_mm / 2.0 - x0) * px_per_mm, (ty - y0) * px_per_mm),
                  style.marker_label_mm * px_per_mm, (60, 60, 60))
    inked = gray < 128
    canvas[inked] = 0
    return canvas


def _label_spot(polygon: tuple[tuple[float, float], ...], window: tuple[float, float, float, float]) -> tuple[float, float] | None:
    """Where to write a zone's name inside a window: the middle of the zone's part in it, if any."""
    pts = np.array(polygon, dtype=np.float64)
    x0, y0, x1, y1 = window
    lx0, ly0 = max(x0, pts[:, 0].min()), max(y0, pts[:, 1].min())
    lx1, ly1 = min(x1, pts[:, 0].max()), min(y1, pts[:, 1].max())
    if lx1 - lx0 < 40.0 or ly1 - ly0 < 15.0:
        return None
    spot = ((lx0 + lx1) / 2.0, (ly0 + ly1) / 2.0)
    contour = pts.astype(np.float32).reshape(-1, 1, 2)
    if cv2.pointPolygonTest(contour, spot, True) < 10.0:
        return None
    return spot


def _text(canvas: NDArray[np.uint8], text: str, centre: tuple[float, float], height_px: float, colour: tuple[int, int, int]) -> None:
    """Write text centred on a point, ``height_px`` tall (capital letters)."""
    font = cv2.FONT_HERSHEY_SIMPLEX
    scale = height_px / 22.0  # Hershey simplex capitals are about 22 px tall at scale 1
    thick = max(1, round(height_px / 9.0))
    (tw, th), _base = cv2.getTextSize(text, font, scale, thick)
    org = (int(round(centre[0] - tw / 2.0)), int(round(centre[1] + th / 2.0)))
    cv2.putText(canvas, text, org, font, scale, colour, thick, cv2.LINE_AA)


def render_view(
    layout: PrintedTable,
    table_to_image: NDArray[np.float64],
    frame_size: tuple[int, int],
    background: tuple[int, int, int] = (60, 90, 50),
    px_per_mm: float = 3.0,
) -> NDArray[np.uint8]:
    """What a camera with homography ``table_to_image`` (mm to px) sees of the printed play area.

    A clean synthetic frame (no noise or blur) over a plain cloth colour, for tests and benchmarks.
    """
    sheet = render_table(layout, px_per_mm)
    # Sheet pixel u has its centre at (u + 0.5) / px_per_mm mm (see render_table).
    sheet_to_mm = np.array([[1.0 / px_per_mm, 0.0, 0.5 / px_per_mm], [0.0, 1.0 / px_per_mm, 0.5 / px_per_mm], [0.0, 0.0, 1.0]])
    warp = np.asarray(table_to_image, dtype=np.float64) @ sheet_to_mm
    return as_u8(cv2.warpPerspective(
        sheet, warp, frame_size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=background
    ))
