"""Finding coin circles and sampling them: the pixel half of the coin reader.

Everything here works on one frame and returns plain arrays; ``vision.coins`` composes it.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.types import COIN_KINDS

COIN_DIAMETER_MM: dict[str, float] = {
    "penny": 19.05,
    "nickel": 21.21,
    "dime": 17.91,
    "quarter": 24.26,
    "other": 26.49,
}
"""True diameters (US Mint). ``other`` is the small-size dollar (Sacagawea, Presidential, SBA)."""

APPEARANCE_KINDS: tuple[str, ...] = (*COIN_KINDS, "other")
"""The classes the appearance model tells apart, in its output order."""


@dataclass(frozen=True)
class Circle:
    """One circle found in the frame, in full-frame pixels."""

    x: float
    y: float
    r: float
    stacked: bool = False
    """It lies inside or over another coin, so neither can be read for sure."""


def work_image(frame: np.ndarray, work_size: int) -> tuple[np.ndarray, float]:
    """The frame scaled so its long side is ``work_size`` (never enlarged), and that scale.

    Halves with ``pyrDown`` (smoothed, fast) while it can, then resizes the rest of the way.
    """
    long_side = max(frame.shape[:2])
    if long_side <= work_size:
        return frame, 1.0
    small = frame
    while max(small.shape[:2]) >= 2 * work_size:
        small = cv2.pyrDown(small)
    h, w = frame.shape[:2]
    scale = work_size / long_side
    size = (max(1, round(w * scale)), max(1, round(h * scale)))
    if (small.shape[1], small.shape[0]) != size:
        small = cv2.resize(small, size, interpolation=cv2.INTER_AREA)
    return small, scale


def hough_circles(
    gray: np.ndarray, min_r: int, max_r: int, dp: float, param1: float, param2: float
) -> np.ndarray:
    """Raw circle candidates (N x 3: x, y, r) from OpenCV's gradient-alternative Hough transform."""
    blurred = cv2.GaussianBlur(gray, (5, 5), 1.2)
    found = cv2.HoughCircles(
        blurred,
        cv2.HOUGH_GRADIENT_ALT,
        dp,
        minDist=max(2.0, min_r * 1.2),
        param1=param1,
        param2=param2,
        minRadius=min_r,
        maxRadius=max_r,
    )
    if found is None:
        return np.zeros((0, 3), np.float32)
    return np.asarray(found[0], np.float32).reshape(-1, 3)


def suppress(circles: np.ndarray, inner_ratio: float, rim_ratio: float) -> list[Circle]:
    """Keep one circle per coin.

    Largest first. A circle whose centre lies well inside a kept one is its inner rim or a
    detail of its design, unless its size could be a second coin lying on top of the first
    (at least ``inner_ratio`` of the outer radius, and not concentric with it): then both are
    marked stacked. ``rim_ratio`` is how close to concentric a rim circle is.
    """
    order = np.argsort(-circles[:, 2]) if len(circles) else np.zeros(0, int)
    kept: list[list[float]] = []
    stacked: set[int] = set()
    for x, y, r in circles[order]:
        keep = True
        overlapped_by: list[int] = []
        for j, (kx, ky, kr) in enumerate(kept):
            d = float(np.hypot(x - kx, y - ky))
            if d < 0.5 * kr:
                # Centre inside the larger coin's middle: a rim or a design detail.
                keep = False
                break
            if d + r < kr * 1.05:
                # Fully inside a larger circle and off-centre.
                if r >= inner_ratio * kr and d > rim_ratio * kr:
                    overlapped_by.append(j)
                else:
                    keep = False
                    break
            elif d < 0.8 * (r + kr) and r < 0.6 * kr:
                # A small circle straddling a big coin's edge: design ring, not a coin.
                keep = False
                break
        if keep:
            for j in overlapped_by:
                stacked.add(j)
                stacked.add(len(kept))
            kept.append([float(x), float(y), float(r)])
    return [Circle(x, y, r, i in stacked) for i, (x, y, r) in enumerate(kept)]


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
    outside = disc_mask((h, w), circles, scale, 1.25) == 0
    table = np.median(lab[outside][::7], axis=0) if outside.any() else np.array([128.0, 128.0, 128.0])
    # One label image: pixel value i + 1 inside coin i (later coins over earlier ones).
    ids = np.zeros((h, w), np.int32)
    for i, c in enumerate(circles):
        cv2.circle(ids, (round(c.x * scale), round(c.y * scale)), max(1, round(c.r * scale * 0.8)), i + 1, -1)
    flat = ids.ravel()
    n = len(circles) + 1
    counts = np.bincount(flat, minlength=n)[1:].astype(np.float64)
    feats = np.zeros((len(circles), 3), np.float32)
    for ch in range(3):
        sums = np.bincount(flat, weights=lab[..., ch].ravel().astype(np.float64), minlength=n)[1:]
        feats[:, ch] = np.where(counts > 0, sums / np.maximum(counts, 1), table[ch]) - table[ch]
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
    gray: np.ndarray, circles: list[tuple[float, float, float]], grid: tuple[np.ndarray, np.ndarray], base_radius: int
) -> np.ndarray:
    """Polar images of each circle (N x rows x cols, float32, zero mean and unit spread per coin).

    Each coin is first scaled so its radius is ``base_radius`` pixels (anti-aliased), so a
    coin 30 or 300 pixels across gives the same picture.
    """
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
