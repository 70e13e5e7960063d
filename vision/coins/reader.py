"""The whole coin reader (``find_coins``), and measuring given circles (``measure_coins``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import cv2
import numpy as np

from vision._coin_geometry import APPEARANCE_KINDS, Circle, colour_features, overlapping_circles, work_image
from vision._coin_model import ModelMeta, ModelOutput
from vision.coins.appearance import appearance, profile_fits_model
from vision.coins.circles import (
    _coins_seen_by_colour,
    _coins_seen_in_chroma,
    _with_coins_beneath,
    find_coin_circles,
)
from vision.coins.colour import DEFAULT_COLOURS, against_table, colour_loglik
from vision.coins.frames import frame_views, validate_frame
from vision.coins.kinds import _only, _reorder, denominations
from vision.coins.on_edge import _lone_coins_on_edge, coins_on_edge, tilted_coins
from vision.coins.params import CoinParams, NOT_COIN
from vision.types import Detection

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from vision.coin_profile import CoinProfile


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
