"""Coins seen as ellipses all alike: a photo stretched along one axis, or taken at a slant.

A publisher that squeezes every photo to a 640 px square (as dice-rune55's and cards-cadyze's
did), or a camera tilted 30 degrees or more, shows every coin as an ellipse of one shape, and
the circle search, which takes only near-perfect circles, finds few of them (coins-mmr squeezed
to 0.8 of its height: 47.6% found). :func:`blobs_of` measures the blobs unlike the table,
:func:`squash_of` the shape they share, and :func:`stretched` undoes it, so that
``vision.read.read_table`` can search the coins in the frame made round again and bring them
back (:func:`unstretched`). A close-up's one or two large coins tell it alone
(:func:`close_up_squash`, for ``vision.close_ups``).

Only a squash along the frame's own axes is measured (a squeezed photo, a camera tilted straight
forward or sideways); the blobs must agree closely on it, as coins do and card symbols or dice,
of many shapes, do not.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

from vision._coin_geometry import commonest_colour, ellipse_blobs, work_image
from vision.coins import validate_frame
from vision.types import Detection

WORK_SIZE = 320
"""Long side, in pixels, of the image the blobs are measured in: about 3 ms a photo (7 to 9 at
480 px, which measured no more squeezed coin photos, and took more card and dice photos for
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


@dataclass(frozen=True)
class Blobs:
    """The blobs unlike the table that are close to an ellipse, one entry each (measured once a
    frame: :func:`squash_of` and :func:`close_up_squash` both weigh them)."""

    ratios: np.ndarray
    """Axis ratio, short over long."""
    turns: np.ndarray
    """The long axis's angle from the frame's x axis, degrees, 0..180."""
    sizes: np.ndarray
    """The radius of a disc of the blob's area, over the frame's long side."""


def blobs_of(frame: np.ndarray) -> Blobs:
    """The blobs of ``frame`` (BGR uint8) unlike the table and close to an ellipse.

    :raises ValueError: naming what is wrong with a frame that is not BGR uint8 H x W x 3.
    """
    small, _ = work_image(validate_frame(frame), WORK_SIZE)
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB)
    table = commonest_colour(lab)
    long_side = max(lab.shape[:2])
    least_area = np.pi * (MIN_RADIUS * long_side) ** 2
    blobs = [b for b in ellipse_blobs(lab, table, COLOUR_DISTANCE, least_area) if FILL[0] <= b[5] <= FILL[1]]
    ratios = np.array([minor / major for _, _, major, minor, _, _ in blobs])
    turns = np.array([turn for _, _, _, _, turn, _ in blobs])
    sizes = np.array([np.sqrt(major * minor) / 2.0 / long_side for _, _, major, minor, _, _ in blobs])
    return Blobs(ratios, turns, sizes)


def _agreed(ratios: np.ndarray, turns: np.ndarray, least: int) -> Squash | None:
    """The squash that ``least`` blobs or more, and ``AGREEING`` of them, agree on, or ``None``."""
    if len(ratios) < least:
        return None
    median = float(np.median(ratios))
    if not LEAST_RATIO <= median < SQUASHED_BELOW:
        return None
    alike = np.abs(ratios - median) <= SPREAD
    # Long axes along x: the frame is short in y; along y: short in x.
    for axis, off in (("y", np.minimum(turns, 180.0 - turns)), ("x", np.abs(turns - 90.0))):
        agree = alike & (off <= AXIS_TOLERANCE)
        if agree.sum() >= max(least, AGREEING * len(ratios)):
            return Squash(float(np.median(ratios[agree])), axis, int(agree.sum()))
    return None


def squash_of(blobs: Blobs) -> Squash | None:
    """The squash that every round thing of a frame (its :func:`blobs_of`) shows alike, or ``None``."""
    return _agreed(blobs.ratios, blobs.turns, MIN_BLOBS)


def close_up_squash(blobs: Blobs, min_radius: float) -> Squash | None:
    """The squash of a frame's large blobs (a disc of their area at least ``min_radius`` of the
    long side: a close-up's coins), which all must show it, one blob sufficing.

    One coin alone cannot tell a squeezed photo from a leaning coin; either way its face is
    read rightly only in the frame stretched round (on coins-mmr's coins cut out to fill 60%
    of a square squeezed to 0.75 of its width, the circle fitted to the ellipse read 2 of 22
    found coins surely with the wrong face).
    """
    large = blobs.sizes >= min_radius
    return _agreed(blobs.ratios[large], blobs.turns[large], 1)


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
