"""Homography arithmetic: applying, inverting and checking a 3 x 3 matrix, and naming missing markers."""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.calibration.common import Matrix3
from vision.markers import CORNER_NAMES, MarkerSpec, Points


def _apply(matrix: NDArray[np.float64], points: NDArray[np.float64] | Sequence[Sequence[float]]) -> NDArray[np.float64]:
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    if len(pts) == 0:
        return pts.copy()
    out = cv2.perspectiveTransform(pts.reshape(-1, 1, 2), matrix).reshape(-1, 2)
    result: NDArray[np.float64] = out.astype(np.float64)
    return result


def _inv(matrix: NDArray[np.float64]) -> NDArray[np.float64]:
    return np.asarray(np.linalg.inv(matrix), dtype=np.float64)


def _as_matrix3(matrix: NDArray[np.float64]) -> Matrix3:
    m = np.asarray(matrix, dtype=np.float64) / float(matrix[2, 2])
    rows = tuple(tuple(float(v) for v in row) for row in m)
    return rows  # type: ignore[return-value]


def _cross(a: NDArray[np.float64], b: NDArray[np.float64], c: NDArray[np.float64]) -> float:
    return float((b[0] - a[0]) * (c[1] - b[1]) - (b[1] - a[1]) * (c[0] - b[0]))


def _describe_missing(found: dict[int, Points], spec: MarkerSpec) -> str:
    missing = [f"{i} ({name})" for i, name in zip(spec.ids, CORNER_NAMES) if i not in found]
    return ", ".join(missing) or "none"
