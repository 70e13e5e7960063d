"""``read_table``: the one entry point from a settled frame to a :class:`TableObservation`.

Composes the coin reader (``vision.coins``) and the dice reader (``vision.dice``), settles
places where both claimed the same object (a die is not a coin), and, with a calibration,
places every object on the table in millimetres and in its zone.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Protocol

import numpy as np

from vision.coins import CoinParams, find_coins, profile_fits_model, validate_frame
from vision.enrol import CoinProfile
from vision.types import CONFIDENT, DIE_KINDS, Detection, TableObservation


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


def read_table(
    frame: np.ndarray,
    calibration: CalibrationLike | None = None,
    params: ReadParams | None = None,
    profile: CoinProfile | None = None,
) -> TableObservation:
    """Find and read every coin and die in a BGR uint8 frame.

    Without a calibration objects are still found and read; the coins' own sizes give the
    scale. With one, its scale decides denominations, and each object gets its position in
    table millimetres and its zone. ``profile`` is what enrolment learned of this table's coins.

    :raises ValueError: if the frame is not BGR uint8 H x W x 3, or the calibration lacks
        ``mm_per_px``.
    """
    frame = validate_frame(frame)
    params = params or ReadParams()
    notes: list[str] = []
    mm_per_px: float | None = None
    if calibration is not None:
        mm_per_px = getattr(calibration, "mm_per_px", None)
        if not isinstance(mm_per_px, (int, float)) or not mm_per_px > 0:
            raise ValueError(f"calibration.mm_per_px must be a positive number, got {mm_per_px!r}")
        mm_per_px = float(mm_per_px)

    coins: list[Detection] = []
    coin_scale: float | None = None
    if params.read_coins:
        # A calibration that knows its scale at each point (a tilted camera's varies) gives it.
        scale_at = getattr(calibration, "mm_per_px_at", None) if calibration is not None else None
        coins, coin_scale = find_coins(frame, params.coins, mm_per_px, profile, scale_at=scale_at)
        if profile is not None and len(profile.kinds) and not profile_fits_model(profile, params.coins):
            notes.append(
                "the table's learned coins were learned with another coin model: their faces are "
                "not used (colours and sizes are); learn this table again"
            )
    dice: list[Detection] = []
    if params.read_dice:
        try:
            from vision.dice import DiceParams, find_dice
        except ImportError:
            notes.append("dice reader not available: coins only")
        else:
            dice_params = params.dice if params.dice is not None else DiceParams()
            try:
                dice = list(find_dice(frame, dice_params, mm_per_px=mm_per_px if mm_per_px is not None else coin_scale))
            except FileNotFoundError as exc:
                # A missing model is an installation fault: say so, and still read the coins.
                notes.append(f"dice reader not available: {exc}")
    coins, dice = resolve_overlaps(coins, dice, params.die_over_coin, params.die_detail)
    coins = [replace(c, confidence=on_shared_scale(c.confidence, params.coins.confident)) for c in coins]

    scale = mm_per_px if mm_per_px is not None else coin_scale
    if calibration is None:
        if coins and coin_scale is not None:
            notes.append("no calibration: scale estimated from the coins themselves")
        elif coins:
            notes.append("no calibration and no scale: denominations from appearance only")
    objects = [*coins, *dice]
    if calibration is not None and objects:
        objects = place(objects, calibration)
    objects.sort(key=lambda d: (d.center[1], d.center[0]))
    h, w = frame.shape[:2]
    return TableObservation(objects=tuple(objects), frame_size=(w, h), mm_per_px=scale, notes=tuple(notes))


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
    """Area (px²) of a circle inside a box, by sampling a small grid over the circle."""
    cx, cy = center
    n = 16
    offs = (np.arange(n) + 0.5) / n * 2 - 1
    xs, ys = np.meshgrid(cx + offs * r, cy + offs * r)
    inside = (xs - cx) ** 2 + (ys - cy) ** 2 <= r * r
    x, y, w, h = box
    in_box = (xs >= x) & (xs <= x + w) & (ys >= y) & (ys <= y + h)
    cell = (2 * r / n) ** 2
    return float(np.count_nonzero(inside & in_box)) * cell


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
