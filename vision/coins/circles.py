"""Every coin's circle in a frame: by its outline, then by colour and chroma where the outline hides, and coins beneath others."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np

from vision._coin_geometry import (
    COIN_DIAMETER_MM,
    Circle,
    fine_search,
    hough_circles,
    refine_circles,
    suppress,
    work_image,
)
from vision._coin_model import ModelOutput
from vision.coins.appearance import appearance
from vision.coins.frames import FrameViews, frame_views
from vision.coins.params import CoinParams
from vision.colour_coins import chroma_circles, colour_circles
from vision.hidden_coins import coins_beneath
from vision.print_erase import erase_print
from vision.types import COIN_KINDS


LARGEST_OVER_SMALLEST = 1.5
"""How much larger than the smallest coin a table's largest may be (a dollar over a dime: 1.48)."""


def find_coin_circles(
    frame: np.ndarray, params: CoinParams = CoinParams(), views: FrameViews | None = None
) -> list[Circle]:
    """One circle per coin in full-frame pixels, stacked coins marked.

    Circles are searched for in the work image, and coins too small for it in a larger image
    (:func:`vision._coin_geometry.fine_search`). That finer search is left out when the work
    image's coins show there is nothing for it to find: two or more coins, the smallest of them
    so large that no coin of their table is small enough to be missed (it would cost a frame
    of large coins a third of its read).
    """
    v = views or frame_views(frame, params)
    search, search_scale = v.small, v.scale
    if params.circle_size > max(v.small.shape[:2]):
        # Reduced in colour, then made grey, as the work image is: reducing the grey frame
        # instead costs 2.6 ms rather than 11.8 at 992 px, but the circles it gives differ a
        # little, and on the live coin games 5 of 890 coins were no longer read surely.
        search, search_scale = work_image(frame, params.circle_size)
        if search is frame:
            search = v.gray  # the frame itself (``vision.read.FULL_FRAME_SEARCH``): already grey
    long_side = max(search.shape[:2])
    smallest_main = params.min_radius * long_side
    fine = fine_search(max(frame.shape[:2]), params.min_radius, params.small_radius, params.small_radius_px)
    if fine is not None:
        # The main search then starts near the top of the fine one (its time grows with the
        # span of radii: 8.5 ms from 6 work pixels on the fixture scenes, 4.7 ms from 9).
        smallest_main = max(smallest_main, fine[2] / 1.15 * search_scale)
    gray = search if search.ndim == 2 else cv2.cvtColor(search, cv2.COLOR_BGR2GRAY)
    if params.erase_print and params.circle_size > 0:
        # At a known scale: the table's printed outlines, most of the search's edges, painted over.
        gray = erase_print(gray, max(3, int(smallest_main)))
    raw = hough_circles(
        gray,
        max(3, int(smallest_main)),
        max(4, int(params.max_radius * long_side)),
        params.hough_dp,
        params.hough_edge,
        params.hough_roundness,
    ) / search_scale
    circles = _checked_circles(v, suppress(raw, params.stacked_ratio, params.rim_ratio), params)
    if fine is None:
        return circles
    f, smallest, largest = fine
    main_floor = smallest_main / search_scale
    if len(circles) >= 2 and min(c.r for c in circles) / LARGEST_OVER_SMALLEST > 1.1 * main_floor:
        return circles  # every coin of this table is within the main search's reach
    # Coins too small for the work image: searched for in a larger one, at their size only.
    h, w = v.gray.shape[:2]
    larger = cv2.resize(v.gray, (max(1, round(w * f)), max(1, round(h * f))), interpolation=cv2.INTER_AREA)
    found = hough_circles(
        larger,
        max(3, int(smallest * f)),
        int(np.ceil(largest * f)),
        params.hough_dp,
        params.hough_edge,
        params.hough_roundness,
    ) / f
    if not len(found):
        return circles
    # A coin both searches found keeps the finer search's circle (a circle of six work pixels
    # is placed to a pixel there, a sixth of its radius).
    gap = np.hypot(raw[:, None, 0] - found[None, :, 0], raw[:, None, 1] - found[None, :, 1])
    twin = ((gap < 0.3 * found[None, :, 2]) & (raw[:, None, 2] <= 1.5 * found[None, :, 2])).any(axis=1)
    both = np.vstack([raw[~twin], found])
    # All are fitted again (the few the main search found here too): suppression weighs them together.
    return _checked_circles(v, suppress(both, params.stacked_ratio, params.rim_ratio), params)


def _checked_circles(v: FrameViews, circles: list[Circle], params: CoinParams) -> list[Circle]:
    """The circles fitted to the coins' outer edges, those with too little edge left out."""
    if not params.refine or not circles:
        return circles
    # Refine on the half-size grey frame when the coins are big enough there: as exact, and
    # much less to resample.
    big = float(np.median([c.r for c in circles])) >= 2 * params.refine_radius
    if big:
        half = cv2.pyrDown(v.gray)
        halved = [Circle((c.x + 0.5) / 2 - 0.5, (c.y + 0.5) / 2 - 0.5, c.r / 2, c.stacked) for c in circles]
        fitted = [
            Circle((c.x + 0.5) * 2 - 0.5, (c.y + 0.5) * 2 - 0.5, c.r * 2, c.stacked, c.support,
                   None if c.edge_r is None else c.edge_r * 2)
            for c in refine_circles(half, halved, base_radius=params.refine_radius, agreed=params.agreed_fit)
        ]
    else:
        fitted = refine_circles(v.gray, circles, base_radius=params.refine_radius, agreed=params.agreed_fit)
    return [c for c in fitted if c.support >= params.min_support]


def _coins_seen_by_colour(
    frame: np.ndarray,
    views: FrameViews,
    lab: np.ndarray,
    table: np.ndarray,
    circles: list[Circle],
    mm_per_px: float | None,
    params: CoinParams,
) -> list[Circle]:
    """Coins as light as the cloth, which the grey search cannot see (``vision.colour_coins``),
    of the sizes this table's coins may have: by the scale where known, else beside the coins
    the grey search found (none without them)."""
    if mm_per_px is not None:
        diameters = [COIN_DIAMETER_MM[k] for k in (params.kinds or COIN_KINDS)]
        radius_range = (0.85 * min(diameters) / 2 / mm_per_px, 1.15 * max(diameters) / 2 / mm_per_px)
    elif circles:
        radii = [c.r for c in circles]
        radius_range = (0.9 * max(radii) / LARGEST_OVER_SMALLEST, 1.1 * min(radii) * LARGEST_OVER_SMALLEST)
    else:
        return []
    if radius_range[0] >= radius_range[1]:
        return []  # the grey search's circles differ too much in size to bound a coin's
    return colour_circles(
        frame, lab, views.scale, table, circles, radius_range, params.colour_search_distance,
        (params.hough_dp, params.hough_edge, params.hough_roundness), params.min_support, params.refine_radius,
        (params.stacked_ratio, params.rim_ratio), params.agreed_fit and mm_per_px is None,
    )


def _coins_seen_in_chroma(views: FrameViews, lab: np.ndarray, circles: list[Circle], params: CoinParams) -> list[Circle]:
    """Coins whose outline the grey search lost among a busy background's edges, seen in the
    reduced frame's chroma (``vision.colour_coins.chroma_circles``), of the grey search's radii."""
    long_side = max(views.small.shape[:2]) / views.scale
    radius_range = (params.min_radius * long_side, params.max_radius * long_side)
    return chroma_circles(
        lab, views.scale, views.gray, circles, radius_range,
        (params.hough_dp, params.hough_edge, params.hough_roundness), min(params.min_support, params.weak_support),
        params.refine_radius, (params.stacked_ratio, params.rim_ratio), params.agreed_fit,
    )


def _with_coins_beneath(
    frame: np.ndarray,
    views: FrameViews,
    lab: np.ndarray,
    table: np.ndarray,
    circles: list[Circle],
    colour: np.ndarray,
    p_none: np.ndarray,
    out: ModelOutput,
    params: CoinParams,
    whole: bool = True,
) -> tuple[list[Circle], np.ndarray, np.ndarray, ModelOutput, np.ndarray | None]:
    """The circles with every coin half hidden under another added, both marked stacked, and
    their colours, not-a-coin probabilities and model outputs (``vision.hidden_coins``; the
    whole model's, or its first half where that is sure, as :func:`appearance` takes ``whole``),
    and which circles are such pairs' (sized on part of their rims), or ``None`` when there is none."""
    beneath = coins_beneath(views.gray, lab, views.scale, table, circles)
    if not beneath:
        return circles, colour, p_none, out, None
    tops = {b.top: replace(b.top_circle, stacked=True) for b in beneath}
    hidden = [b.hidden for b in beneath]
    measured = len(circles)
    circles = [tops.get(i, c) for i, c in enumerate(circles)] + hidden
    # The hidden coin's colour where it shows, against the same table as the others'.
    hidden_colour = np.array([b.crescent_colour for b in beneath], np.float32) - table
    more, _ = appearance(frame, hidden, params, views.gray, whole=whole)
    # A coin mostly hidden looks little like one to the model: it stays (it is reported
    # stacked, unread), its doubt counted in nothing but its kind.
    return (
        circles,
        np.vstack([colour, hidden_colour]),
        np.concatenate([p_none, np.zeros(len(hidden))]),
        ModelOutput(
            np.vstack([out.kind_prob, more.kind_prob]),
            np.vstack([out.face_prob, more.face_prob]),
            np.vstack([out.embedding, more.embedding]),
        ),
        np.array([i in tops or i >= measured for i in range(len(circles))]),
    )
