"""Fitting found circles to their coins' edges (``refine_circles``, ``fit_circles``), by the circle most of the rays' edges agree on where texture misleads."""

from __future__ import annotations

import cv2
import numpy as np

from vision._coin_geometry.circle import Circle
from vision._coin_geometry.samples import _crop_padded


AGREED_FIT_BELOW = 0.9
"""The share of a coin's rays whose outermost strong edge lies on the circle fitted through them
(within 3% of its radius), under which ``refine_circles(..., agreed=True)`` looks for the circle
most rays' edges agree on. The median share over every circle ``benchmarks/coins_bench.py``
fits (coins-mmr's grey cloth, the rendered tables): 0.94; over every circle
``benchmarks/backgrounds_bench.py`` fits (carpets, knits, cards; most circles no coin): 0.79."""

AGREED_SHARE = 0.85
"""Of the circles whose strong edges come within as many rays as this share of the best
circle's, the outermost is the coin's (the rim's inner edge is as round as its outer one)."""

AGREED_APART = 0.06
"""The agreed circle replaces the outermost edges' fit only where the two differ by more than
this share of the radius in centre or size: on plain cloth they agree within it (coins-mmr's
reads were the same), and on a textured cloth the outermost fit is 5% to 31% too large."""

AGREED_LARGEST = 0.08
"""Nor for a circle whose radius is more than this share of the frame's long side: a close-up
of a coin, not a coin among a cloth's texture (coins cut out to fill 30% to 80% of a photo,
and squeezed, lost a coin or two a line to the agreed fit: ``photo_conditions_bench.py``)."""

AGREED_RUN = 0.25
"""Nor where the rays whose outermost edge lies beyond the agreed circle, each a sample or two
from the ray before's, make one run of this share of the rays or more: the outline of another
coin or of a hard shadow beside the coin, not a textured cloth's edges, which jump from ray to
ray (a coin lying partly on another stays fitted to both, as the stacking check expects)."""


def _longest_run(flags: np.ndarray) -> np.ndarray:
    """Per row, the longest run of true values around the circle (the row wraps)."""
    n, m = flags.shape
    # Each row twice over (a run may wrap), then a false: the gaps between falses are the runs.
    rows = np.concatenate([flags, flags, np.zeros((n, 1), bool)], axis=1).ravel()
    falses = np.flatnonzero(~rows)
    gaps = np.diff(np.concatenate([[-1], falses])) - 1
    run = np.zeros(n, np.int64)
    np.maximum.at(run, falses // (2 * m + 1), gaps)
    return np.minimum(run, m)


def _agreed_circles(
    strong: np.ndarray, rad: np.ndarray, cos: np.ndarray, sin: np.ndarray, step: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per coin, the circle most of its rays' strong edges lie on, searched over centres up to
    about an eighth of the radius off the circle sampled and every radius sampled.

    ``strong`` is coins x radii x rays (the radii ``step`` apart, in radii of the circle
    sampled: ``rad``). A circle whose centre lies (dx, dy) radii off crosses ray theta at
    about its radius plus dx cos(theta) + dy sin(theta): a sine across the rays, scored by the
    rays with a strong edge within a sample of it. Texture's edges fall at any radius, a
    coin's own all round at one. Returns, per coin, the expected sample on each ray (coins x
    rays), the centre's offset (dx, dy, in radii) and its radius sample.
    """
    n, k, rays = strong.shape
    near = strong.copy()
    near[:, 1:] |= strong[:, :-1]
    near[:, :-1] |= strong[:, 1:]
    pad = int(np.ceil(0.15 / step)) + 2
    padded = np.zeros((n, k + 2 * pad, rays), bool)
    padded[:, pad:pad + k] = near
    ray_ix = np.arange(rays)

    def shifts(dx: np.ndarray, dy: np.ndarray) -> np.ndarray:
        out: np.ndarray = np.rint((dx[..., None] * cos + dy[..., None] * sin) / step).astype(np.int64)
        return out

    # Coarse: centres up to a tenth of the radius off, every twentieth.
    offs = np.arange(-2, 3) * 0.05
    cdx, cdy = (a.ravel() for a in np.meshgrid(offs, offs))
    sh = shifts(cdx, cdy)  # offsets x rays
    # Gathered from each coin's flat (rays x radii) plane: half the time of indexing in 3-d.
    planes = np.ascontiguousarray(padded.transpose(0, 2, 1)).astype(np.uint8).reshape(n, -1)
    flat = ray_ix[None, :, None] * (k + 2 * pad) + pad + sh[:, :, None] + np.arange(k)[None, None, :]
    score = planes[:, flat].sum(axis=2, dtype=np.int16)  # coins x offsets x radii
    best = score.reshape(n, -1).max(axis=1)
    ok = score >= AGREED_SHARE * best[:, None, None]
    ring = np.where(ok, np.arange(k)[None, None, :] * 1000 + score, -1).reshape(n, -1).argmax(axis=1)
    off, ring_k = np.divmod(ring, k)
    # Fine: a fortieth of the radius about that centre, radii within three samples of its ring.
    fine = np.arange(-1, 2) * 0.025
    fdx, fdy = (a.ravel() for a in np.meshgrid(fine, fine))
    fsh = shifts(cdx[off][:, None] + fdx[None, :], cdy[off][:, None] + fdy[None, :])  # coins x 9 x rays
    ks = np.clip(ring_k[:, None] + np.arange(-3, 4)[None, :], 0, k - 1)  # coins x 7
    frows = ks[:, None, :, None] + pad + fsh[:, :, None, :]
    fscore = padded[np.arange(n)[:, None, None, None], frows, ray_ix].sum(axis=3)  # coins x 9 x 7
    f_off, f_k = np.divmod(fscore.reshape(n, -1).argmax(axis=1), ks.shape[1])
    rows = np.arange(n)
    expected = ks[rows, f_k][:, None] + fsh[rows, f_off]
    return expected, cdx[off] + fdx[f_off], cdy[off] + fdy[f_off], ks[rows, f_k]


def _refits_on_agreement(
    shape: tuple[int, ...], circles: list[Circle], strong: np.ndarray, idx: np.ndarray, good: np.ndarray,
    edges: tuple[np.ndarray, np.ndarray], fit: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    radii: np.ndarray, rad: np.ndarray, cos: np.ndarray, sin: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Which coins to fit again on the edges near their agreed circle (``_agreed_circles``), and
    those edges (coins x radii x rays; false for the others): coins whose outermost edges
    mostly miss the circle through them (``AGREED_FIT_BELOW``), alone (no other circle within
    5% of touching it, none stacked), whose agreed circle lies elsewhere (``AGREED_APART``)
    and is not hidden by a run of edges beyond it (``AGREED_RUN``). ``edges`` are the outermost
    edges' points (x, y: coins x rays) that ``fit`` (x, y, r, fitted) was fitted through."""
    fx, fy, fr, fitted = fit
    n, k, n_rays = strong.shape
    step = float(radii[1] - radii[0])
    r = rad[:, 0]
    ox = np.array([c.x for c in circles])
    oy = np.array([c.y for c in circles])
    miss = np.abs(np.hypot(edges[0] - fx[:, None], edges[1] - fy[:, None]) - fr[:, None])
    on_fit = ((miss <= np.maximum(0.03 * fr, 1.5)[:, None]) & good).sum(axis=1) / np.maximum(good.sum(axis=1), 1)
    hr = np.array([c.r for c in circles])
    near = np.hypot(ox[:, None] - ox[None, :], oy[:, None] - oy[None, :]) < 1.05 * (hr[:, None] + hr[None, :])
    np.fill_diagonal(near, False)
    redo = (~fitted | (on_fit < AGREED_FIT_BELOW)) & ~near.any(axis=1) & ~np.array([c.stacked for c in circles])
    redo &= hr < AGREED_LARGEST * max(shape)
    band = np.zeros(strong.shape, bool)
    if not redo.any():
        return redo, band
    which = np.flatnonzero(redo)
    expected, dx, dy, ring = _agreed_circles(strong[which], rad[which], cos, sin, step)
    rr = r[which]
    ax, ay, ar = ox[which] + dx * rr, oy[which] + dy * rr, (radii[ring] + radii[ring + 1]) / 2 * rr
    elsewhere = (np.hypot(ax - fx[which], ay - fy[which]) > AGREED_APART * rr) | (
        np.abs(ar - fr[which]) > AGREED_APART * rr
    )
    # Within a sample of the circle, or a pixel where a sample is less.
    tol = np.maximum(2, np.ceil(1.0 / (step * rr)))[:, None]
    # Rays whose outermost edge lies beyond the agreed circle, smoothly from the ray before (an
    # outline: another coin's, a shadow's), not jumping about as a textured cloth's do.
    beyond = (idx[which] > expected + tol) & good[which]
    beyond &= np.roll(beyond, 1, axis=1) & (np.abs(idx[which] - np.roll(idx[which], 1, axis=1)) <= 2)
    take = ~fitted[which] | (elsewhere & (_longest_run(beyond) < AGREED_RUN * n_rays))
    redo[which[~take]] = False
    band[which[take]] = np.abs(np.arange(k)[None, :, None] - expected[take][:, None, :]) <= tol[take][:, :, None]
    return redo, band


def refine_circles(
    gray: np.ndarray, circles: list[Circle], n_rays: int = 72, base_radius: int = 40, agreed: bool = False
) -> list[Circle]:
    """Circles fitted to the coin's outer edge in the full-resolution grey frame.

    Along each of ``n_rays`` rays the outermost strong edge between 0.8 and 1.2 radii is
    taken (a coin's raised rim makes an inner edge too; its shadow is softer than its edge),
    then a circle is fitted to those points with outliers (a touching coin, glare) dropped:
    through the edges' outer flanks (``Circle.r``, where the coin model looks); the coin's
    size is the median distance of the edges' middles from its centre (``Circle.edge_r``).
    Sizes decide denominations, so this matters: the Hough circle is only good to a few per cent.
    All circles are fitted together, as arrays (one coin at a time took 2.5 ms a call, this 1.5).
    With ``agreed``, a lone coin whose outermost edges mostly miss their circle is fitted
    again on the edges near the circle most rays agree on (``_refits_on_agreement``).
    """
    if not circles:
        return []
    h, w = gray.shape[:2]
    radii = np.linspace(0.8, 1.2, 41, dtype=np.float32)
    angles = np.linspace(0, 2 * np.pi, n_rays, endpoint=False, dtype=np.float32)
    cos, sin = np.cos(angles), np.sin(angles)
    profiles = []
    for c in circles:
        r = max(c.r, 3.0)
        half = int(np.ceil(r * 1.3)) + 2
        x0, y0 = int(round(c.x)) - half, int(round(c.y)) - half
        crop = _crop_padded(gray, x0, y0, 2 * half + 1, 2 * half + 1, w, h)
        # Resample only coins much bigger than needed; a ray profile averages the rest.
        f = base_radius / r if r > 1.6 * base_radius else 1.0
        size = max(8, int(round((2 * half + 1) * f)))
        small = cv2.resize(crop, (size, size), interpolation=cv2.INTER_AREA) if f < 1 else crop
        fs = size / (2 * half + 1)
        cx, cy, rs = (c.x - x0 + 0.5) * fs - 0.5, (c.y - y0 + 0.5) * fs - 0.5, r * fs
        mapx = (cx + radii[:, None] * rs * cos[None, :]).astype(np.float32)
        mapy = (cy + radii[:, None] * rs * sin[None, :]).astype(np.float32)
        profiles.append(
            cv2.remap(small.astype(np.float32), mapx, mapy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        )
    n = len(circles)
    # The coins' profiles side by side (radius down, rays across), each ray smoothed along itself.
    prof = cv2.GaussianBlur(np.hstack(profiles), (1, 3), 0.8).reshape(len(radii), n, n_rays).transpose(1, 0, 2)
    grad = np.abs(np.diff(prof, axis=1))  # coins x 40 x rays
    peak = grad.max(axis=1)
    strong = grad >= 0.5 * peak[:, None, :]
    rad = np.array([max(c.r, 3.0) for c in circles], np.float32)[:, None]
    # Outermost strong edge on each ray.
    idx = grad.shape[1] - 1 - np.argmax(strong[:, ::-1, :], axis=1)
    # And that edge's middle, where it changes fastest: from its outer flank inwards to the
    # gradient's peak. A blurred edge (a camera out of focus, a coin still sliding) spreads
    # outwards and moves its flank with it, by more on some coins than on others; its middle stays.
    # A step inwards from sample i rises or holds the gradient where grad[i - 1] >= grad[i]; the
    # walk from the flank stops at the nearest sample inside it where no such step is left.
    steps = np.zeros(grad.shape, bool)
    steps[:, 1:, :] = grad[:, :-1, :] >= grad[:, 1:, :]
    stops = np.maximum.accumulate(np.where(steps, -1, np.arange(grad.shape[1])[None, :, None]), axis=1)
    coins, rays = np.arange(n)[:, None], np.arange(n_rays)[None, :]
    middle = stops[coins, idx, rays]
    ox = np.array([c.x for c in circles], np.float32)[:, None]
    oy = np.array([c.y for c in circles], np.float32)[:, None]
    edge_r = (radii[idx] + radii[idx + 1]) / 2 * rad
    good = peak >= 0.5 * np.median(peak, axis=1, keepdims=True)
    fx, fy, fr, fitted = fit_circles(ox + edge_r * cos, oy + edge_r * sin, good)
    if agreed:
        # On a textured cloth the outermost strong edge of many rays is the cloth's: fitted
        # again on the edges near the circle most rays agree on.
        redo, band = _refits_on_agreement(
            gray.shape, circles, strong, idx, good, (ox + edge_r * cos, oy + edge_r * sin), (fx, fy, fr, fitted),
            radii, rad, cos, sin,
        )
        if redo.any():
            strong = np.where(redo[:, None, None], strong & band, strong)
            idx = np.where(redo[:, None], grad.shape[1] - 1 - np.argmax(strong[:, ::-1, :], axis=1), idx)
            middle = stops[coins, idx, rays]
            edge_r = (radii[idx] + radii[idx + 1]) / 2 * rad
            good &= strong.any(axis=1) | ~redo[:, None]
            fx, fy, fr, fitted = fit_circles(ox + edge_r * cos, oy + edge_r * sin, good)
    hough_x = np.array([c.x for c in circles])
    hough_y = np.array([c.y for c in circles])
    hough_r = np.array([c.r for c in circles])
    # A fit far from the Hough circle is not trusted: the Hough circle stays.
    r0 = rad[:, 0]
    astray = (np.hypot(fx - hough_x, fy - hough_y) > 0.15 * r0) | ~((0.8 * r0 < fr) & (fr < 1.2 * r0))
    fx, fy, fr = np.where(astray, hough_x, fx), np.where(astray, hough_y, fy), np.where(astray, hough_r, fr)
    # The size: the edges' middles' median distance from the circle's centre (steadier than a
    # second circle fit where a shadow takes one side, and quicker), trusted only a little inside the circle.
    middle_r = (radii[middle] + radii[middle + 1]) / 2 * rad
    reach = np.hypot(ox + middle_r * cos - fx[:, None], oy + middle_r * sin - fy[:, None])
    count = good.sum(axis=1)
    ranked = np.sort(np.where(good, reach, np.inf), axis=1)
    mr = ranked[np.arange(n), np.maximum(count - 1, 0) // 2]  # the median (the lower of two)
    sized = fitted & ~astray & (count > 0) & (0.8 * fr < mr) & (mr <= fr)
    # The circle is the outermost edges' (the coin model learned on such circles). Its
    # support is judged on a refit: under a hard light a coin's shadow makes a second edge
    # outside its own on the side away from the lamp, so the outermost edge there is the
    # shadow's; refit twice on the strong edge of each ray nearest the circle so far.
    mid = ((radii[:-1] + radii[1:]) / 2 * rad)[:, :, None]  # coins x 40 x 1
    ex, ey = ox[:, :, None] + mid * cos, oy[:, :, None] + mid * sin
    sx, sy, sr = fx.astype(np.float32), fy.astype(np.float32), fr.astype(np.float32)
    refitting = fitted.copy()
    for _ in range(2):
        gap = np.abs(np.hypot(ex - sx[:, None, None], ey - sy[:, None, None]) - sr[:, None, None])
        nearest = np.argmin(np.where(strong, gap, np.inf), axis=1)
        qx, qy, qr, ok = fit_circles(ex[coins, nearest, rays], ey[coins, nearest, rays], good)
        refitting &= ok
        sx = np.where(refitting, qx, sx).astype(np.float32)
        sy = np.where(refitting, qy, sy).astype(np.float32)
        sr = np.where(refitting, qr, sr).astype(np.float32)
    # Support: the share of rays with a strong edge on that circle (any strong edge, the
    # shadow's being another), within 6% of the radius but at least 1.5 px: a small coin's
    # rim (a highlight, then a dark line) spreads its edge over a pixel or two. An ellipse
    # (a leaning coin) or a chance arc in the cloth has little support.
    gap = np.abs(np.hypot(ex - sx[:, None, None], ey - sy[:, None, None]) - sr[:, None, None])
    on_circle = (strong & (gap <= np.maximum(0.06 * sr, 1.5)[:, None, None])).any(axis=1)
    support = np.mean(on_circle & good, axis=1)
    return [
        Circle(float(fx[i]), float(fy[i]), float(fr[i]), c.stacked, float(support[i]),
               float(mr[i]) if sized[i] else None)
        if fitted[i]
        else Circle(c.x, c.y, c.r, c.stacked, 0.0)
        for i, c in enumerate(circles)
    ]


def fit_circles(
    x: np.ndarray, y: np.ndarray, use: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Row by row, the least-squares circle through the points ``use`` marks, refitted twice
    without the worst quarter of them: centre x, centre y, radius and whether fitted, per row
    (a row of fewer than 8 points, or of points all on a line, is not)."""
    x = np.asarray(x, np.float64)
    y = np.asarray(y, np.float64)
    m, k = x.shape
    count = use.sum(axis=1)
    # Centred coordinates keep the normal equations well conditioned (frame pixels squared
    # run to millions).
    mx = np.where(use, x, 0.0).sum(axis=1) / np.maximum(count, 1)
    my = np.where(use, y, 0.0).sum(axis=1) / np.maximum(count, 1)
    u, v = x - mx[:, None], y - my[:, None]
    # Each point's terms of the normal equations (u, v, 1) and their target u^2 + v^2.
    terms = np.stack([u, v, np.ones_like(u), u * u + v * v], axis=2)  # rows x points x 4
    keep = use.copy()
    centre_x, centre_y, radius = np.zeros(m), np.zeros(m), np.zeros(m)
    fitted = np.zeros(m, bool)
    going = count >= 8
    for _ in range(3):
        n = keep.sum(axis=1)
        going &= n >= 8
        if not going.any():
            break
        normal = (terms * keep[:, :, None]).transpose(0, 2, 1)[going] @ terms[going]  # rows x 4 x 4
        sol = np.zeros((m, 3))
        try:
            sol[going] = np.linalg.solve(normal[:, :3, :3], normal[:, :3, 3:])[:, :, 0]
        except np.linalg.LinAlgError:
            for j, row in zip(np.flatnonzero(going), normal):
                try:
                    sol[j] = np.linalg.solve(row[:3, :3], row[:3, 3])
                except np.linalg.LinAlgError:
                    going[j] = False  # points on a line: the last fit stands
        cu, cv = sol[:, 0] / 2, sol[:, 1] / 2
        rr = np.sqrt(np.maximum(sol[:, 2] + cu * cu + cv * cv, 1e-6))
        fitted |= going
        centre_x = np.where(going, cu + mx, centre_x)
        centre_y = np.where(going, cv + my, centre_y)
        radius = np.where(going, rr, radius)
        # Keep the best three quarters (and any point as near as the last of them).
        resid = np.abs(np.hypot(u - cu[:, None], v - cv[:, None]) - rr[:, None])
        kth = np.minimum((3 * n) // 4, k - 1)
        cut = np.take_along_axis(np.sort(np.where(keep, resid, np.inf), axis=1), kth[:, None], axis=1)[:, 0]
        keep = np.where(going[:, None], use & (resid <= (cut + 0.01 * rr)[:, None]), keep)
    return centre_x, centre_y, radius, fitted
