"""Coins too large for the usual circle search: a close-up photo of a coin or a few.

The coin reader's circle search stops at radii of ``CoinParams.max_radius`` (0.15) of the
frame's long side: larger circles in a table photo are bowls, tray rims and the round insets
of dice, and the search's time grows with the span of radii. A close-up (a coin filling 40% of
a photo's width or more) was then never found. :func:`find_close_up_coins` is a second search,
for those radii only, in a small image (a coin of radius 0.14 of the long side still has 22
pixels of radius there), that ``vision.read.read_table`` makes on a photo without a known
scale (a calibrated table's coins are of known size), once the dice are read.

A large circle is taken for a coin only where the dice reader found no plain die on it
(``DIE_FINDER_SURE``): a die's face may hold a round inset nearly as large as the face (on
dice-rune55's grey close-ups one such inset read as a nickel with confidence), and dice lie on
round plates, while the "dice" the reader finds on a coin's relief are faint and unsure. Where
it overlaps coins the usual search found, :func:`with_close_ups` keeps one or the other.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from vision.coins import CoinParams, find_coins
from vision.enrol import CoinProfile
from vision.foreshortening import Blobs, blobs_of, close_up_squash, stretched, unstretched
from vision.types import CONFIDENT, DIE_KINDS, Detection

CLOSE_UP_RADII = (0.14, 0.5)
"""Radii searched, as fractions of the frame's long side: from just below the usual search's
largest (0.15) to a coin as wide as the frame's long side."""

CLOSE_UP_WORK_SIZE = 160
"""Long side, in pixels, of the image the close-up search looks in: enough for the circle
search, about 2 ms a photo (at 240 px, 4 ms, with the same coins found on the close-ups)."""

DIE_ON_COIN = 0.5
"""A die lies on a large circle when its centre does, or this share of its box."""

DIE_FINDER_SURE = 0.7
"""A die on a large circle that the dice finder scores at least this (a die's whole outline,
plain to see) makes the circle no coin: the round inset of that die's face, or a plate the die
lies on. So does a die the reader is sure of. The "dice" found on the relief of coins-mmr's
coins shown close up (a letter, Lincoln's head) scored 0.31 to 0.61, none read surely; on each
of dice-rune55's round plates (circles of 0.48 of the photo, read as quarters) at least one die
scored 0.81 or more."""


DIE_NOT_DETAIL = 0.35
"""A die on a large circle at least this share of its width is no detail of a coin's design,
however faint: a real die on a coin is half its width or more, the "dice" found on coins-mmr's
coins shown close up 0.05 to 0.27 (Lincoln's head). Three dice on a plate in a photo squeezed
to 0.75 of its height scored under ``DIE_FINDER_SURE`` and were 0.45 of the plate's width."""


def close_up_params(params: CoinParams) -> CoinParams:
    """``params`` for the close-up search: its radii, its small image, no finer search, and no
    looking for coins on edge or leaning (sized against the round coins of a table, they are
    not what a close-up shows, and the looks cost a close-up search most of its time)."""
    smallest, largest = CLOSE_UP_RADII
    return replace(
        params,
        work_size=CLOSE_UP_WORK_SIZE,
        circle_size=0,
        min_radius=smallest,
        small_radius=smallest,  # the finer search for small coins is made only below min_radius
        max_radius=largest,
        on_edge_at=1.01,  # off
        tilted_search=False,  # off even where the caller's parameters turn it on
    )


def find_close_up_coins(
    frame: np.ndarray,
    params: CoinParams,
    dice: Sequence[Detection] = (),
    profile: CoinProfile | None = None,
    gray: np.ndarray | None = None,
    blobs: Blobs | None = None,
) -> tuple[list[Detection], float | None]:
    """Coins of radius ``CLOSE_UP_RADII`` of the frame's long side, read as ``find_coins``
    reads coins (without a known scale), and the scale their sizes give.

    Coins standing on their edge or leaning are not looked for here (:func:`close_up_params`).
    A circle on which ``dice`` holds a plain die (read surely, scored :data:`DIE_FINDER_SURE`
    or more, or at least :data:`DIE_NOT_DETAIL` of its width) is left out. Where the frame's large blobs (``blobs``, measured
    here when not given) are ellipses alike, the coins are searched in the frame stretched round
    (``vision.foreshortening.close_up_squash``).

    :raises ValueError: as :func:`vision.coins.find_coins` does, for a frame that is not BGR uint8.
    """
    squash = close_up_squash(blobs_of(frame) if blobs is None else blobs, CLOSE_UP_RADII[0])
    if squash is None:
        coins, scale = find_coins(frame, close_up_params(params), None, profile, gray=gray)
    else:
        # Every large coin an ellipse alike (a squeezed close-up): searched and read in the
        # frame stretched round, where a circle fitted to the ellipse read faces wrongly.
        wide, sx, sy = stretched(frame, squash)
        found, scale = find_coins(wide, close_up_params(params), None, profile)
        coins = unstretched(found, sx, sy)
    kept = [c for c in coins if not any(_die_rules_out(c, d) for d in dice if d.kind in DIE_KINDS)]
    return kept, scale if kept else None


def with_close_ups(usual: Sequence[Detection], large: Sequence[Detection], sure_at: float) -> list[Detection]:
    """The coins of the usual search and the close-up search together, each coin once.

    A close-up coin apart from every usual one joins them. One that overlaps usual coins
    replaces them only when it is read surely (confidence ``sure_at`` or more) and they are
    unsure reads lying inside it: circles of its own design (a letter, a rim) the usual search
    took for small coins. Otherwise the usual coins stay and it goes: a large circle around
    coins read surely is a tray or a bowl, not a coin.
    """
    coins = list(usual)
    for big in large:
        under = [c for c in coins if _overlap(big, c)]
        if under and not (
            big.confidence >= sure_at and all(c.confidence < sure_at and _inside(c, big) for c in under)
        ):
            continue
        coins = [c for c in coins if not any(c is u for u in under)] + [big]
    return coins


def _die_rules_out(coin: Detection, die: Detection) -> bool:
    """Whether ``die`` makes ``coin`` no coin: it lies on it and is plainly a die, read surely,
    scored high by the finder or too large for a detail (a fainter, smaller, unsure "die" on a
    coin is a letter or a figure of its design, dropped as such by
    ``vision.read.resolve_overlaps``)."""
    if not _die_on(coin, die):
        return False
    sure = die.value is not None and die.confidence >= CONFIDENT
    large = max(die.bbox[2], die.bbox[3]) >= DIE_NOT_DETAIL * coin.bbox[2]
    return sure or large or float(die.extra.get("finder_score", 0.0)) >= DIE_FINDER_SURE


def _overlap(coin: Detection, other: Detection) -> bool:
    """Whether two coins' circles (their boxes' inscribed circles) overlap."""
    (ax, ay), (bx, by) = coin.center, other.center
    return float(np.hypot(ax - bx, ay - by)) < (coin.bbox[2] + other.bbox[2]) / 2.0


def _inside(small: Detection, big: Detection) -> bool:
    """Whether ``small``'s circle lies within ``big``'s (to a twentieth of its radius)."""
    (ax, ay), (bx, by) = small.center, big.center
    return float(np.hypot(ax - bx, ay - by)) + small.bbox[2] / 2.0 <= 1.05 * big.bbox[2] / 2.0


def _die_on(coin: Detection, die: Detection) -> bool:
    """Whether ``die`` lies on ``coin``'s circle: its centre inside, or ``DIE_ON_COIN`` of its box."""
    cx, cy = coin.center
    r = coin.bbox[2] / 2.0
    dx, dy = die.center
    if (dx - cx) ** 2 + (dy - cy) ** 2 <= r * r:
        return True
    x, y, w, h = die.bbox
    # The die's box sampled on a grid: the share of it inside the circle.
    xs, ys = np.meshgrid(x + (np.arange(8) + 0.5) / 8 * w, y + (np.arange(8) + 0.5) / 8 * h)
    return float(np.mean((xs - cx) ** 2 + (ys - cy) ** 2 <= r * r)) >= DIE_ON_COIN
