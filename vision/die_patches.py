"""Dice the finder missed, proposed where a die-sized patch of another colour than the cloth
lies unexplained.

The dice finder (a small network) scores some clear dice just under its threshold: on the
rendered dev scenes at their scale it missed 20 of 853 dice lying flat, most of them alone on
the cloth and plain to see. With a known scale a die's size is known too, so a patch of the
reduced frame unlike the cloth, of a die's size and holding most of one, that touches no
candidate and no coin is worth one more look by the reader (``vision.dice.find_dice`` keeps
it only where the reader is surer than for the finder's candidates that it is a die).
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np
import numpy.typing as npt

from vision._coin_geometry import commonest_colour, work_image
from vision.colour_coins import colour_patches

DIE_TOP_MM = (11.0, 26.0)
"""Sides in millimetres of the patches looked at: a die's top from 11 mm up, and its sides and
shadow beside it up to 26 mm (a patch may be 30% longer still)."""

WORK_SIZE = 320
"""Long side of the reduced frame the patches are found in: a 16 mm die is still 7 pixels
across there at 0.6 mm a pixel, and the search takes a third of the time it takes at 480."""

LINE_OVER_DIE = 2.0
"""Straight runs of a patch along a row or a column longer than this many of the longest patch
a die makes (30% over the largest die's side) are a printed line, cut from the patch: a die
touching a zone's outline then stands alone (the FLIP game's red 6). No die, nor two touching,
is so long."""

MIN_DISTANCE = 18.0
"""Lab distance from the cloth (lightness counted half) of a patch's pixels."""

INSCRIBED = 0.5
"""A patch must hold a disc of radius this share of the smallest die's side (the disc inscribed
in the smallest die): print, wood grain and shadows' edges hold none so large. On the dev scenes
at 0.3 and 0.4 a frame had 18 and 13 patches to read, at 0.5 2.5, and the dice found were the same."""


def die_patches(
    frame: npt.NDArray[np.uint8],
    mm_per_px: float,
    boxes: Sequence[tuple[float, float, float, float]],
    not_at: Sequence[tuple[float, float, float]],
) -> list[tuple[float, float, float, float]]:
    """Square boxes (centre x, y and side twice, frame pixels) around the die-sized patches of a
    BGR ``frame`` (at ``mm_per_px``) unlike its cloth that touch no candidate box (centre and
    size) of ``boxes`` and no circle (x, y, radius) of ``not_at``: where a die may lie that
    the finder missed. Printed lines are cut from the patches first (:data:`LINE_OVER_DIE`). A
    grey frame gives none."""
    if frame.ndim != 3:
        return []
    small, scale = work_image(frame, WORK_SIZE)
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB)
    lo, hi = (side / mm_per_px * scale for side in DIE_TOP_MM)
    # A patch touching a candidate or a coin is theirs (a die's shadow, a coin's rim).
    taken = [(cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2) for cx, cy, w, h in boxes]
    taken += [(x - r, y - r, x + r, y + r) for x, y, r in not_at]
    patches = colour_patches(
        lab, commonest_colour(lab), MIN_DISTANCE, 0.5 * lo * lo, (1.3 * hi) ** 2, INSCRIBED * lo,
        np.zeros(lab.shape[:2], np.uint8), int(np.ceil(LINE_OVER_DIE * 1.3 * hi)),
    )
    out = []
    for _contour, (x, y, w, h), _inside in patches:
        if not lo <= max(w, h) <= 1.3 * hi:
            continue
        x0, y0, x1, y1 = x / scale, y / scale, (x + w) / scale, (y + h) / scale
        if any(x0 < tx1 and tx0 < x1 and y0 < ty1 and ty0 < y1 for tx0, ty0, tx1, ty1 in taken):
            continue
        side = max(w, h) / scale
        out.append(((x0 + x1) / 2, (y0 + y1) / 2, side, side))
    return out
