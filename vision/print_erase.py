"""The printed table's long thin marks, painted over in the cloth's grey before the circle search.

The circle search (OpenCV's ``HOUGH_GRADIENT_ALT``, :func:`vision._coin_geometry.hough_circles`)
weighs every edge pixel of its image against every candidate centre, and on the referee's
printed table most edge pixels are not coins': they are the zones' outlines, bands a few
millimetres wide across the whole frame (the edges explain nearly all of the search's time). A coin is a disc: whatever part of a frame holds a disc of most of the smallest
coin's size may be one. What holds none and runs on for several coins' widths is print: a
band, a line of letters touching each other. Painted in the cloth's grey, such marks leave
no edge, and the search does the same work in three fifths of the time.

Only the search's own copy of the frame is painted; coins are fitted, measured and read in the
frame as it is.
"""

from __future__ import annotations

import cv2
import numpy as np

UNLIKE_CLOTH = 20
"""Grey levels from the cloth's (its commonest grey) at which a pixel is a mark on it."""

THICK = 0.75
"""A mark is thick (it may be a coin, a die, a hand, and is never painted) where it holds a disc
whose diameter is this share of the smallest circle searched for: at the table's scale that
circle is 0.8 of a dime's, so the disc is 0.6 of a dime across, and every coin and die lying
whole holds it."""

LONG = 4.0
"""A thin mark is print when its box is at least this many of the smallest circle's diameters
long: a coin on its edge (one coin long), a die's shadow and a letter are shorter, and are left."""

REDUCE_ABOVE = 800
"""An image whose long side is over this many pixels is measured at half its size (the marks
found there are as long and nearly as wide, in a quarter of the time)."""


def erase_print(gray: np.ndarray, smallest_radius: float) -> np.ndarray:
    """A copy of the grey image ``gray`` with its long thin marks painted in the cloth's grey,
    or ``gray`` itself where it has none. ``smallest_radius`` is the smallest circle's radius
    the search looks for, in ``gray``'s pixels.

    :raises ValueError: for anything but a 2-D uint8 image, or a radius that is not positive.
    """
    if not isinstance(gray, np.ndarray) or gray.dtype != np.uint8 or gray.ndim != 2:
        got = f"{getattr(gray, 'dtype', type(gray).__name__)} {getattr(gray, 'shape', '')}"
        raise ValueError(f"gray must be a 2-D uint8 image, got {got}")
    if not smallest_radius > 0:
        raise ValueError(f"smallest_radius must be positive, got {smallest_radius!r}")
    h, w = gray.shape
    scale = 0.5 if max(h, w) > REDUCE_ABOVE else 1.0
    small = gray
    if scale != 1.0:
        small = np.asarray(cv2.resize(gray, (w // 2, h // 2), interpolation=cv2.INTER_AREA), np.uint8)
    cloth = cloth_grey(small)
    unlike = cv2.threshold(cv2.absdiff(small, np.full_like(small, cloth)), UNLIKE_CLOTH, 1, cv2.THRESH_BINARY)[1]
    # A coin's face is only partly unlike the cloth (its relief's mid-greys are not): its small
    # holes are filled before it is tested for a disc, or a coin touching a band would be taken
    # for part of it (on procedural scenes at their scale 1.2% of the coins were lost so).
    solid = cv2.morphologyEx(unlike, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    disc = max(3, int(round(THICK * 2.0 * smallest_radius * scale)))
    thick = cv2.morphologyEx(solid, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (disc, disc)))
    # What lies within two pixels of a thick mark is left as it is (the bands' ends at a coin's
    # rim), so that the painting stops short of a coin that holds the disc.
    thin = cv2.subtract(unlike, cv2.dilate(thick, np.ones((5, 5), np.uint8)))
    # Each thin mark's outline and the holes in it (a zone's outline is a ring): the long ones
    # are drawn filled, their holes left out.
    contours, hierarchy = cv2.findContours(thin, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    if hierarchy is None:
        return gray
    least = LONG * 2.0 * smallest_radius * scale
    marks = np.zeros_like(thin)
    drawn = False
    for i, (_next, _previous, _child, parent) in enumerate(hierarchy[0]):
        if parent >= 0:
            continue  # a hole's outline, drawn with its mark
        _x, _y, bw, bh = cv2.boundingRect(contours[i])
        if max(bw, bh) >= least:
            cv2.drawContours(marks, contours, i, 1, -1, hierarchy=hierarchy, maxLevel=1)
            drawn = True
    if not drawn:
        return gray
    # A pixel wider all round: the band's blurred edge, where the search's edges lie.
    marks = cv2.dilate(marks, np.ones((3, 3), np.uint8))
    if scale != 1.0:
        marks = cv2.resize(marks, (w, h), interpolation=cv2.INTER_NEAREST)
    out = gray.copy()
    cv2.copyTo(np.full_like(gray, cloth), marks, out)
    return out


def cloth_grey(gray: np.ndarray) -> int:
    """The cloth's grey: the commonest level of a grey image, its histogram smoothed over 5 levels."""
    hist = cv2.calcHist([gray], [0], None, [256], [0, 256]).ravel()
    return int(np.argmax(np.convolve(hist, np.ones(5), "same")))
