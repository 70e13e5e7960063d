"""Faces read at the sensor's resolution: each object found in a small frame read again from
the full-resolution picture of the same moment, cropped around it.

The camera's small stream is what the settle detector watches and where objects are found
and placed (zones, millimetres, the pictures on the tablet); a penny 40 px across in it is
about 150 px across in the sensor's own picture. Once the table is still, each object's crop
of the full picture (the small frame's box, scaled, with a margin of table around it) is read
by ``read_table`` at the crop's own scale, and the read nearest the object's centre gives its
kind, face, confidence and flags. The object keeps its place from the small frame; one that
the crop's read does not find is left as the small frame read it.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from vision.coins import validate_frame
from vision.read import params_for_scale, read_table
from vision.types import COIN_KINDS, DIE_KINDS, Detection, TableObservation


@dataclass(frozen=True)
class FullResolutionParams:
    """How each object's crop of the full picture is cut and matched."""

    margin: float = 2.0
    """Table shown around an object, each side, as a share of its box's longer side (a coin's
    colour is judged against the cloth around it)."""
    same_object: float = 0.5
    """A read in the crop is the object when its centre lies within this share of the
    object's box's longer side of the object's centre."""
    shape_tolerance: float = 0.02
    """How far the full picture's width / height may differ from the small frame's, relatively."""


@dataclass(frozen=True)
class CropScale:
    """What ``read_table`` needs of a calibration for a crop of known scale: millimetres per
    pixel, crop pixels as millimetres, and no zones (the object's zone is the small frame's)."""

    mm_per_px: float
    """Millimetres per crop pixel."""

    def image_to_table(self, points: Any) -> Any:
        """Crop pixels (N x 2) scaled to millimetres."""
        return np.asarray(points, np.float64) * self.mm_per_px

    def zone_of(self, point_mm: tuple[float, float]) -> str | None:
        """No zone: the crop knows none."""
        return None


def _family(kind: str) -> str:
    return "coin" if kind in COIN_KINDS or kind == "other" else "die" if kind in DIE_KINDS else kind


def read_faces_closer(
    observation: TableObservation,
    full: np.ndarray,
    params: FullResolutionParams = FullResolutionParams(),
    kinds: Collection[str] | None = None,
) -> TableObservation:
    """``observation`` (read from a small frame) with each coin's and die's kind, face,
    confidence and flags read again from ``full``, the same moment at a higher resolution.

    Each crop is read at ``observation.mm_per_px`` scaled to the full picture, when known, for
    coins or dice only as the object is one or the other, and only of ``kinds`` when given (the
    kinds the game puts on the table). Objects keep their box, centre,
    position and zone from the small frame; ``extra["full_resolution"]`` says whether the
    closer read found the object.

    :raises ValueError: if ``full`` is not BGR uint8, is smaller than the small frame, or has
        another shape (width / height).
    """
    full = validate_frame(full)
    small_w, small_h = observation.frame_size
    full_h, full_w = full.shape[:2]
    if full_w < small_w or full_h < small_h:
        raise ValueError(f"the full picture ({full_w}x{full_h}) is smaller than the frame read ({small_w}x{small_h})")
    if abs(full_w * small_h - full_h * small_w) > params.shape_tolerance * full_w * small_h:
        raise ValueError(f"the full picture ({full_w}x{full_h}) has another shape than the frame read ({small_w}x{small_h})")
    fx, fy = full_w / small_w, full_h / small_h
    objects = []
    for det in observation.objects:
        family = _family(det.kind)
        if family not in ("coin", "die"):
            objects.append(det)
            continue
        closer = _read_crop(det, family, full, fx, fy, observation.mm_per_px, params, kinds)
        if closer is None:
            objects.append(replace(det, extra={**det.extra, "full_resolution": False}))
            continue
        objects.append(replace(det, kind=closer.kind, value=closer.value, guess=closer.guess,
                               confidence=closer.confidence, flags=closer.flags,
                               extra={**closer.extra, "full_resolution": True}))
    notes = observation.notes
    if objects:
        notes = (*notes, f"faces read from the full-resolution picture ({full_w}x{full_h})")
    return replace(observation, objects=tuple(objects), notes=notes)


def _read_crop(
    det: Detection,
    family: str,
    full: np.ndarray,
    fx: float,
    fy: float,
    mm_per_px: float | None,
    params: FullResolutionParams,
    kinds: Collection[str] | None,
) -> Detection | None:
    """The read of ``det``'s crop of ``full`` nearest its centre, of its family, or ``None``."""
    x, y, w, h = det.bbox
    cx, cy = det.center if det.center != (0.0, 0.0) else (x + w / 2.0, y + h / 2.0)
    side = float(max(w, h, 1))
    reach = side * (0.5 + params.margin)
    full_h, full_w = full.shape[:2]
    x0, x1 = max(0, int((cx - reach) * fx)), min(full_w, int(np.ceil((cx + reach) * fx)))
    y0, y1 = max(0, int((cy - reach) * fy)), min(full_h, int(np.ceil((cy + reach) * fy)))
    if x1 - x0 < 8 or y1 - y0 < 8:
        return None
    crop = np.ascontiguousarray(full[y0:y1, x0:x1])
    scale = None if mm_per_px is None else mm_per_px / ((fx + fy) / 2.0)
    crop_params = params_for_scale(scale, crop.shape[1], crop.shape[0])
    crop_params = replace(crop_params, read_coins=family == "coin", read_dice=family == "die")
    if kinds is not None:
        coins = tuple(k for k in COIN_KINDS if k in kinds)
        dice = tuple(k for k in DIE_KINDS if k in kinds)
        if coins:
            crop_params = replace(crop_params, coins=replace(crop_params.coins, kinds=coins))
        if dice:
            from vision.dice import DiceParams

            crop_params = replace(crop_params, dice=replace(crop_params.dice or DiceParams(), kinds=dice))
    found = read_table(crop, CropScale(scale) if scale is not None else None, crop_params).objects
    # The crop's reads in the small frame's pixels: the nearest of the object's family.
    best: tuple[float, Detection] | None = None
    for other in found:
        if _family(other.kind) != family:
            continue
        ox, oy = (other.center[0] + x0) / fx, (other.center[1] + y0) / fy
        distance = float(np.hypot(ox - cx, oy - cy))
        if distance <= params.same_object * side and (best is None or distance < best[0]):
            best = (distance, other)
    return None if best is None else best[1]
