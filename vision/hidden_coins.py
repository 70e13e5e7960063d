"""Coins half hidden under another: the crescent a coin lying on another leaves showing.

A coin thrown onto another rests on it, and from above the pair shows as one whole coin and
a crescent of the one beneath. The circle search finds the whole coin only: the crescent's
arc is too short for it. The reader then reported one coin where two lie, often with a sure
face, though neither lies flat (RULES G-3: the throw is not valid). :func:`coins_beneath`
looks beside each coin for the arc of a second coin's rim running out from under it, with an
edge all along the arc and the coin's colour, not the table's or a shadow's, inside it.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision._coin_geometry import Circle, fit_circles, table_distance


@dataclass(frozen=True)
class HiddenCoinParams:
    """Thresholds of the search for coins half hidden under another."""

    ring: float = 1.2
    """The first look: the table is sampled on a ring this many radii from the coin's centre;
    a crescent runs through it (a coin beneath at 0.3 radii or more shows beyond it)."""
    unlike_table: float = 18.0
    """A ring sample is unlike the table when its colour differs by this
    (``vision._coin_geometry.table_distance``)."""
    shadow_darker: float = 5.0
    """A colour at least this much darker than the table (Lab L) may be a shadow's: a shadow
    darkens the cloth, a coin has its metal's colour. It is one when nearly grey (chroma under
    ``shadow_chroma``) or of the table's hue (``shadow_hue``) and no more colourful than it by
    ``shadow_chroma``."""
    shadow_hue: float = 30.0
    """Degrees of hue (Lab a, b) within which a darker colour is the table's in shadow."""
    shadow_chroma: float = 8.0
    """Chroma under which a darker colour is grey, and by which a shadow may be more colourful
    than the table."""
    least_run: int = 5
    """Least run of ring samples unlike the table (of ``RING_SAMPLES``) worth a closer look."""
    offsets: tuple[float, ...] = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
    """Offsets of the hidden coin's centre tried, in the top coin's radii (farther apart, more
    than half of it shows, and the circle search finds it)."""
    sizes: tuple[float, ...] = (0.75, 0.87, 1.0, 1.13, 1.3)
    """Radii of the hidden coin tried, in the top coin's (a dime under a quarter is 0.74 of it)."""
    clear: float = 1.1
    """Only the part of the hidden coin's rim this many radii from the top coin's centre counts
    (the top coin's own rim and its shadow lie inside)."""
    least_reach: float = 0.3
    """The hidden coin must reach at least this many of the top coin's radii beyond its rim
    (less is the top coin's own rim or shadow)."""
    fit_residual: float = 0.05
    """The showing rim's edge points must lie on one circle: their median distance from the
    circle fitted to them at most this share of its radius."""
    least_arc: float = 0.3
    """Least share of the hidden coin's rim that must show."""
    least_support: float = 0.75
    """Least share of the showing rim with an edge across it."""
    edge_share: float = 0.3
    """An edge counts when its gradient is at least this share of the top coin's rim's
    (its 75th percentile)."""
    alignment: float = 0.8
    """... and points across the rim: |cos| of its angle to the rim's normal at least this."""


RING_SAMPLES = 48
"""Samples on the first look's ring."""
RIM_SAMPLES = 72
"""Samples on a rim: a coin's, a candidate hidden coin's."""


def coins_beneath(
    gray: np.ndarray,
    lab: np.ndarray,
    lab_scale: float,
    table: np.ndarray,
    circles: list[Circle],
    params: HiddenCoinParams = HiddenCoinParams(),
) -> list[Beneath]:
    """Each coin with another half hidden beneath it (:class:`Beneath`; both circles marked stacked).

    ``gray`` is the full-resolution grey frame the circles are in; ``lab`` the reduced frame in
    Lab at ``lab_scale`` of it, and ``table`` the table's Lab colour there.
    """
    found: list[Beneath] = []
    if not circles:
        return found
    centres = np.array([[c.x, c.y, c.r] for c in circles], np.float64)
    for i, (c, run) in enumerate(zip(circles, _unlike_runs(lab, lab_scale, table, centres, params))):
        if c.stacked or run is None:
            continue
        grads = _Gradients(gray, c, 1.0 + max(params.offsets) + max(params.sizes))
        best = _best_arc(grads, c, run, centres, i, params)
        if best is None:
            continue
        colour = _crescent_colour(lab, lab_scale, c, best, params)
        if colour is None or not _coin_coloured(colour, table, params):
            continue
        top = _refit_top(grads, c, best)
        if _reach(top, best) < params.least_reach:
            # The coin refitted to its own rim lies where the hidden one was found: the circle
            # search had joined two coins side by side, and there is no coin beneath.
            continue
        found.append(Beneath(i, top, best, colour))
    return found


@dataclass(frozen=True)
class Beneath:
    """A coin lying on another that is half hidden under it."""

    top: int
    """The top coin's index among the circles searched."""
    top_circle: Circle
    """The top coin's circle fitted again to its own rim (the circle search fits the pair's
    outline, a coin and its crescent, and finds it too large), or as found where that fails."""
    hidden: Circle
    """The hidden coin's circle, fitted to the rim it shows; its ``support`` is the share of
    that rim with an edge across it."""
    crescent_colour: np.ndarray
    """The median Lab colour of the hidden coin where it shows (in the reduced frame)."""


class _Gradients:
    """The grey frame's gradient around one coin, sampled at frame points."""

    def __init__(self, gray: np.ndarray, c: Circle, reach: float) -> None:
        h, w = gray.shape[:2]
        span = int(np.ceil(c.r * reach)) + 3
        self.x0, self.y0 = max(0, int(c.x) - span), max(0, int(c.y) - span)
        x1, y1 = min(w, int(c.x) + span + 1), min(h, int(c.y) + span + 1)
        crop = cv2.GaussianBlur(gray[self.y0 : y1, self.x0 : x1], (3, 3), 0).astype(np.float32)
        self.gx = cv2.Sobel(crop, cv2.CV_32F, 1, 0, ksize=3)
        self.gy = cv2.Sobel(crop, cv2.CV_32F, 0, 1, ksize=3)
        self.mag = np.hypot(self.gx, self.gy)
        self.size = (w, h)

    def at(self, px: np.ndarray, py: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Gradient x, y and magnitude at the nearest pixel to each frame point."""
        ch, cw = self.mag.shape[:2]
        xs = np.clip(np.round(px - self.x0).astype(int), 0, cw - 1)
        ys = np.clip(np.round(py - self.y0).astype(int), 0, ch - 1)
        return self.gx[ys, xs], self.gy[ys, xs], self.mag[ys, xs]

    def rim_points(self, x: float, y: float, rays: np.ndarray, radii: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Along each ray from (x, y), the outermost point among ``radii`` (ascending) with a strong
        edge across it (half the ray's strongest or more), as ``vision._coin_geometry.refine_circles``
        takes a coin's rim: its raised rim makes an inner edge too."""
        qx = x + radii[:, None] * np.cos(rays)[None, :]
        qy = y + radii[:, None] * np.sin(rays)[None, :]
        sx, sy, _ = self.at(qx, qy)
        across = np.abs(sx * np.cos(rays)[None, :] + sy * np.sin(rays)[None, :])
        strong = across >= 0.5 * across.max(axis=0, keepdims=True)
        best = radii[len(radii) - 1 - np.argmax(strong[::-1], axis=0)]
        return x + best * np.cos(rays), y + best * np.sin(rays)


def _refit_top(grads: _Gradients, top: Circle, hidden: Circle) -> Circle:
    """The top coin's circle fitted to its rim on the rays that do not meet the hidden coin
    (there the pair's outline is the hidden coin's rim), or as it was if that fails."""
    t = np.arange(RIM_SAMPLES) * (2 * np.pi / RIM_SAMPLES)
    far = 1.2 * top.r
    clear = np.hypot(top.x + far * np.cos(t) - hidden.x, top.y + far * np.sin(t) - hidden.y) > hidden.r
    if clear.sum() < RIM_SAMPLES // 3:
        return top
    ex, ey = grads.rim_points(top.x, top.y, t[clear], top.r * np.linspace(0.8, 1.1, 16))
    fx, fy, fr, fitted = fit_circles(ex[None, :], ey[None, :], np.ones((1, len(ex)), bool))
    if not fitted[0] or np.hypot(fx[0] - top.x, fy[0] - top.y) > 0.25 * top.r or not 0.75 * top.r < fr[0] < 1.1 * top.r:
        return top
    return Circle(float(fx[0]), float(fy[0]), float(fr[0]), True, top.support)


def _shadow(diff: np.ndarray, table: np.ndarray, params: HiddenCoinParams) -> np.ndarray:
    """Which Lab differences from the table (N x 3, OpenCV's 8-bit Lab) are a shadow's: darker,
    and of the table's hue and no more colourful (or nearly grey)."""
    ta, tb = float(table[1]) - 128.0, float(table[2]) - 128.0
    a, b = ta + diff[:, 1], tb + diff[:, 2]
    chroma, table_chroma = np.hypot(a, b), float(np.hypot(ta, tb))
    turn = np.abs((np.arctan2(b, a) - np.arctan2(tb, ta) + np.pi) % (2 * np.pi) - np.pi)
    table_hue = (turn < np.radians(params.shadow_hue)) & (chroma <= table_chroma + params.shadow_chroma)
    darker = diff[:, 0] < -params.shadow_darker
    return np.asarray(darker & ((chroma < params.shadow_chroma) | table_hue), bool)


def _crescent_colour(
    lab: np.ndarray, scale: float, top: Circle, hidden: Circle, params: HiddenCoinParams
) -> np.ndarray | None:
    """The median Lab colour of the crescent the hidden coin shows beyond the top coin (clear
    of its rim), or ``None`` when too little of it shows."""
    h, w = lab.shape[:2]
    rr, tt = np.meshgrid(np.linspace(0.2, 0.85, 6), np.arange(48) * (2 * np.pi / 48), indexing="ij")
    px = hidden.x + rr.ravel() * hidden.r * np.cos(tt.ravel())
    py = hidden.y + rr.ravel() * hidden.r * np.sin(tt.ravel())
    inside = np.hypot(px - top.x, py - top.y) > params.clear * top.r
    if inside.sum() < 8:
        return None
    xs = np.clip(np.round((px[inside] + 0.5) * scale - 0.5).astype(int), 0, w - 1)
    ys = np.clip(np.round((py[inside] + 0.5) * scale - 0.5).astype(int), 0, h - 1)
    return np.asarray(np.median(lab[ys, xs].astype(np.float32), axis=0), np.float32)


def _coin_coloured(colour: np.ndarray, table: np.ndarray, params: HiddenCoinParams) -> bool:
    """Whether a crescent's colour is unlike the table's and no shadow's."""
    diff = colour[None, :] - table[None, :]
    return float(table_distance(diff)[0]) > params.unlike_table and not bool(_shadow(diff, table, params)[0])


def _unlike_runs(
    lab: np.ndarray, scale: float, table: np.ndarray, centres: np.ndarray, params: HiddenCoinParams
) -> list[float | None]:
    """For each coin (centres: N x (x, y, r) in frame pixels), the direction (radians) of the
    longest run of its ring's samples unlike the table, no shadow and on no other coin, or
    ``None`` when that run is shorter than ``least_run`` (most coins: a lone coin's ring is all
    table) or the ring is unlike the table all round (a coin on a patch or on a larger coin)."""
    h, w = lab.shape[:2]
    angles = np.arange(RING_SAMPLES) * (2 * np.pi / RING_SAMPLES)
    px = centres[:, :1] + params.ring * centres[:, 2:] * np.cos(angles)[None, :]
    py = centres[:, 1:2] + params.ring * centres[:, 2:] * np.sin(angles)[None, :]
    xs = np.clip(np.round((px + 0.5) * scale - 0.5).astype(int), 0, w - 1)
    ys = np.clip(np.round((py + 0.5) * scale - 0.5).astype(int), 0, h - 1)
    diff = lab[ys, xs].reshape(-1, 3).astype(np.float32) - table[None, :]
    unlike = ((table_distance(diff) > params.unlike_table) & ~_shadow(diff, table, params)).reshape(px.shape)
    n = len(centres)
    for j in range(n):
        # Samples on another coin (each ring's own coin lies well inside it).
        unlike &= np.hypot(px - centres[j, 0], py - centres[j, 1]) >= 1.05 * centres[j, 2]
    runs: list[float | None] = []
    for row in unlike:
        runs.append(None if row.all() or row.sum() < params.least_run else _longest_run(row, params.least_run))
    return runs


def _longest_run(row: np.ndarray, least: int) -> float | None:
    """The middle (radians) of the longest circular run of true samples, or ``None`` if under ``least``."""
    start = int(np.argmin(row))  # a false sample: no run wraps past it
    rolled = np.roll(row, -start)
    edges = np.flatnonzero(np.diff(np.concatenate([[0], rolled.astype(np.int8), [0]])))
    begins, ends = edges[::2], edges[1::2]
    k = int(np.argmax(ends - begins))
    if ends[k] - begins[k] < least:
        return None
    middle = ((begins[k] + ends[k] - 1) / 2 + start) % RING_SAMPLES
    return float(middle * 2 * np.pi / RING_SAMPLES)


def _best_arc(
    grads: _Gradients, c: Circle, direction: float, centres: np.ndarray, i: int, params: HiddenCoinParams
) -> Circle | None:
    """The hidden coin's circle whose showing rim has the most edge across it, near
    ``direction`` from the top coin, or ``None`` when none has enough."""
    w, h = grads.size
    at = grads.at
    t = np.arange(RIM_SAMPLES) * (2 * np.pi / RIM_SAMPLES)
    _, _, rim_mag = at(c.x + c.r * np.cos(t), c.y + c.r * np.sin(t))
    least_edge = params.edge_share * float(np.percentile(rim_mag, 75))
    if least_edge <= 0:
        return None
    # Every candidate at once: C x RIM_SAMPLES points.
    step = 2 * np.pi / RING_SAMPLES
    turn, off, size = (a.ravel() for a in np.meshgrid(
        direction + step * np.arange(-2, 3), np.array(params.offsets), np.array(params.sizes), indexing="ij"))
    # The hidden coin must reach well beyond the top one: less is its rim, its shadow.
    deep = off + size - 1.0 >= params.least_reach
    turn, off, size = turn[deep], off[deep], size[deep]
    cx = c.x + off * c.r * np.cos(turn)
    cy = c.y + off * c.r * np.sin(turn)
    r2 = size * c.r
    px = cx[:, None] + r2[:, None] * np.cos(t)[None, :]
    py = cy[:, None] + r2[:, None] * np.sin(t)[None, :]
    showing = np.hypot(px - c.x, py - c.y) > params.clear * c.r
    others = np.delete(centres, i, axis=0)
    for ox, oy, orad in others:
        if np.hypot(ox - c.x, oy - c.y) < orad + 3 * c.r:
            showing &= np.hypot(px - ox, py - oy) >= orad
    showing &= (px >= 0) & (px < w) & (py >= 0) & (py < h)
    n = showing.sum(axis=1)
    sx, sy, smag = at(px, py)
    along = (sx * np.cos(t)[None, :] + sy * np.sin(t)[None, :]) / (smag + 1e-6)
    edge = showing & (smag >= least_edge) & (np.abs(along) >= params.alignment)
    # One rim: the coin is lighter (or darker) than the table all along it.
    agree = np.maximum((edge & (along > 0)).sum(axis=1), (edge & (along < 0)).sum(axis=1))
    support = np.where(n >= params.least_arc * RIM_SAMPLES, agree / np.maximum(n, 1), -1.0)
    k = int(np.argmax(support))
    if support[k] < params.least_support:
        return None
    # The candidate is good to a tenth of a radius; the rim's own edge points place it better,
    # and must lie on one circle: a printed line or a shadow's edge that a candidate's arc
    # happens to follow for a while does not.
    rays = t[showing[k]]
    ex, ey = grads.rim_points(float(cx[k]), float(cy[k]), rays, r2[k] * np.linspace(0.85, 1.15, 13))
    fx, fy, fr, fitted = fit_circles(ex[None, :], ey[None, :], np.ones((1, len(rays)), bool))
    if not fitted[0] or np.hypot(fx[0] - cx[k], fy[0] - cy[k]) > 0.15 * r2[k] or not 0.85 * r2[k] < fr[0] < 1.15 * r2[k]:
        return None
    x, y, r = float(fx[0]), float(fy[0]), float(fr[0])
    residual = float(np.median(np.abs(np.hypot(ex - x, ey - y) - r)))
    if residual > params.fit_residual * r:
        return None
    hidden = Circle(x, y, r, True, float(support[k]))
    if _reach(c, hidden) < params.least_reach:
        return None  # the fitted circle does not reach out from under the top coin
    return hidden


def _reach(top: Circle, hidden: Circle) -> float:
    """How far the hidden coin reaches beyond the top coin's rim, in the top coin's radii."""
    return float((np.hypot(hidden.x - top.x, hidden.y - top.y) + hidden.r) / top.r - 1.0)
