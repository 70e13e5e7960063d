"""Coins the grey circle search cannot see: found by their colour's difference from the cloth.

A penny on green or red felt, or a nickel on beige, may be as light as the cloth around it:
in grey it has no outline, and the circle search (``vision.coins.find_coin_circles``) never
finds it, however plain its colour. Searching the whole frame in colour as well costs tens of
milliseconds (the full-resolution Lab image alone is 9 ms), so the search here looks only
where it must: at the patches of the reduced frame whose colour is unlike the cloth's and that
no circle found in grey explains, each searched for circles in its own small window at full
resolution, in each pixel's colour distance from the cloth.

A background of many colours (a speckled carpet, wood grain, a knit) has no one colour of the
cloth, and its grey edges touch a coin's outline all round. There :func:`chroma_circles` looks
for circles in the reduced frame's chroma, each pixel's distance from grey, in which a coin of
one metal is an even disc.
"""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np

from vision._coin_geometry import Circle, disc_mask, hough_circles, refine_circles, suppress, table_distance

PATCH_AREA = (0.5, 2.0)
"""A patch is searched when its area is at least the first of these times the smallest coin's
disc and at most the second times the largest's: less is no whole coin, more is a marker, a
hand or a card (two coins touching make one patch, which the search inside it tells apart)."""

PATCH_INSCRIBED = 0.7
"""A patch is searched only when it holds a disc of at least this share of the smallest coin's
radius: on the dev scenes, three quarters of the patches of print, wood grain and shadow held
none so large, and every patch a coin was found in did."""

BAND_UNLIKE = 0.5
"""At most this share of the band around a patch (half its mean side wide) may be unlike the
cloth: a coin lies on the cloth, coins and dice touching it aside."""

EXPLAINED_BY = 1.15
"""A circle explains the pixels of a patch within this many of its radii (its rim's blur and
shadow)."""

UNEXPLAINED = 0.3
"""A patch its circles leave this share of the smallest coin's disc unexplained holds more
than those coins: they are marked stacked."""

STRETCH_TO = 160.0
"""A window's colour distances are stretched so that its patch's mean colour's distance
reaches this grey level: the circle search's edge threshold then suits a dime on
red felt (distance about 25) as it suits a penny on green (about 55)."""


Patch = tuple[np.ndarray, tuple[int, int, int, int], np.ndarray]
"""One patch of the reduced frame: its outline (a contour), its box (x, y, w, h) and a uint8
mask of the box, 1 inside the patch."""


def unlike_table(lab: np.ndarray, table: np.ndarray, min_distance: float) -> np.ndarray:
    """A uint8 mask, 255 where a Lab image's colour differs from ``table`` by more than
    ``min_distance`` (:func:`vision._coin_geometry.table_distance`: lightness counted half).

    Each channel's share of the squared distance is looked up in a table of 256 values, in
    units that keep the threshold under 200, and the shares are added with saturation at
    255: a quarter of the time of the distance worked out in floating point. Rounding moves
    the threshold by under a tenth of a level.
    """
    unit = max(1.0, float(np.ceil(min_distance**2 / 200)))
    levels = np.arange(256, dtype=np.float32)
    shares = [
        cv2.LUT(channel, np.clip(np.round(weight * (levels - t) ** 2 / unit), 0, 255).astype(np.uint8))
        for channel, weight, t in zip(cv2.split(lab), (0.25, 1.0, 1.0), table)
    ]
    total = cv2.add(cv2.add(shares[0], shares[1]), shares[2])
    out: np.ndarray = cv2.threshold(total, min_distance**2 / unit, 255, cv2.THRESH_BINARY)[1]
    return out


def colour_patches(
    lab: np.ndarray,
    table: np.ndarray,
    min_distance: float,
    min_area: float,
    max_area: float,
    min_inscribed: float,
    left_out: np.ndarray,
    line_length: int = 0,
) -> list[Patch]:
    """The patches of a Lab image whose colour differs from ``table`` by more than
    ``min_distance`` (:func:`unlike_table`), away from ``left_out`` (uint8, 255 where
    something is explained already), with an area between ``min_area`` and ``max_area``
    pixels, lying on the cloth (:data:`BAND_UNLIKE`) and holding a disc of radius
    ``min_inscribed``. A patch inside another's hole counts too: a coin within a printed
    zone's outline is such a patch. With ``line_length``, straight runs along a row or a column
    at least that long (printed lines) are cut from the patches first."""
    unlike = unlike_table(lab, table, min_distance)
    mask = cv2.morphologyEx(unlike, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    if line_length > 0:
        # Printed lines across the frame (a zone's outline), straight along a row or a column
        # for at least ``line_length`` pixels, are cut from the patches they touch.
        for kernel in (np.ones((1, line_length), np.uint8), np.ones((line_length, 1), np.uint8)):
            mask[cv2.morphologyEx(mask, cv2.MORPH_OPEN, kernel) > 0] = 0
    mask[left_out > 0] = 0
    # Every patch's outer outline: the two-level retrieval lists holes as the children of their
    # patches, and a patch inside a hole at the top level again.
    contours, hierarchy = cv2.findContours(mask, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    if hierarchy is None:
        return []
    # Unlike-the-table pixels summed over any box at once: a patch lies on the cloth only when
    # most of the band around it is cloth (beyond the cloth's edge, the wood's grain or the
    # floor makes patch after patch).
    sums = cv2.integral(unlike // 255)
    h, w = mask.shape[:2]
    out = []
    for contour, (_next, _previous, _child, parent) in zip(contours, hierarchy[0]):
        if parent >= 0:
            continue  # a hole's outline
        x, y, bw, bh = cv2.boundingRect(contour)
        # The outline's own area is a little less than its pixels' count, never more.
        if bw * bh < min_area or cv2.contourArea(contour) > max_area:
            continue
        inside = np.zeros((bh + 2, bw + 2), np.uint8)
        cv2.drawContours(inside, [contour], 0, 1, -1, offset=(1 - x, 1 - y))
        area = int(inside.sum())
        if not min_area <= area <= max_area:
            continue
        band = max(2, (bw + bh) // 4)
        x0, y0, x1, y1 = max(0, x - band), max(0, y - band), min(w, x + bw + band), min(h, y + bh + band)
        around = sums[y1, x1] - sums[y0, x1] - sums[y1, x0] + sums[y0, x0] - area
        if around > BAND_UNLIKE * ((x1 - x0) * (y1 - y0) - area):
            continue
        # Round enough inside to hold most of a coin: not a stroke of print or a streak of grain.
        if cv2.distanceTransform(inside, cv2.DIST_L2, 3).max() >= min_inscribed:
            out.append((contour, (x, y, bw, bh), inside[1:-1, 1:-1]))
    return out


def colour_circles(
    frame: np.ndarray,
    lab: np.ndarray,
    scale: float,
    table: np.ndarray,
    circles: list[Circle],
    radius_range: tuple[float, float],
    min_distance: float,
    hough: tuple[float, float, float],
    min_support: float,
    refine_radius: int,
    suppression: tuple[float, float] = (0.65, 0.2),
    agreed: bool = False,
) -> list[Circle]:
    """Circles (full-frame pixels) of coins that only their colour shows, none of them on a
    circle of ``circles``.

    ``lab`` is the reduced frame in Lab (``scale`` of its pixels per frame pixel) and
    ``table`` the cloth's colour there; ``radius_range`` the smallest and largest coin radius
    that may lie on this table, in frame pixels; ``hough`` the circle search's accumulator
    resolution, edge threshold and roundness (``CoinParams.hough_dp``, ``hough_edge``,
    ``hough_roundness``). Each patch unlike the cloth (:func:`colour_patches`) that no circle
    explains is searched in a window of the full frame, in the colour distance from the cloth;
    the circles found are fitted to their coins' edges there (``refine_circles``, on the edges
    their rays agree on where ``agreed``) and kept when at least ``min_support`` of their
    outline shows that edge (``suppression``: the stacked and rim ratios of
    :func:`vision._coin_geometry.suppress`, which keeps one circle per coin). A patch that its
    circles leave a third of a coin unexplained (a coin half hidden under one found, a die
    against it) marks them stacked: not read, the players are asked.
    """
    r_lo, r_hi = radius_range
    h, w = frame.shape[:2]
    smallest_disc = np.pi * (r_lo * scale) ** 2
    patches = colour_patches(
        lab,
        table,
        min_distance,
        PATCH_AREA[0] * smallest_disc,
        PATCH_AREA[1] * np.pi * (r_hi * scale) ** 2,
        PATCH_INSCRIBED * r_lo * scale,
        disc_mask(lab.shape[:2], circles, scale, EXPLAINED_BY),
    )
    if not patches:
        return []
    margin = int(np.ceil(0.25 * r_hi)) + 4
    dp, edge, roundness = hough
    windows: list[tuple[int, int, np.ndarray]] = []  # (x0, y0, distance image) where circles were found
    found: list[tuple[int, float, float, float]] = []  # (patch, x, y, r)
    for index, (contour, (px, py, pw, ph), inside) in enumerate(patches):
        # The patch's own colour distance: its pixels' mean colour's.
        mean = np.array(cv2.mean(lab[py : py + ph, px : px + pw], mask=inside)[:3], np.float32)
        top = float(table_distance(mean - table))
        if top <= min_distance:
            continue
        x0, y0 = max(0, int(px / scale) - margin), max(0, int(py / scale) - margin)
        x1, y1 = min(w, int(np.ceil((px + pw) / scale)) + margin), min(h, int(np.ceil((py + ph) / scale)) + margin)
        window = cv2.cvtColor(frame[y0:y1, x0:x1], cv2.COLOR_BGR2LAB).astype(np.float32) - table[None, None, :]
        stretched = np.clip(table_distance(window) * (STRETCH_TO / top), 0, 255).astype(np.uint8)
        raw = hough_circles(stretched, max(3, int(r_lo)), max(4, int(np.ceil(r_hi))), dp, edge, roundness)
        # Centres inside the patch, on no circle the grey search found.
        here = [
            (index, float(x + x0), float(y + y0), float(r)) for x, y, r in raw
            if cv2.pointPolygonTest(contour, (float((x + x0) * scale), float((y + y0) * scale)), False) >= 0
            and all(np.hypot(x + x0 - c.x, y + y0 - c.y) > c.r for c in circles)
        ]
        if here:
            windows.append((x0, y0, stretched))
            found.extend(here)
    if not found:
        return []
    # The windows' colour distances laid on one frame, and every circle fitted in it at once.
    canvas = np.zeros((h, w), np.uint8)
    for x0, y0, stretched in windows:
        part = canvas[y0 : y0 + stretched.shape[0], x0 : x0 + stretched.shape[1]]
        np.maximum(part, stretched, out=part)
    indices = sorted({f[0] for f in found})
    candidates = [suppress(np.array([f[1:] for f in found if f[0] == i], np.float32), *suppression) for i in indices]
    fitted = iter(
        refine_circles(canvas, [c for cs in candidates for c in cs], base_radius=refine_radius, agreed=agreed)
    )
    out: list[Circle] = []
    for index, cs in zip(indices, candidates):
        kept = [c for c in (next(fitted) for _ in cs) if c.support >= min_support and 0.9 * r_lo <= c.r <= 1.1 * r_hi]
        if not kept:
            continue
        # What of the patch its circles leave unexplained (each grown as the grey search's
        # circles are where patches are looked for).
        _contour, (px, py, _pw, _ph), inside = patches[index]
        rest = inside.copy()
        for c in kept:
            centre = (round(c.x * scale) - px, round(c.y * scale) - py)
            cv2.circle(rest, centre, round(c.r * scale * EXPLAINED_BY), 0, -1)
        alone = int(rest.sum()) < UNEXPLAINED * smallest_disc
        out.extend(c if alone else replace(c, stacked=True) for c in kept)
    return out


CHROMA_GAIN = 4.0
"""Grey levels per unit of Lab chroma in the image the chroma search looks in: a penny's chroma
(about 20 to 30) then stands 80 to 120 levels above a grey cloth's, and a cloth's colour at 60
or more is the same white."""


def chroma_image(lab: np.ndarray, gain: float = CHROMA_GAIN) -> np.ndarray:
    """A uint8 image of each pixel's chroma (its Lab colour's distance from grey), ``gain``
    grey levels a unit."""
    a = lab[:, :, 1].astype(np.float32) - 128.0
    b = lab[:, :, 2].astype(np.float32) - 128.0
    out: np.ndarray = np.clip(cv2.magnitude(a, b) * gain, 0, 255).astype(np.uint8)
    return out


CHROMA_EVEN = 4.5
"""Most a coin's colour may spread inside a circle of the chroma search (the standard deviation
of its a and b, at 0.8 of its radius, in the reduced frame): a coin is one metal, so its colour
is even (coins-mmr's coins pasted onto the dice and card photos, found by this search: 1.2 to
3.7), and a patch of speckled carpet or knit that makes a round edge in chroma is not (the
median such false circle, 9)."""


def colour_spread(lab: np.ndarray, x: float, y: float, r: float) -> float:
    """The spread of a Lab image's colour (the length of its a and b standard deviations) inside
    the disc of radius ``0.8 r`` about (x, y), in that image's pixels."""
    h, w = lab.shape[:2]
    x0, y0 = max(0, int(x - r)), max(0, int(y - r))
    x1, y1 = min(w, int(np.ceil(x + r)) + 1), min(h, int(np.ceil(y + r)) + 1)
    if x1 <= x0 or y1 <= y0:
        return float("inf")
    yy, xx = np.mgrid[y0:y1, x0:x1]
    inside = (xx - x) ** 2 + (yy - y) ** 2 < (0.8 * r) ** 2
    if not inside.any():
        return float("inf")
    ab = lab[y0:y1, x0:x1, 1:][inside].astype(np.float32)
    return float(np.hypot(*ab.std(axis=0)))


def chroma_circles(
    lab: np.ndarray,
    scale: float,
    gray: np.ndarray,
    circles: list[Circle],
    radius_range: tuple[float, float],
    hough: tuple[float, float, float],
    min_support: float,
    refine_radius: int,
    suppression: tuple[float, float] = (0.65, 0.2),
    agreed: bool = False,
) -> list[Circle]:
    """Circles (full-frame pixels) that the reduced frame's chroma shows and that overlap none
    of ``circles``, fitted to their coins' edges in the grey frame ``gray``.

    On a speckled carpet, wood grain or a knit, the grey image's edges of the background touch a
    coin's outline all round, and the grey search finds no circle there; the background's
    colours differ from pixel to pixel, so no one colour is the cloth's (:func:`colour_circles`
    needs one). A copper coin's chroma is high and even, a silver coin's low and even, and either
    stands out as a disc from a coloured, speckled background. ``lab`` is the reduced frame in
    Lab (``scale`` of its pixels per frame pixel); ``radius_range`` the smallest and largest
    coin radius sought, in frame pixels; ``hough`` as for :func:`colour_circles`. A circle is
    kept when its colour is even inside (:data:`CHROMA_EVEN`) and at least ``min_support`` of
    its outline shows an edge in grey (``vision._coin_geometry.refine_circles``, fitted on the
    edges its rays agree on where ``agreed``).
    """
    r_lo, r_hi = radius_range
    dp, edge, roundness = hough
    found = hough_circles(
        chroma_image(lab), max(3, int(r_lo * scale)), max(4, int(np.ceil(r_hi * scale))), dp, edge, roundness
    ) / scale
    if len(found) and circles:
        grey = np.array([[c.x, c.y, c.r] for c in circles], np.float32)
        gap = np.hypot(found[:, None, 0] - grey[None, :, 0], found[:, None, 1] - grey[None, :, 1])
        # Apart from every circle found already, or just touching it (as ``suppress`` has it).
        found = found[(gap >= 0.97 * (found[:, None, 2] + grey[None, :, 2])).all(axis=1)]
    # A coin's colour is even; a round patch of a speckled background's is not.
    found = found[[colour_spread(lab, x * scale, y * scale, r * scale) <= CHROMA_EVEN for x, y, r in found]]
    if not len(found):
        return []
    fitted = refine_circles(gray, suppress(found, *suppression), base_radius=refine_radius, agreed=agreed)
    return [c for c in fitted if c.support >= min_support]
