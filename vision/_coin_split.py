"""The fixed split of ../shared/data/coins-mmr: photos the coin model never learns from.

Photos of coins-mmr come in groups of the same coins (a pair is one set of coins photographed
heads-up and then flipped), so whole groups are held out, never one photo of a pair.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

HELD_OUT: frozenset[str] = frozenset(
    f"mmr_{n}.jpg" for n in (195, 197, 52, 53, 60, 61, 66, 67, 75, 76, 81, 82)
)
"""12 photos (182 coins): measured, never trained on."""


VALIDATION: frozenset[str] = frozenset(f"mmr_{n}.jpg" for n in (48, 49, 73, 74, 93))
"""5 photos never learned from: training stops and calibrates the confidence on them, and
candidate models are chosen on them (with the rendered scenes' :func:`rendered_part` ``val``)."""


def is_held_out(image: str) -> bool:
    """Whether a coins-mmr photo (file name) is in the held-out part."""
    return image.rsplit("/", 1)[-1] in HELD_OUT


def rendered_part(image: str) -> str:
    """``val`` for every fifth rendered training scene (``dev_0005.jpg``, ``train_0010.jpg``):
    never learned from, the confidence is calibrated on it; ``train`` for the others.

    :raises ValueError: for a name that does not end in ``_<number>.<ext>``.
    """
    number = image.rsplit("_", 1)[-1].split(".")[0]
    if "_" not in image or not number.isdigit():
        raise ValueError(f"{image}: a rendered scene's name ends in _<number>.<ext> (dev_0005.jpg)")
    return "val" if int(number) % 5 == 0 else "train"


def is_held_back(folder: Path) -> bool:
    """Whether ``folder`` is the fixtures' held-back test scenes or their games: measured,
    never trained on nor used to choose a model."""
    return "scenes/test" in folder.resolve().as_posix() or "games" in folder.parts


def rendered_scale(scene: dict[str, Any], at: tuple[float, float] | None = None) -> float:
    """Millimetres per pixel at the image centre (or at frame point ``at``) of a rendered
    fixture scene (its label entry).

    The scenes' ``homography`` maps image pixels to table millimetres, as the referee's own
    calibration does; the coin reader is measured and trained on them at that known scale.

    :raises ValueError: if the entry has no homography.
    """
    import numpy as np

    if "homography" not in scene:
        raise ValueError(f"{scene.get('image', 'scene')}: no homography in its label")
    h = np.asarray(scene["homography"], np.float64)
    w, ht = scene.get("size", (1280, 960))

    def to_mm(x: float, y: float) -> np.ndarray:
        v = h @ np.array([x, y, 1.0])
        out: np.ndarray = v[:2] / v[2]
        return out

    cx, cy = (w / 2.0, ht / 2.0) if at is None else at
    dx, dy = to_mm(cx + 1, cy) - to_mm(cx, cy), to_mm(cx, cy + 1) - to_mm(cx, cy)
    return float(np.sqrt(abs(dx[0] * dy[1] - dx[1] * dy[0])))
