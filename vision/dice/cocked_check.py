"""The cocked-die network's say on a die the reader read as lying flat."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from vision.cocked import cocked_net, cocked_probability
from vision.dice.models import _Seen
from vision.dice.params import DiceParams


def _cocked_check(
    frame: npt.NDArray[np.uint8],
    boxes: list[tuple[float, float, float, float]],
    sure: list[bool],
    params: DiceParams,
    seen: _Seen,
) -> list[float]:
    """For each read (its box as centre x, y, width, height), the cocked-die check's probability
    that its die is cocked: only unsure reads are looked at (a sure face is never overruled), the
    rest get 0, as all do when the model folder has no check or ``cocked_at`` turns it off. Boxes
    ``seen`` has a probability for are not looked at again."""
    check = cocked_net(params.model_dir) if params.cocked_at <= 1.0 else None
    out = [0.0] * len(boxes)
    unsure = [i for i, s in enumerate(sure) if not s]
    if check is None or not unsure:
        return out
    corners = {}
    for i in unsure:
        cx, cy, w, h = boxes[i]
        corners[i] = (int(round(cx - w / 2)), int(round(cy - h / 2)), int(round(w)), int(round(h)))
    todo = sorted({c for c in corners.values() if c not in seen.cocked})
    if todo:
        seen.cocked.update({c: float(pc) for c, pc in zip(todo, cocked_probability(check, frame, todo))})
    for i, c in corners.items():
        out[i] = seen.cocked[c]
    return out
