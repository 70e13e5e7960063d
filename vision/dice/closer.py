"""Second looks: the finder closer at a doubtful read, wider round a cut-off box, and beside small dice where another may hide."""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np
import numpy.typing as npt

from vision._dice_net import COCKED_CLASS, D8_FIRST_CLASS, DET_STRIDE, FloatArray, decode_finder
from vision._dnn import softmax
from vision.dice.boxes import _contains, _same_die
from vision.dice.models import _Models, _Seen
from vision.dice.params import DiceParams
from vision.dice.reading import _Read, _not_die_prob, _read_boxes, _read_of


def _look_closer_at_doubtful(
    frame: npt.NDArray[np.uint8],
    models: "_Models",
    chosen: list["_Read"],
    allowed: npt.NDArray[np.bool_],
    threshold: float,
    turns: int,
    params: DiceParams,
    mm_per_px: float | None,
    not_at: Sequence[tuple[float, float, float]],
    table: bool,
    seen: _Seen | None = None,
) -> list["_Read"]:
    """``chosen`` with each doubtful read (below ``doubt_below``) replaced by the dice the finder
    finds when it looks again at it, closer: where two touching dice made one peak in the
    finder's map, one box holds both, and its read is a guess or "cocked". The finder looks
    at a square around each such read, scaled so that the read's die is ``doubt_look_px``
    finder pixels across; its boxes there that are not another read's die are read, and two or
    more readable dice replace the doubtful read, as does one readable die read more surely."""
    # On a known table every read not sure is doubtful: there a sure read spares a question.
    below = max(params.doubt_below, params.confident_at_table) if table and params.doubt_at_table else params.doubt_below
    # An eight-sided die's read is the d8 face reader's, made later: its box is left as it is.
    doubtful = [i for i, r in enumerate(chosen)
                if r[8] < below and not D8_FIRST_CLASS <= r[6] < COCKED_CLASS]
    if not doubtful:
        return chosen
    doubtful = sorted(doubtful, key=lambda i: chosen[i][8])[: params.doubt_look_max]
    new_boxes: list[tuple[int, float, tuple[float, float, float, float]]] = []
    for i, boxes in zip(doubtful, _finder_closer(frame, models.finder, [chosen[i][3] for i in doubtful], threshold, params)):
        ux, uy, uw, uh = chosen[i][3]
        others = [r[3] for j, r in enumerate(chosen) if j != i]
        for sc, b in boxes:
            near = abs(b[0] - ux) < 0.75 * max(uw, uh) and abs(b[1] - uy) < 0.75 * max(uw, uh)
            if near and _may_be_die(b, params, mm_per_px, not_at) and not any(
                _contains(o, b[:2]) or _contains(b, o[:2]) for o in others
            ):
                new_boxes.append((i, sc, b))
    if not new_boxes:
        return chosen
    logits = _read_boxes(frame, models, [b for _, _, b in new_boxes], turns, seen)
    probs = softmax(logits)
    found: dict[int, list[_Read]] = {}
    readable = [r[1] for r in chosen if r[0]]
    # Much smaller than the frame's dice, a box the closer look finds is most often a pip.
    least = params.doubt_look_smallest * float(np.median(readable)) if len(readable) >= 3 else 0.0
    for (i, sc, b), p, lg in zip(new_boxes, probs, logits):
        if p[0] > params.not_die_max or max(b[2], b[3]) < least:
            continue
        r = _read_of(sc, b, p, lg, allowed, params, table)
        if r[0]:
            found.setdefault(i, []).append(r)
    replaced: dict[int, list[_Read]] = {}
    for i, rs in found.items():
        rs.sort(key=lambda r: -r[8])
        dice: list[_Read] = []
        for r in rs:
            if not any(_same_die(d[3], r[3], params.overlap_iou) for d in dice):
                dice.append(r)
        if len(dice) >= 2 or dice[0][8] > chosen[i][8]:
            replaced[i] = dice
    if not replaced:
        return chosen
    out = [r for j, r in enumerate(chosen) if j not in replaced]
    added: list[_Read] = []
    # Two doubtful neighbours may each have found the other's die: it is kept once, its surer read.
    for r in sorted((r for dice in replaced.values() for r in dice), key=lambda r: -r[8]):
        if not any(_same_die(a[3], r[3], params.overlap_iou) for a in added):
            added.append(r)
    return out + added


def _finder_closer(
    frame: npt.NDArray[np.uint8],
    finder: cv2.dnn.Net,
    seeds: list[tuple[float, float, float, float]],
    threshold: float,
    params: DiceParams,
) -> list[list[tuple[float, tuple[float, float, float, float]]]]:
    """For each seed box (centre x, y, width, height), the finder's candidates (score, box) in a
    ``doubt_look_blob`` square around it, scaled so that the seed's die is ``doubt_look_px``
    finder pixels across (``_finder_in_squares``). Empty for a seed whose square the frame
    cannot hold."""
    fh, fw = frame.shape[:2]
    squares: list[tuple[int, int, int]] = []
    held: list[int] = []
    for n, (cx, cy, w, h) in enumerate(seeds):
        side = int(round(params.doubt_look_blob * max(w, h) / params.doubt_look_px))
        if side <= min(fh, fw):
            squares.append((int(min(max(0.0, cx - side / 2), fw - side)), int(min(max(0.0, cy - side / 2), fh - side)), side))
            held.append(n)
    out: list[list[tuple[float, tuple[float, float, float, float]]]] = [[] for _ in seeds]
    for n, look in zip(held, _finder_in_squares(frame, finder, squares, params.doubt_look_blob, threshold, params.max_dice)):
        out[n] = look
    return out


def _look_wider(
    frame: npt.NDArray[np.uint8],
    models: _Models,
    cands: list[tuple[float, tuple[float, float, float, float]]],
    logits: FloatArray,
    turns: int,
    params: DiceParams,
    mm_per_px: float | None,
    not_at: Sequence[tuple[float, float, float]],
    seen: _Seen | None = None,
) -> None:
    """Read again, in a box ``params.wider_look`` times as large, each candidate the reader
    finds no die in but not surely none (``wider_look_not_die``) and smaller than the frame's
    dice (``wider_look_below``), and keep the wider box and its read where the reader is sure
    enough of a read there (``wider_look_read``).

    The finder sometimes boxes only the middle of a die (its top face, or the one pip of a
    "1"), and a crop that tight holds no edge of the die: the reader calls it no die. A wider
    box that holds the centre of a candidate the reader does take for a die is not read (that
    die has its read). Updates ``cands`` and ``logits`` in place."""
    not_die = [_not_die_prob(lg) for lg in logits]
    dice = [c for (_, c), p in zip(cands, not_die) if p <= params.not_die_max]
    if not dice:
        return  # no die to measure a die's size by
    typical = float(np.median([max(d[2], d[3]) for d in dice]))
    to_read = []
    for i, (_, (cx, cy, w, h)) in enumerate(cands):
        if not params.not_die_max < not_die[i] < params.wider_look_not_die:
            continue
        if max(w, h) >= params.wider_look_below * typical:
            continue
        wider = (cx, cy, w * params.wider_look, h * params.wider_look)
        # A die another candidate already reads is not looked for again.
        if _may_be_die(wider, params, mm_per_px, not_at) and not any(
            abs(d[0] - cx) < wider[2] / 2 and abs(d[1] - cy) < wider[3] / 2 for d in dice
        ):
            to_read.append((i, wider))
    if not to_read:
        return
    again = _read_boxes(frame, models, [b for _, b in to_read], turns, seen)
    for (i, wider), lg in zip(to_read, again):
        e = np.exp(lg - lg.max())
        if float(e[1:].max() / e.sum()) >= params.wider_look_read:
            cands[i] = (cands[i][0], wider)
            logits[i] = lg


def _may_be_die(
    c: tuple[float, float, float, float],
    params: DiceParams,
    mm_per_px: float | None,
    not_at: Sequence[tuple[float, float, float]],
) -> bool:
    """Whether a candidate box (centre and size, frame pixels) may be a die: large enough, of a
    die's size when the scale is known, and not centred on something read as another thing."""
    size = max(c[2], c[3])
    if size < params.min_die_px:
        return False
    if mm_per_px is not None and not params.size_mm[0] <= size * mm_per_px <= params.size_mm[1]:
        return False
    return not any((c[0] - x) ** 2 + (c[1] - y) ** 2 < r * r for x, y, r in not_at)


def _shoulders(
    out: FloatArray,
    peaks: list[tuple[float, float, float, float, float]],
    threshold: float,
    radius: float,
) -> list[tuple[float, float, float]]:
    """Where a die may hide beside a peak of the finder's map: take a disk of ``radius`` times its
    box side off the map around each peak, and what is left above ``threshold`` and highest
    around it is a shoulder. Each as (x, y, side of the nearest peak's box), finder pixels."""
    if not peaks:
        return []
    heat = out[0, 0].copy()
    hh, ww = heat.shape
    for _, cx, cy, w, h in peaks:
        r = radius * max(w, h) / DET_STRIDE
        gx, gy = cx / DET_STRIDE - 0.5, cy / DET_STRIDE - 0.5  # the peak's centre in map cells
        x0, x1 = max(0, int(np.floor(gx - r))), min(ww, int(np.ceil(gx + r)) + 1)
        y0, y1 = max(0, int(np.floor(gy - r))), min(hh, int(np.ceil(gy + r)) + 1)
        if x0 >= x1 or y0 >= y1:
            continue
        yy, xx = np.ogrid[y0:y1, x0:x1]
        heat[y0:y1, x0:x1][(xx - gx) ** 2 + (yy - gy) ** 2 < r * r] = 0.0
    ys, xs = np.nonzero((heat >= cv2.dilate(heat, np.ones((3, 3), np.uint8))) & (heat >= threshold))
    found = []
    for y, x in zip(ys, xs):
        px, py = (float(x) + 0.5) * DET_STRIDE, (float(y) + 0.5) * DET_STRIDE
        near = min(peaks, key=lambda pk: (pk[1] - px) ** 2 + (pk[2] - py) ** 2)
        found.append((px, py, max(near[3], near[4])))
    return found


def _close_look(
    frame: npt.NDArray[np.uint8],
    finder: cv2.dnn.Net,
    seeds: list[tuple[float, float, float]],
    threshold: float,
    params: DiceParams,
) -> list[tuple[float, tuple[float, float, float, float]]]:
    """Candidates (score, box) the finder gives when it looks closer (``close_look`` times the
    first pass's scale) at a square around each place in ``seeds`` (x, y and the size of the die
    beside it, frame pixels), all squares in one batch. Squares at the frame's edge are moved
    inside it; a candidate that a square cuts is left out."""
    fh, fw = frame.shape[:2]
    first = params.det_long_sides[0] / max(fh, fw)
    zoom = first * params.close_look
    blob_side = params.close_look_px
    side = int(round(blob_side / zoom))  # frame pixels a square covers
    if side > min(fh, fw):
        return []
    corners: list[tuple[int, int]] = []
    for cx, cy, size in seeds:
        if size * first >= params.close_look_below or 2.0 * size > side:
            continue
        x0 = int(min(max(0.0, cx - side / 2), fw - side))
        y0 = int(min(max(0.0, cy - side / 2), fh - side))
        if any(abs(x0 - x) < side / 4 and abs(y0 - y) < side / 4 for x, y in corners):
            continue  # mostly looked at already
        corners.append((x0, y0))
    looks = _finder_in_squares(frame, finder, [(x, y, side) for x, y in corners], blob_side, threshold, params.max_dice)
    return [c for look in looks for c in look]


def _finder_in_squares(
    frame: npt.NDArray[np.uint8],
    finder: cv2.dnn.Net,
    squares: list[tuple[int, int, int]],
    blob_side: int,
    threshold: float,
    max_dice: int,
) -> list[list[tuple[float, tuple[float, float, float, float]]]]:
    """For each square of the frame (left, top, side; inside the frame), the finder's candidates
    (score, box in frame pixels) when it sees the square at ``blob_side`` pixels, all squares in
    one batch. A candidate that its square cuts is left out: a die cut by the edge is boxed wrong."""
    if not squares:
        return []
    crops = [frame[y : y + side, x : x + side] for x, y, side in squares]
    finder.setInput(cv2.dnn.blobFromImages(crops, 1.0 / 255.0, (blob_side, blob_side), swapRB=False, crop=False))
    heat = np.asarray(finder.forward(), np.float32)
    out: list[list[tuple[float, tuple[float, float, float, float]]]] = []
    for i, (x0, y0, side) in enumerate(squares):
        k = blob_side / side
        inside = []
        for sc, ax, ay, aw, ah in decode_finder(heat[i : i + 1], threshold, max_dice):
            bw, bh = aw / k, ah / k
            gx, gy = x0 + ax / k, y0 + ay / k
            if x0 + bw / 2 <= gx <= x0 + side - bw / 2 and y0 + bh / 2 <= gy <= y0 + side - bh / 2:
                inside.append((sc, (gx, gy, bw, bh)))
        out.append(inside)
    return out
