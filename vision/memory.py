"""What the table already showed: objects whose face is known and that have not moved since.

A die the players said shows 4, or that was read with confidence, and that lies untouched
where it lay, still shows 4: the referee need not ask about it again at the next settle.
Untouched means the same kind at the same place looking the same (the pixels of its box
match the remembered ones closely), and a reader that does not read another face there. A
die turned over in place (FLIP's flips) looks different and reads differently, so it is read
afresh.

>>> import numpy as np
>>> from vision.types import Detection, TableObservation
>>> frame = np.random.default_rng(1).integers(0, 255, (120, 160, 3), dtype=np.uint8)
>>> die = Detection("d6", 4, (40, 30, 30, 30), 0.99, center=(55.0, 45.0))
>>> memory = remember([(die, 4)], frame)
>>> unsure = TableObservation((Detection("d6", None, (41, 30, 30, 30), 0.0, center=(56.0, 45.0)),), (160, 120))
>>> recall(unsure, frame, memory).objects[0].value
4
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

import cv2
import numpy as np
import numpy.typing as npt

from vision.types import CONFIDENT, Detection, TableObservation

@dataclass(frozen=True)
class MemoryParams:
    """When a read object counts as the remembered one, untouched."""

    same_look: float = 0.9
    """Lowest normalised correlation between the remembered pixels of an object's box and the
    new frame's (lighting is locked during a game)."""
    same_place: float = 0.2
    """Largest move of an object's centre, as a share of its box's longer side."""


@dataclass(frozen=True)
class Remembered:
    """One object whose face is known: its kind, face, box and the grey pixels of the box."""

    kind: str
    value: str | int
    center: tuple[float, float]
    size: float
    """The box's longer side in pixels."""
    patch: npt.NDArray[np.uint8]
    """The grey pixels of the box in the frame it was known in."""
    box: tuple[int, int, int, int]


def _centre(det: Detection) -> tuple[float, float]:
    """The centre of a detection's box (``Detection.center`` may be left at its default)."""
    x, y, w, h = det.bbox
    return (x + w / 2.0, y + h / 2.0)


def _grey(frame: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
    if frame.ndim == 2:
        return frame
    return np.asarray(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), np.uint8)


def remember(known: Iterable[tuple[Detection, str | int]], frame: npt.NDArray[np.uint8]) -> list[Remembered]:
    """The objects of ``known`` (each detection with the face known for it: read with
    confidence, or answered by the players), as ``frame`` shows them."""
    grey = _grey(frame)
    h, w = grey.shape[:2]
    out = []
    for det, value in known:
        x, y, bw, bh = (int(v) for v in det.bbox)
        x0, y0, x1, y1 = max(0, x), max(0, y), min(w, x + bw), min(h, y + bh)
        if x1 - x0 < 4 or y1 - y0 < 4:
            continue
        out.append(Remembered(det.kind, value, _centre(det), float(max(bw, bh)),
                              grey[y0:y1, x0:x1].copy(), (x0, y0, x1 - x0, y1 - y0)))
    return out


def looks_the_same(entry: Remembered, grey: npt.NDArray[np.uint8], center: tuple[float, float],
                   params: MemoryParams = MemoryParams()) -> bool:
    """Whether ``grey`` shows ``entry``'s pixels where it lay, give or take ``params.same_place``."""
    dx, dy = center[0] - entry.center[0], center[1] - entry.center[1]
    slack = params.same_place * entry.size
    if dx * dx + dy * dy > slack * slack:
        return False
    x, y, bw, bh = entry.box
    pad = int(np.ceil(slack)) + 1
    h, w = grey.shape[:2]
    x0, y0, x1, y1 = max(0, x - pad), max(0, y - pad), min(w, x + bw + pad), min(h, y + bh + pad)
    region = grey[y0:y1, x0:x1]
    if region.shape[0] < bh or region.shape[1] < bw:
        return False
    if float(entry.patch.std()) < 2.0:
        return False  # a featureless box proves nothing
    score = cv2.matchTemplate(region, entry.patch, cv2.TM_CCOEFF_NORMED)
    return float(score.max()) >= params.same_look


def recall(observation: TableObservation, frame: npt.NDArray[np.uint8], memory: list[Remembered],
           params: MemoryParams = MemoryParams()) -> TableObservation:
    """``observation`` with each unsure read of an untouched remembered object given its known
    face, at the confidence the referee acts on (``extra["remembered"]`` marks it).

    A read that names another face, or that carries a flag (cocked, on edge), is left as read.
    """
    if not memory:
        return observation
    grey = _grey(frame)
    used: set[int] = set()
    objects = []
    for det in observation.objects:
        if det.confidence >= CONFIDENT or det.flags:
            objects.append(det)
            continue
        match = None
        for i, entry in enumerate(memory):
            if i in used or entry.kind != det.kind or det.guess not in (None, entry.value):
                continue
            if looks_the_same(entry, grey, _centre(det), params):
                match = i
                break
        if match is None:
            objects.append(det)
            continue
        used.add(match)
        extra = {**det.extra, "remembered": True}
        objects.append(replace(det, value=memory[match].value, confidence=max(CONFIDENT, det.confidence), extra=extra))
    return replace(observation, objects=tuple(objects))
