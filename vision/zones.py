"""Zones of the table: named polygons in table millimetres, and which zone a point lies in.

Zone ids are the rules core's (``theatre``, ``balcony``, ``gathered:Kevin``, ``centre``,
``stash:Ann``, ``middle``, ``area:Bo``, ``aside``, ``draw``, ``discard``, ``melds:Kevin``);
vision only names them, it never knows what they mean in a game.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.types import Detection, TableObservation


@dataclass(frozen=True)
class Zone:
    """One named area of the table.

    >>> Zone.rect("theatre", 0, 0, 100, 50).contains((10, 10))
    True
    """

    id: str
    """The zone id, e.g. ``"theatre"`` or ``"gathered:Kevin"``."""
    polygon: tuple[tuple[float, float], ...]
    """Corners in table millimetres, in order (either direction)."""

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not self.id.strip() or self.id != self.id.strip():
            raise ValueError(f"zone id must be a non-empty string without outer spaces, not {self.id!r}")
        if len(self.polygon) < 3:
            raise ValueError(f"zone {self.id!r}: polygon needs at least 3 points, has {len(self.polygon)}")
        for point in self.polygon:
            if len(point) != 2 or not all(isinstance(v, (int, float)) and math.isfinite(v) for v in point):
                raise ValueError(f"zone {self.id!r}: polygon point {point!r} is not two finite numbers")
        if self.area() < 1.0:
            raise ValueError(f"zone {self.id!r}: polygon encloses no area (points in a line or repeated)")

    @classmethod
    def rect(cls, zone_id: str, x: float, y: float, width: float, height: float) -> Zone:
        """An axis-aligned rectangle with its top-left corner at ``(x, y)`` mm."""
        return cls(zone_id, ((x, y), (x + width, y), (x + width, y + height), (x, y + height)))

    def contour(self) -> NDArray[np.float32]:
        """The polygon as an OpenCV contour (``N x 1 x 2`` float32)."""
        return np.array(self.polygon, dtype=np.float32).reshape(-1, 1, 2)

    def area(self) -> float:
        """Area in square millimetres."""
        pts = np.array(self.polygon, dtype=np.float64)
        x, y = pts[:, 0], pts[:, 1]
        return float(abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))) / 2.0)

    def depth(self, point_mm: tuple[float, float]) -> float:
        """Signed distance in mm from the point to the outline: positive inside, negative outside."""
        return float(cv2.pointPolygonTest(self.contour(), (float(point_mm[0]), float(point_mm[1])), True))

    def contains(self, point_mm: tuple[float, float]) -> bool:
        """Whether the point lies inside the zone or on its outline."""
        return self.depth(point_mm) >= 0.0

    def centroid(self) -> tuple[float, float]:
        """The polygon's centre of area in mm (where its label goes)."""
        moments = cv2.moments(self.contour())
        if moments["m00"] == 0:
            pts = np.array(self.polygon)
            return float(pts[:, 0].mean()), float(pts[:, 1].mean())
        return moments["m10"] / moments["m00"], moments["m01"] / moments["m00"]

    def bounds(self) -> tuple[float, float, float, float]:
        """``(x_min, y_min, x_max, y_max)`` in mm."""
        pts = np.array(self.polygon)
        return float(pts[:, 0].min()), float(pts[:, 1].min()), float(pts[:, 0].max()), float(pts[:, 1].max())

    def to_json(self) -> dict[str, object]:
        """``{"id": ..., "polygon": [[x, y], ...]}`` with coordinates rounded to 0.1 mm."""
        return {"id": self.id, "polygon": [[round(float(x), 1), round(float(y), 1)] for x, y in self.polygon]}


def check_zones(zones: Sequence[Zone]) -> None:
    """Check a zone map: ids differ.

    :raises ValueError: naming the repeated id.
    """
    seen: set[str] = set()
    for zone in zones:
        if zone.id in seen:
            raise ValueError(f"zone id {zone.id!r} appears twice")
        seen.add(zone.id)


def zone_of(zones: Iterable[Zone], point_mm: tuple[float, float]) -> str | None:
    """The id of the zone holding the point, or ``None`` outside every zone.

    Where zones overlap, the one the point lies deepest inside wins, so a coin on a shared
    edge goes where most of it is.
    """
    best: str | None = None
    best_depth = -math.inf
    for zone in zones:
        depth = zone.depth(point_mm)
        if depth >= 0.0 and depth > best_depth:
            best, best_depth = zone.id, depth
    return best


def zone_title(zone_id: str) -> str:
    """A short label for a zone on an overlay or a sheet: ``"gathered:Kevin"`` -> ``"Gathered: Kevin"``."""
    kind, sep, owner = zone_id.partition(":")
    words = kind.replace("_", " ").capitalize()
    return f"{words}: {owner}" if sep else words


class CalibrationLike(Protocol):
    """What :func:`assign_zones` needs of a calibration (duck-typed, as ``read_table`` does)."""

    def image_to_table(self, points: NDArray[np.float64]) -> NDArray[np.float64]:
        """Pixels to table millimetres."""
        ...

    def zone_of(self, point_mm: tuple[float, float]) -> str | None:
        """The zone holding a point in table millimetres."""
        ...


def assign_zones(observation: TableObservation, calibration: CalibrationLike) -> TableObservation:
    """A copy of the observation with each object's ``position_mm`` and ``zone`` filled in.

    The object's centre in pixels is mapped through the calibration's homography; an object
    outside every zone gets ``zone=None``.
    """
    if not observation.objects:
        return observation
    centres = np.array([obj.center for obj in observation.objects], dtype=np.float64)
    positions = calibration.image_to_table(centres)
    objects: list[Detection] = []
    for obj, (x, y) in zip(observation.objects, positions):
        position = (float(x), float(y))
        objects.append(replace(obj, position_mm=position, zone=calibration.zone_of(position)))
    return replace(observation, objects=tuple(objects))
