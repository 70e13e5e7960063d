"""Train the two small dice networks and export them to ONNX for ``cv2.dnn``.

Usage (PyTorch is needed here only, never at run time; a GPU helps but is not required)::

    python tools/train_dice.py --data ../shared/data/dice-rune55 --out vision/models

Learns from the trained part of dice-rune55 only (``vision._dice_split.is_held_out``
photos are never seen, nor ``is_validation`` photos and scenes, on which
``benchmarks/dice_bench.py --fit-temperature`` and ``--fit-confident`` fit
``DiceParams.temperature`` and ``DiceParams.confident_at`` after a training), with heavy colour
augmentation (hue turns, channel swaps, grey, inverted dice) so that red dice, dark dice with
light pips and other colours are read too, and scale augmentation so that dice from about 8
finder pixels (25 px in a 1280x960 frame) up to close-ups are found. A share of the samples
(``--synth-share``) are scenes drawn here with OpenCV (``synth_scene``): dice of any colour
and size, light or dark pips, often touching, so the networks do not learn only the colours
of the photos; ``--marble-share`` draws a share of them marbled (:func:`marbled`). Rendered
scenes join with ``--fixtures`` (repeatable).

``--only finder`` and ``--only reader`` train one network (they may run side by side);
``--init`` starts from a ``.pt`` or a shipped ``.onnx`` (its batch norms folded, then kept
fixed), and ``--average`` writes the weight average of several trained ``.pt`` files.

On a CPU, cut the augmented reader crops once (``--write-cache``; two processes can cut two
files side by side) and train from them (``--cache``, each batch turned by a random quarter
turn): a step then costs about a quarter of the time. Hard negatives (``--mine-negatives``:
where the current networks find a die the labels say is none, such as printed zone names,
markers or the side face of a die seen obliquely; ``--mine-photos`` adds pictures with no die,
``--mine-every-candidate`` also what the reader already rejects) are cut into a cache of their
own (``--write-cache --negatives``) and mixed in.

On a machine with a GPU and many cores the crops are better cut as the training goes, by
``--workers`` processes: ``--synth-reuse`` lets each drawn scene serve several crops,
``--negatives FILE`` mixes the hard negatives into the stream (``--negative-share``), and
``--time-limit`` runs the one-cycle schedule by the clock so that a training ends, annealed,
inside a lease.

A reader of another shape can learn from the shipped one as well as from the labels:
``--teacher`` (its outputs softened, weighed ``--teacher-weight``), ``--reader-arch separable``
(:class:`SeparableReader`, about a third of the full reader's time a crop) and
``--prune-teacher`` (start a ``--reader-width`` reader from the teacher's most active
channels, :func:`prune_reader`).

The commands that made the shipped networks, and what other trainings gave, are in
``docs/benchmarks/training.md``.

Needs ``pip install torch==2.13.0 onnx`` (training only; run time uses ``cv2.dnn``).

Writes ``dice_finder.onnx`` and ``dice_reader.onnx`` into ``--out``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path
from typing import Any, Sequence

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import vision._dice_net as dice_net  # noqa: E402
from vision._dice_net import (  # noqa: E402
    COCKED_CLASS,
    D8_FIRST_CLASS,
    DET_STRIDE,
    PIPS,
    NUM_READ_CLASSES,
    READ_CLASSES_D8,
    crop_patch,
    reader_input,
)
from vision._dice_split import is_held_out, is_validation  # noqa: E402
from vision.dice import DiceParams, find_dice  # noqa: E402
from tools.train_coins import distillation  # noqa: E402  (the coin model's students learn so too)

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

DET_CROP = 320
SYNTH_SHARE = 0.3
"""Share of training samples drawn from synth_scene rather than the photos."""
BOX_SCALE = 1.0
"""Reader crops are cut around this share of each labelled box (``--box-scale``)."""
PIP_SHARE = 0.12
"""Share of reader samples on a die that are cut at pip size and labelled "not a die face"."""
MARBLE_SHARE = 0.0
"""Share of drawn dice (``synth_scene``) whose body is marbled, veined and flecked with glitter
(``--marble-share``): the photos' dice most often misread are such dice, blurred."""


def read_image(path: str | Path) -> np.ndarray:
    """A photo or scene as BGR uint8, or FileNotFoundError naming it."""
    img = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if img is None:
        raise FileNotFoundError(path)
    return np.asarray(img, np.uint8)


def load(data: Path, held_out: bool) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """(image, boxes Nx4 float, values N int) for every photo on one side of the split."""
    labels = json.loads((data / "labels.json").read_text())
    out = []
    for entry in labels:
        if is_held_out(entry["image"]) != held_out or is_validation(entry["image"]):
            continue  # the validation part calibrates confidence: never learned from
        img = read_image(data / entry["image"])
        objs = [o for o in entry["objects"] if o["kind"] == "d6"]
        boxes = np.array([o["bbox"] for o in objs], np.float32).reshape(-1, 4)
        values = np.array([int(o["value"]) for o in objs], np.int64)
        out.append((img, boxes, values))
    return out


def fixture_class(obj: dict, classes: int) -> int:
    """The reader class a rendered fixture object teaches, or -1 for one not taught either way.

    Six-sided-only reader (``NUM_READ_CLASSES``): the face for a flat d6; 0 ("not a die
    face") for a d8 or a coin (the finder sometimes takes a coin for a die); -1 for a cocked,
    moving or occluded d6. With ``READ_CLASSES_D8``: a flat d8's face is its own class,
    and a cocked die (of either kind) is ``COCKED_CLASS``; moving or hidden dice stay -1.
    """
    kind, flags = obj["kind"], set(obj.get("flags") or ())
    if kind not in ("d6", "d8") or (kind == "d8" and classes == NUM_READ_CLASSES):
        return 0
    if flags == {"cocked"} and classes == READ_CLASSES_D8:
        return COCKED_CLASS
    if flags:
        return -1
    return int(obj["value"]) if kind == "d6" else D8_FIRST_CLASS + int(obj["value"]) - 1


def load_fixtures(
    folder: Path, classes: int = NUM_READ_CLASSES, keep_die_free: bool = False
) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """(image, boxes, values) for the project's rendered fixture scenes in ``folder``.

    Only the dev part, or training scenes rendered apart (``python -m tools.fixturegen
    --split train``), may be passed here (fixtures/scenes/test is held back for measuring).
    Values are reader classes (:func:`fixture_class`); random negatives keep away from the
    dice taught neither way. The finder learns every die as a die, and nothing else. Scenes
    with no die are left out unless ``keep_die_free`` (the finder then learns that their coins
    and printed marks are no dice).
    """
    if folder.name == "test":
        raise ValueError(f"{folder} is the held-back fixtures part: never train on it")
    out = []
    for entry in json.loads((folder / "labels.json").read_text()):
        if is_validation(entry["image"]):
            continue  # kept for calibrating confidence
        dice = [o for o in entry["objects"] if o.get("bbox")]
        if not keep_die_free and not any(o["kind"] in ("d6", "d8") for o in dice):
            continue
        img = read_image(folder / entry["image"])
        boxes = np.array([o["bbox"] for o in dice], np.float32).reshape(-1, 4)
        values = np.array([fixture_class(o, classes) for o in dice], np.int64)
        out.append((img, boxes, values))
    return out


# ---------------------------------------------------------------- augmentation
def colour_aug(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Random hue turn, channel swap, grey, inversion, contrast, brightness, blur and noise."""
    x = img
    if rng.random() < 0.5:
        hsv = cv2.cvtColor(x, cv2.COLOR_BGR2HSV)
        hsv[..., 0] = ((hsv[..., 0].astype(np.int32) + int(rng.integers(0, 180))) % 180).astype(np.uint8)
        if rng.random() < 0.5:
            hsv[..., 1] = np.clip(hsv[..., 1] * rng.uniform(0.5, 1.5), 0, 255).astype(np.uint8)
        x = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)
    if rng.random() < 0.3:
        x = x[..., rng.permutation(3)]
    if rng.random() < 0.2:
        g = cv2.cvtColor(x, cv2.COLOR_BGR2GRAY)
        x = cv2.cvtColor(g, cv2.COLOR_GRAY2BGR)
    if rng.random() < 0.25:
        # A dark die with light pips is a light die with dark pips, inverted.
        x = 255 - x
    x = x.astype(np.float32)
    x = (x - 128.0) * rng.uniform(0.6, 1.4) + 128.0 + rng.uniform(-40, 40)
    x = x * rng.uniform(0.85, 1.15, size=3).astype(np.float32)
    if rng.random() < 0.3:
        x = cv2.GaussianBlur(x, (0, 0), rng.uniform(0.3, 1.2))
    if rng.random() < 0.3:
        x = x + rng.normal(0, rng.uniform(2, 8), x.shape).astype(np.float32)
    x = np.clip(x, 0, 255).astype(np.uint8)
    if rng.random() < 0.3:
        ok, enc = cv2.imencode(".jpg", x, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(40, 95))])
        x = cv2.imdecode(enc, cv2.IMREAD_COLOR)
    return x


def _random_colour(rng: np.random.Generator) -> tuple[int, int, int]:
    hsv = np.uint8([[[rng.integers(0, 180), rng.integers(60, 256), rng.integers(60, 256)]]])
    return tuple(int(v) for v in cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0])  # type: ignore[return-value]


def marbled(k: int, body: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    """A ``k`` x ``k`` BGR die body of ``body`` marbled with one or two other colours in veins,
    often flecked with glitter smaller than any pip (``MARBLE_SHARE``)."""
    g = int(rng.integers(3, 9))
    noise = cv2.resize(rng.random((g, g)).astype(np.float32), (k, k), interpolation=cv2.INTER_CUBIC)
    yy, xx = np.mgrid[0:k, 0:k].astype(np.float32) / k
    a = rng.uniform(0, np.pi)
    veins = np.sin((xx * np.cos(a) + yy * np.sin(a)) * rng.uniform(4, 14) + noise * rng.uniform(3, 9))
    t = np.clip((veins + 1) / 2, 0, 1)[..., None]
    other = np.array(_random_colour(rng) if rng.random() < 0.7 else body[::-1], np.float32)
    out = np.array(body, np.float32) * (1 - t) + other * t
    if rng.random() < 0.4:
        third = np.array(_random_colour(rng), np.float32)
        w = np.clip(cv2.resize(rng.random((g, g)).astype(np.float32), (k, k), interpolation=cv2.INTER_CUBIC) * 2 - 1, 0, 1)
        out = out * (1 - w[..., None]) + third * w[..., None]
    if rng.random() < 0.6:
        for _ in range(int(rng.integers(10, 60))):
            c = (int(rng.integers(0, k)), int(rng.integers(0, k)))
            shade = rng.uniform(0.3, 1.8)
            cv2.circle(out, c, int(rng.integers(0, 2)), tuple(float(min(255.0, v * shade)) for v in out[c[1], c[0]]), -1)
    clipped: np.ndarray = np.clip(out, 0, 255)
    return clipped


def synth_scene(
    items: list[tuple[np.ndarray, np.ndarray, np.ndarray]], rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A drawn scene (the project's own rendering): top-down dice of any colour, any size,
    light or dark pips, often touching, on a real photo's background or a plain table."""
    size = 448
    if rng.random() < 0.5:
        img = items[int(rng.integers(0, len(items)))][0]
        img = cv2.resize(img, (size, size), interpolation=cv2.INTER_AREA)
        img = cv2.GaussianBlur(img, (0, 0), 25)  # keep its colours, lose its own dice
    else:
        img = np.empty((size, size, 3), np.uint8)
        img[:] = _random_colour(rng)
        img = np.clip(img + rng.normal(0, rng.uniform(1, 10), img.shape), 0, 255).astype(np.uint8)
    boxes, values = [], []
    side = float(math.exp(rng.uniform(math.log(14), math.log(110))))
    n = int(rng.integers(1, 7))
    cx, cy = rng.uniform(side, size - side, 2)
    for _ in range(n):
        sd = side * rng.uniform(0.9, 1.1)
        if boxes and rng.random() < 0.5:  # touching the last die
            a = rng.uniform(0, 2 * math.pi)
            cx, cy = cx + math.cos(a) * sd * 1.05, cy + math.sin(a) * sd * 1.05
        else:
            cx, cy = rng.uniform(sd, size - sd, 2)
        if not (sd / 2 < cx < size - sd / 2 and sd / 2 < cy < size - sd / 2):
            continue
        if any(abs(cx - (b[0] + b[2] / 2)) < 0.8 * b[2] and abs(cy - (b[1] + b[3] / 2)) < 0.8 * b[3] for b in boxes):
            continue
        r = rng.random()
        body = (
            tuple(int(v) for v in rng.integers(200, 256, 3)) if r < 0.35
            else tuple(int(v) for v in rng.integers(0, 60, 3)) if r < 0.55
            else _random_colour(rng)
        )
        lum = 0.114 * body[0] + 0.587 * body[1] + 0.299 * body[2]
        pip = (20, 20, 20) if lum > 140 else (240, 240, 240)
        if rng.random() < 0.2:
            pip = _random_colour(rng)
        face = int(rng.integers(1, 7))
        k = 64
        tile = np.zeros((k, k, 3), np.uint8)
        mask = np.zeros((k, k), np.uint8)
        rr = int(k * rng.uniform(0.08, 0.2))
        for m_img, col in ((tile, body), (mask, 255)):
            cv2.rectangle(m_img, (rr, 0), (k - 1 - rr, k - 1), col, -1)
            cv2.rectangle(m_img, (0, rr), (k - 1, k - 1 - rr), col, -1)
            for px, py in ((rr, rr), (k - 1 - rr, rr), (rr, k - 1 - rr), (k - 1 - rr, k - 1 - rr)):
                cv2.circle(m_img, (px, py), rr, col, -1)
        if rng.random() < MARBLE_SHARE:
            tile = np.where(mask[..., None] > 0, marbled(k, body, rng), 0).astype(np.uint8)
            if rng.random() < 0.5:
                pip = (int(rng.integers(200, 256)), int(rng.integers(180, 256)), int(rng.integers(120, 256)))
        pr = k * rng.uniform(0.07, 0.1)
        for u, v in PIPS[face]:
            cv2.circle(tile, (int(u * k), int(v * k)), int(pr), pip, -1, cv2.LINE_AA)
        shade = np.linspace(rng.uniform(0.75, 1.0), rng.uniform(0.9, 1.1), k)[None, :, None]
        tile = np.clip(tile * shade, 0, 255).astype(np.uint8)
        ang = rng.uniform(0, 360)
        m = cv2.getRotationMatrix2D((k / 2, k / 2), ang, sd / k)
        m[0, 2] += cx - k / 2
        m[1, 2] += cy - k / 2
        warped = cv2.warpAffine(tile, m, (size, size), flags=cv2.INTER_AREA)
        wmask = cv2.warpAffine(mask, m, (size, size), flags=cv2.INTER_LINEAR)
        sh = cv2.GaussianBlur(np.roll(wmask, (int(sd * 0.08), int(sd * 0.08)), (0, 1)), (0, 0), sd / 8)
        img = (img * (1 - 0.5 * sh[..., None] / 255.0)).astype(np.uint8)
        a = wmask[..., None].astype(np.float32) / 255.0
        img = (img * (1 - a) + warped * a).astype(np.uint8)
        ys, xs = np.nonzero(wmask > 127)
        boxes.append([xs.min(), ys.min(), xs.max() - xs.min() + 1, ys.max() - ys.min() + 1])
        values.append(face)
    img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.3, 1.0))
    return img, np.array(boxes, np.float32).reshape(-1, 4), np.array(values, np.int64)


def finder_sample(
    item: tuple[np.ndarray, np.ndarray, np.ndarray], rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """One augmented finder input (3xSxS float) and its target (6 x S/4 x S/4: heat, off, size, mask)."""
    img, boxes, values = item
    boxes = boxes[values != 0]  # a coin (or, for a six-sided-only reader, a d8) is no die
    # Scale so this photo's dice span about 7..110 finder pixels: the finder then runs at
    # two input sizes (DiceParams.det_long_sides) to cover small dice and close-ups alike.
    med = float(np.median(np.maximum(boxes[:, 2], boxes[:, 3]))) if len(boxes) else 60.0
    lo, hi = max(0.12, 8.0 / med), min(1.3, 100.0 / med)
    s = math.exp(rng.uniform(math.log(lo), math.log(max(lo, hi))))
    sx = s * rng.uniform(0.85, 1.15)
    sy = s * rng.uniform(0.85, 1.15)
    h, w = img.shape[:2]
    nw, nh = max(8, int(w * sx)), max(8, int(h * sy))
    im = cv2.resize(img, (nw, nh), interpolation=cv2.INTER_AREA)
    b = boxes * np.array([nw / w, nh / h, nw / w, nh / h], np.float32)
    k = int(rng.integers(0, 4))
    for _ in range(k):  # quarter turns: dice look the same, frames do not
        im = cv2.rotate(im, cv2.ROTATE_90_CLOCKWISE)
        hh = im.shape[1]  # height before the turn = new width
        b = np.stack([hh - b[:, 1] - b[:, 3], b[:, 0], b[:, 3], b[:, 2]], 1) if len(b) else b
    if rng.random() < 0.5:
        im = im[:, ::-1]
        if len(b):
            b = b.copy()
            b[:, 0] = im.shape[1] - b[:, 0] - b[:, 2]
    # Random window of DET_CROP, padded with an edge colour when the image is smaller.
    canvas = np.empty((DET_CROP, DET_CROP, 3), np.uint8)
    canvas[:] = im[int(rng.integers(0, im.shape[0])), int(rng.integers(0, im.shape[1]))]
    ih, iw = im.shape[:2]
    ox = int(rng.integers(min(0, iw - DET_CROP), max(0, iw - DET_CROP) + 1))
    oy = int(rng.integers(min(0, ih - DET_CROP), max(0, ih - DET_CROP) + 1))
    x0, y0 = max(ox, 0), max(oy, 0)
    x1, y1 = min(ox + DET_CROP, iw), min(oy + DET_CROP, ih)
    canvas[y0 - oy : y1 - oy, x0 - ox : x1 - ox] = im[y0:y1, x0:x1]
    canvas = colour_aug(canvas, rng)
    g = DET_CROP // DET_STRIDE
    tgt = np.zeros((6, g, g), np.float32)
    yy, xx = np.mgrid[0:g, 0:g].astype(np.float32)
    for bx, by, bw, bh in b:
        cx = (bx + bw / 2 - ox) / DET_STRIDE
        cy = (by + bh / 2 - oy) / DET_STRIDE
        if not (0 <= cx < g and 0 <= cy < g):
            continue
        sgx = max(0.5, bw / DET_STRIDE / 6.0)
        sgy = max(0.5, bh / DET_STRIDE / 6.0)
        ix, iy = int(cx), int(cy)
        gauss = np.exp(-((xx - ix) ** 2) / (2 * sgx * sgx) - ((yy - iy) ** 2) / (2 * sgy * sgy))
        tgt[0] = np.maximum(tgt[0], gauss)
        tgt[1, iy, ix] = cx - ix - 0.5
        tgt[2, iy, ix] = cy - iy - 0.5
        tgt[3, iy, ix] = math.log(max(bw, 1.0) / DET_STRIDE)
        tgt[4, iy, ix] = math.log(max(bh, 1.0) / DET_STRIDE)
        tgt[5, iy, ix] = 1.0
        tgt[0, iy, ix] = 1.0
    x = canvas.astype(np.float32).transpose(2, 0, 1) / 255.0
    return x, tgt


def reader_sample(
    item: tuple[np.ndarray, np.ndarray, np.ndarray], rng: np.random.Generator
) -> tuple[np.ndarray, int]:
    """One augmented reader crop (as reader_input makes it) and its class (0 = not a face)."""
    img, boxes, values = item
    h, w = img.shape[:2]
    usable = np.nonzero(values >= 0)[0]
    if len(usable) and rng.random() < 0.75:
        i = int(usable[int(rng.integers(0, len(usable)))])
        bx, by, bw, bh = boxes[i]
        size = max(bw, bh)
        cx = bx + bw / 2 + rng.normal(0, 0.06) * size
        cy = by + bh / 2 + rng.normal(0, 0.06) * size
        side = dice_net.CROP_SCALE * BOX_SCALE * size * math.exp(rng.normal(0, 0.1))
        label = int(values[i])
        if rng.random() < PIP_SHARE:
            # A pip, not a die: the finder sometimes boxes one pip of a large die, and a
            # lone pip looks like a small "1". A crop a fraction of the face, on the face.
            cx = bx + bw * rng.uniform(0.2, 0.8)
            cy = by + bh * rng.uniform(0.2, 0.8)
            side = dice_net.CROP_SCALE * size * rng.uniform(0.15, 0.45)
            label = 0
        elif rng.random() < 0.15:
            # Off-centre: half a die or more away from the face is not a read.
            ang = rng.uniform(0, 2 * math.pi)
            d = rng.uniform(0.55, 1.0) * size
            cx += d * math.cos(ang)
            cy += d * math.sin(ang)
            label = 0
            # ...unless that lands on another die's centre.
            for j in range(len(boxes)):
                ox = boxes[j, 0] + boxes[j, 2] / 2
                oy = boxes[j, 1] + boxes[j, 3] / 2
                if abs(ox - cx) < 0.3 * boxes[j, 2] and abs(oy - cy) < 0.3 * boxes[j, 3]:
                    label = int(values[j])
            if label < 0:
                return reader_sample(item, rng)  # on a cocked or hidden die: not taught
    else:
        side = math.exp(rng.uniform(math.log(14), math.log(300)))
        cx = rng.uniform(0, w)
        cy = rng.uniform(0, h)
        label = 0
        for j in range(len(boxes)):
            ox = boxes[j, 0] + boxes[j, 2] / 2
            oy = boxes[j, 1] + boxes[j, 3] / 2
            if abs(ox - cx) < 0.6 * boxes[j, 2] and abs(oy - cy) < 0.6 * boxes[j, 3]:
                label = -1  # too close to a die to call either way; resample
        if label < 0:
            return reader_sample(item, rng)
    patch = crop_patch(img, cx, cy, side, rng.uniform(0, 360))
    if rng.random() < 0.15:
        # Small dice: blur the crop down and back up as a 25 px die would look.
        f = rng.uniform(0.4, 0.8)
        crop = dice_net.CROP_SIZE
        small = cv2.resize(patch, (max(6, int(crop * f)),) * 2, interpolation=cv2.INTER_AREA)
        patch = cv2.resize(small, (crop, crop), interpolation=cv2.INTER_LINEAR)
    if rng.random() < 0.5:
        patch = patch[:, ::-1]
    patch = colour_aug(np.ascontiguousarray(patch), rng)
    return reader_input([patch])[0], label


class _Set(torch.utils.data.Dataset):  # type: ignore[misc]
    """``n`` training samples made by ``fn`` from the photos and scenes ``items``, a share of them
    from scenes drawn by ``synth_scene``, and (reader only) a share from mined hard negatives.

    A drawn scene costs about a hundred reader crops' time, so with ``synth_reuse`` K above 1
    each worker keeps a few drawn scenes and draws a new one only once in K: every sample is
    still cut at its own place, size, turn and colours."""

    def __init__(self, items, fn, n, synth_reuse=1, negatives=None, negative_share=0.0):  # type: ignore[no-untyped-def]
        self.items, self.fn, self.n = items, fn, n
        self.det_crop = DET_CROP
        self.synth_share = SYNTH_SHARE
        self.marble_share = MARBLE_SHARE
        self.synth_reuse = max(1, int(synth_reuse))
        self.negatives = negatives or []
        self.negative_share = negative_share if self.negatives else 0.0
        self._pool: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        self._images: dict[str, np.ndarray] = {}

    def __len__(self) -> int:
        return self.n

    def _drawn_scene(self, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if len(self._pool) < 8 or rng.random() < 1.0 / self.synth_reuse:
            scene = synth_scene(self.items, rng)
            if len(self._pool) < 8:
                self._pool.append(scene)
            else:
                self._pool[int(rng.integers(0, len(self._pool)))] = scene
            return scene
        return self._pool[int(rng.integers(0, len(self._pool)))]

    def __getitem__(self, k):  # type: ignore[no-untyped-def]
        global DET_CROP, MARBLE_SHARE
        DET_CROP = self.det_crop  # worker processes start with the module defaults
        MARBLE_SHARE = self.marble_share
        rng = np.random.default_rng((k * 7919 + os.getpid() * 104729 + int(time.time() * 1e6)) % 2**63)
        if self.negative_share and rng.random() < self.negative_share:
            item = self.negatives[int(rng.integers(0, len(self.negatives)))]
            if item["image"] not in self._images:
                self._images[item["image"]] = read_image(item["image"])
            return negative_sample(item, rng, self._images), 0
        if rng.random() < self.synth_share:
            scene = self._drawn_scene(rng) if self.synth_reuse > 1 else synth_scene(self.items, rng)
            if len(scene[1]):
                return self.fn(scene, rng)
        return self.fn(self.items[int(rng.integers(0, len(self.items)))], rng)


# ---------------------------------------------------------------- networks
def _cbr(i: int, o: int, s: int = 1) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(i, o, 3, s, 1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True))


def _ds(i: int, o: int, s: int = 1) -> nn.Sequential:
    """Depthwise-separable conv: cheap on one CPU core."""
    return nn.Sequential(
        nn.Conv2d(i, i, 3, s, 1, groups=i, bias=False),
        nn.BatchNorm2d(i),
        nn.ReLU(inplace=True),
        nn.Conv2d(i, o, 1, bias=False),
        nn.BatchNorm2d(o),
        nn.ReLU(inplace=True),
    )


class Finder(nn.Module):  # type: ignore[misc]
    """Small FPN down to stride 32 (large close-up dice), read out at stride 4."""

    def __init__(self) -> None:
        super().__init__()
        self.stem = _cbr(3, 8, 2)
        self.s4 = nn.Sequential(_ds(8, 16, 2), _ds(16, 16))
        self.s8 = nn.Sequential(_ds(16, 32, 2), _ds(32, 32))
        self.s16 = nn.Sequential(_ds(32, 48, 2), _ds(48, 48))
        self.s32 = nn.Sequential(_ds(48, 64, 2), _ds(64, 64))
        self.l16 = nn.Conv2d(48, 32, 1)
        self.t32 = nn.Conv2d(64, 32, 1)
        self.m16 = _ds(32, 32)
        self.l8 = nn.Conv2d(32, 24, 1)
        self.t16 = nn.Conv2d(32, 24, 1)
        self.m8 = _ds(24, 24)
        self.l4 = nn.Conv2d(16, 16, 1)
        self.t8 = nn.Conv2d(24, 16, 1)
        self.m4 = _ds(16, 16)
        self.head = nn.Conv2d(16, 5, 1)
        self.head.bias.data[0] = -4.0

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        f4 = self.s4(self.stem(x))
        f8 = self.s8(f4)
        f16 = self.s16(f8)
        f32 = self.s32(f16)
        up = F.interpolate
        p16 = self.m16(self.l16(f16) + up(self.t32(f32), scale_factor=2.0, mode="nearest"))
        p8 = self.m8(self.l8(f8) + up(self.t16(p16), scale_factor=2.0, mode="nearest"))
        p4 = self.m4(self.l4(f4) + up(self.t8(p8), scale_factor=2.0, mode="nearest"))
        o = self.head(p4)
        return torch.cat([torch.sigmoid(o[:, :1]), o[:, 1:]], 1)


class Reader(nn.Module):  # type: ignore[misc]
    """A ``crop`` x ``crop`` die crop to 7 logits: three stages of two 3x3 convolutions
    (``width``, 2 x ``width``, 4 x ``width`` channels), each halving the crop, then a small
    dense head that still knows where on the face each pip is. With ``separable`` every
    convolution after the first is depthwise-separable (see :class:`SeparableReader`)."""

    def __init__(self, width: int = 16, crop: int = 32, classes: int = NUM_READ_CLASSES, separable: bool = False) -> None:
        super().__init__()
        w = width
        block = _ds if separable else _cbr
        self.f = nn.Sequential(
            _cbr(3, w),
            block(w, w),
            nn.MaxPool2d(2),
            block(w, 2 * w),
            block(2 * w, 2 * w),
            nn.MaxPool2d(2),
            block(2 * w, 4 * w),
            block(4 * w, 4 * w),
            nn.MaxPool2d(2),
            nn.Flatten(),
            nn.Dropout(0.2),
            nn.Linear(4 * w * (crop // 8) ** 2, 64),
            nn.ReLU(inplace=True),
            nn.Linear(64, classes),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.f(x)


class SeparableReader(Reader):
    """The reader's shape with every convolution after the first depthwise-separable: about a
    third of the full reader's time a crop on one core, for a network that learns from the
    full reader (``--teacher``) as well as from the labels."""

    def __init__(self, width: int = 16, crop: int = 32, classes: int = NUM_READ_CLASSES) -> None:
        super().__init__(width, crop, classes, separable=True)


READER_ARCHS = {"full": Reader, "separable": SeparableReader}
"""The reader's shapes, by ``--reader-arch``."""

def load_teacher(path: Path, width: int, crop: int, classes: int, dev: torch.device) -> Reader:
    """The full reader of ``path`` (an exported ``dice_reader.onnx`` of ``width`` channels), in eval mode."""
    teacher = Reader(width, crop, classes)
    load_onnx_weights(teacher, path)
    return teacher.to(dev).eval()


def prune_reader(teacher: Reader, width: int, crops: torch.Tensor) -> Reader:
    """A full reader of ``width`` channels made of ``teacher``'s (a full reader's) channels most
    active on ``crops`` (their mean absolute output, each convolution keeping ``width`` over the
    teacher's width of its channels), its dense head cut to match: a start for a smaller reader
    that then learns from the teacher (``--prune-teacher``). Its norms pass their input through
    as the teacher's folded ones do: train it with them fixed (``freeze_norms``)."""
    layers = [i for i, m in enumerate(teacher.f) if isinstance(m, nn.Sequential)]
    activity = []
    with torch.no_grad():
        h = crops.to(next(teacher.parameters()).device)
        for i, m in enumerate(teacher.f):
            h = m(h)
            if i in layers:
                activity.append(h.abs().mean(dim=(0, 2, 3)))
    head, out = teacher.f[-3], teacher.f[-1]
    crop = crops.shape[-1]
    student = Reader(width, crop, out.out_features)
    cells = (crop // 8) ** 2
    with torch.no_grad():
        kept = torch.arange(crops.shape[1])
        for i, act in zip(layers, activity):
            n = student.f[i][0].out_channels
            chosen = torch.sort(torch.argsort(act, descending=True)[:n]).values
            src, dst = teacher.f[i], student.f[i]
            dst[0].weight.copy_(src[0].weight[chosen][:, kept])
            for name in ("weight", "bias", "running_mean", "running_var"):
                getattr(dst[1], name).copy_(getattr(src[1], name)[chosen])
            kept = chosen
        columns = torch.cat([torch.arange(c * cells, (c + 1) * cells) for c in kept.tolist()])
        student.f[-3].weight.copy_(head.weight[:, columns])
        student.f[-3].bias.copy_(head.bias)
        student.f[-1].load_state_dict(out.state_dict())
    return student


def load_onnx_weights(model: nn.Module, path: Path) -> None:
    """Set ``model`` (a Finder or Reader of the same size) to the weights of its exported ``.onnx``.

    The export folds each batch norm into the convolution before it, so each norm is set to pass
    its input through, its shift carrying the folded bias: in eval mode the network then computes
    what the file does. Train it with its norms kept in eval mode (``freeze_norms``), or their
    batch statistics would undo the folding. Convolutions and dense layers are matched in order
    (the export's order is the modules' order for both networks)."""
    import onnx
    from onnx import numpy_helper

    graph = onnx.load(str(path)).graph
    weights = {t.name: torch.from_numpy(numpy_helper.to_array(t).copy()) for t in graph.initializer}
    convs = [n for n in graph.node if n.op_type == "Conv"]
    gemms = [n for n in graph.node if n.op_type == "Gemm"]
    modules = list(model.modules())
    own_convs = [(m, modules[k + 1] if k + 1 < len(modules) else None)
                 for k, m in enumerate(modules) if isinstance(m, nn.Conv2d)]
    own_linears = [m for m in modules if isinstance(m, nn.Linear)]
    if (len(convs), len(gemms)) != (len(own_convs), len(own_linears)):
        raise ValueError(f"{path}: {len(convs)} convolutions and {len(gemms)} dense layers, "
                         f"the network has {len(own_convs)} and {len(own_linears)}")
    with torch.no_grad():
        for node, (conv, after) in zip(convs, own_convs):
            weight, bias = weights[node.input[1]], weights[node.input[2]]
            if weight.shape != conv.weight.shape:
                raise ValueError(f"{path}: {node.input[1]} is {tuple(weight.shape)}, the network's {tuple(conv.weight.shape)}")
            conv.weight.copy_(weight)
            if conv.bias is not None:
                conv.bias.copy_(bias)
            elif isinstance(after, nn.BatchNorm2d):
                after.weight.fill_(1.0)
                after.bias.copy_(bias)
                after.running_mean.zero_()
                after.running_var.fill_(1.0 - after.eps)
            else:
                raise ValueError(f"{path}: a convolution without bias or norm after it")
        for node, dense in zip(gemms, own_linears):
            dense.weight.copy_(weights[node.input[1]])
            dense.bias.copy_(weights[node.input[2]])


def freeze_norms(model: nn.Module) -> None:
    """Keep every batch norm of ``model`` in eval mode (its running statistics fixed)."""
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.eval()


def _holds(box: Sequence[float], x: float, y: float) -> bool:
    """Whether the (x, y, w, h) box holds the point."""
    bx, by, bw, bh = box
    return bool(bx <= x <= bx + bw and by <= y <= by + bh)


def every_candidate_params() -> DiceParams:
    """``find_dice`` settings that report every place the finder takes for a die: none dropped as
    "not a die face" by the reader, read or not."""
    return DiceParams(not_die_max=1.0, unsure_not_die=1.0)


def mine_negatives(sources: list[tuple[Path, bool]], every_candidate: bool = False) -> list[dict[str, Any]]:
    """Hard negatives: where the shipped networks (``vision.dice.find_dice``) report a die that
    the labels say is none. ``sources``: (folder, is_photos) pairs; validation images, and
    held-out photos, are skipped.

    Taught as "not a die face": a candidate on part of a labelled die (smaller than it, the
    label's centre outside the candidate's box, and not read as the labelled face: a side face
    seen obliquely, or a pip), and, on the rendered scenes only, a candidate on nothing labelled
    a die (printed zone names, markers, coins). On the photos, where some dice have no label,
    a candidate on nothing is not taught either way.

    With ``every_candidate``, the reader drops no candidate as "not a die face" first: every
    place the finder takes for a die is mined, also those the shipped reader already rejects
    (the negatives that a reader trained afresh must learn again)."""
    from vision._dice_net import read_class

    params = every_candidate_params() if every_candidate else DiceParams()
    out: list[dict[str, Any]] = []
    for folder, photos in sources:
        if folder.name == "test":
            raise ValueError(f"{folder} is the held-back fixtures part: never train on it")
        for entry in json.loads((folder / "labels.json").read_text()):
            if is_validation(entry["image"]) or (photos and is_held_out(entry["image"])):
                continue
            img = read_image(folder / entry["image"])
            objs = [o for o in entry["objects"] if o.get("bbox")]
            for d in find_dice(img, params):
                cx, cy = d.center
                negative = {"image": str(folder / entry["image"]), "cx": cx, "cy": cy,
                            "side": float(max(d.bbox[2], d.bbox[3]))}
                holders = [o for o in objs if _holds(o["bbox"], cx, cy)]
                dice = [o for o in holders if o["kind"] in ("d6", "d8")]
                if not dice:
                    if not photos:  # on nothing labelled, or on a coin
                        out.append({**negative, "why": holders[0]["kind"] if holders else "no die"})
                    continue
                if any(o.get("flags") or _holds(d.bbox, o["bbox"][0] + o["bbox"][2] / 2, o["bbox"][1] + o["bbox"][3] / 2)
                       for o in dice):
                    continue  # a cocked or moving die, or one of the dice there itself (boxes overlap)
                logits = d.extra["face_logits"]
                read = read_class(int(np.argmax(logits)) + 1, len(logits) + 1)
                if all(d.bbox[2] * d.bbox[3] < 0.8 * o["bbox"][2] * o["bbox"][3] and read != (o["kind"], int(o["value"]))
                       for o in dice):
                    out.append({**negative, "why": "part of a die"})
    return out


def learned_die_free_photos(folder: Path) -> list[Path]:
    """The photos of a folder of photos that hold no die that the networks may learn from: every
    other one, sorted by name, from the first. The rest stay unseen, to measure the false dice
    on (``coins_bench.py`` and ``tools/train_coins.py`` split the card photos the same way)."""
    return sorted(p for p in folder.iterdir() if p.suffix.lower() in (".jpg", ".jpeg", ".png"))[::2]


def die_free_photos(folders: list[Path]) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """(image, no boxes, no values) for the learned photos (:func:`learned_die_free_photos`) of
    folders of photos that hold no die, such as the card photos of ../shared/data/cards-cadyze
    (``--die-free``): the finder learns that nothing there is a die, the reader that any crop of
    them is "not a die face"."""
    return [(read_image(path), np.zeros((0, 4), np.float32), np.zeros(0, np.int64))
            for folder in folders for path in learned_die_free_photos(folder)]


def mine_die_free(folders: list[Path]) -> list[dict[str, Any]]:
    """Hard negatives on photos that hold no die at all (``--mine-photos``, such as the card
    photos of ../shared/data/cards-cadyze): every place the finder takes for a die, also those
    the shipped reader rejects, on the learned photos only (:func:`learned_die_free_photos`)."""
    params = every_candidate_params()
    out: list[dict[str, Any]] = []
    for folder in folders:
        for path in learned_die_free_photos(folder):
            for d in find_dice(read_image(path), params):
                out.append({"image": str(path), "cx": d.center[0], "cy": d.center[1],
                            "side": float(max(d.bbox[2], d.bbox[3])), "why": "die-free photo"})
    return out


def negative_sample(item: dict[str, Any], rng: np.random.Generator, images: dict[str, np.ndarray]) -> np.ndarray:
    """One augmented reader crop (as reader_input makes it) of a mined hard negative."""
    img = images[item["image"]]
    side = dice_net.CROP_SCALE * item["side"] * math.exp(rng.normal(0, 0.1))
    cx = item["cx"] + rng.normal(0, 0.06) * item["side"]
    cy = item["cy"] + rng.normal(0, 0.06) * item["side"]
    patch = crop_patch(img, cx, cy, side, rng.uniform(0, 360))
    if rng.random() < 0.5:
        patch = patch[:, ::-1]
    sample: np.ndarray = reader_input([colour_aug(np.ascontiguousarray(patch), rng)])[0]
    return sample


def write_negative_cache(negatives: list[dict[str, Any]], copies: int, path: Path, seed: int) -> None:
    """``copies`` augmented crops of each mined negative, saved as ``write_cache`` saves (class 0)."""
    rng = np.random.default_rng(seed)
    images = {n["image"]: read_image(n["image"]) for n in negatives}
    x = np.stack([negative_sample(n, rng, images) for n in negatives for _ in range(copies)]).astype(np.float16)
    np.savez(path, x=x, y=np.zeros(len(x), np.int16))
    print("wrote", path, len(x), "crops of", len(negatives), "hard negatives", flush=True)


def write_cache(samples: "_Set", path: Path, workers: int) -> None:
    """Cut every crop of ``samples`` once and save them (float16 inputs, int labels) to ``path``.

    Cutting an augmented crop from a whole photo costs about three times the reader's own
    training step on the CPU; cut once, the crops train several passes (each turned by a
    random quarter turn, see ``cached_batches``), so a CPU training takes more steps in the
    same time. Two processes may each write a file, for two cores."""
    dl = torch.utils.data.DataLoader(samples, batch_size=256, num_workers=workers)
    xs, ys = [], []
    t0 = time.time()
    for k, (x, y) in enumerate(dl):
        xs.append(x.numpy().astype(np.float16))
        ys.append(y.numpy().astype(np.int16))
        if k % 50 == 0:
            print(f"cache {sum(len(v) for v in ys)} crops {time.time() - t0:.0f}s", flush=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez(path, x=np.concatenate(xs), y=np.concatenate(ys))
    print("wrote", path, sum(len(v) for v in ys), "crops", flush=True)


def cached_batches(paths: list[Path], steps: int, bs: int, seed: int):  # type: ignore[no-untyped-def]
    """``steps`` random batches from crops saved by ``write_cache``, each batch turned by a
    random quarter turn (a die's face reads the same at any quarter turn)."""
    parts = [np.load(p) for p in paths]
    x = torch.from_numpy(np.concatenate([p["x"] for p in parts]))
    y = torch.from_numpy(np.concatenate([p["y"] for p in parts]).astype(np.int64))
    print(f"reader crops from the cache: {len(y)}", flush=True)
    gen = torch.Generator().manual_seed(seed)
    for _ in range(steps):
        idx = torch.randint(0, len(y), (bs,), generator=gen)
        k = int(torch.randint(0, 4, (1,), generator=gen))
        yield torch.rot90(x[idx].float(), k, dims=(2, 3)).contiguous(), y[idx]


def average_weights(states: list[dict[str, torch.Tensor]]) -> dict[str, torch.Tensor]:
    """The mean of networks' weights, key by key (integer buffers such as batch counts from the
    first): readers fine-tuned from one starting point average into one that reads at least as
    well as either and is less often overconfident."""
    if not states:
        raise ValueError("nothing to average")
    out = {}
    for key, first in states[0].items():
        if first.is_floating_point():
            out[key] = torch.stack([s[key].float() for s in states]).mean(dim=0).to(first.dtype)
        else:
            out[key] = first
    return out


def one_cycle(progress: float, peak: float) -> tuple[float, float]:
    """Learning rate and Adam's first beta at ``progress`` (0..1) of a training: the one-cycle
    schedule of ``torch.optim.lr_scheduler.OneCycleLR`` with its defaults (a tenth rising from
    ``peak``/25 to ``peak`` as beta1 falls from 0.95 to 0.85, then cosine down to ``peak``/250,000
    as beta1 rises back), here as a function so that a training may end by time instead of steps."""

    def cos(a: float, b: float, t: float) -> float:
        return b + (a - b) / 2.0 * (1.0 + math.cos(math.pi * min(max(t, 0.0), 1.0)))

    warm = 0.1
    if progress < warm:
        t = progress / warm
        return cos(peak / 25.0, peak, t), cos(0.95, 0.85, t)
    t = (progress - warm) / (1.0 - warm)
    return cos(peak, peak / 25.0 / 1e4, t), cos(0.85, 0.95, t)


def finder_loss(pred: torch.Tensor, tgt: torch.Tensor) -> torch.Tensor:
    """CenterNet focal loss on the heat map, L1 on offsets and log sizes at centres."""
    p = pred[:, 0].clamp(1e-4, 1 - 1e-4)
    gt = tgt[:, 0]
    pos = (gt >= 1.0).float()
    neg = 1.0 - pos
    lp = -torch.log(p) * (1 - p) ** 2 * pos
    ln = -torch.log(1 - p) * p**2 * (1 - gt) ** 4 * neg
    npos = pos.sum().clamp(min=1.0)
    m = tgt[:, 5:6]
    lreg = (F.l1_loss(pred[:, 1:5], tgt[:, 1:5], reduction="none") * m).sum() / m.sum().clamp(min=1.0)
    return (lp.sum() + ln.sum()) / npos + lreg


def main() -> None:
    """Train both networks and export them."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=Path("../shared/data/dice-rune55"))
    ap.add_argument("--out", type=Path, default=Path("vision/models"))
    ap.add_argument("--finder-steps", type=int, default=6000)
    ap.add_argument("--reader-steps", type=int, default=6000)
    ap.add_argument("--finder-batch", type=int, default=16)
    ap.add_argument("--reader-batch", type=int, default=128)
    ap.add_argument("--det-crop", type=int, default=192, help="side of the finder's training windows")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--init", type=Path,
                    help="start from these weights (.pt written by an earlier run, or an exported .onnx)")
    ap.add_argument("--synth-share", type=float, default=0.3, help="share of drawn training scenes")
    ap.add_argument("--marble-share", type=float, default=0.0,
                    help="share of drawn dice whose body is marbled and flecked with glitter (MARBLE_SHARE)")
    ap.add_argument("--crop-size", type=int, default=dice_net.CROP_SIZE,
                    help="reader crop side in pixels (vision._dice_net.CROP_SIZE must then match)")
    ap.add_argument("--crop-scale", type=float, default=dice_net.CROP_SCALE,
                    help="reader crop side over the die box side (vision._dice_net.CROP_SCALE must then match)")
    ap.add_argument("--reader-width", type=int, default=16, help="channels of the reader's first stage")
    ap.add_argument("--reader-arch", choices=sorted(READER_ARCHS), default="full",
                    help="the reader's shape: full 3x3 convolutions, or separable ones after the first")
    ap.add_argument("--teacher", type=Path, metavar="READER_ONNX",
                    help="a full reader (an exported dice_reader.onnx, --teacher-width channels) whose softened outputs the reader learns too")
    ap.add_argument("--teacher-width", type=int, default=16, help="channels of the teacher's first stage")
    ap.add_argument("--teacher-weight", type=float, default=0.7, help="share of the loss taken by the teacher's outputs")
    ap.add_argument("--prune-teacher", action="store_true",
                    help="start the reader (full, --reader-width channels) from the teacher's channels most active on the first "
                         "3,000 crops of the --cache, its norms kept fixed")
    ap.add_argument("--box-scale", type=float, default=1.0,
                    help="reader crops are cut around this share of each labelled box, as the finder boxes "
                         "dice at run time (0.867: its median box over the labelled one on the trained photos "
                         "and the dev scenes)")
    ap.add_argument("--only", choices=("finder", "reader"), help="train and export one network only")
    ap.add_argument("--classes", type=int, choices=(NUM_READ_CLASSES, READ_CLASSES_D8), default=READ_CLASSES_D8,
                    help="reader classes: 7 (d6 faces) or 16 (d6 and d8 faces and cocked dice)")
    ap.add_argument("--fixtures", type=Path, action="append", default=[],
                    help="also learn from these rendered fixture folders (fixtures/scenes/dev; never test)")
    ap.add_argument("--die-free", type=Path, action="append", default=[],
                    help="also learn from every other photo of this folder of photos that hold no die, "
                         "as places with no die (repeatable; e.g. ../shared/data/cards-cadyze)")
    ap.add_argument("--keep-die-free-scenes", action="store_true",
                    help="keep the rendered scenes that hold no die (coins only) among the training scenes")
    ap.add_argument("--photo-repeat", type=int, default=1,
                    help="how many times each dice-rune55 photo is listed among the training photos")
    ap.add_argument("--average", type=Path, nargs="+",
                    help="train nothing: export the weight average of these readers (.pt of runs from one --init), "
                         "or with --only finder of these finders")
    ap.add_argument("--fixture-repeat", type=int, default=1,
                    help="how many times each fixture scene is listed among the training photos")
    ap.add_argument("--lr", type=float, default=3e-3, help="peak learning rate (one-cycle schedule)")
    ap.add_argument("--write-cache", type=Path,
                    help="train nothing: cut --cache-samples augmented reader crops and save them here (.npz)")
    ap.add_argument("--cache-samples", type=int, default=200_000, help="crops that --write-cache cuts")
    ap.add_argument("--mine-negatives", type=Path,
                    help="train nothing: write the shipped networks' hard negatives on the training data here (.json)")
    ap.add_argument("--mine-every-candidate", action="store_true",
                    help="with --mine-negatives: also the candidates the shipped reader already rejects")
    ap.add_argument("--mine-photos", type=Path, action="append", default=[],
                    help="with --mine-negatives: also every candidate on every other photo of this folder of "
                         "photos that hold no die (repeatable; e.g. ../shared/data/cards-cadyze)")
    ap.add_argument("--negatives", type=Path,
                    help="hard negatives mined by --mine-negatives: with --write-cache, cut --negative-copies crops "
                         "of each into a file of their own; otherwise mixed into the reader's samples")
    ap.add_argument("--negative-copies", type=int, default=60)
    ap.add_argument("--cache", type=Path, action="append", default=[],
                    help="train the reader on crops cut earlier by --write-cache (several files may be given)")
    ap.add_argument("--negative-share", type=float, default=0.05,
                    help="with --negatives and no --write-cache: share of reader samples cut from the hard negatives")
    ap.add_argument("--synth-reuse", type=int, default=1,
                    help="each drawn scene serves about this many samples (1: a new scene for each)")
    ap.add_argument("--time-limit", type=float, default=0.0,
                    help="seconds: the schedule runs by time as well as steps and the training ends then")
    args = ap.parse_args()
    if not 0.0 <= args.teacher_weight <= 1.0:
        ap.error(f"--teacher-weight is a share of the loss, 0 to 1, not {args.teacher_weight}")
    if args.prune_teacher and (args.teacher is None or not args.cache or args.reader_arch != "full"):
        ap.error("--prune-teacher needs a --teacher, a --cache of crops and the full --reader-arch")
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    cv2.setNumThreads(1)  # one thread per process: the data workers fill the cores
    global DET_CROP, SYNTH_SHARE, BOX_SCALE, MARBLE_SHARE
    DET_CROP = args.det_crop
    SYNTH_SHARE = args.synth_share
    MARBLE_SHARE = args.marble_share
    BOX_SCALE = args.box_scale
    dice_net.CROP_SIZE = args.crop_size  # crop_patch and reader_input read these at call time
    dice_net.CROP_SCALE = args.crop_scale
    dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    # These two read only the images they need: no training set is loaded for them.
    if args.mine_negatives:
        found = mine_negatives([(args.data, True)] + [(f, False) for f in args.fixtures], args.mine_every_candidate)
        found += mine_die_free(args.mine_photos)
        args.mine_negatives.write_text(json.dumps(found, indent=0) + "\n")
        print("wrote", args.mine_negatives, len(found), "hard negatives", flush=True)
        return
    if args.write_cache and args.negatives:
        write_negative_cache(json.loads(args.negatives.read_text()), args.negative_copies, args.write_cache, args.seed)
        return
    train = load(args.data, held_out=False) * args.photo_repeat
    held_out = sum(is_held_out(e["image"]) for e in json.loads((args.data / "labels.json").read_text()))
    print(f"trained part {len(train)} photos, held-out part {held_out} (never read here)", flush=True)
    for folder in args.fixtures:
        scenes = load_fixtures(folder, args.classes, args.keep_die_free_scenes)
        train += scenes * args.fixture_repeat
        print(f"fixtures {folder}: {len(scenes)} scenes x {args.fixture_repeat}", flush=True)
    if args.die_free:
        free = die_free_photos(args.die_free)
        train += free
        print(f"die-free photos: {len(free)}", flush=True)
    args.out.mkdir(parents=True, exist_ok=True)

    steps_done: dict[str, int] = {}
    teacher = None
    if args.teacher is not None:
        teacher = load_teacher(args.teacher, args.teacher_width, args.crop_size, args.classes, dev)
        print("learning from the teacher", args.teacher, f"(weight {args.teacher_weight})", flush=True)

    def loop(model: nn.Module, fn, steps: int, bs: int, lossf, name: str) -> None:  # type: ignore[no-untyped-def]
        from_onnx = args.init is not None and args.init.suffix == ".onnx"
        if from_onnx:
            load_onnx_weights(model, args.init)
            print("started from", args.init, "(norms kept fixed)", flush=True)
        elif name == "reader" and args.prune_teacher:
            crops = torch.from_numpy(np.load(args.cache[0])["x"][:3000].astype(np.float32))
            model.load_state_dict(prune_reader(teacher, args.reader_width, crops).state_dict())
            print("started from the teacher's", args.reader_width, "most active channels (norms kept fixed)", flush=True)
        elif args.init is not None and args.init.name.startswith(f"dice_{name}"):
            state = torch.load(args.init)
            own = model.state_dict()
            for key, value in state.items():
                if own[key].shape != value.shape:
                    # A reader grown from 7 to 16 classes keeps its old classes' weights.
                    rows = min(own[key].shape[0], value.shape[0])
                    grown = own[key].clone()
                    grown[:rows] = value[:rows]
                    state[key] = grown
            model.load_state_dict(state)
            print("started from", args.init, flush=True)
        model.to(dev).train()
        if from_onnx or (name == "reader" and args.prune_teacher):
            freeze_norms(model)
        if name == "reader" and args.cache:
            dl = cached_batches(args.cache, steps, bs, args.seed)
        else:
            negatives = json.loads(args.negatives.read_text()) if name == "reader" and args.negatives else None
            samples = _Set(train, fn, steps * bs, args.synth_reuse, negatives, args.negative_share)  # type: ignore[no-untyped-call]
            dl = torch.utils.data.DataLoader(
                samples, batch_size=bs, num_workers=args.workers, persistent_workers=False,
                pin_memory=dev.type == "cuda",
            )
        opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
        t0 = time.time()
        for step, (x, y) in enumerate(dl):
            # Progress by steps, or by time where --time-limit ends the training sooner.
            progress = step / max(1, steps - 1)
            if args.time_limit:
                progress = max(progress, (time.time() - t0) / args.time_limit)
            if progress > 1.0:
                print(f"{name} stopped at step {step} by the time limit", flush=True)
                break
            steps_done[name] = step + 1
            lr, beta1 = one_cycle(progress, args.lr)
            for group in opt.param_groups:
                group["lr"], group["betas"] = lr, (beta1, group["betas"][1])
            x, y = x.to(dev, non_blocking=True), y.to(dev, non_blocking=True)
            out = model(x)
            loss = lossf(out, y)
            if teacher is not None and name == "reader":
                with torch.no_grad():
                    taught = teacher(x)
                w = args.teacher_weight
                loss = (1.0 - w) * loss + w * distillation(out, taught)
            opt.zero_grad()
            loss.backward()
            opt.step()
            if step % 500 == 0 or step == steps - 1:
                print(f"{name} step {step} loss {loss.item():.4f} lr {lr:.2e} {time.time() - t0:.0f}s", flush=True)

    if args.write_cache:
        write_cache(_Set(train, reader_sample, args.cache_samples, args.synth_reuse), args.write_cache, args.workers)  # type: ignore[no-untyped-call]
        return

    jobs: list[tuple[nn.Module, str, tuple[int, int, int, int]]] = []
    if args.average and args.only == "finder":
        # No training: the weight average of finders fine-tuned from one starting point.
        finder = Finder()
        finder.load_state_dict(average_weights([torch.load(p) for p in args.average]))
        jobs.append((finder, "dice_finder.onnx", (1, 3, 384, 512)))
    elif args.average:
        # No training: the weight average of readers fine-tuned from one starting point.
        reader = READER_ARCHS[args.reader_arch](args.reader_width, args.crop_size, args.classes)
        reader.load_state_dict(average_weights([torch.load(p) for p in args.average]))
        jobs.append((reader, "dice_reader.onnx", (1, 3, args.crop_size, args.crop_size)))
    if args.only in (None, "finder") and not args.average:
        finder = Finder()
        loop(finder, finder_sample, args.finder_steps, args.finder_batch, finder_loss, "finder")
        jobs.append((finder, "dice_finder.onnx", (1, 3, 384, 512)))
    if args.only in (None, "reader") and not args.average:
        reader = READER_ARCHS[args.reader_arch](args.reader_width, args.crop_size, args.classes)
        loop(reader, reader_sample, args.reader_steps, args.reader_batch,
             lambda p, y: F.cross_entropy(p, y, label_smoothing=0.02), "reader")
        jobs.append((reader, "dice_reader.onnx", (1, 3, args.crop_size, args.crop_size)))

    for model, name, shape in jobs:
        model.eval().cpu()
        torch.save(model.state_dict(), args.out / name.replace(".onnx", ".pt"))
        dyn = {"x": {0: "n", 2: "h", 3: "w"}} if name.startswith("dice_finder") else {"x": {0: "n"}}
        torch.onnx.export(
            model, torch.zeros(shape), str(args.out / name), input_names=["x"], output_names=["y"],
            dynamic_axes=dyn, opset_version=13, dynamo=False,
        )
        print("wrote", args.out / name, (args.out / name).stat().st_size, "bytes", flush=True)
        if name.startswith("dice_reader"):
            meta = {"crop_size": args.crop_size, "crop_scale": args.crop_scale, "width": args.reader_width,
                    "arch": args.reader_arch, "teacher": str(args.teacher) if args.teacher else None,
                    "teacher_weight": args.teacher_weight if args.teacher else None,
                    "steps": steps_done.get("reader", args.reader_steps), "seed": args.seed, "classes": args.classes, "box_scale": args.box_scale,
                    "lr": args.lr, "time_limit": args.time_limit, "synth_reuse": args.synth_reuse,
                    "negatives": str(args.negatives) if args.negatives else None, "fixtures": [str(f) for f in args.fixtures], "cache": [str(c) for c in args.cache]}
            if args.average:
                meta = {"crop_size": args.crop_size, "crop_scale": args.crop_scale, "width": args.reader_width,
                        "arch": args.reader_arch, "classes": args.classes, "average_of": [str(p) for p in args.average]}
            (args.out / "dice_reader.json").write_text(json.dumps(meta, indent=1) + "\n")


if __name__ == "__main__":
    main()
