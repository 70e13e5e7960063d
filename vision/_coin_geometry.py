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


FLANK_BEYOND_MIDDLE = 1.047
"""How much larger a circle through a coin edge's outer flank is than its edge's middle (the
median on the dev scenes' coins, 4 to 5% for each kind): a circle measured without its edge's
middle (a coin half hidden under another, sized on an arc) is sized by its radius over this."""


@dataclass(frozen=True)
class Circle:
    """One circle found in the frame, in full-frame pixels."""

    x: float
    y: float
    r: float
    stacked: bool = False
    """It lies inside or over another coin, so neither can be read for sure."""
    support: float = 1.0
    """Share of its outline where an edge was found on the circle (1.0 when not measured)."""
    edge_r: float | None = None
    """Radius to the middle of the coin's outer edge (where its brightness changes fastest):
    what the coin's size is measured by, ``None`` where not measured (``r`` then). ``r`` reaches
    the edge's outer flank, where the coin model learned to look, and a blurred edge moves the
    flank outwards but not its middle (see :func:`refine_circles`)."""

    @property
    def size_r(self) -> float:
        """The radius the coin's size is measured by: ``edge_r`` where measured, else ``r``."""
        return self.r / FLANK_BEYOND_MIDDLE if self.edge_r is None else self.edge_r


def work_image(frame: np.ndarray, work_size: int) -> tuple[np.ndarray, float]:
    """The frame scaled so its long side is ``work_size`` (never enlarged), and that scale.

    Halves by exact area averaging (OpenCV's fast case) while it can, then resizes the rest of the way.
    """
    long_side = max(frame.shape[:2])
    if long_side <= work_size:
        return frame, 1.0
    small = frame
    while max(small.shape[:2]) >= 2 * work_size:
        small = cv2.resize(small, (small.shape[1] // 2, small.shape[0] // 2), interpolation=cv2.INTER_AREA)
    h, w = frame.shape[:2]
    scale = work_size / long_side
    size = (max(1, round(w * scale)), max(1, round(h * scale)))
    if (small.shape[1], small.shape[0]) != size:
        small = cv2.resize(small, size, interpolation=cv2.INTER_AREA)
    return small, scale


TILE_OVER_MARGIN = 10
"""A large image's circle search runs in tiles whose core side is at most this many times the
margin they share with their neighbours (the largest radius and the least distance between
centres). The transform's time grows faster than a tile's area, and a margin is searched twice,
so the count of tiles decides: at 10 a 1280x960 frame at the table's scale is cut 3 x 2, quicker
than 3 x 3, 2 x 2, 2 x 1 or whole, with the circles of one whole search."""


def hough_circles(
    gray: np.ndarray, min_r: int, max_r: int, dp: float, param1: float, param2: float
) -> np.ndarray:
    """Raw circle candidates (N x 3: x, y, r) from OpenCV's gradient-alternative Hough transform.

    An image much larger than the circles sought is searched tile by tile, each tile with a
    margin wide enough to hold every circle whose centre lies in its core, and each circle
    kept by the tile whose core holds its centre. The result is the search of the whole image
    (on 217 of the 220 dev scenes' fine-search images circle for circle, on the rest but for a
    radius), for much less: the transform weighs every candidate centre against every edge
    pixel, and a tile has a share of each.
    """
    blurred = cv2.GaussianBlur(gray, (5, 5), 1.2)
    min_dist = max(2.0, min_r * 1.2)
    margin = int(np.ceil(max_r + min_dist + 4))
    core = TILE_OVER_MARGIN * margin
    h, w = blurred.shape[:2]
    if max(h, w) < 1.5 * core:
        return _hough(blurred, min_r, max_r, dp, min_dist, param1, param2)
    # Tile origins on the accumulator's grid (every dp pixels), so that each tile votes into
    # the same cells as one search over the whole image would.
    step = max(1, int(round(dp)))
    found = []
    for y0, y1 in _spans(h, core, step):
        for x0, x1 in _spans(w, core, step):
            ya, xa = max(0, y0 - margin) // step * step, max(0, x0 - margin) // step * step
            tile = blurred[ya : min(h, y1 + margin), xa : min(w, x1 + margin)]
            c = _hough(tile, min_r, max_r, dp, min_dist, param1, param2) + np.array([xa, ya, 0], np.float32)
            found.append(c[(c[:, 0] >= x0) & (c[:, 0] < x1) & (c[:, 1] >= y0) & (c[:, 1] < y1)])
    return np.vstack(found)


def _spans(length: int, core: int, step: int) -> list[tuple[int, int]]:
    """Equal spans (start, end) covering ``0..length``, about ``core`` long, starts on ``step``."""
    n = max(1, int(np.ceil(length / core)))
    cuts = [i * length // n // step * step for i in range(n)] + [length]
    return list(zip(cuts[:-1], cuts[1:]))


def _hough(
    blurred: np.ndarray, min_r: int, max_r: int, dp: float, min_dist: float, param1: float, param2: float
) -> np.ndarray:
    """One ``HOUGH_GRADIENT_ALT`` search of a blurred grey image: N x 3 (x, y, r)."""
    found = cv2.HoughCircles(
        blurred,
        cv2.HOUGH_GRADIENT_ALT,
        dp,
        minDist=min_dist,
        param1=param1,
        param2=param2,
        minRadius=min_r,
        maxRadius=max_r,
    )
    if found is None:
        return np.zeros((0, 3), np.float32)
    return np.asarray(found[0], np.float32).reshape(-1, 3)


FINE_WORK_RADIUS = 7.0
"""Work-image radius, in pixels, of the smallest coin the fine search looks for: the image is
scaled so (the circle search needs about this many pixels of radius to find a coin)."""

FINE_SPAN = 2.4
"""The fine search looks for radii from its smallest to this multiple of it, overlapping the
bottom of the main search, where coins of six or seven work pixels are found only in part."""


def fine_search(
    long_side: int, min_radius: float, small_radius: float, small_radius_px: float
) -> tuple[float, float, float] | None:
    """(scale, smallest, largest radius in frame pixels) of the fine search for coins smaller
    than the main search's ``min_radius`` (a fraction of the long side), or ``None`` when there
    is none to make: its smallest radius is ``small_radius`` of the long side but at least
    ``small_radius_px`` pixels, and it is made only when that is well below the main search's."""
    smallest = max(small_radius * long_side, small_radius_px)
    if min_radius * long_side <= 1.1 * smallest:
        return None
    return min(1.0, FINE_WORK_RADIUS / smallest), smallest, FINE_SPAN * smallest


def suppress(circles: np.ndarray, inner_ratio: float, rim_ratio: float) -> list[Circle]:
    """Keep one circle per coin.

    Largest first. A circle overlapping a kept one is dropped as that coin's rim or a detail
    of its design when it is smaller than ``inner_ratio`` of it (no coin is that much smaller
    than another) or concentric with it (centres closer than ``rim_ratio`` of its radius);
    lying well over it, it is a second coin on top, and both are marked stacked; merely
    touching, it is a coin beside it.
    """
    order = np.argsort(-circles[:, 2]) if len(circles) else np.zeros(0, int)
    kept: list[list[float]] = []
    stacked: set[int] = set()
    for x, y, r in circles[order]:
        keep = True
        overlapped_by: list[int] = []
        for j, (kx, ky, kr) in enumerate(kept):
            d = float(np.hypot(x - kx, y - ky))
            if d >= 0.97 * (r + kr):
                continue  # apart or just touching
            if r < inner_ratio * kr or d < rim_ratio * kr:
                # Too small to be a coin on this one, or concentric with it: its rim or design.
                keep = False
                break
            if d + r < kr * 1.05 or d < 0.6 * kr:
                # Well over the larger coin: one coin lying on another.
                overlapped_by.append(j)
            elif d < 0.75 * (r + kr):
                # Deep overlap at the edge: a ghost from both rims.
                keep = False
                break
        if keep:
            for j in overlapped_by:
                stacked.add(j)
                stacked.add(len(kept))
            kept.append([float(x), float(y), float(r)])
    return [Circle(x, y, r, i in stacked) for i, (x, y, r) in enumerate(kept)]


def overlapping_circles(circles: list[Circle], ratio: float) -> set[int]:
    """Indices of the circles (not already marked stacked) whose centre is closer to another's
    than ``ratio`` times their sizes' sum (``Circle.size_r``, the radius to the edge's middle,
    which blur does not move): coins overlapping more than flat coins can."""
    if len(circles) < 2:
        return set()
    x, y = (np.array([getattr(c, k) for c in circles]) for k in ("x", "y"))
    r = np.array([c.size_r for c in circles])
    loose = ~np.array([c.stacked for c in circles])
    close = np.hypot(x[:, None] - x[None, :], y[:, None] - y[None, :]) < ratio * (r[:, None] + r[None, :])
    close &= loose[:, None] & loose[None, :]
    np.fill_diagonal(close, False)
    return {int(i) for i in np.flatnonzero(close.any(axis=1))}


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


def table_distance(diff: np.ndarray) -> np.ndarray:
    """How unlike the table a colour is, from its Lab difference (last axis L, a, b): lightness
    counted half, since shadows are darker but not differently coloured."""
    out: np.ndarray = np.sqrt(0.25 * diff[..., 0] ** 2 + diff[..., 1] ** 2 + diff[..., 2] ** 2)
    return out


def beyond_distance(lab: np.ndarray, table: np.ndarray, min_distance: float) -> np.ndarray:
    """A uint8 mask, 255 where a Lab image's colour differs from ``table`` by more than
    ``min_distance`` (:func:`table_distance`: lightness counted half).

    Each channel's share of the squared distance is looked up in a table of 256 floats, and the
    three shares added and compared with the threshold squared: the same mask as the distance
    worked out pixel by pixel, in a third of the time (0.22 against 0.73 ms for a 480x360 image).
    (``vision.colour_coins.unlike_table`` looks the shares up in 8 bits, a little faster still
    and rounded: the colour search was chosen with its rounding.)
    """
    levels = np.arange(256, dtype=np.float64)
    shares = [
        cv2.LUT(channel, (weight * (levels - float(t)) ** 2).astype(np.float32))
        for channel, weight, t in zip(cv2.split(lab), (0.25, 1.0, 1.0), table)
    ]
    total = cv2.add(cv2.add(shares[0], shares[1]), shares[2])
    out: np.ndarray = cv2.threshold(total, float(min_distance) ** 2, 255, cv2.THRESH_BINARY)[1].astype(np.uint8)
    return out


def commonest_colour(lab: np.ndarray) -> np.ndarray:
    """The table's colour: the commonest colour of a Lab image (in bins of 8 levels), as the
    median of the pixels in that bin. The cloth is the largest even patch; the median of the
    whole image was the coin's own colour where a close-up's coin fills half of it, and the
    median of its edges that of the coins cut by them."""
    sample = lab[::3, ::3].reshape(-1, 3)
    bins = (sample // 8).astype(np.int32)
    keys = (bins[:, 0] * 32 + bins[:, 1]) * 32 + bins[:, 2]
    commonest = np.bincount(keys).argmax()
    return np.asarray(np.median(sample[keys == commonest], axis=0), np.float32)


def ellipse_blobs(
    lab: np.ndarray, table: np.ndarray, min_distance: float, min_area: float, left_out: np.ndarray | None = None
) -> list[tuple[float, float, float, float, float, float]]:
    """The patches of a Lab image unlike the table, each with the ellipse fitted to it.

    A pixel belongs to a patch when its colour differs from ``table`` by ``min_distance``
    (lightness counted half: shadows are darker but not differently coloured), and not to
    ``left_out`` (a uint8 mask, 255 where nothing is looked for). Patches under ``min_area``
    pixels and patches cut by the image's edge are left out. Returns (x, y, major, minor,
    angle of the major axis in degrees 0..180, fill: the patch's area over its ellipse's) in
    the image's pixels.
    """
    mask = cv2.morphologyEx(beyond_distance(lab, table, min_distance), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    if left_out is not None:
        mask[left_out > 0] = 0
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    out = []
    h, w = mask.shape[:2]
    for cnt in contours:
        area = cv2.contourArea(cnt)
        if len(cnt) < 5 or area < min_area:
            continue
        bx, by, bw, bh = cv2.boundingRect(cnt)
        if bx == 0 or by == 0 or bx + bw == w or by + bh == h:
            continue  # cut by the frame's edge: its shape is not the patch's (the table beyond the cloth)
        (x, y), (a, b), angle = cv2.fitEllipse(cnt)
        major, minor = max(a, b), min(a, b)
        if major <= 0:
            continue
        # OpenCV's angle turns the first axis from the x axis: the major axis's, in 0..180.
        turn = (angle if a >= b else angle + 90.0) % 180.0
        out.append((float(x), float(y), float(major), float(minor), float(turn), float(area / (np.pi * major * minor / 4.0))))
    return out


def tilted_blobs(
    lab: np.ndarray,
    table: np.ndarray,
    circles: list[Circle],
    scale: float,
    min_distance: float,
    min_area: float,
    max_ratio: float,
) -> list[tuple[float, float, float, float, float]]:
    """Coin-sized, elongated patches unlike the table and not explained by any round coin.

    A coin on its edge or leaning on something is seen as an ellipse or a bar, which the
    circle finder does not report. Returns (x, y, major, minor, angle of the major axis) in
    full-frame pixels for each patch (:func:`ellipse_blobs`) at least ``min_area`` pixels (work
    scale) whose colour differs from the table by ``min_distance`` and whose minor/major axis
    ratio is at most ``max_ratio``.
    """
    around_coins = disc_mask(lab.shape[:2], circles, scale, 1.15)
    out = []
    for x, y, major, minor, turn, fill in ellipse_blobs(lab, table, min_distance, min_area, around_coins):
        # A blob much fuller or emptier than its ellipse is not one coin.
        if minor / major > max_ratio or not 0.7 <= fill <= 1.15:
            continue
        out.append((x / scale, y / scale, major / scale, minor / scale, turn))
    return out
