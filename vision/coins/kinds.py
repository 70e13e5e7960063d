"""Denominations from size, colour and appearance together."""

from __future__ import annotations

import numpy as np

from vision._coin_geometry import APPEARANCE_KINDS
from vision.coins.scale import estimate_scale, refine_scale, size_loglik


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
