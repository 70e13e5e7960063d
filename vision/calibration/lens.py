"""The camera lens's radial distortion (``Lens``), fitting it to the found markers (``fit_lens``), and the scale at a point through it."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.calibration.common import MAX_DISTORTION
from vision.calibration.geometry import _apply, _inv
from vision.markers import MarkerSpec, Points


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


def _local_scale(matrix: NDArray[np.float64], lens: Lens, point_px: tuple[float, float]) -> float:
    x, y = float(point_px[0]), float(point_px[1])
    pts = _apply(matrix, lens.undistort(np.array([(x, y), (x + 1.0, y), (x, y + 1.0)])))
    du, dv = pts[1] - pts[0], pts[2] - pts[0]
    return float(math.sqrt(abs(du[0] * dv[1] - du[1] * dv[0])))


def _centre_scale(matrix: NDArray[np.float64], lens: Lens, table_size_mm: tuple[float, float]) -> float:
    centre_mm = np.array([[table_size_mm[0] / 2.0, table_size_mm[1] / 2.0]])
    centre_px = lens.distort(_apply(_inv(matrix), centre_mm))[0]
    return _local_scale(matrix, lens, (float(centre_px[0]), float(centre_px[1])))
