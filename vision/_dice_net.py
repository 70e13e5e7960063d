"""Pre- and post-processing shared by the dice networks at run time and in training.

Two small networks read dice (trained by ``tools/train_dice.py``, run with ``cv2.dnn``):

* the *finder* looks at the whole frame scaled so its long side is each of ``DiceParams.det_long_sides``
  pixels and returns, every ``DET_STRIDE`` pixels, a die-centre score, a sub-cell offset
  and the logarithm of the box size (CenterNet-style, one class);
* the *reader* looks at one square crop per found die, ``CROP_SIZE`` pixels a side, cut
  from the full-resolution frame, and returns one logit per class: class 0 "not a die face",
  then a six-sided die's faces 1..6; a reader with ``READ_CLASSES_D8`` classes goes on with an
  eight-sided die's faces 1..8 and "a cocked die" (see :func:`read_class`).

Training and run time must cut and normalise crops the same way, so both call these.
"""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt

DET_STRIDE = 4
"""Pixels of the finder's input per output cell."""
DET_CHANNELS = 5
"""Finder outputs: centre score (after sigmoid), offset x, offset y, log(w/stride), log(h/stride)."""
CROP_SIZE = 40
"""Side of the reader's input crop, pixels, unless the model's ``dice_reader.json`` says otherwise."""
CROP_SCALE = 1.3
"""Crop side as a multiple of the die box's longer side (the face plus a margin), unless the
model's ``dice_reader.json`` says otherwise."""
NUM_READ_CLASSES = 7
"""Reader outputs of a six-sided-only reader: 0 = not a die face, 1..6 = the face up."""
READ_CLASSES_D8 = 16
"""Reader outputs of a reader that also knows eight-sided and cocked dice: 0 = not a die
face, 1..6 = a d6's face up, 7..14 = a d8's face 1..8 up, 15 = a cocked die (of either kind)."""
D8_FIRST_CLASS = 7
"""The class of a d8 showing 1 (face ``v`` is ``D8_FIRST_CLASS + v - 1``)."""
COCKED_CLASS = 15
"""The class of a die resting on another or on an edge, so that no face is up."""


def read_class(index: int, num_classes: int) -> tuple[str, int | None]:
    """What reader class ``index`` means: (``"none"``, None), (``"d6"``, face), (``"d8"``, face)
    or (``"cocked"``, None).

    >>> read_class(3, 7), read_class(9, 16), read_class(15, 16)
    (('d6', 3), ('d8', 3), ('cocked', None))
    """
    if num_classes not in (NUM_READ_CLASSES, READ_CLASSES_D8) or not 0 <= index < num_classes:
        raise ValueError(f"reader class {index} of {num_classes}: readers have {NUM_READ_CLASSES} or {READ_CLASSES_D8} classes")
    if index == 0:
        return "none", None
    if index < D8_FIRST_CLASS:
        return "d6", index
    if index < COCKED_CLASS:
        return "d8", index - D8_FIRST_CLASS + 1
    return "cocked", None
PIPS: dict[int, list[tuple[float, float]]] = {
    1: [(0.5, 0.5)],
    2: [(0.25, 0.25), (0.75, 0.75)],
    3: [(0.25, 0.25), (0.5, 0.5), (0.75, 0.75)],
    4: [(0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75)],
    5: [(0.25, 0.25), (0.75, 0.25), (0.5, 0.5), (0.25, 0.75), (0.75, 0.75)],
    6: [(0.25, 0.22), (0.75, 0.22), (0.25, 0.5), (0.75, 0.5), (0.25, 0.78), (0.75, 0.78)],
}
"""Pip centres of each face on a unit face, (0, 0) top-left to (1, 1) bottom-right: how the
training's drawn scenes and the tests draw a die."""

FloatArray = npt.NDArray[np.float32]


def finder_blob(frame: npt.NDArray[np.uint8], long_side: int) -> tuple[FloatArray, float]:
    """Scale ``frame`` so its long side is ``long_side`` (dimensions rounded to 32) and make an NCHW blob.

    Returns the blob (values 0..1, BGR order) and the scale from frame pixels to blob pixels.
    """
    h, w = frame.shape[:2]
    scale = long_side / max(h, w)
    bw = max(32, int(round(w * scale / 32.0)) * 32)
    bh = max(32, int(round(h * scale / 32.0)) * 32)
    src: npt.NDArray[np.uint8] = frame
    # Halve by exact area averaging while still twice as large (fast, no aliasing), then
    # finish with a linear resize: much cheaper than INTER_AREA at an odd ratio.
    while src.shape[1] >= 2 * bw and src.shape[0] >= 2 * bh:
        src = np.asarray(
            cv2.resize(src, (src.shape[1] // 2, src.shape[0] // 2), interpolation=cv2.INTER_AREA), np.uint8
        )
    blob = cv2.dnn.blobFromImage(src, 1.0 / 255.0, (bw, bh), swapRB=False, crop=False)
    # Horizontal and vertical scales differ slightly after rounding; use their mean.
    return np.asarray(blob, np.float32), float((bw / w + bh / h) / 2.0)


SHRINK_BEYOND = 0.25
"""A crop scaled by less than half this (a die over eight times the crop's side) is cut from the
frame first averaged down by a whole factor, to this scale or a little less."""


def crop_patch(
    frame: npt.NDArray[np.uint8], cx: float, cy: float, side: float, angle_deg: float = 0.0, size: int | None = None
) -> npt.NDArray[np.uint8]:
    """Cut a ``size`` (default ``CROP_SIZE``) pixel square of side ``side`` frame pixels centred at
    (cx, cy), rotated by ``angle_deg``."""
    size = CROP_SIZE if size is None else size
    k = size / max(side, 1.0)
    m = cv2.getRotationMatrix2D((cx, cy), angle_deg, k)
    m[0, 2] += size / 2.0 - cx
    m[1, 2] += size / 2.0 - cy
    # Shrinking a large die to 32 px needs a pre-blur, or pips alias away. Only the part of the
    # frame the crop samples is blurred: its turned square, the blur's reach and a few pixels
    # for the interpolation (the same crop as blurring the whole frame, for a fraction of the time).
    src: npt.NDArray[np.uint8] = frame
    if k < 0.5:
        sigma = 0.45 / k
        turn = np.deg2rad(angle_deg)
        reach = side / 2 * (abs(np.cos(turn)) + abs(np.sin(turn))) + 4 * sigma + 3
        x0 = int(max(0, cx - reach))
        y0 = int(max(0, cy - reach))
        x1 = int(min(frame.shape[1], cx + reach + 1))
        y1 = int(min(frame.shape[0], cy + reach + 1))
        if x1 <= x0 or y1 <= y0:
            return np.zeros((size, size, 3), np.uint8)
        region = frame[y0:y1, x0:x1]
        # A die many times the crop's size (a phone's close-up: 1,000 px and more) is first
        # averaged down by a whole factor, which blurs by its own spread, and the Gaussian
        # makes up the rest: nearly the same crop, where blurring the die's full size took a
        # sixth of a second.
        shrink = max(1, int(SHRINK_BEYOND / k)) if k < SHRINK_BEYOND / 2.0 else 1
        if shrink > 1:
            # Mirrored out to whole blocks, as the Gaussian sees beyond the frame's edge.
            rh, rw = -(-region.shape[0] // shrink), -(-region.shape[1] // shrink)
            region = np.asarray(cv2.copyMakeBorder(region, 0, rh * shrink - region.shape[0], 0,
                                                   rw * shrink - region.shape[1], cv2.BORDER_REFLECT_101), np.uint8)
            region = np.asarray(cv2.resize(region, (rw, rh), interpolation=cv2.INTER_AREA), np.uint8)
            # The block average spreads by (shrink^2 - 1) / 12 frame pixels^2, and the linear
            # interpolation of the coarser image by about 1/6 of its pixel^2, on average.
            sigma = float(np.sqrt(max((sigma * sigma - (shrink * shrink - 1) / 12.0) / shrink**2 - 1.0 / 6.0, 0.25)))
        src = np.asarray(cv2.GaussianBlur(region, (0, 0), sigma), np.uint8)
        # Source pixel (u, v) is the frame's (x0 + shrink * u + (shrink - 1) / 2, likewise y).
        offset = (shrink - 1) / 2.0
        m[0, 2] += m[0, 0] * (x0 + offset) + m[0, 1] * (y0 + offset)
        m[1, 2] += m[1, 0] * (x0 + offset) + m[1, 1] * (y0 + offset)
        m[:, :2] *= shrink
    return np.asarray(
        cv2.warpAffine(src, m, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE),
        np.uint8,
    )


def reader_input(patches: list[npt.NDArray[np.uint8]]) -> FloatArray:
    """Stack crops (all of one size) into an NCHW blob, each standardised by its own mean and spread."""
    side = patches[0].shape[0] if patches else CROP_SIZE
    out = np.empty((len(patches), 3, side, side), np.float32)
    for i, p in enumerate(patches):
        x = p.astype(np.float32)
        x = (x - x.mean()) / (x.std() + 8.0)
        out[i] = x.transpose(2, 0, 1)
    return out


def decode_finder(
    out: FloatArray, threshold: float, max_objects: int
) -> list[tuple[float, float, float, float, float]]:
    """Peaks of the finder output as (score, cx, cy, w, h) in finder-input pixels, best first."""
    heat = out[0, 0]
    peaks = cv2.dilate(heat, np.ones((3, 3), np.uint8))
    ys, xs = np.nonzero((heat >= peaks) & (heat >= threshold))
    order = np.argsort(-heat[ys, xs])[:max_objects]
    found = []
    for i in order:
        y, x = int(ys[i]), int(xs[i])
        cx = (x + 0.5 + float(out[0, 1, y, x])) * DET_STRIDE
        cy = (y + 0.5 + float(out[0, 2, y, x])) * DET_STRIDE
        w = float(np.exp(np.clip(out[0, 3, y, x], -3.0, 6.0))) * DET_STRIDE
        h = float(np.exp(np.clip(out[0, 4, y, x], -3.0, 6.0))) * DET_STRIDE
        found.append((float(heat[y, x]), cx, cy, w, h))
    return found
