"""Finding dice in a frame (``find_dice``) and reading given boxes (``read_die_boxes``): the finder's passes, then the reads."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import cv2
import numpy as np
import numpy.typing as npt

from vision._dice_net import FloatArray, NUM_READ_CLASSES, decode_finder, finder_blob, read_class
from vision._dnn import softmax
from vision.dice.boxes import _check_frame, _contains, _overlap, _rescale, _same_die
from vision.dice.closer import _close_look, _look_closer_at_doubtful, _look_wider, _may_be_die, _shoulders
from vision.dice.cocked_check import _cocked_check
from vision.dice.d8 import _d8_reads
from vision.dice.models import _Seen, _nets
from vision.dice.params import CONFIDENT, DIE_MM_RANGE, DiceParams
from vision.dice.reading import (
    _Read,
    _allowed_classes,
    _meaning,
    _not_die_prob,
    _read_boxes,
    _read_of,
    _reader_logits,
    _reader_turns,
)
from vision.die_patches import die_patches
from vision.types import DIE_KINDS, Detection


def find_dice(
    frame: npt.NDArray[np.uint8],
    params: DiceParams = DiceParams(),
    mm_per_px: float | None = None,
    not_at: Sequence[tuple[float, float, float]] = (),
    table: bool = False,
) -> list[Detection]:
    """Every die in ``frame`` (BGR uint8, or grey) with its kind and face up.

    ``kind`` is ``d6`` or (with a reader that knows them) ``d8``; ``value`` is the face, or
    ``None`` when the read is unsure or the die is cocked (``flags`` then holds ``"cocked"``,
    with confidence 0 when the reader only finds cocked likelier than any face);
    ``confidence`` is the reader's probability of that read (``CONFIDENT`` and above is meant
    to be almost never wrong). When ``mm_per_px`` is known, candidates whose size cannot be a
    die are dropped, and fainter ones are taken (``det_threshold_scaled``); when it is not, the
    dice read surely enough may give it (``DiceParams.own_scale_mm``). ``not_at`` holds
    circles (x, y, radius in frame pixels) already read as something else, such as coins: a
    candidate centred in one is not read. ``table`` says the frame shows a known table (a
    calibration's or its markers' scale): a six-sided die's read is then sure from
    ``confident_at_table`` rather than ``confident_at``. The frame is not modified.

    :raises ValueError: if ``frame`` is not a uint8 array of shape (H, W, 3) or (H, W),
        ``mm_per_px`` is not positive, or ``params`` names no known kind of die, a closer
        look the finder cannot take (``close_look_px``, ``doubt_look_blob``) or a number of
        turns the d8 reader cannot make.
    """
    frame = _check_frame(frame)
    if mm_per_px is not None and not mm_per_px > 0:
        raise ValueError(f"mm_per_px must be positive, got {mm_per_px}")
    if params.close_look > 1.0 and (params.close_look_px <= 0 or params.close_look_px % 32):
        # The finder halves its input five times: a square must be a multiple of 32.
        raise ValueError(f"DiceParams.close_look_px must be a positive multiple of 32, got {params.close_look_px}")
    if params.doubt_look_px > 0 and (params.doubt_look_blob <= 0 or params.doubt_look_blob % 32):
        raise ValueError(f"DiceParams.doubt_look_blob must be a positive multiple of 32, got {params.doubt_look_blob}")
    if params.d8_turns not in (1, 2, 4):
        raise ValueError(f"DiceParams.d8_turns must be 1, 2 or 4, got {params.d8_turns}")
    if params.d8_doubt_turns not in (1, 2, 4):
        raise ValueError(f"DiceParams.d8_doubt_turns must be 1, 2 or 4, got {params.d8_doubt_turns}")
    if params.kinds is not None and (not params.kinds or set(params.kinds) - set(DIE_KINDS)):
        raise ValueError(f"DiceParams.kinds must name some of {', '.join(DIE_KINDS)}, got {params.kinds!r}")
    seen = _Seen()
    found = _find_dice(frame, params, mm_per_px, not_at, table, 0.0, seen)
    if mm_per_px is None and params.own_scale_mm > 0:
        own = _own_scale(found, params)
        if own is not None:
            # Read again at the dice's own scale. Box sizes as wide as any die's: sizes a table's
            # dice were learned at (``vision.enrol``) hold at that table's scale, not at a guess.
            again = replace(params, size_mm=DIE_MM_RANGE)
            second = _find_dice(frame, again, own, not_at, table, params.det_threshold, seen)
            # A guessed scale may misjudge a die of another size than the rest (a 25 mm die among
            # 12 mm ones): the second read adds dice and reads them again, but loses no die the
            # first read read.
            found = second + [d for d in found if d.value is not None and not any(_overlap(d, s) for s in second)]
    return found


def read_die_boxes(
    frame: npt.NDArray[np.uint8],
    boxes: Sequence[tuple[float, float, float, float]],
    params: DiceParams = DiceParams(),
) -> list[tuple[int, float]]:
    """The reader alone on given die boxes (x, y, width, height, frame pixels): for each, the
    six-sided face it finds likelier than the other five and that face's probability among the
    six. A diagnostic: it cuts each crop as ``find_dice`` cuts a found die's, at
    ``params.reader_turns``, so a labelled box read here tells the reader's own accuracy
    apart from the finder's boxes (``benchmarks/dice_bench.py --label-boxes``). No finder,
    no thresholds: every box gets a face, however unsure.

    :raises ValueError: for a frame ``find_dice`` refuses, a box with no positive size, or bad
        ``reader_turns``.
    """
    frame = _check_frame(frame)
    turns = _reader_turns(params)
    centred = []
    for box in boxes:
        x, y, w, h = (float(v) for v in box)
        if not (w > 0 and h > 0):
            raise ValueError(f"a die box needs a positive width and height, got {tuple(box)}")
        centred.append((x + w / 2, y + h / 2, w, h))
    if not centred:
        return []
    logits = _reader_logits(frame, _nets(params.model_dir), centred, turns)
    p = softmax(logits[:, 1:7])  # the six faces only: "no die" and the d8's are no answer here
    best = p.argmax(axis=1)
    return [(int(b) + 1, float(p[i, b])) for i, b in enumerate(best)]


def _own_scale(found: Sequence[Detection], params: DiceParams) -> float | None:
    """Millimetres per pixel by the dice's own size (``DiceParams.own_scale_mm``), or ``None``
    when too few six-sided dice were read surely enough to tell it."""
    sides = [
        max(d.bbox[2], d.bbox[3])
        for d in found
        if d.kind == "d6" and d.value is not None and float(d.extra["read_prob"]) >= params.own_scale_prob
    ]
    if len(sides) < max(1, params.own_scale_min):
        return None
    return params.own_scale_mm / float(np.median(sides))


def _find_dice(
    frame: npt.NDArray[np.uint8],
    params: DiceParams,
    mm_per_px: float | None,
    not_at: Sequence[tuple[float, float, float]],
    table: bool,
    sure_from: float,
    seen: _Seen,
) -> list[Detection]:
    """``find_dice``'s read of a checked frame at one scale (``None``: unknown). A die whose
    finder score is under ``sure_from`` is never sure: its confidence is its read's probability
    times ``CONFIDENT``. ``seen`` keeps the networks' outputs for another read of the frame."""
    models = _nets(params.model_dir)
    allowed = _allowed_classes(models.classes, params.kinds)
    finder = models.finder
    fine = not table and params.fine_long_side > 0 and max(frame.shape[:2]) >= params.fine_long_side
    fine_boxes: list[tuple[float, float, float, float]] = []
    threshold = params.det_threshold if mm_per_px is None else min(params.det_threshold, params.det_threshold_scaled)
    raw: list[tuple[float, tuple[float, float, float, float]]] = []
    shoulders: list[tuple[float, float, float]] = []
    largest = None if mm_per_px is None else params.size_mm[1] / mm_per_px
    for i, long_side in enumerate(params.det_long_sides):
        if i and largest is not None and largest <= params.coarse_from * max(frame.shape[:2]):
            break  # every die at this scale is the first pass's to find
        out, scale = _finder_look(frame, finder, long_side, seen)
        smallest = params.coarse_min_side * long_side if i else 0.0
        peaks = decode_finder(out, threshold, params.max_dice)
        for score, cx, cy, w, h in peaks:
            if max(w, h) >= smallest:
                raw.append((score, (cx / scale, cy / scale, w / scale, h / scale)))
        if i == 0 and params.close_look > 1.0:
            shoulders = [(x / scale, y / scale, q / scale) for x, y, q in _shoulders(out, peaks, threshold, params.shoulder)]
    if fine:
        # A wide photo: its small dice looked for in it larger too, each one the first look
        # did not find (``fine_long_side``).
        first_looks = list(raw)
        out, scale = _finder_look(frame, finder, params.fine_long_side, seen)
        largest_fine = params.fine_largest * max(frame.shape[:2])
        for score, cx, cy, w, h in decode_finder(out, max(threshold, params.fine_threshold), params.max_dice):
            box = (cx / scale, cy / scale, w / scale, h / scale)
            if max(w, h) / scale < largest_fine and not any(_same_die(box, c, params.overlap_iou) for _, c in first_looks):
                raw.append((score, box))
                fine_boxes.append(box)
    if shoulders:
        # Two touching small dice can make one peak in the first look's map: look closer
        # beside it, and let the closer look's boxes compete with the first look's.
        raw += _close_look(frame, finder, shoulders, threshold, params)
    raw.sort(key=lambda sc: -sc[0])
    cands: list[tuple[float, tuple[float, float, float, float]]] = []
    for score, c in raw:
        if len(cands) == params.max_dice:
            break
        if _may_be_die(c, params, mm_per_px, not_at) and not any(_same_die(c, k[1], params.overlap_iou) for k in cands):
            cands.append((score, c))
    from_patches = len(cands)  # the candidates from here on are die-sized patches the finder missed
    # Dice only the finer look found are read, but never sure: a wide photo's small dice are
    # read from few pixels (when they could be sure, and competed with the first look's, the
    # sure reads of dice-rune55 framed with 25 px dice were wrong 3 times in 78, without the
    # finer look once in 59).
    fine_only = [c for _, c in cands if c in fine_boxes]
    turns = _reader_turns(params)
    logits = np.zeros((0, models.classes), np.float32)
    if cands:
        logits = _read_boxes(frame, models, [c for _, c in cands], turns, seen)
    if params.patch_candidates and mm_per_px is not None and len(cands) < params.max_dice:
        # Sought once the finder's candidates are read, so that a patch beside a candidate the
        # reader finds no die in (the finder's box on a die's pips, or half of it) is read too.
        beside_rejected = params.patches_beside_rejected and table
        taken = [c for (_, c), lg in zip(cands, logits) if not beside_rejected or _not_die_prob(lg) <= params.not_die_max]
        patches = die_patches(frame, mm_per_px, taken, not_at)
        more = [c for c in patches if _may_be_die(c, params, mm_per_px, not_at)][: params.max_dice - len(cands)]
        if more:
            cands += [(threshold, c) for c in more]
            logits = np.vstack([logits, _read_boxes(frame, models, more, turns, seen)])
    if not cands:
        return []
    if params.wider_look > 1.0:
        _look_wider(frame, models, cands, logits, turns, params, mm_per_px, not_at, seen)
    probs = softmax(logits)
    found: list[Detection] = []
    kept: list[tuple[float, float, float, float]] = []
    fh, fw = frame.shape[:2]
    reads = []
    for index, ((score, box), p, lg) in enumerate(zip(cands, probs, logits)):
        if p[0] > params.not_die_max or (index >= from_patches and p[0] > params.patch_not_die):
            continue
        reads.append(_read_of(score, box, p, lg, allowed, params, table))
    # The finder often boxes a single pip of a large die, and a pip reads like a small
    # "1". Keep larger candidates first (or readable ones first, then larger), and drop
    # any candidate whose centre lies in a kept die or that holds a kept die's centre.
    if params.larger_first:
        reads.sort(key=lambda r: -r[1])
    else:
        reads.sort(key=lambda r: (not r[0], -r[1]))
    chosen: list[_Read] = []
    for r in reads:
        c = r[3]
        if any(_contains(k, c[:2]) or _contains(c, k[:2]) for k in kept):
            continue
        kept.append(c)
        chosen.append(r)
    if params.doubt_look_px > 0:
        chosen = _look_closer_at_doubtful(
            frame, models, chosen, allowed, threshold, turns, params, mm_per_px, not_at, table, seen
        )
    d8_reads = _d8_reads(frame, models, chosen, allowed, threshold, params)
    for i, (d8_face, d8_prob, d8_box) in d8_reads.items():
        # The eight-sided die's face, as the d8 reader read it, in place of the reader's.
        readable, size, score, box, p, lg, face, _, _ = chosen[i]
        chosen[i] = (d8_prob >= params.min_value_prob, max(d8_box[2], d8_box[3]), score, d8_box, p, lg, face,
                     _rescale(d8_prob, params.d8_confident_at), d8_prob)
    sizes = [r[1] for r in chosen]
    median = float(np.median(sizes)) if len(sizes) >= 3 else 0.0
    # Sure by the photos' stricter threshold: the cocked-die check looks at every other read, so
    # that a table's sooner sure reads (``confident_at_table``) never skip it.
    strictly_sure = [
        readable and (conf >= CONFIDENT if i in d8_reads else read_prob >= params.confident_at)
        for i, (readable, _, _, _, _, _, _, conf, read_prob) in enumerate(chosen)
    ]
    p_cocked = _cocked_check(frame, [r[3] for r in chosen], strictly_sure, params, seen)
    for i, ((readable, size, score, (cx, cy, w, h), p, lg, face, conf, read_prob), pc) in enumerate(zip(chosen, p_cocked)):
        small = size < params.small_ratio * median
        if small:
            readable = False  # much smaller than its neighbours: most often a pip, so unsure
        kind, value, flags = _meaning(face, p, models.classes, params.kinds)
        if i in d8_reads:
            value = d8_reads[i][0]
        if models.classes == NUM_READ_CLASSES and params.kinds is not None and "d6" not in params.kinds:
            kind, value, readable = params.kinds[0], None, False  # found, but this reader cannot read a d8
        if not flags and pc >= params.cocked_at and not strictly_sure[i]:
            flags = ("cocked",)  # a read not surely a face that the cocked-die check finds cocked
            readable = False
        elif not flags and pc >= params.cocked_doubt and not strictly_sure[i]:
            conf = min(conf, CONFIDENT * read_prob)  # the die may be cocked: its face is not sure
        if score < sure_from or any(_contains(f, (cx, cy)) for f in fine_only):
            conf = min(conf, CONFIDENT * read_prob)  # seen only at a guessed scale, or only by the finer look
        if flags and not (readable and conf >= CONFIDENT):
            # A cocked die calls for a rethrow (G-3), but only a sure "cocked" rules one: an
            # unsure one keeps its flag with no confidence, and the players are asked whether
            # the die is cocked or which face it shows (``referee.reconcile``).
            readable = False
        doubt = params.unsure_not_die
        if mm_per_px is None and score < params.faint_score:
            doubt = min(doubt, params.faint_not_die)  # a faint box in a read of no known scale
        if not readable and not flags and p[0] > doubt:
            continue  # no read, and the reader doubts it is a die at all

        x0 = int(round(max(0.0, cx - w / 2)))
        y0 = int(round(max(0.0, cy - h / 2)))
        x1 = int(round(min(float(fw), cx + w / 2)))
        y1 = int(round(min(float(fh), cy + h / 2)))
        found.append(
            Detection(
                kind=kind,
                value=value if readable else None,
                bbox=(x0, y0, x1 - x0, y1 - y0),
                confidence=conf if readable else 0.0,
                center=(float(cx), float(cy)),
                position_mm=None,
                flags=flags,
                extra={
                    "finder_score": round(float(score), 3),
                    "not_die": round(float(p[0]), 3),
                    "face_logits": [round(float(v), 3) for v in lg[1:]],
                    "size_px": round(float(max(w, h)), 1),
                    "read_prob": round(read_prob, 4),
                    "read_class": read_class(face, models.classes)[0],
                    "much_smaller": small,
                    "p_cocked": round(float(pc), 3),
                    "d8_face": d8_reads[i][0] if i in d8_reads else None,
                },
            )
        )
    return found


def _finder_look(frame: npt.NDArray[np.uint8], finder: cv2.dnn.Net, long_side: int, seen: _Seen) -> tuple[FloatArray, float]:
    """The finder's map of the whole frame scaled to ``long_side`` and that scale, made once a
    frame (``seen`` keeps it for another read of the frame)."""
    if long_side not in seen.finder:
        blob, blob_scale = finder_blob(frame, long_side)
        finder.setInput(blob)
        seen.finder[long_side] = (np.asarray(finder.forward(), np.float32), blob_scale)
    return seen.finder[long_side]
