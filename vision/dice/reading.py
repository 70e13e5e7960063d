"""The reader network on die crops: its logits, how many turns it looks at, and what a class means."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from vision._dice_net import (
    COCKED_CLASS,
    D8_FIRST_CLASS,
    FloatArray,
    READ_CLASSES_D8,
    crop_patch,
    read_class,
    reader_input,
)
from vision.dice.boxes import _rescale
from vision.dice.models import _Models, _Seen
from vision.dice.params import DiceParams


def _reader_turns(params: DiceParams) -> int:
    """The quarter turns the reader sees each crop at (``DiceParams.reader_turns``, at least 1).

    :raises ValueError: unless 1, 2 or 4.
    """
    turns = max(1, params.reader_turns)
    if turns not in (1, 2, 4):
        raise ValueError(f"reader_turns must be 1, 2 or 4, got {turns}")
    return turns


def _read_of(
    score: float,
    box: tuple[float, float, float, float],
    p: FloatArray,
    lg: FloatArray,
    allowed: npt.NDArray[np.bool_],
    params: DiceParams,
    table: bool,
) -> "_Read":
    """One candidate's read from the reader's probabilities ``p`` and logits ``lg``."""
    # The read's probability given that it is a die at all, tempered...
    fl = np.where(allowed[1:], lg[1:] / params.temperature, -np.inf)
    fp = np.exp(fl - fl.max())
    fp /= fp.sum()
    face = int(np.argmax(fp)) + 1  # a reader class: a d6's face, a d8's face or cocked
    # ...times the probability that it is a die: kind and value together.
    read_prob = float(fp[face - 1] * (1.0 - p[0]))
    conf = _rescale(read_prob, params.confident_at_table if table else params.confident_at)
    return (read_prob >= params.min_value_prob, max(box[2], box[3]), score, box, p, lg, face, conf, read_prob)


def _read_boxes(
    frame: npt.NDArray[np.uint8],
    models: _Models,
    boxes: list[tuple[float, float, float, float]],
    turns: int,
    seen: _Seen | None = None,
) -> FloatArray:
    """The reader's logits (boxes x classes) for each box (centre x, y, width, height), its crop
    seen at ``turns`` quarter turns (1, 2 or 4) and the logits averaged; boxes ``seen`` has
    logits for are not read again."""
    if seen is None:
        return _reader_logits(frame, models, boxes, turns)
    todo = [b for b in dict.fromkeys(boxes) if (b, turns) not in seen.logits]
    if todo:
        seen.logits.update(zip([(b, turns) for b in todo], _reader_logits(frame, models, todo, turns)))
    stacked: FloatArray = np.stack([seen.logits[(b, turns)] for b in boxes])
    return stacked


def _reader_logits(
    frame: npt.NDArray[np.uint8], models: _Models, boxes: list[tuple[float, float, float, float]], turns: int
) -> FloatArray:
    """The reader's logits for each box, read now (one batch)."""
    patches = [crop_patch(frame, b[0], b[1], models.crop_scale * max(b[2], b[3]), size=models.crop_size)
               for b in boxes]
    step = 4 // turns
    turned = [np.ascontiguousarray(np.rot90(pt, k * step)) for k in range(turns) for pt in patches]
    models.reader.setInput(reader_input(turned))
    out = np.asarray(models.reader.forward(), np.float32).reshape(turns, len(boxes), models.classes)
    mean: FloatArray = out.mean(axis=0)
    return mean


def _not_die_prob(logits: FloatArray) -> float:
    """The reader's probability that its crop holds no die face (class 0), from its logits."""
    e = np.exp(logits - logits.max())
    return float(e[0] / e.sum())


_Read = tuple[bool, float, float, tuple[float, float, float, float], FloatArray, FloatArray, int, float, float]
"""A candidate's read in ``find_dice``: readable, size, finder score, box (centre x, y, width,
height), the reader's probabilities and logits, its class, confidence and raw read probability."""


def _allowed_classes(classes: int, kinds: tuple[str, ...] | None) -> npt.NDArray[np.bool_]:
    """Which reader classes a table holding ``kinds`` of die can show (all for ``None``)."""
    allowed = np.ones(classes, bool)
    if kinds is None or classes != READ_CLASSES_D8:
        return allowed  # a six-sided-only reader has no other kind to leave out
    if "d6" not in kinds:
        allowed[1:D8_FIRST_CLASS] = False
    if "d8" not in kinds:
        allowed[D8_FIRST_CLASS:COCKED_CLASS] = False
    return allowed


def _meaning(
    cls: int, probs: npt.NDArray[np.float32], classes: int, kinds: tuple[str, ...] | None = None
) -> tuple[str, int | None, tuple[str, ...]]:
    """(kind, face, flags) of the reader class ``cls``; for "cocked", the table's one kind of
    die, else the kind whose faces the reader found likelier."""
    kind, face = read_class(cls, classes)
    if kind != "cocked":
        return kind, face, ()
    if kinds is not None and len(set(kinds)) == 1:
        return kinds[0], None, ("cocked",)
    d8 = float(probs[D8_FIRST_CLASS:COCKED_CLASS].sum()) > float(probs[1:D8_FIRST_CLASS].sum())
    return ("d8" if d8 else "d6"), None, ("cocked",)
