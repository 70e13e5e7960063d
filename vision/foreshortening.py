"""Coins seen as ellipses all alike: a photo stretched along one axis, or taken at a slant.

A publisher that squeezes every photo to a 640 px square (as dice-rune55's and cards-cadyze's
did), or a camera tilted 30 degrees or more, shows every coin as an ellipse of one shape, and
the circle search, which takes only near-perfect circles, finds few of them (coins-mmr squeezed
to 0.8 of its height: 47.6% found). :func:`squash_of` measures that shape from the blobs unlike
the table, and :func:`stretched` undoes it, so that ``vision.read.read_table`` can search the
coins in the frame made round again and bring them back (:func:`unstretched`).

Only a squash along the frame's own axes is measured (a squeezed photo, a camera tilted straight
forward or sideways); the blobs must agree closely on it, as coins do and card symbols or dice,
of many shapes, do not.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

from vision._coin_geometry import colour_features, ellipse_blobs, work_image
from vision.coins import validate_frame
from vision.types import Detection

WORK_SIZE = 320
"""Long side, in pixels, of the image the blobs are measured in: about 3 ms a photo (7 to 9 at
480 px, with as many squeezed coin photos measured, and more card and dice photos taken for
squeezed)."""

MIN_RADIUS = 0.0125
"""Least blob, as the radius of a disc of its area over the long side (the coin reader's
``CoinParams.min_radius``)."""

COLOUR_DISTANCE = 18.0
"""A pixel belongs to a blob when its colour differs from the table's by this (Lab, lightness
counted half; the coin reader's ``CoinParams.tilted_colour``)."""

FILL = (0.85, 1.1)
"""A blob's area over its fitted ellipse's: only blobs this close to an ellipse are measured
(touching coins make one blob of another shape)."""

MIN_BLOBS = 3
"""Least blobs agreeing on the squash."""

AGREEING = 0.6
"""Least share of the blobs that must agree on it (touching coins, a shadow, a die make blobs
of other shapes)."""

SPREAD = 0.04
"""A blob agrees when its axis ratio lies within this of the median, its long axis along the
squash's: coins-mmr squeezed to 0.8 measured 0.79 +- 0.01 (a few blobs of touching coins
aside), a webcam's card symbols 0.61 +- 0.07."""

AXIS_TOLERANCE = 10.0
"""Degrees a blob's long axis may lie off the frame's axis the squash is along."""

SQUASHED_BELOW = 0.92
"""An axis ratio under this is a squash worth undoing (the circle search itself finds coins
squeezed to 0.9: 98.8% of coins-mmr's)."""

LEAST_RATIO = 0.6
"""No squash below this is undone (a camera more than 53 degrees off vertical)."""


@dataclass(frozen=True)
class Squash:
    """How a frame shows round things: their axis ratio (short over long), and along which
    frame axis they are short (``"y"``: squeezed in height, ``"x"``: in width)."""

    ratio: float
    axis: str
    blobs: int
    """How many blobs agreed on it."""


def squash_of(frame: np.ndarray) -> Squash | None:
    """The squash that every round thing of ``frame`` (BGR uint8) shows alike, or ``None``.

    :raises ValueError: naming what is wrong with a frame that is not BGR uint8 H x W x 3.
    """
    small, _ = work_image(validate_frame(frame), WORK_SIZE)
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB)
    _, table = colour_features(lab, [], 1.0)
    least_area = np.pi * (MIN_RADIUS * max(lab.shape[:2])) ** 2
    blobs = [b for b in ellipse_blobs(lab, table, COLOUR_DISTANCE, least_area) if FILL[0] <= b[5] <= FILL[1]]
    ratios = [minor / major for _, _, major, minor, _, _ in blobs]
    angles = [turn for _, _, _, _, turn, _ in blobs]
    if len(ratios) < MIN_BLOBS:
        return None
    r, turn = np.array(ratios), np.array(angles)
    median = float(np.median(r))
    if not LEAST_RATIO <= median < SQUASHED_BELOW:
        return None
    alike = np.abs(r - median) <= SPREAD
    # Long axes along x: the frame is short in y; along y: short in x.
    for axis, off in (("y", np.minimum(turn, 180.0 - turn)), ("x", np.abs(turn - 90.0))):
        agree = alike & (off <= AXIS_TOLERANCE)
        if agree.sum() >= max(MIN_BLOBS, AGREEING * len(r)):
            return Squash(float(np.median(r[agree])), axis, int(agree.sum()))
    return None


def stretched(frame: np.ndarray, squash: Squash) -> tuple[np.ndarray, float, float]:
    """``frame`` stretched along the squashed axis so round things are round again, and the
    stretch factors (x, y) from frame to stretched pixels."""
    sx, sy = (1.0, 1.0 / squash.ratio) if squash.axis == "y" else (1.0 / squash.ratio, 1.0)
    h, w = frame.shape[:2]
    size = (max(1, round(w * sx)), max(1, round(h * sy)))
    out = np.asarray(cv2.resize(frame, size, interpolation=cv2.INTER_CUBIC), np.uint8)
    return out, size[0] / w, size[1] / h


def unstretched(detections: list[Detection], sx: float, sy: float) -> list[Detection]:
    """Detections made in a stretched frame, placed back in the frame: centres and boxes
    (a coin's box then bounds its ellipse)."""
    out = []
    for d in detections:
        x, y, w, h = d.bbox
        x0, y0, x1, y1 = x / sx, y / sy, (x + w) / sx, (y + h) / sy
        box = (int(round(x0)), int(round(y0)), int(round(x1 - x0)), int(round(y1 - y0)))
        out.append(replace(d, bbox=box, center=(d.center[0] / sx, d.center[1] / sy)))
    return out
