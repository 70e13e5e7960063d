"""Coins standing on edge or tilted: found by their bars and blobs, their kind by their length."""

from __future__ import annotations

import cv2
import numpy as np

from vision._coin_geometry import COIN_DIAMETER_MM, Circle, tilted_blobs
from vision.coins.frames import FrameViews
from vision.coins.params import CoinParams
from vision.edge_coins import edge_bars, edge_net, edge_probability
from vision.types import Detection


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
