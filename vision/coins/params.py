"""The coin reader's parameters (``CoinParams``) and its confidence floor."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from vision._coin_model import MODEL_DIR, NOT_A_COIN, NOT_A_COIN_SKIP
from vision.print_erase import erase_print


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
