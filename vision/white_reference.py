"""The printed table's white, as the camera sees it: a white reference for coins' colour.

A coin's colour (copper or silver) is judged against a reference that shows the light's own
colour. The cloth is a poor one where it is strongly coloured (a silver coin looks cyan against
red felt), and so is the camera's white balance (warm lamps, daylight). The white cells of the
printed table's corner markers are paper under the same light as the coins: their colour is
the light's, whatever the cloth.
"""

from __future__ import annotations

from collections.abc import Iterable

import cv2
import numpy as np
import numpy.typing as npt

CELLS = 6
"""A ``DICT_4X4`` marker's side in cells: its 4 x 4 bits inside a one-cell black border."""
CELL_PX = 6
"""Pixels per cell when a marker is sampled, flattened to a square."""
CLIPPED = 250
"""A pixel with any channel at or above this is clipped: its colour is not the light's."""
MIN_PIXELS = 12
"""White pixels a marker must show to give the light's colour."""
MIN_CONTRAST = 50.0
"""A marker's white cells must be this much lighter (0..255) than its black ones: less is no
marker (a quad a moved camera has put on the cloth) or one too dark to tell."""
BORDER_DARK = 0.8
"""Share of a marker's one-cell border that must be dark: it is printed black all round."""

_SIDE = CELLS * CELL_PX
_SQUARE = np.array([[0, 0], [_SIDE, 0], [_SIDE, _SIDE], [0, _SIDE]], np.float32)
_FROM_EDGE = np.minimum(np.arange(_SIDE), _SIDE - 1 - np.arange(_SIDE))
_DEPTH = np.minimum(_FROM_EDGE[:, None], _FROM_EDGE[None, :])
_BORDER_BAND = (_DEPTH >= CELL_PX // 2) & (_DEPTH < CELL_PX)
"""The inner half of the black border's cells of a marker flattened to a square, away from its
edge (where the white quiet zone may bleed in when the corners are a pixel off)."""


def printed_white(
    frame: npt.NDArray[np.uint8], quads: Iterable[npt.ArrayLike]
) -> npt.NDArray[np.float64] | None:
    """The Lab colour (OpenCV 8-bit: L 0..255, a and b centred on 128) of the white printed in
    the markers of a BGR uint8 ``frame`` whose corners (4 x 2 frame pixels each, in order round
    the square) are ``quads``, or ``None`` when none shows enough unclipped white.

    Each marker is flattened to a square and its inner 4 x 4 cells split into dark and light
    by Otsu's threshold; the light pixels not clipped are its white. A quad is taken for a
    marker only where its border is dark and its cells show both black and white
    (``BORDER_DARK``, ``MIN_CONTRAST``). Over several markers the median of their whites is
    taken (a marker in a lamp's glare or a shadow is outvoted).
    """
    side, cell = _SIDE, CELL_PX
    whites = []
    for quad in quads:
        corners = np.asarray(quad, np.float32).reshape(4, 2)
        if not np.isfinite(corners).all() or abs(cv2.contourArea(corners)) < 16.0:
            continue
        to_square = cv2.getPerspectiveTransform(corners, _SQUARE)
        flat = cv2.warpPerspective(frame, to_square, (side, side), flags=cv2.INTER_LINEAR, borderValue=(0, 0, 0))
        lightness = flat.max(axis=2)
        inner = flat[cell : side - cell, cell : side - cell].reshape(-1, 3)
        inner_light = lightness[cell : side - cell, cell : side - cell].reshape(-1)
        threshold, _ = cv2.threshold(inner_light, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
        light = inner_light > threshold
        if light.all() or not light.any():
            continue
        if float(inner_light[light].mean()) - float(inner_light[~light].mean()) < MIN_CONTRAST:
            continue
        if float(np.mean(lightness[_BORDER_BAND] <= threshold)) < BORDER_DARK:
            continue
        white = inner[light & (inner_light < CLIPPED)]
        if len(white) >= MIN_PIXELS:
            whites.append(np.median(white, axis=0))
    if not whites:
        return None
    # The median white as one 8-bit pixel, converted as the coins' colours are (8-bit Lab).
    bgr = np.clip(np.median(np.array(whites), axis=0).round(), 0, 255).astype(np.uint8).reshape(1, 1, 3)
    return np.asarray(cv2.cvtColor(bgr, cv2.COLOR_BGR2LAB), np.float64).reshape(3)
