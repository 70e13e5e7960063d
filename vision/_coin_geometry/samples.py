"""Sampling coins: their discs, their colour features and their polar images for the appearance model."""

from __future__ import annotations

import cv2
import numpy as np

from vision._coin_geometry.circle import Circle


def disc_mask(shape: tuple[int, int], circles: list[Circle], scale: float, grow: float) -> np.ndarray:
    """A uint8 mask (255 inside) of every circle, its radius multiplied by ``grow``."""
    mask = np.zeros(shape, np.uint8)
    for c in circles:
        cv2.circle(mask, (round(c.x * scale), round(c.y * scale)), max(1, round(c.r * scale * grow)), 255, -1)
    return mask


def colour_features(lab: np.ndarray, circles: list[Circle], scale: float) -> tuple[np.ndarray, np.ndarray]:
    """Per coin: mean L, a, b of its face relative to the table around it (N x 3), and the table's Lab.

    The table colour is the median outside every coin; relative colour survives a change of
    light better than raw colour, so copper reads as copper under warm and cool light alike.
    Only the inner 80% of each coin's radius counts (its rim and shadow are left out).
    """
    h, w = lab.shape[:2]
    step = 3
    outside = disc_mask((h, w), circles, scale, 1.25)[::step, ::step] == 0
    sub = lab[::step, ::step]
    table = np.median(sub[outside], axis=0) if outside.any() else np.array([128.0, 128.0, 128.0])
    feats = np.zeros((len(circles), 3), np.float32)
    for i, c in enumerate(circles):
        cx, cy, r = c.x * scale, c.y * scale, max(1.0, c.r * scale * 0.8)
        x0, y0 = max(0, int(cx - r)), max(0, int(cy - r))
        x1, y1 = min(w, int(cx + r) + 2), min(h, int(cy + r) + 2)
        if x1 <= x0 or y1 <= y0:
            feats[i] = 0.0
            continue
        mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.circle(mask, (round(cx - x0), round(cy - y0)), max(1, round(r)), 255, -1)
        mean = cv2.mean(lab[y0:y1, x0:x1], mask=mask)
        feats[i] = np.array(mean[:3], np.float32) - table
    return feats, np.asarray(table, np.float32)


def polar_grid(n_radii: int, n_angles: int, pad: int, inner: float, outer: float) -> tuple[np.ndarray, np.ndarray]:
    """Unit-circle sample offsets (dx, dy) for a polar image with ``pad`` wrapped columns each side.

    Rows are radii from ``inner`` to ``outer`` (fractions of the coin radius), columns angles;
    the wrapped columns let a valid convolution see the seam, so a rotation of the coin is a
    circular shift of the polar image.
    """
    radii = np.linspace(inner, outer, n_radii, dtype=np.float32)
    cols = np.arange(-pad, n_angles + pad, dtype=np.float32)
    angles = cols * (2.0 * np.pi / n_angles)
    dx = radii[:, None] * np.cos(angles)[None, :]
    dy = radii[:, None] * np.sin(angles)[None, :]
    return dx.astype(np.float32), dy.astype(np.float32)


def polar_samples(
    gray: np.ndarray,
    circles: list[tuple[float, float, float]],
    grid: tuple[np.ndarray, np.ndarray],
    base_radius: int,
    normalise: str = "zscore",
) -> np.ndarray:
    """Polar images of each circle (N x rows x cols, float32, zero mean and unit spread per coin).

    Each coin is first scaled so its radius is ``base_radius`` pixels (anti-aliased), so a
    coin 30 or 300 pixels across gives the same picture. ``normalise`` is ``zscore``
    (subtract the mean, divide by the spread) or ``rank`` (each sample replaced by its rank
    within the coin, so a dark worn penny and a bright one with glare look alike).
    """
    if normalise not in ("zscore", "rank"):
        raise ValueError(f"normalise must be 'zscore' or 'rank', got {normalise!r}")
    dx, dy = grid
    out = np.zeros((len(circles), *dx.shape), np.float32)
    h, w = gray.shape[:2]
    for i, (x, y, r) in enumerate(circles):
        r = max(float(r), 2.0)
        half = int(np.ceil(r * 1.1)) + 2
        x0, y0 = int(round(x)) - half, int(round(y)) - half
        crop = _crop_padded(gray, x0, y0, 2 * half + 1, 2 * half + 1, w, h)
        f = base_radius / r
        size = max(4, int(round((2 * half + 1) * f)))
        small = cv2.resize(crop, (size, size), interpolation=cv2.INTER_AREA if f < 1 else cv2.INTER_LINEAR)
        fs = size / (2 * half + 1)
        cx, cy = (x - x0 + 0.5) * fs - 0.5, (y - y0 + 0.5) * fs - 0.5
        mapx = (cx + dx * r * fs).astype(np.float32)
        mapy = (cy + dy * r * fs).astype(np.float32)
        p = cv2.remap(small, mapx, mapy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
        if normalise == "rank":
            flat = p.ravel()
            ranks = np.empty(flat.size, np.float32)
            ranks[np.argsort(flat, kind="stable")] = np.arange(flat.size, dtype=np.float32)
            p = ((ranks / max(1, flat.size - 1) - 0.5) * np.sqrt(12.0)).reshape(p.shape)
        else:
            p -= p.mean()
            p /= p.std() + 1e-3
        out[i] = p
    return out


def _crop_padded(img: np.ndarray, x0: int, y0: int, cw: int, ch: int, w: int, h: int) -> np.ndarray:
    """A ``cw`` x ``ch`` crop at (x0, y0), edge pixels replicated where it leaves the image."""
    ax0, ay0, ax1, ay1 = max(0, x0), max(0, y0), min(w, x0 + cw), min(h, y0 + ch)
    if ax1 <= ax0 or ay1 <= ay0:
        return np.zeros((ch, cw), img.dtype)
    crop = img[ay0:ay1, ax0:ax1]
    if (ax0, ay0, ax1, ay1) != (x0, y0, x0 + cw, y0 + ch):
        crop = cv2.copyMakeBorder(
            crop, ay0 - y0, y0 + ch - ay1, ax0 - x0, x0 + cw - ax1, cv2.BORDER_REPLICATE
        )
    return crop
