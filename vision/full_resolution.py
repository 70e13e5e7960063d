"""Faces read at the sensor's resolution: each object found in a small frame read again from
the full-resolution picture of the same moment, cropped around it.

The camera's small stream is what the settle detector watches and where objects are found
and placed (zones, millimetres, the pictures on the tablet); a penny 40 px across in it is
about 150 px across in the sensor's own picture. Once the table is still, each object's crop
of the full picture (the small frame's box, scaled, with a margin of table around it) is read
by ``read_table`` at the crop's own scale, and the read nearest the object's centre gives its
kind, face, confidence and flags. The object keeps its place from the small frame; one that
the crop's read does not find is left as the small frame read it.

The readers' models and thresholds were made on frames of about 0.55 mm per pixel, and read
objects drawn at three times that resolution worse, not better: a crop is therefore read at
no finer than ``FullResolutionParams.finest_mm_per_px`` (shrunk, area-averaged), and only
where that is finer than the small frame by ``FullResolutionParams.least_gain``. A small
stream coarser than the readers' scale gains; one at that scale already is read as it is
until the readers learn finer crops.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, replace
from typing import Any

import cv2
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
    finest_mm_per_px: float = 0.5
    """Where the scale is known, the crop is read at no finer a scale than this (shrunk to it,
    area-averaged, when the full picture is finer): the readers' models and thresholds were
    made on the fixture camera's frames, 0.55 to 0.6 mm per pixel over the printed table, and
    read objects drawn much larger worse (``benchmarks/full_resolution_bench.py``)."""
    most_zoom: float = 2.0
    """Where the scale is not known, the crop is read at most this many times the small
    frame's pixels per millimetre."""
    least_gain: float = 1.5
    """The faces are read again only where the crops are read at least this many times finer
    than the small frame (after ``finest_mm_per_px``); else the small frame's read stands: it
    sees the objects together, with the printed markers' white and scale, and on the rendered
    dev scenes it reads more right than crops at its own scale do."""
    one_region: bool = False
    """Read one crop around all the objects at once (the readers see them together, as in a
    whole frame) instead of one crop per object."""
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
    kinds the game puts on the table), at no finer than ``params.finest_mm_per_px``; where that
    is not ``params.least_gain`` times finer than the small frame, ``observation`` is returned
    as it is. Objects keep their box, centre, position and zone from the small frame;
    ``extra["full_resolution"]`` says whether the closer read found the object.

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
    zoom = (fx + fy) / 2.0
    mm_per_px = observation.mm_per_px
    if mm_per_px is not None:
        shrink = min(1.0, mm_per_px / zoom / params.finest_mm_per_px)
    else:
        shrink = min(1.0, params.most_zoom / zoom)
    if zoom * shrink < params.least_gain:
        return observation  # the full picture, at the scale the readers read, is no finer
    targets = [(i, d) for i, d in enumerate(observation.objects) if _family(d.kind) in ("coin", "die")]
    groups = [targets] if params.one_region else [[t] for t in targets]
    closer: dict[int, Detection] = {}
    for group in groups:
        if group:
            closer.update(_read_region(group, full, fx, fy, shrink, mm_per_px, params, kinds))
    objects = []
    for i, det in enumerate(observation.objects):
        if i not in closer:
            objects.append(det if _family(det.kind) not in ("coin", "die")
                           else replace(det, extra={**det.extra, "full_resolution": False}))
            continue
        again = closer[i]
        objects.append(replace(det, kind=again.kind, value=again.value, guess=again.guess,
                               confidence=again.confidence, flags=again.flags,
                               extra={**again.extra, "full_resolution": True}))
    notes = observation.notes
    if targets:
        notes = (*notes, f"faces read from the full-resolution picture ({full_w}x{full_h})")
    return replace(observation, objects=tuple(objects), notes=notes)


def _centre(det: Detection) -> tuple[float, float]:
    x, y, w, h = det.bbox
    return det.center if det.center != (0.0, 0.0) else (x + w / 2.0, y + h / 2.0)


def _read_region(
    group: list[tuple[int, Detection]],
    full: np.ndarray,
    fx: float,
    fy: float,
    shrink: float,
    mm_per_px: float | None,
    params: FullResolutionParams,
    kinds: Collection[str] | None,
) -> dict[int, Detection]:
    """The closer read of each object of ``group`` (index, detection) found again in one crop
    of ``full`` around them all, shrunk by ``shrink``: the read of its family nearest its centre."""
    full_h, full_w = full.shape[:2]
    boxes = []
    for _, det in group:
        cx, cy = _centre(det)
        reach = float(max(det.bbox[2], det.bbox[3], 1)) * (0.5 + params.margin)
        boxes.append((cx - reach, cy - reach, cx + reach, cy + reach))
    x0 = max(0, int(min(b[0] for b in boxes) * fx))
    y0 = max(0, int(min(b[1] for b in boxes) * fy))
    x1 = min(full_w, int(np.ceil(max(b[2] for b in boxes) * fx)))
    y1 = min(full_h, int(np.ceil(max(b[3] for b in boxes) * fy)))
    if x1 - x0 < 8 or y1 - y0 < 8:
        return {}
    crop = np.ascontiguousarray(full[y0:y1, x0:x1])
    zoom = (fx + fy) / 2.0
    if shrink < 1.0:
        crop = np.ascontiguousarray(cv2.resize(crop, None, fx=shrink, fy=shrink, interpolation=cv2.INTER_AREA))
    scale = None if mm_per_px is None else mm_per_px / (zoom * shrink)
    families = {_family(det.kind) for _, det in group}
    crop_params = params_for_scale(scale, crop.shape[1], crop.shape[0])
    crop_params = replace(crop_params, read_coins="coin" in families, read_dice="die" in families)
    if kinds is not None:
        coins = tuple(k for k in COIN_KINDS if k in kinds)
        dice = tuple(k for k in DIE_KINDS if k in kinds)
        if coins:
            crop_params = replace(crop_params, coins=replace(crop_params.coins, kinds=coins))
        if dice:
            from vision.dice import DiceParams

            crop_params = replace(crop_params, dice=replace(crop_params.dice or DiceParams(), kinds=dice))
    found = read_table(crop, CropScale(scale) if scale is not None else None, crop_params).objects
    # The crop's reads in the small frame's pixels.
    at = [((d.center[0] / shrink + x0) / fx, (d.center[1] / shrink + y0) / fy) for d in found]
    out: dict[int, Detection] = {}
    taken: set[int] = set()
    for index, det in group:
        cx, cy = _centre(det)
        side = float(max(det.bbox[2], det.bbox[3], 1))
        near = [(float(np.hypot(ox - cx, oy - cy)), j) for j, (ox, oy) in enumerate(at)
                if j not in taken and _family(found[j].kind) == _family(det.kind)]
        near = [(distance, j) for distance, j in near if distance <= params.same_object * side]
        if near:
            j = min(near)[1]
            taken.add(j)
            out[index] = found[j]
    return out
