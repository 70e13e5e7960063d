"""Table calibration: the homography from frame pixels to table millimetres, and the zones.

Three ways to a :class:`Calibration`:

* :func:`calibrate` finds the printed corner markers (``referee markers``) in a frame;
* :func:`calibrate_manual` takes the play area's four corners clicked by hand and its size,
  for a table without markers;
* :func:`load_calibration` reads one saved by :meth:`Calibration.save` (a small JSON file a
  person can read and edit; every field is checked on load and an error names the bad one).

While playing, :func:`track` re-finds the markers in a frame and notices a bumped camera: it
corrects the calibration when it can and reports it when it cannot.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.layouts import Layout
from vision.markers import CORNER_NAMES, DetectParams, MarkerSpec, Points, detect_markers, detect_markers_near
from vision.zones import Zone, check_zones, zone_of

FORMAT = "table-referee calibration"
"""The ``format`` field of a calibration file."""
VERSION = 1
"""The ``version`` field of a calibration file this code writes and reads."""
SOURCES = ("markers", "manual", "tracked")
"""How a calibration was made: found markers, corners given by hand, or corrected while playing."""

Matrix3 = tuple[tuple[float, float, float], tuple[float, float, float], tuple[float, float, float]]


MAX_DISTORTION = 0.09
"""The strongest lens distortion modelled: beyond it the model cannot be undone at the frame's corners."""


class CalibrationError(ValueError):
    """A calibration could not be made, or a calibration file is wrong (the message names the field)."""


@dataclass(frozen=True)
class Lens:
    """One-parameter radial lens distortion about the frame's centre.

    A point ``u`` of the ideal (pinhole) picture appears at ``c + (u - c) * (1 + k * r**2)``, with
    ``r = |u - c| / scale`` (``scale`` is half the frame's width). ``k = 0`` is a perfect lens.
    """

    k: float = 0.0
    """Distortion strength: negative for barrel (wide-angle), positive for pincushion; at most
    :data:`MAX_DISTORTION` either way (stronger barrel distortion folds over at the frame's corners)."""
    centre: tuple[float, float] = (0.0, 0.0)
    """The distortion's centre in pixels (the frame's centre)."""
    scale: float = 1.0
    """Pixels per unit of ``r`` (half the frame's width)."""

    @classmethod
    def for_frame(cls, k: float, frame_size: tuple[int, int] | None) -> Lens:
        """The lens of strength ``k`` centred on a frame of this size."""
        if not k or frame_size is None:
            return cls()
        width, height = frame_size
        return cls(k, ((width - 1) / 2.0, (height - 1) / 2.0), width / 2.0)

    def distort(self, points: NDArray[np.float64]) -> NDArray[np.float64]:
        """Ideal pixels to where they appear in the frame."""
        pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
        if not self.k:
            return pts
        d = (pts - self.centre) / self.scale
        r2 = (d * d).sum(axis=1, keepdims=True)
        result: NDArray[np.float64] = (d * (1.0 + self.k * r2)) * self.scale + self.centre
        return result

    def undistort(self, points: NDArray[np.float64] | Sequence[Sequence[float]]) -> NDArray[np.float64]:
        """Frame pixels to where an ideal lens would have put them (Newton's method on the radius)."""
        pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
        if not self.k:
            return pts
        d = (pts - self.centre) / self.scale
        r_d = np.sqrt((d * d).sum(axis=1))
        r = r_d.copy()
        for _ in range(8):  # solve r + k r^3 = r_d
            r = r - (r + self.k * r**3 - r_d) / (1.0 + 3.0 * self.k * r * r)
        ratio = np.divide(r, r_d, out=np.ones_like(r), where=r_d > 1e-12)
        result: NDArray[np.float64] = d * ratio[:, None] * self.scale + self.centre
        return result


def fit_lens(found: dict[int, Points], spec: MarkerSpec, table_size_mm: tuple[float, float],
             frame_size: tuple[int, int], max_k: float = MAX_DISTORTION) -> Lens:
    """The radial distortion that lets one homography fit every marker corner best.

    Kept only when it clearly helps (the misfit drops by 40% and by 0.1 mm at least): with the
    markers only at the corners, a small distortion is hard to tell from noise, and a perfect
    lens is the safer guess. Needs all four markers.
    """
    if len(found) < 4:
        return Lens()

    def misfit(k: float) -> float:
        lens = Lens.for_frame(k, frame_size)
        image_pts = lens.undistort(np.concatenate([found[i] for i in sorted(found)]))
        table_pts = np.concatenate([spec.corners_mm(i, table_size_mm) for i in sorted(found)])
        matrix, _mask = cv2.findHomography(image_pts, table_pts, 0)
        if matrix is None:
            return math.inf
        error = _apply(np.asarray(matrix, dtype=np.float64), image_pts) - table_pts
        return float(np.sqrt((error * error).sum(axis=1).mean()))

    grid = np.linspace(-max_k, max_k, 21)
    scores = [misfit(float(k)) for k in grid]
    best = int(np.argmin(scores))
    low, high = float(grid[max(0, best - 1)]), float(grid[min(len(grid) - 1, best + 1)])
    for _ in range(16):  # golden-section refinement between the grid's neighbours
        a, b = low + (high - low) * 0.382, low + (high - low) * 0.618
        if misfit(a) < misfit(b):
            high = b
        else:
            low = a
    k = (low + high) / 2.0
    plain, fitted = misfit(0.0), misfit(k)
    if fitted < 0.6 * plain and plain - fitted > 0.1:
        return Lens.for_frame(round(k, 6), frame_size)
    return Lens()


@dataclass(frozen=True)
class Calibration:
    """How frame pixels map onto the table, and the table's zones.

    ``read_table`` uses :attr:`mm_per_px`, :meth:`image_to_table` and :meth:`zone_of`.
    """

    homography: Matrix3
    """3 x 3 homography from (undistorted, see :attr:`distortion`) frame pixels to table millimetres,
    normalised so ``h[2][2] == 1``."""
    table_size_mm: tuple[float, float]
    """Width and height of the play area in millimetres."""
    zones: tuple[Zone, ...]
    """The zones, polygons in table millimetres."""
    mm_per_px: float
    """Millimetres per pixel at the centre of the table (the scale for telling coins apart)."""
    markers: MarkerSpec | None = None
    """The corner markers used, or ``None`` for a manual calibration."""
    frame_size: tuple[int, int] | None = None
    """Width and height of the frames it was made from, when known."""
    source: str = "markers"
    """``markers``, ``manual`` or ``tracked`` (see :data:`SOURCES`)."""
    game: str = ""
    """The layout's game, when made from a default layout (information only)."""
    distortion: float = 0.0
    """Radial lens distortion ``k`` (see :class:`Lens`); 0 for a lens taken as perfect."""

    def __post_init__(self) -> None:
        check_zones(self.zones)
        if self.distortion and self.frame_size is None:
            raise CalibrationError("a lens distortion needs the frame_size it was measured on")

    @property
    def lens(self) -> Lens:
        """The lens model: where undistorted pixels lie in the frame."""
        return Lens.for_frame(self.distortion, self.frame_size)

    @property
    def marker_ids(self) -> tuple[int, int, int, int] | None:
        """The corner marker ids (top-left, top-right, bottom-right, bottom-left), or ``None``."""
        return None if self.markers is None else self.markers.ids

    @property
    def matrix(self) -> NDArray[np.float64]:
        """The homography as a 3 x 3 array (a copy)."""
        return np.array(self.homography, dtype=np.float64)

    @property
    def inverse(self) -> NDArray[np.float64]:
        """The inverse homography (table mm to pixels) as a 3 x 3 array."""
        return _inv(self.matrix)

    def image_to_table(self, points: NDArray[np.float64] | Sequence[Sequence[float]]) -> NDArray[np.float64]:
        """Map ``N x 2`` frame pixels to ``N x 2`` table millimetres."""
        return _apply(self.matrix, self.lens.undistort(points))

    def table_to_image(self, points: NDArray[np.float64] | Sequence[Sequence[float]]) -> NDArray[np.float64]:
        """Map ``N x 2`` table millimetres to ``N x 2`` frame pixels."""
        return self.lens.distort(_apply(self.inverse, points))

    def zone_of(self, point_mm: tuple[float, float]) -> str | None:
        """The id of the zone holding a point in table mm, or ``None`` outside every zone."""
        return zone_of(self.zones, point_mm)

    def zone(self, zone_id: str) -> Zone:
        """The zone called ``zone_id``.

        :raises KeyError: naming the known zones.
        """
        for zone in self.zones:
            if zone.id == zone_id:
                return zone
        raise KeyError(f"no zone {zone_id!r}; the zones are {', '.join(z.id for z in self.zones)}")

    def mm_per_px_at(self, point_px: tuple[float, float]) -> float:
        """Millimetres per pixel around one point of the frame (a tilted camera's scale varies)."""
        return _local_scale(self.matrix, self.lens, point_px)

    def zone_outline_px(self, zone_id: str) -> NDArray[np.float64]:
        """A zone's outline in frame pixels (``N x 2``), for drawing and masking."""
        return self.table_to_image(np.array(self.zone(zone_id).polygon, dtype=np.float64))

    def table_outline_px(self) -> NDArray[np.float64]:
        """The play area's four corners in frame pixels (TL, TR, BR, BL)."""
        width, height = self.table_size_mm
        return self.table_to_image(np.array([(0, 0), (width, 0), (width, height), (0, height)], dtype=np.float64))

    def with_zones(self, zones: Sequence[Zone]) -> Calibration:
        """The same camera geometry with another zone map (another game or player names)."""
        return replace(self, zones=tuple(zones))

    def with_homography(self, matrix: NDArray[np.float64], source: str = "tracked") -> Calibration:
        """The same table seen through a new homography (after the camera moved)."""
        return replace(
            self,
            homography=_as_matrix3(matrix),
            mm_per_px=_centre_scale(matrix, self.lens, self.table_size_mm),
            source=source,
        )

    def to_json(self) -> dict[str, Any]:
        """The file form: plain JSON types, numbers rounded to what matters."""
        return {
            "format": FORMAT,
            "version": VERSION,
            "source": self.source,
            "game": self.game,
            "frame_size": None if self.frame_size is None else list(self.frame_size),
            "table_size_mm": [round(float(v), 2) for v in self.table_size_mm],
            "mm_per_px": round(float(self.mm_per_px), 6),
            "homography": [[float(f"{v:.10g}") for v in row] for row in self.homography],
            "distortion": float(f"{self.distortion:.6g}"),
            "markers": None if self.markers is None else self.markers.to_json(),
            "zones": [zone.to_json() for zone in self.zones],
        }

    @classmethod
    def from_json(cls, data: Any) -> Calibration:
        """Build a calibration from its file form, checking every field.

        :raises CalibrationError: naming the first bad field and what was wrong with it.
        """
        return _from_json(data)

    def save(self, path: str | Path) -> None:
        """Write the calibration as an indented JSON file."""
        text = json.dumps(self.to_json(), indent=2)
        Path(path).write_text(_compact_numbers(text) + "\n", encoding="utf-8")


def load_calibration(path: str | Path) -> Calibration:
    """Read a calibration file written by :meth:`Calibration.save` (or by hand).

    :raises CalibrationError: for a missing file, bad JSON, or a bad field (named, with the path).
    """
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except OSError as error:
        raise CalibrationError(f"{file}: cannot read calibration file: {error.strerror or error}") from None
    except UnicodeDecodeError:
        raise CalibrationError(f"{file}: not a calibration file (not UTF-8 text; a picture given by mistake?)") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise CalibrationError(f"{file}: not JSON (line {error.lineno}, column {error.colno}: {error.msg})") from None
    try:
        return _from_json(data)
    except CalibrationError as error:
        raise CalibrationError(f"{file}: {error}") from None


# -- making a calibration -------------------------------------------------------------------


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


# -- following a bumped camera ---------------------------------------------------------------


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


# -- helpers ---------------------------------------------------------------------------------


def _apply(matrix: NDArray[np.float64], points: NDArray[np.float64] | Sequence[Sequence[float]]) -> NDArray[np.float64]:
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    if len(pts) == 0:
        return pts.copy()
    out = cv2.perspectiveTransform(pts.reshape(-1, 1, 2), matrix).reshape(-1, 2)
    result: NDArray[np.float64] = out.astype(np.float64)
    return result


def _inv(matrix: NDArray[np.float64]) -> NDArray[np.float64]:
    return np.asarray(np.linalg.inv(matrix), dtype=np.float64)


def _local_scale(matrix: NDArray[np.float64], lens: Lens, point_px: tuple[float, float]) -> float:
    x, y = float(point_px[0]), float(point_px[1])
    pts = _apply(matrix, lens.undistort(np.array([(x, y), (x + 1.0, y), (x, y + 1.0)])))
    du, dv = pts[1] - pts[0], pts[2] - pts[0]
    return float(math.sqrt(abs(du[0] * dv[1] - du[1] * dv[0])))


def _centre_scale(matrix: NDArray[np.float64], lens: Lens, table_size_mm: tuple[float, float]) -> float:
    centre_mm = np.array([[table_size_mm[0] / 2.0, table_size_mm[1] / 2.0]])
    centre_px = lens.distort(_apply(_inv(matrix), centre_mm))[0]
    return _local_scale(matrix, lens, (float(centre_px[0]), float(centre_px[1])))


def _as_matrix3(matrix: NDArray[np.float64]) -> Matrix3:
    m = np.asarray(matrix, dtype=np.float64) / float(matrix[2, 2])
    rows = tuple(tuple(float(v) for v in row) for row in m)
    return rows  # type: ignore[return-value]


def _cross(a: NDArray[np.float64], b: NDArray[np.float64], c: NDArray[np.float64]) -> float:
    return float((b[0] - a[0]) * (c[1] - b[1]) - (b[1] - a[1]) * (c[0] - b[0]))


def _describe_missing(found: dict[int, Points], spec: MarkerSpec) -> str:
    missing = [f"{i} ({name})" for i, name in zip(spec.ids, CORNER_NAMES) if i not in found]
    return ", ".join(missing) or "none"


def _check_size(size: Any, name: str) -> tuple[float, float]:
    if (
        not isinstance(size, (list, tuple))
        or len(size) != 2
        or not all(_is_number(v) and 0 < float(v) < 10_000 for v in size)
    ):
        raise CalibrationError(f"field {name!r} must be [width, height] in mm, both between 0 and 10000, not {size!r}")
    return float(size[0]), float(size[1])


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _from_json(data: Any) -> Calibration:
    if not isinstance(data, dict):
        raise CalibrationError(f"a calibration must be a JSON object, not {type(data).__name__}")
    if data.get("format") != FORMAT:
        raise CalibrationError(f"field 'format' must be {FORMAT!r}, not {data.get('format')!r}")
    if data.get("version") != VERSION:
        raise CalibrationError(f"field 'version' must be {VERSION}, not {data.get('version')!r}")
    known = {"format", "version", "source", "game", "frame_size", "table_size_mm", "mm_per_px", "homography", "distortion",
             "markers", "zones"}
    unknown = sorted(set(data) - known)
    if unknown:
        raise CalibrationError(f"unknown field {unknown[0]!r}; the fields are: {', '.join(sorted(known))}")
    for required in ("table_size_mm", "homography", "mm_per_px", "zones"):
        if required not in data:
            raise CalibrationError(f"field {required!r} is missing")
    source = data.get("source", "markers")
    if source not in SOURCES:
        raise CalibrationError(f"field 'source' must be one of {', '.join(SOURCES)}, not {source!r}")
    game = data.get("game", "")
    if not isinstance(game, str):
        raise CalibrationError(f"field 'game' must be a string, not {game!r}")
    table_size = _check_size(data["table_size_mm"], "table_size_mm")
    frame_size_raw = data.get("frame_size")
    frame_size: tuple[int, int] | None = None
    if frame_size_raw is not None:
        if (
            not isinstance(frame_size_raw, list)
            or len(frame_size_raw) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) and 0 < v <= 100_000 for v in frame_size_raw)
        ):
            raise CalibrationError(f"field 'frame_size' must be [width, height] in whole pixels, not {frame_size_raw!r}")
        frame_size = (frame_size_raw[0], frame_size_raw[1])
    rows = data["homography"]
    if not (isinstance(rows, list) and len(rows) == 3 and all(isinstance(r, list) and len(r) == 3 and all(_is_number(v) for v in r) for r in rows)):
        raise CalibrationError("field 'homography' must be 3 rows of 3 finite numbers")
    matrix = np.array(rows, dtype=np.float64)
    if abs(matrix[2, 2]) < 1e-12 or abs(np.linalg.det(matrix)) < 1e-15:
        raise CalibrationError("field 'homography' is singular: it maps the frame onto a line")
    matrix = matrix / matrix[2, 2]
    centre = np.array([[table_size[0] / 2.0, table_size[1] / 2.0]])
    inverse = np.linalg.inv(matrix)
    if float((inverse @ np.array([centre[0, 0], centre[0, 1], 1.0]))[2]) <= 0:
        raise CalibrationError("field 'homography' puts the table behind the camera")
    distortion = data.get("distortion", 0.0)
    if not _is_number(distortion) or abs(distortion) > MAX_DISTORTION:
        raise CalibrationError(
            f"field 'distortion' must be a number between -{MAX_DISTORTION} and {MAX_DISTORTION}, not {distortion!r}"
        )
    if distortion and frame_size is None:
        raise CalibrationError("field 'frame_size' is needed when 'distortion' is not 0")
    lens = Lens.for_frame(float(distortion), frame_size)
    mm_per_px = data["mm_per_px"]
    if not _is_number(mm_per_px) or not 0 < mm_per_px < 1000:
        raise CalibrationError(f"field 'mm_per_px' must be a positive number, not {mm_per_px!r}")
    expected_scale = _centre_scale(matrix, lens, table_size)
    if abs(mm_per_px - expected_scale) > 0.05 * expected_scale:
        raise CalibrationError(
            f"field 'mm_per_px' is {mm_per_px:g} but the homography gives {expected_scale:.4g} at the table's centre"
        )
    markers = _markers_from_json(data.get("markers"))
    zones_raw = data["zones"]
    if not isinstance(zones_raw, list):
        raise CalibrationError("field 'zones' must be a list of {\"id\": ..., \"polygon\": [[x, y], ...]}")
    zones: list[Zone] = []
    for index, item in enumerate(zones_raw):
        where = f"zones[{index}]"
        if not isinstance(item, dict) or set(item) != {"id", "polygon"}:
            raise CalibrationError(f"field '{where}' must be an object with exactly 'id' and 'polygon'")
        polygon = item["polygon"]
        if not isinstance(polygon, list) or not all(
            isinstance(p, list) and len(p) == 2 and all(_is_number(v) for v in p) for p in polygon
        ):
            raise CalibrationError(f"field '{where}.polygon' must be a list of [x, y] points in mm")
        try:
            zones.append(Zone(item["id"], tuple((float(p[0]), float(p[1])) for p in polygon)))
        except ValueError as error:
            raise CalibrationError(f"field '{where}': {error}") from None
    try:
        check_zones(zones)
    except ValueError as error:
        raise CalibrationError(f"field 'zones': {error}") from None
    return Calibration(
        homography=_as_matrix3(matrix),
        table_size_mm=table_size,
        zones=tuple(zones),
        mm_per_px=float(mm_per_px),
        markers=markers,
        frame_size=frame_size,
        source=source,
        game=game,
        distortion=float(distortion),
    )


def _markers_from_json(raw: Any) -> MarkerSpec | None:
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise CalibrationError("field 'markers' must be an object (dictionary, ids, size_mm, margin_mm) or null")
    unknown = sorted(set(raw) - {"dictionary", "ids", "size_mm", "margin_mm"})
    if unknown:
        raise CalibrationError(f"unknown field 'markers.{unknown[0]}'")
    ids = raw.get("ids", [0, 1, 2, 3])
    if not isinstance(ids, list) or len(ids) != 4 or not all(isinstance(v, int) and not isinstance(v, bool) for v in ids):
        raise CalibrationError(f"field 'markers.ids' must be 4 whole numbers, not {ids!r}")
    for key in ("size_mm", "margin_mm"):
        if key in raw and not _is_number(raw[key]):
            raise CalibrationError(f"field 'markers.{key}' must be a number, not {raw[key]!r}")
    try:
        return MarkerSpec(
            ids=(ids[0], ids[1], ids[2], ids[3]),
            size_mm=float(raw.get("size_mm", MarkerSpec.size_mm)),
            margin_mm=float(raw.get("margin_mm", MarkerSpec.margin_mm)),
            dictionary=str(raw.get("dictionary", MarkerSpec.dictionary)),
        )
    except ValueError as error:
        name, _, rest = str(error).partition(" ")
        raise CalibrationError(f"field '{name}' {rest}" if name.startswith("markers.") else f"field 'markers': {error}") from None


def _compact_numbers(text: str) -> str:
    """Put short lists of numbers (points, rows, sizes) on one line, so the file stays readable."""
    numbers = re.compile(r"\[\s*(-?[\d.eE+-]+(?:,\s*-?[\d.eE+-]+)*)\s*\]")
    text = numbers.sub(lambda m: "[" + ", ".join(part.strip() for part in m.group(1).split(",")) + "]", text)
    # Then a list of such lists (a polygon, the homography's rows) on one line too.
    points = re.compile(r"\[\s*(\[[^\[\]\n]*\](?:,\s*\[[^\[\]\n]*\])*)\s*\]")
    return points.sub(lambda m: "[" + re.sub(r",\s+\[", ", [", m.group(1)) + "]", text)
