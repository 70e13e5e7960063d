"""Making a calibration: from the printed corner markers (``calibrate``) or from four corners given by hand (``calibrate_manual``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.calibration.common import CalibrationError
from vision.calibration.geometry import _apply, _as_matrix3, _cross, _describe_missing
from vision.calibration.lens import Lens, _centre_scale, fit_lens
from vision.calibration.model import Calibration, _check_size
from vision.layouts import Layout
from vision.markers import CORNER_NAMES, DetectParams, MarkerSpec, Points, detect_markers
from vision.zones import Zone


@dataclass(frozen=True)
class CalibrateParams:
    """Thresholds for :func:`calibrate`."""

    min_markers: int = 3
    """Fewest corner markers to fit a homography from (3 markers give 12 points)."""
    max_residual_mm: float = 3.0
    """Largest allowed misfit of a marker corner; more means the sheet does not match the layout."""
    fit_distortion: bool = True
    """Also estimate the lens's radial distortion from the markers (kept only where it clearly helps)."""
    max_side_error: float = 0.08
    """Largest allowed error of a marker's side as fitted, as a share of its printed size (the
    fit can absorb a wrong table size into a stretch; the markers' own size then comes out wrong)."""
    detect: DetectParams = field(default_factory=DetectParams)
    """Marker detection thresholds."""


def calibrate(frame: NDArray[np.uint8], layout: Layout, params: CalibrateParams = CalibrateParams()) -> Calibration:
    """Calibrate from the corner markers printed for ``layout`` (see ``referee markers``).

    :raises CalibrationError: when too few markers are found (naming the missing corners), or
        when the markers do not fit the layout's table size.
    """
    found = detect_markers(frame, layout.markers, params.detect)
    if len(found) < params.min_markers:
        raise CalibrationError(
            f"found {len(found)} of the 4 corner markers, need at least {params.min_markers}; "
            f"missing: {_describe_missing(found, layout.markers)}"
        )
    height, width = frame.shape[:2]
    # All the markers first; if they do not fit, each one left out in turn (a hand or a coin over
    # a marker's corner can leave it found but with that corner wrong).
    subsets = [found]
    if len(found) > params.min_markers:
        subsets += [{i: q for i, q in found.items() if i != left_out} for left_out in sorted(found)]
    best: tuple[float, Lens, NDArray[np.float64], float, float] | None = None
    for subset in subsets:
        lens = fit_lens(subset, layout.markers, layout.table_size_mm, (width, height)) if params.fit_distortion else Lens()
        matrix, residual = fit_homography(subset, layout.markers, layout.table_size_mm, lens)
        sides = [
            float(np.linalg.norm(b - a))
            for quad in subset.values()
            for a, b in zip(_apply(matrix, lens.undistort(quad)), np.roll(_apply(matrix, lens.undistort(quad)), -1, axis=0))
        ]
        worst_side = max(sides, key=lambda side: abs(side - layout.markers.size_mm))
        side_error = abs(worst_side - layout.markers.size_mm) / layout.markers.size_mm
        fits = residual <= params.max_residual_mm and side_error <= params.max_side_error
        if fits:
            break
        if best is None or residual < best[0]:
            best = (residual, lens, matrix, residual, worst_side)
    else:
        assert best is not None
        _score, _lens, _matrix, residual, worst_side = best
        raise CalibrationError(
            f"the markers do not fit the {layout.game} layout ({layout.table_size_mm[0]:.0f} x "
            f"{layout.table_size_mm[1]:.0f} mm): corners up to {residual:.1f} mm off, a marker side measures "
            f"{worst_side:.1f} mm instead of {layout.markers.size_mm:.0f} mm; was the sheet printed at 100% "
            "for this game and player count?"
        )
    return Calibration(
        homography=_as_matrix3(matrix),
        table_size_mm=layout.table_size_mm,
        zones=layout.zones,
        mm_per_px=_centre_scale(matrix, lens, layout.table_size_mm),
        markers=layout.markers,
        frame_size=(width, height),
        source="markers",
        game=layout.game,
        distortion=lens.k,
    )


def fit_homography(
    found: dict[int, Points], spec: MarkerSpec, table_size_mm: tuple[float, float], lens: Lens | None = None
) -> tuple[NDArray[np.float64], float]:
    """Least-squares homography (undistorted pixels to mm) from found marker corners, and its worst misfit in mm.

    :raises CalibrationError: for fewer than 4 points or a degenerate fit.
    """
    image_pts = (lens or Lens()).undistort(np.concatenate([found[i] for i in sorted(found)]).astype(np.float64))
    table_pts = np.concatenate([spec.corners_mm(i, table_size_mm) for i in sorted(found)])
    if len(image_pts) < 4:
        raise CalibrationError("a homography needs at least one whole marker (4 corners)")
    matrix, _mask = cv2.findHomography(image_pts, table_pts, 0)
    if matrix is None or not np.all(np.isfinite(matrix)) or abs(matrix[2, 2]) < 1e-12:
        raise CalibrationError("the marker corners do not give a homography (markers in a line?)")
    matrix = matrix / matrix[2, 2]
    residual = float(np.max(np.linalg.norm(_apply(matrix, image_pts) - table_pts, axis=1)))
    return matrix, residual


def calibrate_manual(
    corners_px: Sequence[Sequence[float]] | NDArray[np.float64],
    table_size_mm: tuple[float, float],
    zones: Sequence[Zone] = (),
    frame_size: tuple[int, int] | None = None,
    game: str = "",
) -> Calibration:
    """Calibrate a table without markers from its four corners, clicked in a frame, and its size.

    ``corners_px`` are the play area's top-left, top-right, bottom-right and bottom-left corners
    (as the zones are drawn) in frame pixels: clockwise around the table, seen from above.

    :raises CalibrationError: naming what is wrong with the corners or the size.
    """
    pts = np.asarray(corners_px, dtype=np.float64)
    if pts.shape != (4, 2):
        raise CalibrationError(f"corners_px must be 4 points (x, y), got an array of shape {pts.shape}")
    if not np.all(np.isfinite(pts)):
        raise CalibrationError("corners_px must be finite numbers")
    _check_size(table_size_mm, "table_size_mm")
    if frame_size is not None:
        width, height = frame_size
        for name, (x, y) in zip(CORNER_NAMES, pts):
            if not (-0.5 <= x <= width - 0.5 and -0.5 <= y <= height - 0.5):
                raise CalibrationError(f"corners_px: the {name} corner ({x:.0f}, {y:.0f}) is outside the {width}x{height} frame")
    for i in range(4):
        for j in range(i + 1, 4):
            if np.linalg.norm(pts[i] - pts[j]) < 10.0:
                raise CalibrationError(f"corners_px: the {CORNER_NAMES[i]} and {CORNER_NAMES[j]} corners are less than 10 px apart")
    turns = [_cross(pts[i], pts[(i + 1) % 4], pts[(i + 2) % 4]) for i in range(4)]
    if all(t < 0 for t in turns):
        raise CalibrationError(
            "corners_px go round the table anticlockwise; give them clockwise: top-left, top-right, bottom-right, bottom-left"
        )
    if not all(t > 0 for t in turns):
        raise CalibrationError("corners_px do not form a convex four-sided shape: are two corners swapped?")
    width_mm, height_mm = table_size_mm
    table_pts = np.array([(0, 0), (width_mm, 0), (width_mm, height_mm), (0, height_mm)], dtype=np.float64)
    matrix = cv2.getPerspectiveTransform(pts.astype(np.float32), table_pts.astype(np.float32)).astype(np.float64)
    matrix = matrix / matrix[2, 2]
    return Calibration(
        homography=_as_matrix3(matrix),
        table_size_mm=(float(width_mm), float(height_mm)),
        zones=tuple(zones),
        mm_per_px=_centre_scale(matrix, Lens(), table_size_mm),
        markers=None,
        frame_size=frame_size,
        source="manual",
        game=game,
    )
