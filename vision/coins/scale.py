"""Coin sizes against a scale, and the scale (millimetres per pixel) that best explains every coin at once."""

from __future__ import annotations

import numpy as np

from vision._coin_geometry import APPEARANCE_KINDS, COIN_DIAMETER_MM


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
