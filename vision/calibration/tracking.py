"""Following a bumped camera while playing (``track``): re-finding the markers, correcting or reporting."""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.calibration.geometry import _apply
from vision.calibration.making import fit_homography
from vision.calibration.model import Calibration
from vision.markers import DetectParams, MarkerSpec, Points, detect_markers, detect_markers_near


@dataclass(frozen=True)
class TrackParams:
    """Thresholds for :func:`track`."""

    tolerance_mm: float = 2.5
    """Marker corners seen within this distance of where the calibration puts them: no change."""
    min_markers_refit: int = 3
    """Fewest markers for a fresh homography."""
    min_markers_correct: int = 2
    """Fewest markers to correct a move (two give a rotation, shift and scale)."""
    max_residual_mm: float = 4.0
    """A correction that still misfits the markers by more than this is reported, not used."""
    full_search: bool = True
    """Search the whole frame when a marker is not near where it was."""
    detect: DetectParams = field(default_factory=DetectParams)
    """Marker detection thresholds."""


TRACK_STATUSES = ("steady", "corrected", "moved", "unseen", "no_markers")
"""What :func:`track` can say: nothing moved, moved and corrected, moved beyond correction,
no marker visible (a hand over them?), or a manual calibration with nothing to follow."""


@dataclass(frozen=True)
class TrackResult:
    """What :func:`track` found."""

    status: str
    """One of :data:`TRACK_STATUSES`."""
    calibration: Calibration
    """The calibration to use from now on (a corrected one when ``status == "corrected"``)."""
    shift_mm: float | None
    """How far the markers appear from where the old calibration expects them (the worst marker's
    median corner)."""
    markers_seen: tuple[int, ...]
    """Ids of the markers found in this frame."""
    message: str = ""
    """In plain words, for the dashboard."""

    @property
    def ok(self) -> bool:
        """Whether the returned calibration can be trusted for this frame."""
        return self.status in ("steady", "corrected")


def track(calibration: Calibration, frame: NDArray[np.uint8], params: TrackParams = TrackParams()) -> TrackResult:
    """Re-find the markers in a frame taken while playing, and follow a bumped camera.

    Looks first near where each marker should be, then (if one is missing) in the whole frame.
    Three or more markers give a fresh homography; two give a rotation, shift and scale of the
    image applied to the old one; with one, a move is reported but not corrected.
    """
    spec = calibration.markers
    if spec is None:
        return TrackResult("no_markers", calibration, None, (), "manual calibration: no markers to follow")
    table_size = calibration.table_size_mm
    expected = {i: calibration.table_to_image(spec.corners_mm(i, table_size)) for i in spec.ids}
    found = detect_markers_near(frame, expected, spec, params.detect)
    if len(found) < len(spec.ids) and params.full_search:
        for marker_id, quad in detect_markers(frame, spec, params.detect).items():
            found.setdefault(marker_id, quad)
    seen = tuple(sorted(found))
    if not found:
        return TrackResult("unseen", calibration, None, seen, "no marker in view: is something covering them?")
    old = calibration.matrix
    lens = calibration.lens
    # Per marker, the median of its four corners' errors: one corner misread under a finger is
    # not a moved camera.
    shift = max(
        float(np.median(np.linalg.norm(calibration.image_to_table(quad) - spec.corners_mm(i, table_size), axis=1)))
        for i, quad in found.items()
    )
    if shift <= params.tolerance_mm:
        return TrackResult("steady", calibration, shift, seen)
    if len(found) >= params.min_markers_refit:
        matrix, residual = fit_homography(found, spec, table_size, lens)
        if residual > params.max_residual_mm and len(found) > params.min_markers_refit:
            # A marker half covered can be found with a corner wrong: try without each one.
            for left_out in sorted(found):
                subset = {i: q for i, q in found.items() if i != left_out}
                candidate, misfit = fit_homography(subset, spec, table_size, lens)
                if misfit < residual:
                    matrix, residual = candidate, misfit
    elif len(found) >= params.min_markers_correct:
        straight = {i: lens.undistort(quad) for i, quad in found.items()}
        before = {i: _apply(calibration.inverse, spec.corners_mm(i, table_size)) for i in found}
        matrix, residual = _similarity_correction(old, before, straight, spec, table_size)
    else:
        return TrackResult(
            "moved", calibration, shift, seen,
            f"the camera moved ({shift:.0f} mm) and only {len(found)} marker is in view: recalibrate",
        )
    if residual > params.max_residual_mm:
        return TrackResult(
            "moved", calibration, shift, seen,
            f"the camera moved ({shift:.0f} mm) and the markers no longer fit ({residual:.1f} mm): recalibrate",
        )
    corrected = replace(calibration.with_homography(matrix, "tracked"), frame_size=(frame.shape[1], frame.shape[0]))
    return TrackResult("corrected", corrected, shift, seen, f"the camera moved ({shift:.0f} mm); corrected from {len(found)} markers")


def _similarity_correction(
    old: NDArray[np.float64],
    expected: dict[int, Points],
    found: dict[int, Points],
    spec: MarkerSpec,
    table_size: tuple[float, float],
) -> tuple[NDArray[np.float64], float]:
    # A small bump mostly shifts and turns the picture: fit that image motion (old pixels to new
    # pixels) from the markers in view and put it in front of the old homography.
    ids = sorted(found)
    before = np.concatenate([expected[i] for i in ids]).astype(np.float32)
    after = np.concatenate([found[i] for i in ids]).astype(np.float32)
    motion, _inliers = cv2.estimateAffinePartial2D(before, after)
    if motion is None:
        return old, math.inf
    motion3 = np.vstack([motion, [0.0, 0.0, 1.0]])
    matrix = old @ np.linalg.inv(motion3)
    matrix = matrix / matrix[2, 2]
    table_pts = np.concatenate([spec.corners_mm(i, table_size) for i in ids])
    residual = float(np.max(np.linalg.norm(_apply(matrix, after.astype(np.float64)) - table_pts, axis=1)))
    return matrix, residual
