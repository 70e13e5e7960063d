"""Find coins, tell their denomination and read heads or tails.

``find_coins(frame)`` is the whole reader. It composes small steps:

1. ``find_coin_circles``: circles from a Hough transform on a reduced frame, one per coin,
   touching and overlapping coins included; a coin lying over another is marked stacked.
   Coins as light as the cloth, with no outline in grey, are then looked for by their colour
   where a patch of the frame unlike the cloth is left unexplained (``vision.colour_coins``),
   and, without a known scale, in the reduced frame's chroma, where a speckled or grained
   background's grey edges hide a coin's outline (``CoinParams.chroma_search``).
2. ``colour_features``: each coin's colour relative to the table (copper, silver, brass);
   ``against_table``: relative to the printed table's white where its markers are seen
   (``vision.white_reference``), else to grey in part where the table is strongly coloured.
3. The appearance model (``vision._coin_model``): kind and face from a polar image of the
   coin, so any rotation reads the same.
4. ``denominations``: size, colour and appearance together. With a known scale the true
   diameter decides; without one the scale that best explains every coin at once is found.

A read is *confident* when its confidence is at least :data:`CONFIDENT`; below that the
referee must ask. Faces are ``None`` below ``CoinParams.face_min``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import numpy as np

from vision._coin_geometry import (
    APPEARANCE_KINDS,
    COIN_DIAMETER_MM,
    Circle,
    colour_features,
    fine_search,
    hough_circles,
    overlapping_circles,
    polar_grid,
    polar_samples,
    refine_circles,
    tilted_blobs,
    suppress,
    work_image,
)
from vision._coin_model import MODEL_DIR, NOT_A_COIN, NOT_A_COIN_SKIP, ModelMeta, ModelOutput, load_model
from vision.colour_coins import chroma_circles, colour_circles
from vision.edge_coins import edge_bars, edge_net, edge_probability
from vision.hidden_coins import coins_beneath
from vision.print_erase import erase_print
from vision.types import COIN_KINDS, Detection

if TYPE_CHECKING:
    from vision.coin_profile import CoinProfile

NOT_COIN = NOT_A_COIN
"""The appearance model's class for circles that are not coins."""

CONFIDENT = 0.9
"""A coin read (kind and face together) at or above this confidence is reported as sure.

Chosen on the held-out photos so that confident face reads are almost never wrong; below it
the referee asks the players."""


@dataclass(frozen=True)
class CoinParams:
    """Thresholds of the coin reader; the defaults work on a top-down table photo."""

    work_size: int = 480
    """Long side, in pixels, of the reduced frame that colours are measured and circles are
    searched in (see ``circle_size``)."""
    circle_size: int = 0
    """Long side, in pixels, of the image that circles are searched in when larger than the
    work image (0: the work image): with a known scale small coins are searched for at their
    size there while colours are measured in the smaller work image, which costs less."""
    min_radius: float = 0.0125
    """Smallest coin radius searched in the work image, as a fraction of the frame's long side (16
    px at 1280: 6 px in the work image, about the least the circle search finds)."""
    small_radius: float = 0.009
    """Smallest coin radius of a finer search in a larger image, as a fraction of the long side
    (11.5 px at 1280: a camera high over the table). Made on frames over about 1,000 px;
    ``min_radius`` or more turns it off."""
    small_radius_px: float = 11.0
    """The fine search's smallest radius is never below this many pixels: a coin 22 px across is
    about the least whose face the model reads, and smaller circles on small photos are print."""
    max_radius: float = 0.15
    """Largest coin radius searched, as a fraction of the frame's long side."""
    hough_dp: float = 2.0
    """Accumulator resolution of the Hough transform (inverse ratio)."""
    hough_edge: float = 100.0
    """Canny high threshold of the Hough transform."""
    hough_roundness: float = 0.8
    """How perfect a circle must be (``HOUGH_GRADIENT_ALT`` param2, 0..1)."""
    stacked_ratio: float = 0.65
    """A circle inside another is a coin on top only if at least this fraction of its radius."""
    rim_ratio: float = 0.2
    """Centre offset (fraction of radius) under which an inner circle is the coin's own rim."""
    overlap_ratio: float = 0.93
    """Two coins whose centres are closer than this share of their sizes' sum (``Circle.size_r``)
    overlap more than flat coins can: one rests on the other, so neither is read (``overlapping``;
    RULES A1)."""
    erase_print: bool = True
    """At a known scale (``circle_size`` set), paint the table's long thin print over in the cloth's
    grey in the circle search's own copy of the frame (``vision.print_erase``): its edges are most
    of the search's time."""
    refine: bool = True
    """Fit each circle to the coin's outer edge at full resolution (sizes matter)."""
    refine_radius: int = 40
    """Radius in pixels that coins are resampled to for fitting their edge."""
    min_support: float = 0.7
    """Share of a circle's outline that must show an edge (a leaning coin's ellipse shows less).
    With a calibrated scale the live reader uses 0.65 (``vision.read.SCALED_MIN_SUPPORT``)."""
    on_edge_at: float = 0.95
    """A bar of strong gradient about a coin long (``vision.edge_coins``) that the coin-on-edge
    check scores at least this is reported on its edge (no value; the players are asked). 1.01 turns
    it off."""
    weak_support: float = 0.55
    """A circle with less edge than ``min_support`` but at least this share is kept when the
    appearance model is sure it is a coin (``weak_not_coin``): a silver coin on a pale cloth
    shows its rim's edge on only part of its outline."""
    weak_not_coin: float = 0.001
    """Such a weakly edged circle is kept only when the model's not-a-coin probability is below this
    (true coins score 0.0001 or less, other circles 0.28 and up)."""
    size_sigma: float = 0.03
    """Spread of measured over true diameter (log scale) allowed for a denomination (a dime is 6%
    smaller than a penny)."""
    size_gain: tuple[float, float] = (0.95, 1.12)
    """With a known scale, how much larger or smaller than true all of a frame's coins may look (rim
    walls, shadows and blur join the outline); the factor that best explains every coin is found
    within it."""
    size_gain_sigma: float = 0.04
    """Prior spread (log scale) of that factor around 1: one coin alone barely moves it, several
    coins of known relative sizes do."""
    size_at_edge_middle: bool = True
    """Size each coin by the middle of its outer edge (``Circle.size_r``), not the circle through
    the edge's outer flank (``Circle.r``, where the coin model looks): blur moves the flank
    outwards."""
    colour_against_white: bool = True
    """Judge coins' colour against the printed table's white where its markers are in the frame
    (``find_coins``'s ``white``), not against the cloth: the markers' white is paper under the
    coins' light."""
    colour_weight: float = 1.0
    """Weight of the colour evidence against size and appearance."""
    colour_table_chroma: float = 15.0
    """On a cloth of chroma ``c`` (8-bit Lab) the table is the colour reference only by
    ``t = 1 / (1 + (c / colour_table_chroma) ** 2)``, the camera's white balance the rest, and
    colour weighs ``t`` (:func:`against_table`)."""
    appearance_weight: float = 1.0
    """Weight of the appearance model's kind evidence when the scale is estimated."""
    appearance_weight_scaled: float = 0.4
    """Weight of the appearance model's kind evidence when the scale is known (size decides)."""
    scale_outlier: float | None = -20.0
    """Without a known scale, the log-likelihood at which a circle may be one no coin explains while
    the scale is estimated (``estimate_scale``), so one false circle cannot drag it. ``None``: every
    circle a coin."""
    tilted_search: bool = False
    """Whether to look for coins leaning or on edge as elongated patches unlike the table
    (``tilted_coins``). Off: such coins are found by the coin-on-edge check and the look beneath;
    the patches were other things."""
    tilted_colour: float = 18.0
    """Lab distance from the table above which a patch may be a tilted coin."""
    tilted_ratio: float = 0.75
    """An elongated patch (minor/major axis at most this) may be a coin leaning or on edge."""
    on_edge_ratio: float = 0.3
    """Below this minor/major ratio a tilted coin is on its edge, above it leaning."""
    tilted_min_area: float = 0.06
    """Smallest tilted-coin patch, as a fraction of a typical round coin's area."""
    tilted_size: tuple[float, float] = (0.65, 1.35)
    """A tilted coin's long axis, as fractions of a typical round coin's diameter."""
    edge_anchor: float = 0.01
    """With no known scale, coins on their edge are sought only beside a round coin whose not-a-coin
    probability is below this: they are sized against it, and card print in a row made bars. 1.0:
    off."""
    unanchored_not_coin: float = 0.1
    """In a frame of no known scale with no round coin the model is sure of (under ``edge_anchor``),
    a circle is kept only under this not-a-coin probability (a lone doubtful circle is mostly print
    or a die)."""
    tilted_anchor: float = 0.01
    """With ``tilted_search``, tilted coins are sought only beside a round coin whose not-a-coin
    probability is below this, and sized against such coins. 1.0 turns the need for an anchor
    off."""
    appearance_agree: float = 0.5
    """Below this appearance probability of the chosen denomination the confidence is scaled
    down in proportion (0 turns the check off): evidence that disagrees makes a read unsure."""
    not_coin: float = NOT_A_COIN_SKIP
    """A circle the appearance model calls not a coin with at least this probability is dropped
    (the appearance model's cascade reads no face for such a circle: ``vision._coin_model``)."""
    coin_doubt: bool = True
    """Whether a kept circle's confidence is also scaled by the model's probability that it is a
    coin at all (``1 - p(not a coin)``), since the denomination is chosen among coins only."""
    face_min: float = 0.75
    """Below this face probability the face is reported as ``None`` (unsure)."""
    confident: float = CONFIDENT
    """Confidence at or above which a read is sure (see :data:`CONFIDENT`)."""
    kinds: tuple[str, ...] | None = None
    """The denominations this table holds (a Seven Pennies table: pennies only), or ``None``
    for any. A coin is then read as one of these: size, colour and appearance only choose among
    them, and a coin that looks like none of them (a quarter on a table of pennies) is read
    without confidence, since the appearance model disagrees (``appearance_agree``)."""
    model_dir: Path = MODEL_DIR
    """Folder with ``coin_face.onnx`` and ``coin_face.json`` (and the model's halves that
    ``coin_face.json`` names, if it names any: ``vision._coin_model``)."""
    chroma_search: bool = True
    """Without a known scale, also look for coins in the reduced frame's chroma
    (``vision.colour_coins.chroma_circles``): on speckled or grained backgrounds a coin's grey
    outline is lost, its even colour is not."""
    agreed_fit: bool = True
    """Without a known scale, refit a lone coin whose outermost edges mostly miss their circle on
    the circle most of its rays' edges agree on (``refine_circles``'s ``agreed``): texture just
    outside it passes for its rim."""
    colour_search: bool = True
    """Look for coins as light as the cloth, which have no outline in grey, where the reduced
    frame shows a patch of another colour that no circle found in grey explains
    (``vision.colour_coins``). With a known scale this is done even where the grey search found
    no coin at all; without one, only beside coins found (their sizes bound the search)."""
    colour_search_distance: float = 18.0
    """Lab distance from the cloth (lightness counted half) above which a pixel belongs to such a patch."""
    colour_not_coin: float = 0.05
    """A circle found only in colour is kept when the appearance model's not-a-coin probability
    is below this (``not_coin`` for the others)."""
    look_beneath: bool = True
    """Look beside each coin for another half hidden under it (``vision.hidden_coins``): both
    are then reported stacked, not read. Without it a coin lying on another was read as one
    coin, often with a sure face."""


def validate_frame(frame: object) -> np.ndarray:
    """Check a frame is BGR uint8 H x W x 3 and return it.

    :raises ValueError: naming what is wrong.
    """
    if not isinstance(frame, np.ndarray):
        raise ValueError(f"frame must be a numpy array (BGR uint8 HxWx3), got {type(frame).__name__}")
    if frame.dtype != np.uint8:
        raise ValueError(f"frame must be uint8 (BGR), got dtype {frame.dtype}")
    if frame.ndim != 3 or frame.shape[2] != 3:
        raise ValueError(f"frame must be HxWx3 (BGR), got shape {frame.shape}")
    if frame.shape[0] < 16 or frame.shape[1] < 16:
        raise ValueError(f"frame is too small to read: {frame.shape[1]}x{frame.shape[0]} pixels")
    return frame


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


@dataclass(frozen=True)
class FrameViews:
    """The frame as the steps need it, computed once per read."""

    small: np.ndarray
    """BGR frame reduced to ``CoinParams.work_size``."""
    scale: float
    """``small`` pixels per frame pixel."""
    gray: np.ndarray
    """Full-resolution grey frame."""


def frame_views(frame: np.ndarray, params: CoinParams, gray: np.ndarray | None = None) -> FrameViews:
    """The reduced and grey views of a frame (``gray``: the frame in grey, when the caller has it)."""
    small, scale = work_image(frame, params.work_size)
    if gray is None:
        gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    elif gray.shape != frame.shape[:2] or gray.dtype != np.uint8:
        raise ValueError(f"gray must be the frame in grey, uint8 {frame.shape[:2]}, got {gray.dtype} {gray.shape}")
    return FrameViews(small, scale, gray)


def size_loglik(radii_px: np.ndarray, mm_per_px: float, sigma: float | np.ndarray) -> np.ndarray:
    """N x kinds log-likelihood of each coin's diameter under each denomination.

    ``radii_px`` is N x kinds: each coin's radius as that kind would measure it (a profile
    can correct for how this camera sees each kind's rim), or N (the same for every kind).
    ``sigma`` is the spread of the measure (log scale), one for all or one per coin (N x 1).
    """
    radii = radii_px if radii_px.ndim == 2 else radii_px[:, None]
    d_mm = 2.0 * radii * mm_per_px
    true = np.array([COIN_DIAMETER_MM[k] for k in APPEARANCE_KINDS])[None, :]
    out: np.ndarray = -0.5 * (np.log(d_mm / true) / sigma) ** 2
    return out


# Colour of each kind relative to the table, (a*, b*) mean and spread in OpenCV's 8-bit Lab.
# Pennies are a mixture: bright copper, and old pennies gone dark brown (almost neutral).
# Silver coins spread along b* (blue to yellow) with the light's colour: under the rendered
# fixtures' tinted lamps they measure down to b* -8, where a narrower model (b* 4 +- 2.5) left
# both kinds' colour evidence at its floor, and a silver dime measured large was read as a
# penny. The wider model (chosen on the validation parts) keeps the evidence.
SILVER = (1.0, 0.0, 2.0, 2.0, 4.5)
DEFAULT_COLOURS: dict[str, list[tuple[float, float, float, float, float]]] = {
    # weight, mean a, mean b, sd a, sd b
    "penny": [(0.6, 10.0, 12.0, 5.0, 6.0), (0.25, 2.0, 3.0, 2.0, 3.0), (0.15, 18.0, 22.0, 12.0, 15.0)],
    "nickel": [SILVER],
    "dime": [SILVER],
    "quarter": [SILVER],
    "other": [(1.0, 4.5, 13.5, 2.5, 5.5)],
}


def colour_loglik(
    ab: np.ndarray, colours: dict[str, list[tuple[float, float, float, float, float]]], floor: float = -12.0
) -> np.ndarray:
    """N x kinds log-likelihood of each coin's relative (a*, b*) under each kind's colour.

    Floored so that a strange light can weaken, but never veto, the other evidence.
    """
    out = np.zeros((len(ab), len(APPEARANCE_KINDS)), np.float64)
    for j, kind in enumerate(APPEARANCE_KINDS):
        total = np.zeros(len(ab))
        for w, ma, mb, sa, sb in colours[kind]:
            z = ((ab[:, 0] - ma) / sa) ** 2 + ((ab[:, 1] - mb) / sb) ** 2
            total += w * np.exp(-0.5 * z) / (sa * sb)
        out[:, j] = np.maximum(np.log(total + 1e-12), floor)
    return out


def against_table(
    relative: np.ndarray, table: np.ndarray, table_chroma: float, white: np.ndarray | None = None
) -> tuple[np.ndarray, float]:
    """Coins' colour (N x Lab, relative to the table) as the colour evidence takes it, and how
    far that evidence is to be trusted (0..1).

    Where the printed table's ``white`` (Lab, ``vision.white_reference.printed_white``) is
    known, it is the reference, trusted fully: paper under the same light as the coins, whatever
    the cloth. Otherwise:

    A grey table is the white reference: colour relative to it survives a change of light. A
    table of strong colour is a poor one (a silver coin on green baize looks magenta against
    it), so on a table of chroma ``c`` the reference is the table only in part,
    ``t = 1 / (1 + (c / table_chroma) ** 2)``, and the rest neutral grey (the camera's own white
    balance), and the evidence is trusted ``t``. ``table_chroma`` 0: always relative, always trusted.

    >>> silver_on_green = np.array([[50.0, 43.0, -29.0]])  # relative to a green table
    >>> colour, trust = against_table(silver_on_green, np.array([123.0, 85.0, 158.0]), 15.0)
    >>> [round(float(v)) for v in colour[0, 1:]], round(trust, 2)
    ([3, -1], 0.08)
    >>> colour, trust = against_table(silver_on_green, np.array([123.0, 85.0, 158.0]), 15.0,
    ...                               white=np.array([200.0, 128.0, 127.0]))
    >>> [round(float(v)) for v in colour[0, 1:]], trust
    ([0, 2], 1.0)
    """
    if white is not None:
        out = np.array(relative, np.float64, copy=True)
        out[:, 1:] += np.asarray(table[1:], np.float64) - np.asarray(white[1:], np.float64)
        return out, 1.0
    if table_chroma <= 0:
        return relative, 1.0
    chroma = float(np.hypot(table[1] - 128.0, table[2] - 128.0))
    trust = 1.0 / (1.0 + (chroma / table_chroma) ** 2)
    out = np.array(relative, np.float64, copy=True)
    out[:, 1:] += (1.0 - trust) * (np.asarray(table[1:], np.float64) - 128.0)
    return out, trust


def estimate_scale(
    radii_px: np.ndarray, evidence: np.ndarray, sigma: float, outlier: float | None = None
) -> float | None:
    """The mm per pixel that best explains every coin's size together with its other evidence.

    Each coin and kind proposes a scale (true diameter over measured); the proposal with the
    highest total likelihood (summed over coins, each marginalised over kinds) wins. ``None``
    without coins. With ``outlier`` (a log-likelihood), each circle may also be one that no
    coin explains, at that likelihood whatever the scale: a card's pip or a die's round inset
    taken for a coin then costs a scale at most that much, instead of pulling it so far that
    the true coins are read as coins of another size.
    """
    if len(radii_px) == 0:
        return None
    radii = radii_px if radii_px.ndim == 2 else np.repeat(radii_px[:, None], len(APPEARANCE_KINDS), axis=1)
    true = np.array([COIN_DIAMETER_MM[k] for k in APPEARANCE_KINDS])[None, :]
    candidates = (true / (2.0 * radii)).ravel()
    best, best_score = None, -np.inf
    for m in candidates:
        score = _scale_loglik(radii, evidence, float(m), sigma, outlier)
        if score > best_score:
            best, best_score = float(m), score
    return best


def _scale_loglik(
    radii: np.ndarray, evidence: np.ndarray, mm_per_px: float, sigma: float, outlier: float | None = None
) -> float:
    """How well one scale explains every coin: each coin's size with its other evidence,
    marginalised over kinds (and, with ``outlier``, over being no coin of the table at that
    log-likelihood), summed over coins (log-likelihood)."""
    total = evidence + size_loglik(radii, mm_per_px, sigma)
    if outlier is not None:
        total = np.hstack([total, np.full((len(total), 1), outlier)])
    peak = total.max(axis=1, keepdims=True)
    return float(np.sum(peak[:, 0] + np.log(np.exp(total - peak).sum(axis=1))))


def refine_scale(
    radii_px: np.ndarray,
    evidence: np.ndarray,
    mm_per_px: float,
    sigma: float,
    gain: tuple[float, float],
    gain_sigma: float,
) -> float:
    """The calibrated scale corrected for how large this frame's coins all measure.

    Every coin measured ``g`` times its true diameter (``g`` within ``gain``) makes the true
    scale ``mm_per_px / g``. The ``g`` that best explains every coin's size with its other
    evidence (each coin marginalised over kinds), under a prior around 1 of spread
    ``gain_sigma``, wins. Without coins, or with ``gain == (1, 1)``, the scale is kept.
    """
    lo, hi = gain
    if len(radii_px) == 0 or hi <= lo:
        return mm_per_px
    radii = radii_px if radii_px.ndim == 2 else np.repeat(radii_px[:, None], len(APPEARANCE_KINDS), axis=1)
    true = np.array([COIN_DIAMETER_MM[k] for k in APPEARANCE_KINDS])[None, :]
    gains = 2.0 * radii * mm_per_px / true  # each coin and kind proposes one
    candidates = np.unique(np.concatenate([gains[(gains >= lo) & (gains <= hi)], [1.0, lo, hi]]))
    best, best_score = 1.0, -np.inf
    for g in candidates:
        score = _scale_loglik(radii, evidence, mm_per_px / float(g), sigma) - 0.5 * (np.log(g) / gain_sigma) ** 2
        if score > best_score:
            best, best_score = float(g), score
    return mm_per_px / best


def denominations(
    radii_px: np.ndarray,
    evidence: np.ndarray,
    mm_per_px: float | None,
    sigma: float,
    gain: tuple[float, float] = (1.0, 1.0),
    gain_sigma: float = 0.04,
    rough: np.ndarray | None = None,
    rough_sigma: float = 0.06,
    outlier: float | None = None,
) -> tuple[np.ndarray, float | None]:
    """N x kinds posterior of each coin's kind, and the scale used (given, refined or estimated).

    A given scale is refined by at most ``gain`` (see :func:`refine_scale`); without one the
    scale is estimated from the coins alone. Coins marked ``rough`` (N booleans: a coin half
    hidden under another and the one on it, each sized on part of its rim) have no say in the
    scale while others do, and their size is weighed with ``rough_sigma``. ``outlier`` is
    :func:`estimate_scale`'s: the likelihood of a circle no coin explains, for an estimated scale."""
    firm = np.ones(len(radii_px), bool) if rough is None or rough.all() else ~rough
    if mm_per_px is not None:
        scale: float | None = refine_scale(radii_px[firm], evidence[firm], mm_per_px, sigma, gain, gain_sigma)
    else:
        scale = estimate_scale(radii_px[firm], evidence[firm], sigma, outlier)
    total = evidence.copy()
    if scale is not None and len(radii_px):
        spread = np.where(firm, sigma, rough_sigma)[:, None]
        total = total + size_loglik(radii_px, scale, spread)
    total = total - total.max(axis=1, keepdims=True)
    post: np.ndarray = np.exp(total)
    post /= post.sum(axis=1, keepdims=True)
    return post, scale


def find_coins(
    frame: np.ndarray,
    params: CoinParams = CoinParams(),
    mm_per_px: float | None = None,
    profile: CoinProfile | None = None,
    scale_at: Callable[[tuple[float, float]], float] | None = None,
    gray: np.ndarray | None = None,
    white: np.ndarray | None = None,
) -> tuple[list[Detection], float | None]:
    """Every coin in a BGR frame, read, and the scale in mm per pixel (given or estimated).

    ``mm_per_px`` from a calibration makes the true diameter decide the denomination;
    without it the scale is estimated from the coins themselves. ``scale_at`` (a
    calibration's ``mm_per_px_at``) gives the scale at each coin, where a tilted camera's
    scale differs from the centre's ``mm_per_px``. ``profile`` (from ``vision.enrol``)
    adapts colours and faces to this table's own coins. ``gray`` is the frame in grey, when
    the caller has made it already (``vision.read.read_table`` has, to look for markers).
    ``white`` is the printed table's white in Lab (``vision.white_reference.printed_white``),
    when its markers are seen: the coins' colour is then judged against it
    (``CoinParams.colour_against_white``).

    :raises ValueError: if the frame is not BGR uint8 H x W x 3, the scale is not positive,
        ``params.kinds`` names no known coin or ``gray`` is not the frame in grey (uint8, its size).
    """
    frame = validate_frame(frame)
    if mm_per_px is not None and not (np.isfinite(mm_per_px) and mm_per_px > 0):
        raise ValueError(f"mm_per_px must be a positive number, got {mm_per_px!r}")
    if params.kinds is not None and (not params.kinds or set(params.kinds) - set(APPEARANCE_KINDS)):
        raise ValueError(f"CoinParams.kinds must name some of {', '.join(APPEARANCE_KINDS)}, got {params.kinds!r}")
    views = frame_views(frame, params, gray)
    # The search's circles fitted on the edges they agree on only where no scale is known.
    search_params = replace(
        params,
        min_support=min(params.min_support, params.weak_support),
        agreed_fit=params.agreed_fit and mm_per_px is None,
    )
    circles = find_coin_circles(frame, search_params, views)
    # With no circle in grey, only the colour search (at a known scale) or the chroma search
    # (without one) may still find a coin.
    searches_left = params.colour_search if mm_per_px is not None else params.chroma_search
    if not circles and not searches_left:
        return _lone_coins_on_edge(frame, views, mm_per_px, params), mm_per_px
    scale = views.scale
    lab = cv2.cvtColor(views.small, cv2.COLOR_BGR2LAB)
    colour, table = colour_features(lab, circles, scale)
    seen_in_grey = len(circles)
    by_colour = np.zeros(len(circles), bool)
    if params.colour_search:
        more = _coins_seen_by_colour(frame, views, lab, table, circles, mm_per_px, params)
        circles, by_colour = circles + more, np.concatenate([by_colour, np.ones(len(more), bool)])
    in_chroma = np.zeros(len(circles), bool)
    if params.chroma_search and mm_per_px is None:
        more = _coins_seen_in_chroma(views, lab, circles, params)
        circles, by_colour = circles + more, np.concatenate([by_colour, np.zeros(len(more), bool)])
        in_chroma = np.concatenate([in_chroma, np.ones(len(more), bool)])
    if len(circles) > seen_in_grey:
        colour, table = colour_features(lab, circles, scale)  # the cloth's colour away from every coin
    if not circles:
        return _lone_coins_on_edge(frame, views, mm_per_px, params), mm_per_px
    # The enrolled exemplars vote by the whole model's embeddings; without them the appearance
    # model's second half runs only for coins its first leaves in doubt (``vision._coin_model``).
    whole = profile is not None and len(profile.embeddings) > 0 and profile_fits_model(profile, params)
    out, meta = appearance(frame, circles, params, views.gray, whole=whole)
    weak = np.array([c.support < params.min_support for c in circles])
    if NOT_COIN in meta.kinds:
        # The model has seen dice pips, card symbols and cloth: drop what it says is none of ours,
        # and keep a circle with little edge only when it is sure that it is a coin.
        p_none = out.kind_prob[:, meta.kinds.index(NOT_COIN)].astype(np.float64)
        coin_like = (p_none < params.not_coin) & (~weak | (p_none < params.weak_not_coin))
        # A circle seen only in colour has less to show it is round and whole: the model must be surer.
        coin_like &= ~(by_colour | in_chroma) | (p_none < params.colour_not_coin)
        # A round coin the model is sure of sizes coins on edge where no scale is known.
        sure_coin = bool(np.any(coin_like & (p_none < params.edge_anchor)))
        if mm_per_px is None and not sure_coin:
            # No coin here the model is sure of and no scale to size one by: keep only circles
            # it all but believes are coins (``unanchored_not_coin``).
            coin_like &= p_none < params.unanchored_not_coin
    else:
        p_none = np.zeros(len(circles), np.float64)
        coin_like = ~weak
        sure_coin = True
    if not coin_like.all():
        circles = [c for c, ok in zip(circles, coin_like) if ok]
        by_colour = by_colour[coin_like]
        colour = colour[coin_like]
        p_none = p_none[coin_like]
        out = ModelOutput(out.kind_prob[coin_like], out.face_prob[coin_like], out.embedding[coin_like])
        if not circles:
            # No round coin after all: coins on their edge are sized by the scale, if known.
            return coins_on_edge(frame, lab[:, :, 0], [], scale, mm_per_px, [], params), mm_per_px
    rough = None
    if params.look_beneath:
        # A coin half hidden under another, and the one on it, are sized on part of their rims.
        circles, colour, p_none, out, rough = _with_coins_beneath(
            frame, views, lab, table, circles, colour, p_none, out, params, whole
        )
    if by_colour.any():
        # A coin seen only in colour is sized on its colour's edge, which the camera blurs more
        # than its lightness's (and a shadow's darkness may join): its size is rough.
        seen = np.concatenate([by_colour, np.zeros(len(circles) - len(by_colour), bool)])
        rough = seen if rough is None else rough | seen
    kind_prob = _reorder(out.kind_prob, meta.kinds)
    kind_prob = kind_prob / np.maximum(kind_prob.sum(axis=1, keepdims=True), 1e-9)
    face_prob = out.face_prob
    if whole and profile is not None:
        kind_prob, face_prob = profile.adapt(out.embedding, kind_prob, face_prob)

    colours = profile.colours if profile is not None and profile.colours else DEFAULT_COLOURS
    # With a known scale the true diameter decides; appearance only breaks near-ties.
    weight = params.appearance_weight if mm_per_px is None else params.appearance_weight_scaled
    reference = white if params.colour_against_white else None
    colour, trust = against_table(colour, table, params.colour_table_chroma, reference)
    colour_weight = params.colour_weight * trust
    evidence = weight * np.log(np.clip(kind_prob, 1e-2, 1.0)) + colour_weight * colour_loglik(colour[:, 1:], colours)
    # Each coin's radius as its size is measured (``size_at_edge_middle``), in frame pixels.
    size_px = np.array([c.size_r if params.size_at_edge_middle else c.r for c in circles], np.float64)
    radii = size_px
    if mm_per_px is not None and scale_at is not None:
        # Each radius as it would measure at the scale of the frame's centre.
        radii = radii * np.array([scale_at((c.x, c.y)) for c in circles], np.float64) / mm_per_px
    centre_radii = radii
    if profile is not None:
        # How this camera sees each kind's rim, learned at enrolment.
        radii = radii[:, None] / profile.size_factors()[None, :]
    kind_post, est = denominations(
        radii, evidence, mm_per_px, params.size_sigma, params.size_gain, params.size_gain_sigma,
        rough=rough, outlier=params.scale_outlier,
    )
    if params.kinds is not None:
        allowed = np.array([k in params.kinds for k in APPEARANCE_KINDS])
        # Appearance keeps its own say (``kind_prob``, unrestricted): a dime on a table of
        # pennies is read as a penny, but the appearance model disagrees, so never surely.
        kind_post = _only(kind_post, allowed)

    detections = []
    heads = meta.faces.index("heads")
    overlapping = overlapping_circles(circles, params.overlap_ratio)
    for i, c in enumerate(circles):
        k = int(np.argmax(kind_post[i]))
        kind = APPEARANCE_KINDS[k]
        p_kind = float(kind_post[i, k])
        p_heads = float(face_prob[i, heads])
        p_face = max(p_heads, 1.0 - p_heads)
        flags: tuple[str, ...] = ("stacked",) if c.stacked else ("overlapping",) if i in overlapping else ()
        value: str | None = None
        if not flags and kind != "other" and p_face >= params.face_min:
            value = "heads" if p_heads >= 0.5 else "tails"
        # Size, colour and appearance may disagree (a silver dime measured a little large reads as
        # a penny by size): a denomination the appearance model finds unlikely is not sure.
        agree = min(1.0, float(kind_prob[i, k]) / params.appearance_agree) if params.appearance_agree > 0 else 1.0
        # Sure only of a coin: the denomination was chosen among coins, so the model's doubt
        # that this is a coin at all counts too.
        is_coin = 1.0 - float(p_none[i]) if params.coin_doubt else 1.0
        confidence = 0.0 if flags else p_kind * p_face * agree * is_coin
        r = c.r
        bbox = (int(round(c.x - r)), int(round(c.y - r)), int(round(2 * r)), int(round(2 * r)))
        detections.append(
            Detection(
                kind=kind,
                value=value,
                bbox=bbox,
                confidence=float(confidence),
                center=(float(c.x), float(c.y)),
                flags=flags,
                extra={
                    "radius_px": float(r),
                    "size_radius_px": float(size_px[i]),
                    # Sized on part of its rim or on its colour's edge: weighed loosely.
                    "size_rough": bool(rough is not None and rough[i]),
                    "support": round(float(c.support), 3),
                    "diameter_mm": None if est is None else float(2 * centre_radii[i] * est),
                    "colour_lab": [round(float(v), 2) for v in colour[i]],
                    "kind_prob": {APPEARANCE_KINDS[j]: round(float(kind_post[i, j]), 4) for j in range(len(APPEARANCE_KINDS))},
                    "p_heads": round(p_heads, 4),
                    "p_not_coin": round(float(p_none[i]), 4),
                    "embedding": out.embedding[i],
                },
            )
        )
    detections.extend(tilted_coins(lab, table, circles, scale, est, params, p_none))
    if mm_per_px is not None or sure_coin:
        # Without a known scale, bars are sized against the round coins: only beside one the
        # model is sure is a coin (a card's numeral passes for a circle, its pips for bars).
        detections.extend(coins_on_edge(frame, lab[:, :, 0], circles, scale, est, detections, params))
    return detections, est


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


def measure_coins(
    frame: np.ndarray, circles: list[Circle], params: CoinParams = CoinParams(), white: np.ndarray | None = None
) -> tuple[np.ndarray, ModelOutput, ModelMeta]:
    """Colour (N x 3 Lab, relative to the table or to the printed ``white`` as :func:`against_table`
    takes it: what ``find_coins`` compares with each kind's colour) and the appearance model's
    output for each circle."""
    small, scale = work_image(frame, params.work_size)
    relative, table = colour_features(cv2.cvtColor(small, cv2.COLOR_BGR2LAB), circles, scale)
    reference = white if params.colour_against_white else None
    colour, _trust = against_table(relative, table, params.colour_table_chroma, reference)
    out, meta = appearance(frame, circles, params)
    return colour, out, meta


def profile_fits_model(profile: CoinProfile, params: CoinParams = CoinParams()) -> bool:
    """Whether ``profile``'s learned coins can vote with the coin model of ``params`` (they
    were learned with it); when not, ``find_coins`` uses the profile's colours and sizes only.

    :raises FileNotFoundError: if the coin model is missing.
    """
    model = load_model(params.model_dir)
    return profile.exemplars_fit(model.meta.fingerprint, model.embedding_size)


def appearance(
    frame: np.ndarray,
    circles: list[Circle],
    params: CoinParams = CoinParams(),
    gray: np.ndarray | None = None,
    whole: bool = True,
) -> tuple[ModelOutput, ModelMeta]:
    """The appearance model's kind, face and embedding for each circle (polar images of the grey
    frame). With ``whole`` false a model that comes in two halves runs its second only for the
    coins its first leaves in doubt: the same kinds, nearly the same faces, in less time, but
    embeddings not for enrolment (``vision._coin_model.CoinModel.run``)."""
    model = load_model(params.model_dir)
    meta = model.meta
    if gray is None:
        gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    grid = polar_grid(meta.n_radii, meta.n_angles, meta.pad, meta.inner, meta.outer)
    polar = polar_samples(gray, [(c.x, c.y, c.r) for c in circles], grid, meta.base_radius, meta.normalise)
    return model.run(polar, whole), meta


def tilted_coins(
    lab: np.ndarray,
    table: np.ndarray,
    circles: list[Circle],
    scale: float,
    mm_per_px: float | None,
    params: CoinParams,
    p_not_coin: np.ndarray | None = None,
) -> list[Detection]:
    """Coins on their edge or leaning, seen as elongated patches: reported, never read (only
    with ``params.tilted_search``, off by default).

    Their size is judged against the round coins found in the same frame, those the appearance
    model is sure are coins (``p_not_coin``, one per circle, below ``params.tilted_anchor``), so
    without such a coin nothing is reported (a bar of the right colour alone is too weak a clue).
    """
    if not params.tilted_search:
        return []
    anchors = circles if p_not_coin is None else [c for c, p in zip(circles, p_not_coin) if p < params.tilted_anchor]
    if not anchors:
        return []
    r_med = float(np.median([c.r for c in anchors]))
    lo, hi = 2 * r_med * params.tilted_size[0], 2 * r_med * params.tilted_size[1]
    min_area = params.tilted_min_area * np.pi * (r_med * scale) ** 2
    out = []
    for x, y, major, minor, angle in tilted_blobs(
        lab, table, circles, scale, params.tilted_colour, min_area, params.tilted_ratio
    ):
        if not lo <= major <= hi:
            continue
        kind = _kind_by_length(major, mm_per_px, params.kinds)
        flag = "on_edge" if minor / major < params.on_edge_ratio else "leaning"
        half = major / 2
        bbox = (int(round(x - half)), int(round(y - half)), int(round(major)), int(round(major)))
        out.append(
            Detection(
                kind=kind,
                value=None,
                bbox=bbox,
                confidence=0.0,
                center=(float(x), float(y)),
                flags=(flag,),
                extra={"major_px": float(major), "minor_px": float(minor), "angle": angle},
            )
        )
    return out


def _lone_coins_on_edge(frame: np.ndarray, views: FrameViews, mm_per_px: float | None, params: CoinParams) -> list[Detection]:
    """Coins on their edge in a frame where no round coin was found: looked for only when the
    scale is known (a coin thrown alone may land on its edge)."""
    if mm_per_px is None or params.on_edge_at > 1.0:
        return []
    lightness = cv2.cvtColor(views.small, cv2.COLOR_BGR2LAB)[:, :, 0]
    return coins_on_edge(frame, lightness, [], views.scale, mm_per_px, [], params)


def _kind_by_length(length_px: float, mm_per_px: float | None, kinds: tuple[str, ...] | None) -> str:
    """The denomination of a tilted coin: the table's one kind when it holds one (``kinds``),
    else the one whose diameter is nearest the coin's long axis, or a penny when the scale is
    unknown (its size then says little)."""
    allowed = [k for k in COIN_DIAMETER_MM if kinds is None or k in kinds]
    if len(allowed) == 1:
        return allowed[0]
    if mm_per_px is None:
        return "penny" if "penny" in allowed else allowed[0]
    d_mm = length_px * mm_per_px
    return min(allowed, key=lambda k: abs(np.log(d_mm / COIN_DIAMETER_MM[k])))


def coins_on_edge(
    frame: np.ndarray,
    lightness: np.ndarray,
    circles: list[Circle],
    scale: float,
    mm_per_px: float | None,
    reported: list[Detection],
    params: CoinParams,
) -> list[Detection]:
    """Coins standing on their edge (``vision.edge_coins``): bars of strong gradient in the work
    image's ``lightness`` that the coin-on-edge check confirms, reported with no value and no
    confidence (the players are asked, G-3). Their size is judged against the round coins found
    (``circles``), or, with none, against a coin of the table's at the known scale; with neither,
    or without the check's model file, none is reported. A bar where a tilted coin is already
    ``reported`` is left out."""
    if params.on_edge_at > 1.0:
        return []
    if circles:
        diameter = 2.0 * float(np.median([c.r for c in circles]))
    elif mm_per_px is not None:
        kind = params.kinds[0] if params.kinds is not None and len(params.kinds) == 1 else "penny"
        diameter = COIN_DIAMETER_MM[kind] / mm_per_px
    else:
        return []
    check = edge_net(params.model_dir)
    if check is None:
        return []
    bars = [
        b for b in edge_bars(lightness, circles, scale, diameter)
        if all(np.hypot(b[0] - d.center[0], b[1] - d.center[1]) > diameter / 2 for d in reported)
    ]
    out = []
    for (x, y, length, width), p in zip(bars, edge_probability(check, frame, bars, diameter)):
        if p < params.on_edge_at:
            continue
        half = length / 2
        out.append(
            Detection(
                kind=_kind_by_length(length, mm_per_px, params.kinds),
                value=None,
                bbox=(int(round(x - half)), int(round(y - half)), int(round(length)), int(round(length))),
                confidence=0.0,
                center=(float(x), float(y)),
                flags=("on_edge",),
                extra={"length_px": float(length), "width_px": float(width), "p_on_edge": round(float(p), 3)},
            )
        )
    return out


def _only(prob: np.ndarray, allowed: np.ndarray) -> np.ndarray:
    """Probabilities over kinds renormalised over the ``allowed`` columns (the others 0)."""
    kept = prob * allowed[None, :]
    out: np.ndarray = kept / np.maximum(kept.sum(axis=1, keepdims=True), 1e-9)
    return out


def _reorder(prob: np.ndarray, model_kinds: tuple[str, ...]) -> np.ndarray:
    """Model kind columns in :data:`APPEARANCE_KINDS` order."""
    idx = [model_kinds.index(k) for k in APPEARANCE_KINDS]
    out: np.ndarray = prob[:, idx]
    return out


def draw_coins(frame: np.ndarray, coins: list[Detection], params: CoinParams = CoinParams()) -> np.ndarray:
    """A copy of the frame with each coin's circle, kind and face drawn (for overlays)."""
    out = frame.copy()
    for d in coins:
        x, y = d.center
        r = d.bbox[2] / 2
        sure = d.confidence >= params.confident
        colour = (0, 200, 0) if sure else (0, 200, 255) if d.value is not None else (0, 0, 255)
        cv2.circle(out, (int(round(x)), int(round(y))), int(round(r)), colour, 2)
        label = f"{d.kind[0].upper()}{'' if d.value is None else str(d.value)[0]} {d.confidence:.2f}"
        cv2.putText(out, label, (int(x - r), int(y - r) - 4), cv2.FONT_HERSHEY_SIMPLEX, 0.5, colour, 1, cv2.LINE_AA)
    return out
