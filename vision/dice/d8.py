"""Eight-sided dice: their numeral read by ``vision.d8_faces`` over several crops, kept only where steady."""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np
import numpy.typing as npt

from vision._dice_net import COCKED_CLASS, D8_FIRST_CLASS, READ_CLASSES_D8
from vision._dnn import softmax
from vision._patch_check import PatchCheck, quarter_turns
from vision.d8_faces import d8_face_logits, d8_net
from vision.dice.closer import _finder_closer
from vision.dice.models import _Models
from vision.dice.params import DiceParams
from vision.dice.reading import _Read, _meaning


def _d8_reads(
    frame: npt.NDArray[np.uint8],
    models: "_Models",
    chosen: list[_Read],
    allowed: npt.NDArray[np.bool_],
    threshold: float,
    params: DiceParams,
) -> dict[int, tuple[int, float, tuple[float, float, float, float]]]:
    """For each chosen read (index) that the reader takes for an eight-sided die with a face up,
    the d8 face reader's face, its probability of the read (the face's probability times the
    reader's that the die is a d8 with some face up, among the table's kinds, and that it is a
    die) and the die's box. A face read less surely than ``d8_doubt_below`` is read again at the
    other quarter turns (``d8_doubt_turns``), then, if still doubtful, in the boxes the finder
    gives looking closer (``d8_closer_look``). Empty when the model folder has no d8 face
    reader or the reader knows no d8."""
    if models.classes != READ_CLASSES_D8:
        return {}
    todo = []
    for i, r in enumerate(chosen):
        kind, _, flags = _meaning(r[6], r[4], models.classes, params.kinds)
        if kind == "d8" and not flags:
            todo.append(i)
    net = d8_net(params.model_dir) if todo else None
    if net is None:
        return {}
    boxes = [chosen[i][3] for i in todo]
    first = quarter_turns(params.d8_turns)
    z = d8_face_logits(net, frame, boxes, first)
    # The probability that each is a d8 with some face up (among the table's kinds), and a die.
    kind_probs = []
    for i in todo:
        p = chosen[i][4]
        die = p[1:][allowed[1:]].sum()
        d8 = p[D8_FIRST_CLASS:COCKED_CLASS][allowed[D8_FIRST_CLASS:COCKED_CLASS]].sum()
        kind_probs.append((float(d8 / die) if die > 0 else 0.0) * float(1.0 - p[0]))
    fp = softmax(z)
    turns = quarter_turns(params.d8_doubt_turns)
    more = tuple(q for q in turns if q not in first)

    def doubtful() -> list[int]:
        return [k for k in range(len(todo)) if float(fp[k].max()) * kind_probs[k] < params.d8_doubt_below]

    unsure = doubtful()
    if more and unsure:
        # A doubtful face is read again at the quarter turns not yet seen, the logits averaged.
        again = d8_face_logits(net, frame, [boxes[k] for k in unsure], more)
        z[unsure] = (z[unsure] * len(first) + again * len(more)) / (len(first) + len(more))
        fp = softmax(z)
    still = doubtful()
    if params.d8_closer_look and params.doubt_look_px > 0 and still:
        # Still doubtful: the numeral read in the boxes the finder gives looking closer, near the
        # die's centre and not much smaller (a numeral or a corner), the surest read kept.
        looks = _finder_closer(frame, models.finder, [boxes[k] for k in still], threshold, params)
        cands = [(k, b) for k, look in zip(still, looks) for _, b in look
                 if np.hypot(b[0] - boxes[k][0], b[1] - boxes[k][1]) < 0.4 * max(boxes[k][2:])
                 and max(b[2:]) > params.doubt_look_smallest * max(boxes[k][2:])]
        if cands:
            pc = softmax(d8_face_logits(net, frame, [b for _, b in cands], turns))
            for (k, b), probs in zip(cands, pc):
                if float(probs.max()) > float(fp[k].max()):
                    fp[k], boxes[k] = probs, b
    faces = [int(np.argmax(fp[k])) for k in range(len(todo))]
    probs = [float(fp[k].max()) for k in range(len(todo))]
    if params.d8_steady:
        sure = [k for k in range(len(todo)) if probs[k] * kind_probs[k] >= params.d8_confident_at]
        steady = _d8_steady_probs(net, frame, [boxes[k] for k in sure], [faces[k] for k in sure], turns)
        for k, p_steady in zip(sure, steady):
            if p_steady < params.d8_steady_floor:
                probs[k] = min(probs[k], p_steady)  # a look that doubts the face: not sure
    return {i: (faces[k] + 1, probs[k] * kind_probs[k], boxes[k]) for k, i in enumerate(todo)}


_D8_STEADY_LOOKS: tuple[tuple[float, float, float, float], ...] = (
    (0.88, 0.0, 0.0, 0.0),
    (1.12, 0.0, 0.0, 0.0),
    (1.0, 0.07, 0.07, 0.0),
    (1.0, -0.07, -0.07, 0.0),
    (1.0, 0.0, 0.0, 0.8),
)
"""The other looks at a d8's numeral before its face is sure: the crop's size factor, its
centre's shift in x and y (fractions of the box's longer side), and the blur (Gaussian sigma,
pixels; 0 none)."""


def _d8_steady_probs(
    net: PatchCheck, frame: npt.NDArray[np.uint8], boxes: list[tuple[float, float, float, float]],
    faces: list[int], turns: Sequence[int],
) -> list[float]:
    """For each box, the least probability the d8 face reader gives ``faces`` (0-based) over
    ``_D8_STEADY_LOOKS``, each look at the quarter ``turns``; the looks at one blur are read in
    one batch."""
    out = []
    for (cx, cy, w, h), face in zip(boxes, faces):
        side = float(max(w, h))
        # The die's neighbourhood, blurred where a look asks for it, and the box's centre in it.
        r = int(np.ceil(side * 1.5 * net.context)) + 2
        x0, y0 = max(0, int(cx) - r), max(0, int(cy) - r)
        region = np.ascontiguousarray(frame[y0:y0 + 2 * r + 1, x0:x0 + 2 * r + 1])
        least = 1.0
        for sigma in sorted({look[3] for look in _D8_STEADY_LOOKS}):
            image = np.asarray(cv2.GaussianBlur(region, (0, 0), sigma), np.uint8) if sigma > 0 else region
            looks = [(cx - x0 + dx * side, cy - y0 + dy * side, w * scale, h * scale)
                     for scale, dx, dy, blur in _D8_STEADY_LOOKS if blur == sigma]
            p = softmax(d8_face_logits(net, image, looks, turns))
            least = min(least, float(p[:, face].min()))
        out.append(least)
    return out
