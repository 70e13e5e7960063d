"""``read_table``: the one entry point from a settled frame to a :class:`TableObservation`.

Composes the coin reader (``vision.coins``) and the dice reader (``vision.dice``), settles
places where both claimed the same object (a die is not a coin), and, with a calibration,
places every object on the table in millimetres and in its zone.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any, Protocol

import cv2
import numpy as np

from vision._coin_geometry import APPEARANCE_KINDS, COIN_DIAMETER_MM
from vision.close_ups import find_close_up_coins, with_close_ups
from vision.coins import CoinParams, find_coins, profile_fits_model, validate_frame
from vision.enrol import CoinProfile
from vision.foreshortening import Blobs, blobs_of, squash_of, stretched, unstretched
from vision.marker_scale import marker_scale
from vision.types import CONFIDENT, DIE_KINDS, Detection, TableObservation
from vision.white_reference import printed_white


SCALED_MIN_SUPPORT = 0.65
"""``CoinParams.min_support`` when the table's scale is known (sizes then rule out most false circles)."""

SMALLEST_COIN_MM = COIN_DIAMETER_MM["dime"]
"""The dime's diameter: the smallest coin the coin reader must find."""

LARGEST_COIN_MM = COIN_DIAMETER_MM["other"]
"""The small dollar's diameter: the largest coin the coin reader tells apart."""

LARGEST_RADIUS_MARGIN = 1.5
"""How much larger than the largest coin a circle may be searched for at a known scale: the
scale varies across a tilted camera's frame (up to 7%), a rim's shadow adds a few per cent,
and a coin raised on another is nearer the camera."""

SCALED_SEARCH_RADIUS = 10.0
"""With a known scale, circles are searched for in an image large enough that 80% of a dime's
radius is this many pixels in it (``CoinParams.circle_size``)."""

FULL_FRAME_SEARCH = 0.75
"""With a known scale, circles are searched for in the full-resolution frame itself when the
image ``SCALED_SEARCH_RADIUS`` asks for would be at least this share of its long side: no
reduced image to make (its resize took a fifth of the calibrated read), and coins sharper
(more found and read right on the dev and validation scenes at their scale; the fixture camera
asks for 992 to 1,088 px of 1,280)."""


class CalibrationLike(Protocol):
    """What ``read_table`` needs of a calibration (``vision.calibration.Calibration`` has it)."""

    @property
    def mm_per_px(self) -> float:
        """Millimetres per frame pixel at the table's centre."""
        ...

    def image_to_table(self, points: Any) -> Any:
        """Frame pixels (N x 2) to table millimetres (N x 2)."""
        ...

    def zone_of(self, point_mm: tuple[float, float]) -> str | None:
        """The zone id at a table point, or ``None``."""
        ...


@dataclass(frozen=True)
class ReadParams:
    """Parameters of the whole read: the coin reader's and the dice reader's."""

    coins: CoinParams = CoinParams()
    """Coin reader thresholds."""
    dice: Any = None
    """``vision.dice.DiceParams`` for the dice reader, or ``None`` for its defaults."""
    read_dice: bool = True
    """Whether to look for dice at all."""
    read_coins: bool = True
    """Whether to look for coins at all (a dice game's table holds none: a round pip or a
    printed letter is then never taken for a coin)."""
    die_over_coin: float = 0.3
    """A coin and a die sharing at least this fraction of the smaller one's area are one object."""
    die_detail: float = 0.5
    """A die box smaller than this fraction of the coin it lies on is a detail of that coin."""
    scale_from_markers: bool = True
    """Without a calibration, take the scale from the printed table's corner markers when two or
    more are seen (``vision.marker_scale``): a photo of the referee's own table is then read at
    its scale (about 3 ms to look for them)."""
    unsquash: bool = True
    """Without a known scale, where every round thing shows as one ellipse (a photo squeezed
    along an axis, a camera at a slant: ``vision.foreshortening``), also search the coins in
    the frame stretched round again, and keep that search's coins when it reads more surely."""
    close_ups: bool = True
    """Without a known scale, also look for coins too large for the usual search (a close-up
    photo: ``vision.close_ups``), leaving out any that a plain die lies on."""


def params_for_scale(mm_per_px: float | None, width: int, height: int) -> ReadParams:
    """``ReadParams`` for a camera at this scale (millimetres per pixel), or the defaults for ``None``.

    The coin reader's defaults look for coins of at least 1.25% of the frame's long side in a
    480-pixel work image, and for smaller ones in a second, finer search. With a known scale
    the smallest radius searched is 80% of a dime's, in an image large enough to give it
    ``SCALED_SEARCH_RADIUS`` pixels, or in the frame itself when that image would be nearly as
    large (``FULL_FRAME_SEARCH``) (one search: no finer one is needed), while colours are
    measured in the 480-pixel work image as without a scale (on the dev scenes as many coins
    found, 33 ms a frame instead of 42 with everything in the larger image); the largest radius
    is ``LARGEST_RADIUS_MARGIN`` times a dollar coin's (no larger circle is a coin, and the
    circle search's time grows with the span of radii); and the rim's edge need show on
    ``SCALED_MIN_SUPPORT`` of it. (The dice reader takes fainter candidates at any known
    scale by itself: ``vision.dice.DiceParams.det_threshold_scaled``.)
    """
    if mm_per_px is None or not mm_per_px > 0:
        return ReadParams()
    defaults = CoinParams()
    long_side = max(width, height)
    smallest_px = 0.8 * SMALLEST_COIN_MM / 2.0 / mm_per_px
    min_radius = min(defaults.min_radius, smallest_px / long_side)
    largest_px = LARGEST_RADIUS_MARGIN * LARGEST_COIN_MM / 2.0 / mm_per_px
    max_radius = max(1.5 * min_radius, min(defaults.max_radius, largest_px / long_side))
    circle_size = min(long_side, int(round(SCALED_SEARCH_RADIUS / smallest_px * long_side / 32.0)) * 32)
    if circle_size >= FULL_FRAME_SEARCH * long_side:
        circle_size = long_side
    coins = CoinParams(
        circle_size=circle_size,
        min_radius=min_radius,
        max_radius=max_radius,
        small_radius=min_radius,
        min_support=SCALED_MIN_SUPPORT,
    )
    return ReadParams(coins=coins)


def params_for_kinds(params: ReadParams, kinds: Iterable[str]) -> ReadParams:
    """``params`` looking only for ``kinds`` (coin kinds and die kinds, any mix): no coin
    search without a coin kind, no dice finder without a die kind, and each reader told which
    of its kinds the table holds (a table of pennies reads no nickel). Kinds ``params``
    already leaves out stay out. An empty ``kinds`` looks for nothing (a game of cards has
    no object the camera reads).

    >>> p = params_for_kinds(ReadParams(), {"penny"})
    >>> p.read_coins, p.read_dice, p.coins.kinds
    (True, False, ('penny',))

    :raises ValueError: naming any kind vision does not read.
    """
    wanted = set(kinds)
    unknown = wanted - set(APPEARANCE_KINDS) - set(DIE_KINDS)
    if unknown:
        raise ValueError(f"kinds: vision reads {', '.join((*APPEARANCE_KINDS, *DIE_KINDS))}, "
                         f"not {', '.join(sorted(unknown))}")
    from vision.dice import DiceParams

    dice_params = params.dice if params.dice is not None else DiceParams()
    coins = tuple(kind for kind in params.coins.kinds or APPEARANCE_KINDS if kind in wanted)
    dice = tuple(kind for kind in dice_params.kinds or DIE_KINDS if kind in wanted)
    return replace(
        params,
        coins=replace(params.coins, kinds=coins or None),
        read_coins=params.read_coins and bool(coins),
        dice=replace(dice_params, kinds=dice or None),
        read_dice=params.read_dice and bool(dice),
    )


def read_table(
    frame: np.ndarray,
    calibration: CalibrationLike | None = None,
    params: ReadParams | None = None,
    profile: CoinProfile | None = None,
    kinds: Iterable[str] | None = None,
) -> TableObservation:
    """Find and read every coin and die in a BGR uint8 frame.

    Without a calibration objects are still found and read: the printed table's corner
    markers give the scale when two or more are seen (``ReadParams.scale_from_markers``), else
    the coins' own sizes; and, with no scale known, coins are also looked for in the frame
    stretched round where every coin shows as one ellipse (``ReadParams.unsquash``) and among
    circles too large for the usual search (``ReadParams.close_ups``). With one, its scale decides denominations, and each object gets its
    position in table millimetres and its zone. With a known scale (the calibration's or the
    markers') and no ``params``, coins are searched for at their size on this table
    (:func:`params_for_scale`). ``kinds`` names the kinds of object to look for (``None``:
    all): a coin game's frame is not searched for dice, nor a dice game's for coins, and
    each reader names only the table's kinds (:func:`params_for_kinds`). Where the markers are in the frame (found, or placed by the
    calibration), coins' colour is judged against their printed white
    (``CoinParams.colour_against_white``). ``profile`` is what enrolment learned of this
    table's coins. Each object's ``value`` is its face only where the referee would rule on
    it (``Detection.gated``); its ``guess`` is the face read, however unsure.

    :raises ValueError: if the frame is not BGR uint8 H x W x 3, the calibration lacks
        ``mm_per_px`` or ``kinds`` names a kind vision does not read.
    """
    frame = validate_frame(frame)
    wanted = None if kinds is None else frozenset(kinds)
    if wanted is not None:
        params_for_kinds(ReadParams(), wanted)  # a bad kind is refused before any work
    notes: list[str] = []
    mm_per_px: float | None = None
    if calibration is not None:
        mm_per_px = getattr(calibration, "mm_per_px", None)
        if not isinstance(mm_per_px, (int, float)) or not mm_per_px > 0:
            raise ValueError(f"calibration.mm_per_px must be a positive number, got {mm_per_px!r}")
        mm_per_px = float(mm_per_px)
    # A calibration that knows its scale at each point (a tilted camera's varies) gives it.
    scale_at = getattr(calibration, "mm_per_px_at", None) if calibration is not None else None
    markers = None
    gray = None
    if calibration is None and (params is None or params.scale_from_markers):
        # No calibration, but the printed table's corner markers, of known size, give the scale.
        # The grey frame made for them serves the coin reader too.
        gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        markers = marker_scale(gray)
        if markers is not None:
            mm_per_px, scale_at = markers.mm_per_px, markers.mm_per_px_at
            notes.append(f"no calibration: scale from {markers.markers} of the printed table's corner markers")
    if params is None:
        params = params_for_scale(mm_per_px, frame.shape[1], frame.shape[0])
    if wanted is not None:
        params = params_for_kinds(params, wanted)

    coins: list[Detection] = []
    coin_scale: float | None = None
    blobs: Blobs | None = None  # measured once, for the squash and the close-ups
    if params.read_coins:
        white = None
        if params.coins.colour_against_white:
            quads = markers.quads if markers is not None else calibrated_marker_quads(calibration, frame.shape)
            white = printed_white(frame, quads)
        coins, coin_scale = find_coins(frame, params.coins, mm_per_px, profile, scale_at=scale_at, gray=gray, white=white)
        if profile is not None and len(profile.kinds) and not profile_fits_model(profile, params.coins):
            notes.append(
                "the table's learned coins were learned with another coin model: their faces are "
                "not used (colours and sizes are); learn this table again"
            )
        if params.unsquash and mm_per_px is None:
            blobs = blobs_of(frame)
            coins, coin_scale, note = _unsquashed_coins(frame, params.coins, profile, coins, coin_scale, blobs)
            notes.extend(note)
    dice: list[Detection] = []
    if params.read_dice:
        try:
            from vision.dice import DiceParams, find_dice
        except ImportError:
            notes.append("dice reader not available: coins only")
        else:
            dice_params = params.dice if params.dice is not None else DiceParams()
            try:
                # A candidate die centred on a coin read surely is that coin: not read again
                # (a quarter of the candidates on the held-back scenes, the same reads). At a
                # known scale so is one centred on any coin lying flat, sure or not: a circle
                # of a coin's size with a rim all round is a coin, whatever its face (a sixth
                # of the candidates left, the same reads on the dev and held-back scenes).
                # Without a scale a die may pass for a coin (3 dice-rune55 dice were lost).
                coins_there = [
                    (c.center[0], c.center[1], c.bbox[2] / 2.0)
                    for c in coins
                    if (c.confidence >= params.coins.confident or mm_per_px is not None) and not c.flags
                ]
                # The coins' own scale bounds the dice' size only when a coin is read surely:
                # unsure "coins" may be dice or printed rings (on a dice-rune55 tray shown at
                # twice its size, one unsure "penny" cut 16 dice to 7).
                sure_coin = any(c.confidence >= params.coins.confident for c in coins)
                dice_scale = mm_per_px if mm_per_px is not None else coin_scale if sure_coin else None
                # A calibration's or the markers' scale means a camera over a known table,
                # where reads are sure sooner than on a phone's photo of a heap of dice.
                table = mm_per_px is not None
                dice = list(find_dice(frame, dice_params, mm_per_px=dice_scale, not_at=coins_there, table=table))
            except FileNotFoundError as exc:
                # A missing model is an installation fault: say so, and still read the coins.
                notes.append(f"dice reader not available: {exc}")
    if params.close_ups and params.read_coins and mm_per_px is None:
        # A close-up of a coin or a few: coins larger than the usual search looks for, beside
        # those it found. Only here, once the dice are read, so that a plate or a die's round
        # inset under a plain die is never taken for one (a calibrated table's coins are of
        # known size: no close-up to look for).
        large, large_scale = find_close_up_coins(frame, params.coins, dice, profile, gray, blobs)
        if large:
            usual = coins
            coins = with_close_ups(usual, large, params.coins.confident)
            if not any(any(c is u for u in usual) for c in coins):
                coin_scale = large_scale  # only close-up coins: their sizes give the scale
    # Both readers' confidences on one scale before they are weighed against each other: the
    # dice reader's are there already (sure at CONFIDENT), the coin reader's are sure at its own
    # level (a coin read unsurely at 0.85 outweighed a die read surely at 0.8).
    coins = [replace(c, confidence=on_shared_scale(c.confidence, params.coins.confident)) for c in coins]
    coins, dice = resolve_overlaps(coins, dice, params.die_over_coin, params.die_detail)

    scale = mm_per_px if mm_per_px is not None else coin_scale
    if calibration is None and markers is None:
        if coins and coin_scale is not None:
            notes.append("no calibration: scale estimated from the coins themselves")
        elif coins:
            notes.append("no calibration and no scale: denominations from appearance only")
    objects = [*coins, *dice]
    if calibration is not None and objects:
        objects = place(objects, calibration)
    objects.sort(key=lambda d: (d.center[1], d.center[0]))
    # One meaning of ``value`` from here on: a face only where the referee would rule on it.
    objects = [d.gated() for d in objects]
    h, w = frame.shape[:2]
    return TableObservation(objects=tuple(objects), frame_size=(w, h), mm_per_px=scale, notes=tuple(notes))


def calibrated_marker_quads(calibration: Any, shape: tuple[int, ...]) -> list[np.ndarray]:
    """The corners (4 x 2 frame pixels) of each corner marker of a calibration's table that lies
    wholly in a frame of ``shape``: where its printed white is seen. None for a calibration that
    knows no markers (one made by hand) or cannot place table points in the frame."""
    spec = getattr(calibration, "markers", None)
    size = getattr(calibration, "table_size_mm", None)
    to_image = getattr(calibration, "table_to_image", None)
    if spec is None or size is None or to_image is None:
        return []
    h, w = shape[:2]
    quads = []
    for marker_id in spec.ids:
        quad = np.asarray(to_image(spec.corners_mm(marker_id, size)), np.float64).reshape(4, 2)
        if np.isfinite(quad).all() and (quad >= 0).all() and (quad[:, 0] <= w - 1).all() and (quad[:, 1] <= h - 1).all():
            quads.append(quad)
    return quads


def _unsquashed_coins(
    frame: np.ndarray,
    params: CoinParams,
    profile: CoinProfile | None,
    coins: list[Detection],
    coin_scale: float | None,
    blobs: Blobs,
) -> tuple[list[Detection], float | None, list[str]]:
    """The coins of a frame whose round things all show squashed alike, searched again in the
    frame stretched round (``vision.foreshortening``), when that search reads more coins surely
    (two at least) than the search in the frame as it is; else ``coins`` as they are. Returns
    the coins, their scale and a note saying which search they come from. ``blobs`` are the
    frame's (``vision.foreshortening.blobs_of``)."""
    squash = squash_of(blobs)
    if squash is None:
        return coins, coin_scale, []
    wide, sx, sy = stretched(frame, squash)
    again, again_scale = find_coins(wide, params, None, profile)

    def sure(found: list[Detection]) -> int:
        return sum(c.confidence >= params.confident and c.value is not None and not c.flags for c in found)

    if sure(again) < 2 or sure(again) <= sure(coins):
        return coins, coin_scale, []
    axis = "height" if squash.axis == "y" else "width"
    note = (f"the coins all show squeezed to {squash.ratio:.2f} of their {axis} (a stretched photo "
            f"or a slanted camera): read in the frame stretched back")
    return unstretched(again, sx, sy), again_scale, [note]


def resolve_overlaps(
    coins: list[Detection], dice: list[Detection], min_overlap: float, detail_ratio: float = 0.5
) -> tuple[list[Detection], list[Detection]]:
    """Coins and dice left once each object claimed by both readers is given to one of them.

    A coin and a die overlap when at least ``min_overlap`` of the smaller one's area is
    shared. A "die" much smaller than the coin it lies on (box under ``detail_ratio`` of the
    coin's area) is a detail of the coin's design and goes. Otherwise the more confident
    read wins, the die on a tie: a die's face can show a round outline, a coin never shows pips.
    """
    if not dice or not coins:
        return coins, dice
    drop_coin: set[int] = set()
    drop_die: set[int] = set()
    for i, c in enumerate(coins):
        r = c.bbox[2] / 2.0
        coin_area = np.pi * r * r
        for j, d in enumerate(dice):
            if d.kind not in DIE_KINDS:
                continue
            die_area = float(d.bbox[2] * d.bbox[3])
            shared = _circle_box_overlap(c.center, r, d.bbox)
            if shared < min_overlap * (min(coin_area, die_area) or 1.0):
                continue
            if die_area < detail_ratio * coin_area and not c.flags:
                drop_die.add(j)
            elif c.confidence > d.confidence:
                drop_die.add(j)
            else:
                drop_coin.add(i)
    return (
        [c for i, c in enumerate(coins) if i not in drop_coin],
        [d for j, d in enumerate(dice) if j not in drop_die],
    )


def _circle_box_overlap(center: tuple[float, float], r: float, box: tuple[int, int, int, int]) -> float:
    """Area (px²) of a circle inside a box, by sampling a small grid over the region where the
    circle's square and the box meet (so that a die's box on a coin filling a close-up is
    sampled at its own scale, not missed between the points of a grid over the whole coin)."""
    cx, cy = center
    x, y, w, h = box
    x0, x1 = max(cx - r, float(x)), min(cx + r, float(x + w))
    y0, y1 = max(cy - r, float(y)), min(cy + r, float(y + h))
    if x1 <= x0 or y1 <= y0:
        return 0.0  # apart: most pairs in a frame
    n = 16
    xs, ys = np.meshgrid(x0 + (np.arange(n) + 0.5) / n * (x1 - x0), y0 + (np.arange(n) + 0.5) / n * (y1 - y0))
    inside = (xs - cx) ** 2 + (ys - cy) ** 2 <= r * r
    return float(np.count_nonzero(inside)) * (x1 - x0) * (y1 - y0) / (n * n)


def place(objects: list[Detection], calibration: CalibrationLike) -> list[Detection]:
    """Each object with its position in table millimetres and its zone."""
    centers = np.array([d.center for d in objects], np.float64).reshape(-1, 2)
    mm = np.asarray(calibration.image_to_table(centers), np.float64).reshape(-1, 2)
    out = []
    for d, (x, y) in zip(objects, mm):
        pos = (float(x), float(y))
        out.append(replace(d, position_mm=pos, zone=calibration.zone_of(pos)))
    return out


def on_shared_scale(confidence: float, sure_at: float) -> float:
    """A reader's confidence mapped so that its own sure level ``sure_at`` lands on the shared
    :data:`vision.types.CONFIDENT` (monotone, 0..1): reads the reader is not sure of stay below
    the level the referee acts on."""
    sure_at = min(max(sure_at, 1e-6), 1.0 - 1e-6)
    if confidence < sure_at:
        return CONFIDENT * confidence / sure_at
    return CONFIDENT + (1.0 - CONFIDENT) * (confidence - sure_at) / (1.0 - sure_at)
