"""Small networks over square crops of the frame, run with OpenCV's DNN module.

The cocked-die check (``vision.cocked``) and the coin-on-edge check (``vision.edge_coins``)
each look at a square around an object, some multiple (the context) of its size, scaled to a
few pixels, and give one logit (yes or no); the eight-sided dice's face reader
(``vision.d8_faces``) gives one logit per face. Trained by ``tools/train_cocked.py``,
``tools/train_edge_coins.py`` and ``tools/train_d8.py`` (with ``tools/_check_training.py``); each model file's
``.json`` beside it names the crop it was trained on.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from vision._dice_net import crop_patch, reader_input
from vision._dnn import load_onnx

Spot = tuple[float, float, float]
"""(x, y, size): an object's centre and size (a die's box side, a coin's diameter), frame pixels."""

_local = threading.local()


@dataclass(frozen=True)
class PatchCheck:
    """A network and the crops it takes."""

    net: cv2.dnn.Net
    crop_side: int
    """The network's input side, pixels."""
    context: float
    """Crop side over the object's size."""


def load_check(path: Path, crop_side: int, context: float) -> PatchCheck | None:
    """The network in ``path``, loaded once per thread, with the crop its ``.json`` names
    (else ``crop_side`` and ``context``), or ``None`` when there is no such file.

    :raises ValueError: for a ``.json`` that is not what training writes.
    """
    cache: dict[Path, PatchCheck | None] = _local.__dict__.setdefault("checks", {})
    if path not in cache:
        check = None
        if path.is_file():
            meta_path = path.with_suffix(".json")
            if meta_path.is_file():
                try:
                    meta = json.loads(meta_path.read_text())
                    crop_side, context = int(meta["crop_side"]), float(meta["context"])
                except (ValueError, KeyError, TypeError) as exc:
                    raise ValueError(f"{meta_path}: needs numbers crop_side and context ({exc})") from None
                if crop_side < 8 or not context >= 1.0:
                    raise ValueError(f"{meta_path}: crop_side must be at least 8 and context at least 1, "
                                     f"got {crop_side} and {context}")
            check = PatchCheck(load_onnx(path), crop_side, context)
        cache[path] = check
    return cache[path]


def patches(frame: npt.NDArray[np.uint8], spots: Sequence[Spot], crop_side: int, context: float) -> list[npt.NDArray[np.uint8]]:
    """One ``crop_side`` square crop per spot: its centre, ``context`` times its size."""
    return [crop_patch(frame, x, y, context * size, size=crop_side) for x, y, size in spots]


def check_input(crops: list[npt.NDArray[np.uint8]]) -> npt.NDArray[np.float32]:
    """The crops as a network's NCHW input, each standardised by its own mean and spread."""
    return reader_input(crops)


def quarter_turns(turns: int) -> tuple[int, ...]:
    """The quarter turns (0..3) at which ``turns`` (1, 2 or 4) evenly spread readings see a crop.

    >>> quarter_turns(1), quarter_turns(2), quarter_turns(4)
    ((0,), (0, 2), (0, 1, 2, 3))
    """
    if turns not in (1, 2, 4):
        raise ValueError(f"turns must be 1, 2 or 4, got {turns}")
    return tuple(range(0, 4, 4 // turns))


def logits(
    check: PatchCheck,
    frame: npt.NDArray[np.uint8],
    spots: Sequence[Spot],
    outputs: int = 1,
    turns: int = 1,
    quarters: Sequence[int] | None = None,
) -> npt.NDArray[np.float32]:
    """The network's ``outputs`` logits for each spot, shape (spots, outputs) (one batch); with
    ``turns`` 2 or 4, averaged over the crop seen at that many quarter turns, or, when given,
    at the ``quarters`` named (each 0..3 quarter turns)."""
    if not spots:
        return np.zeros((0, outputs), np.float32)
    quarters = quarter_turns(turns) if quarters is None else tuple(quarters)
    if not quarters or any(q not in (0, 1, 2, 3) for q in quarters):
        raise ValueError(f"quarters must name quarter turns 0 to 3, got {quarters!r}")
    crops = patches(frame, spots, check.crop_side, check.context)
    turned = [np.ascontiguousarray(np.rot90(c, q)) for q in quarters for c in crops]
    check.net.setInput(check_input(turned))
    out = np.asarray(check.net.forward(), np.float32)
    if out.size != len(turned) * outputs:
        raise ValueError(f"the network gave {out.size} numbers for {len(turned)} crops, not {outputs} each")
    mean: npt.NDArray[np.float32] = out.reshape(len(quarters), len(spots), outputs).mean(axis=0)
    return mean


def probability(check: PatchCheck, frame: npt.NDArray[np.uint8], spots: Sequence[Spot]) -> npt.NDArray[np.float32]:
    """The network's probability for each spot (one batch)."""
    z = logits(check, frame, spots).reshape(-1)
    out: npt.NDArray[np.float32] = (1.0 / (1.0 + np.exp(-z))).astype(np.float32)
    return out
