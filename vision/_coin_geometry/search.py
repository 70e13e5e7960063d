"""Finding coin circles: the Hough transform in tiles (``hough_circles``), the finer search for small coins (``fine_search``), and keeping one circle per coin (``suppress``)."""

from __future__ import annotations

import cv2
import numpy as np

from vision._coin_geometry.circle import Circle


TILE_OVER_MARGIN = 10
"""A large image's circle search runs in tiles whose core side is at most this many times the
margin they share with their neighbours (the largest radius and the least distance between
centres). The transform's time grows faster than a tile's area, and a margin is searched twice,
so the count of tiles decides: at 10 a 1280x960 frame at the table's scale is cut 3 x 2, quicker
than 3 x 3, 2 x 2, 2 x 1 or whole, with the circles of one whole search."""


def hough_circles(
    gray: np.ndarray, min_r: int, max_r: int, dp: float, param1: float, param2: float
) -> np.ndarray:
    """Raw circle candidates (N x 3: x, y, r) from OpenCV's gradient-alternative Hough transform.

    An image much larger than the circles sought is searched tile by tile, each tile with a
    margin wide enough to hold every circle whose centre lies in its core, and each circle
    kept by the tile whose core holds its centre. The result is the search of the whole image
    (on 217 of the 220 dev scenes' fine-search images circle for circle, on the rest but for a
    radius), for much less: the transform weighs every candidate centre against every edge
    pixel, and a tile has a share of each.
    """
    blurred = cv2.GaussianBlur(gray, (5, 5), 1.2)
    min_dist = max(2.0, min_r * 1.2)
    margin = int(np.ceil(max_r + min_dist + 4))
    core = TILE_OVER_MARGIN * margin
    h, w = blurred.shape[:2]
    if max(h, w) < 1.5 * core:
        return _hough(blurred, min_r, max_r, dp, min_dist, param1, param2)
    # Tile origins on the accumulator's grid (every dp pixels), so that each tile votes into
    # the same cells as one search over the whole image would.
    step = max(1, int(round(dp)))
    found = []
    for y0, y1 in _spans(h, core, step):
        for x0, x1 in _spans(w, core, step):
            ya, xa = max(0, y0 - margin) // step * step, max(0, x0 - margin) // step * step
            tile = blurred[ya : min(h, y1 + margin), xa : min(w, x1 + margin)]
            c = _hough(tile, min_r, max_r, dp, min_dist, param1, param2) + np.array([xa, ya, 0], np.float32)
            found.append(c[(c[:, 0] >= x0) & (c[:, 0] < x1) & (c[:, 1] >= y0) & (c[:, 1] < y1)])
    return np.vstack(found)


def _spans(length: int, core: int, step: int) -> list[tuple[int, int]]:
    """Equal spans (start, end) covering ``0..length``, about ``core`` long, starts on ``step``."""
    n = max(1, int(np.ceil(length / core)))
    cuts = [i * length // n // step * step for i in range(n)] + [length]
    return list(zip(cuts[:-1], cuts[1:]))


def _hough(
    blurred: np.ndarray, min_r: int, max_r: int, dp: float, min_dist: float, param1: float, param2: float
) -> np.ndarray:
    """One ``HOUGH_GRADIENT_ALT`` search of a blurred grey image: N x 3 (x, y, r)."""
    found = cv2.HoughCircles(
        blurred,
        cv2.HOUGH_GRADIENT_ALT,
        dp,
        minDist=min_dist,
        param1=param1,
        param2=param2,
        minRadius=min_r,
        maxRadius=max_r,
    )
    if found is None:
        return np.zeros((0, 3), np.float32)
    return np.asarray(found[0], np.float32).reshape(-1, 3)


FINE_WORK_RADIUS = 7.0
"""Work-image radius, in pixels, of the smallest coin the fine search looks for: the image is
scaled so (the circle search needs about this many pixels of radius to find a coin)."""

FINE_SPAN = 2.4
"""The fine search looks for radii from its smallest to this multiple of it, overlapping the
bottom of the main search, where coins of six or seven work pixels are found only in part."""


def fine_search(
    long_side: int, min_radius: float, small_radius: float, small_radius_px: float
) -> tuple[float, float, float] | None:
    """(scale, smallest, largest radius in frame pixels) of the fine search for coins smaller
    than the main search's ``min_radius`` (a fraction of the long side), or ``None`` when there
    is none to make: its smallest radius is ``small_radius`` of the long side but at least
    ``small_radius_px`` pixels, and it is made only when that is well below the main search's."""
    smallest = max(small_radius * long_side, small_radius_px)
    if min_radius * long_side <= 1.1 * smallest:
        return None
    return min(1.0, FINE_WORK_RADIUS / smallest), smallest, FINE_SPAN * smallest


def suppress(circles: np.ndarray, inner_ratio: float, rim_ratio: float) -> list[Circle]:
    """Keep one circle per coin.

    Largest first. A circle overlapping a kept one is dropped as that coin's rim or a detail
    of its design when it is smaller than ``inner_ratio`` of it (no coin is that much smaller
    than another) or concentric with it (centres closer than ``rim_ratio`` of its radius);
    lying well over it, it is a second coin on top, and both are marked stacked; merely
    touching, it is a coin beside it.
    """
    order = np.argsort(-circles[:, 2]) if len(circles) else np.zeros(0, int)
    kept: list[list[float]] = []
    stacked: set[int] = set()
    for x, y, r in circles[order]:
        keep = True
        overlapped_by: list[int] = []
        for j, (kx, ky, kr) in enumerate(kept):
            d = float(np.hypot(x - kx, y - ky))
            if d >= 0.97 * (r + kr):
                continue  # apart or just touching
            if r < inner_ratio * kr or d < rim_ratio * kr:
                # Too small to be a coin on this one, or concentric with it: its rim or design.
                keep = False
                break
            if d + r < kr * 1.05 or d < 0.6 * kr:
                # Well over the larger coin: one coin lying on another.
                overlapped_by.append(j)
            elif d < 0.75 * (r + kr):
                # Deep overlap at the edge: a ghost from both rims.
                keep = False
                break
        if keep:
            for j in overlapped_by:
                stacked.add(j)
                stacked.add(len(kept))
            kept.append([float(x), float(y), float(r)])
    return [Circle(x, y, r, i in stacked) for i, (x, y, r) in enumerate(kept)]


def overlapping_circles(circles: list[Circle], ratio: float) -> set[int]:
    """Indices of the circles (not already marked stacked) whose centre is closer to another's
    than ``ratio`` times their sizes' sum (``Circle.size_r``, the radius to the edge's middle,
    which blur does not move): coins overlapping more than flat coins can."""
    if len(circles) < 2:
        return set()
    x, y = (np.array([getattr(c, k) for c in circles]) for k in ("x", "y"))
    r = np.array([c.size_r for c in circles])
    loose = ~np.array([c.stacked for c in circles])
    close = np.hypot(x[:, None] - x[None, :], y[:, None] - y[None, :]) < ratio * (r[:, None] + r[None, :])
    close &= loose[:, None] & loose[None, :]
    np.fill_diagonal(close, False)
    return {int(i) for i in np.flatnonzero(close.any(axis=1))}
