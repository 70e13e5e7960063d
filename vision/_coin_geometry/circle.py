"""A found coin circle (``Circle``), coins' true diameters, and the reduced work image circles are searched in."""

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
