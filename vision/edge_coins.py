"""Coins standing on their edge (RULES A1, G-3): found as bars, confirmed by a small network.

A coin on its edge is seen from above as a bar as long as the coin is wide and a few pixels
thick: a rim lit on one side, the rest often as dark as the cloth, so it is no patch of colour
(``vision.coins.tilted_coins`` misses them) and no circle. Its outline is a run of strong
gradient, though. :func:`edge_bars` takes every connected run of strong gradient in the work
image's lightness that is about a coin long and much thinner than long, away from the round
coins found; a network (``tools/train_edge_coins.py``) looking at each with the ground around it
says which are coins on their edge (printed letters, a die's edge and shadows are not). The
model file is optional: without it none is reported.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from vision._coin_geometry import Circle
from vision._patch_check import PatchCheck, Spot, load_check, patches, probability

EDGE_MODEL = "coin_edge.onnx"
"""The network's file name in the model folder."""
CONTEXT = 1.5
"""Crop side over the coins' diameter (``coin_edge.json`` may name another)."""
CROP_SIDE = 24
"""The network's input side, pixels (``coin_edge.json`` may name another)."""
GRADIENT = 80.0
"""Sobel gradient magnitude (3x3, 8-bit lightness) from which a pixel belongs to an outline."""
LENGTH = (0.6, 1.5)
"""A bar's length, as fractions of the frame's round coins' median diameter."""
THINNESS = 0.6
"""A bar is at most this fraction as wide as long."""

Bar = tuple[float, float, float, float]
"""(x, y, length, width): a bar's centre and size in frame pixels."""


def edge_bars(lightness: npt.NDArray[np.uint8], circles: Sequence[Circle], scale: float, diameter: float) -> list[Bar]:
    """Runs of strong gradient in ``lightness`` (the work image, ``scale`` of the frame) about a
    coin of ``diameter`` frame pixels long and much thinner, none on a round coin (``circles``)."""
    light = lightness.astype(np.float32)
    gx = cv2.Sobel(light, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(light, cv2.CV_32F, 0, 1, ksize=3)
    strong = (cv2.magnitude(gx, gy) > GRADIENT).astype(np.uint8)
    for c in circles:
        cv2.circle(strong, (round(c.x * scale), round(c.y * scale)), max(1, round(c.r * scale * 1.1)), 0, -1)
    # Grana's algorithm: the same runs as OpenCV's default, in 0.4 ms instead of 1.1 on these masks.
    _, labels, stats, _ = cv2.connectedComponentsWithStatsWithAlgorithm(strong, 8, cv2.CV_32S, cv2.CCL_GRANA)
    lo, hi = LENGTH[0] * diameter * scale, LENGTH[1] * diameter * scale
    w_all, h_all = stats[:, cv2.CC_STAT_WIDTH], stats[:, cv2.CC_STAT_HEIGHT]
    # A run's bounding box bounds its length: its longer side from below, its diagonal from above.
    sized = (stats[:, cv2.CC_STAT_AREA] >= 6) & (np.maximum(w_all, h_all) <= hi) & (np.hypot(w_all, h_all) >= lo)
    bars: list[Bar] = []
    for i in np.flatnonzero(sized[1:]) + 1:
        x, y, w, h = (int(v) for v in stats[i, :4])
        ys, xs = np.nonzero(labels[y : y + h, x : x + w] == i)
        (cx, cy), (rw, rh), _ = cv2.minAreaRect(np.stack([xs + x, ys + y], axis=1).astype(np.float32))
        length, width = max(rw, rh), min(rw, rh)
        if lo <= length <= hi and width <= THINNESS * length:
            bars.append((cx / scale, cy / scale, length / scale, width / scale))
    return bars


def _spots(bars: Sequence[Bar], diameter: float) -> list[Spot]:
    return [(x, y, diameter) for x, y, _, _ in bars]


def edge_patches(
    frame: npt.NDArray[np.uint8], bars: Sequence[Bar], diameter: float, crop_side: int = CROP_SIDE, context: float = CONTEXT
) -> list[npt.NDArray[np.uint8]]:
    """One ``crop_side`` square crop per bar: its centre, ``context`` times the coins' diameter."""
    return patches(frame, _spots(bars, diameter), crop_side, context)


def edge_net(model_dir: Path) -> PatchCheck | None:
    """The check of ``model_dir``, loaded once per thread, or ``None`` when it has none.

    :raises ValueError: for a ``coin_edge.json`` that is not what training writes.
    """
    return load_check(model_dir / EDGE_MODEL, CROP_SIDE, CONTEXT)


def edge_probability(
    check: PatchCheck, frame: npt.NDArray[np.uint8], bars: Sequence[Bar], diameter: float
) -> npt.NDArray[np.float32]:
    """The probability that each bar is a coin on its edge (one batch)."""
    return probability(check, frame, _spots(bars, diameter))
