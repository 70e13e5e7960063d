"""Find dice in a frame and read the face up.

Two small networks, trained by ``tools/train_dice.py`` and shipped in
``vision/models/``, run with OpenCV's own DNN module (no other runtime):

1. the finder scores every 4th pixel of the frame, scaled down so its long side is
   each of ``DiceParams.det_long_sides``, as "centre of a die's top face", with the box size,
   and looks closer beside a small die where another may hide (``DiceParams.close_look``);
2. the reader looks at a small square crop of each found die, cut from the full-resolution
   frame, and says "not a die face", a six-sided die's face 1..6, and (a reader trained with
   16 classes) an eight-sided die's face 1..8 by its numeral, or "cocked" (no face up);
3. a read the reader doubts is looked at again by the finder, closer: two touching dice
   boxed as one become two, and a misplaced box a better one (``DiceParams.doubt_look_px``);
4. for a die the reader takes for an eight-sided one, a third network (``vision.d8_faces``)
   reads the numeral on a larger crop.

Any colour, light or dark pips, touching dice: both networks learned with colour
turned, swapped and inverted, and the finder separates touching dice by their centres.

>>> import numpy as np
>>> find_dice(np.zeros((64, 64, 3), np.uint8))
[]
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from vision._dice_net import (
    CROP_SCALE,
    CROP_SIZE,
    COCKED_CLASS,
    D8_FIRST_CLASS,
    DET_STRIDE,
    NUM_READ_CLASSES,
    READ_CLASSES_D8,
    FloatArray,
    crop_patch,
    read_class,
    decode_finder,
    finder_blob,
    reader_input,
)
from vision._dnn import load_onnx, softmax
from vision.cocked import cocked_net, cocked_probability
from vision._patch_check import PatchCheck, quarter_turns
from vision.d8_faces import d8_face_logits, d8_net
from vision.die_patches import die_patches
from vision.types import DIE_KINDS, Detection

CONFIDENT = 0.8
"""A die read with at least this confidence is meant to be almost never wrong (see BENCHMARKS.md)."""

MODEL_DIR = Path(__file__).resolve().parent / "models"
FINDER_MODEL = MODEL_DIR / "dice_finder.onnx"
READER_MODEL = MODEL_DIR / "dice_reader.onnx"

DIE_MM_RANGE = (8.0, 40.0)
"""Box sizes in millimetres a found die can have. Table dice are 10 mm to 25 mm across the top,
but the box also holds the sides a tilted camera sees and the finder's error: a 19 mm die
seen from the side of the table was boxed at 31 mm (the Sevens fixture game), so up to 40 mm."""


@dataclass(frozen=True)
class DiceParams:
    """Thresholds for ``find_dice``."""

    det_long_sides: tuple[int, ...] = (512, 192)
    """The finder sees the frame scaled so its long side is each of these (multiples of 32): the
    larger finds small dice (from about 25 px in a 1280x960 frame), the smaller close-ups."""
    det_threshold: float = 0.3
    """Lowest finder centre score that makes a candidate die."""
    det_threshold_scaled: float = 0.25
    """The same when the scale is known (a calibration's, or estimated from the coins), if lower
    than ``det_threshold``: box sizes then rule out most of what the finder takes for a die."""
    fine_long_side: int = 1024
    """A photo of no known table whose long side is at least this is also read with its long side
    this many pixels, for small dice (a 25 px die is 10 px to the finder at 512); its dice are never
    sure. 0: off."""
    fine_threshold: float = 0.5
    """Lowest finder score that makes a candidate in that finer look: there printed letters and pips
    look die-sized."""
    fine_largest: float = 0.04
    """The finer look takes only boxes smaller than this share of the frame's long side: a larger
    die is the first look's to find."""
    coarse_min_side: float = 0.05
    """The passes after the first (for close-ups) take a candidate only when its box is at least
    this share of their long side: their smaller boxes are print and markers. 0 takes all."""
    coarse_from: float = 0.1
    """With a known scale, the passes after the first are made only when a die's box may be larger
    than this share of the frame's long side: the first pass finds smaller ones."""
    max_dice: int = 64
    """Most candidates read in one frame, counted once duplicates are dropped (so duplicates in a
    crowded tray do not take real dice's places)."""
    close_look: float = 1.5
    """Where the first look's map holds a shoulder beside a small die (``shoulder``), the finder
    looks again this many times closer there: two touching dice often make one peak. 0 turns it
    off."""
    shoulder: float = 0.4
    """A shoulder is what stays above the threshold, and highest around it, once a disk of this
    share of each peak's box side is taken off around the peak."""
    close_look_below: float = 24.0
    """Only dice smaller than this, in the first look's finder pixels, are looked at again."""
    close_look_px: int = 96
    """Side in finder pixels of each square looked at again (all squares run as one batch)."""
    min_die_px: float = 12.0
    """Smallest die box side, in frame pixels, that is reported."""
    not_die_max: float = 0.5
    """A candidate whose reader probability of "not a die face" is above this is dropped."""
    min_value_prob: float = 0.55
    """Below this raw read probability (face times "is a die"), ``value`` is ``None`` (unsure)."""
    unsure_not_die: float = 0.2
    """A candidate left without a value (and with no flag) whose "not a die" probability is above
    this is dropped: unread, and doubted as a die (card pips, print, side faces)."""
    faint_not_die: float = 0.05
    """With no known scale, a candidate left without a value (and with no flag) whose "not a die"
    probability is above this and finder score under ``faint_score`` is dropped (card symbols). 1.01
    turns it off."""
    faint_score: float = 0.5
    """See ``faint_not_die``."""
    overlap_iou: float = 0.5
    """Two candidates overlapping more than this are one die."""
    wider_look: float = 1.6
    """A candidate the reader finds no die in (not surely) and smaller than the frame's dice is read
    again in a box this many times as large: the finder sometimes boxes only a pip. 1 turns it
    off."""
    wider_look_read: float = 0.97
    """The wider box is kept only when the reader's probability of its likeliest read (a face, or
    cocked) is at least this."""
    wider_look_not_die: float = 0.98
    """Only a candidate whose "no die" probability is below this (and smaller than
    ``wider_look_below``) is looked at wider: the candidates on printed marks are rejected surely
    and skipped."""
    wider_look_below: float = 0.8
    """Only a candidate smaller than this share of the median side of the frame's dice is looked at
    wider (none where the frame has no die); see ``wider_look_not_die``."""
    temperature: float = 1.0
    """Softens the reader's face probabilities into calibrated confidences (fitted on the trained
    part of the photos by ``benchmarks/dice_bench.py --fit-temperature``)."""
    reader_turns: int = 1
    """The reader sees each crop at this many quarter turns (1, 2 or 4), logits averaged: a face
    reads the same at any quarter turn, a guess does not. Each turn costs a reader run."""
    larger_first: bool = False
    """When one candidate's centre lies inside another, keep the larger (the finder often boxes one
    pip of a large die). Off: it left more dice unsure than it saved from a wrong read."""
    small_ratio: float = 0.0
    """A die smaller than this share of the median size of the frame's dice (three or more) is left
    unsure, being most often a pip. 0 (off): tables mix 12 and 16 mm dice."""
    confident_at: float = 0.9951
    """The raw read probability at and above which at most 0.5% of reads were wrong on each
    validation part, the strictest; it maps to ``CONFIDENT`` (``benchmarks/dice_bench.py
    --fit-confident``)."""
    confident_at_table: float = 0.9733
    """``confident_at`` for a frame of a known table (a calibration's or the markers' scale), fitted
    on the validation parts that look like one; lower, since a camera over a table sees no heap of
    dice."""
    cocked_doubt: float = 0.7
    """A read not sure by ``confident_at`` whose die the cocked-die check finds cocked with at least
    this (but under ``cocked_at``) keeps its face but is never sure. 1.01 turns it off."""
    cocked_at: float = 0.98
    """An unsure read whose die the cocked-die check (``vision.cocked``, when the model folder has
    it) finds cocked with at least this is flagged ``cocked`` (no value; the players are asked).
    1.01: off."""
    d8_confident_at: float = 0.9837
    """``confident_at`` for an eight-sided die's face read by ``vision.d8_faces`` (face probability
    times the reader's that it is a flat d8 and a die), fitted on two drawings of numerals."""
    d8_turns: int = 1
    """The d8 face reader sees each crop at this many quarter turns (1, 2 or 4), its logits
    averaged; each turn costs about 2 ms a die, so the first read is made at one."""
    d8_doubt_turns: int = 4
    """A d8 face read less surely than ``d8_doubt_below`` is read again at the quarter turns of this
    many (1, 2 or 4) not yet seen, the logits averaged. 1 turns it off."""
    d8_doubt_below: float = 0.999
    """See ``d8_doubt_turns``: a little over ``d8_confident_at``, so that every face not sure at one
    turn is read again."""
    d8_closer_look: bool = True
    """A d8 face still doubtful after ``d8_doubt_turns`` is read again, at those turns, in the boxes
    of a closer look near its centre (``doubt_look_px``, ``doubt_look_smallest``); the surest is
    kept."""
    d8_steady: bool = True
    """A d8 face that would be sure is read again in crops a little smaller, larger, shifted and
    blurred (``_D8_STEADY_LOOKS``); where any look gives the face less than ``d8_steady_floor``,
    the least it gets becomes its probability. A numeral a few pixels tall can flip between
    neighbouring faces with another OpenCV's resize, a JPEG encoder or a blur, and a read is sure
    only where such a change would not make it wrong."""
    d8_steady_floor: float = 0.9
    """See ``d8_steady``: the probability every other look must still give the face."""
    model_dir: Path = MODEL_DIR
    """Folder with ``dice_finder.onnx``, ``dice_reader.onnx`` and ``dice_reader.json`` (and,
    optionally, the cocked-die check's ``dice_cocked.onnx`` and the d8 face reader's
    ``dice_d8.onnx``)."""
    patch_candidates: bool = True
    """With a known scale, also read the die-sized patches unlike the cloth that touch no candidate
    and no coin (``vision.die_patches``): clear dice the finder scored just under its threshold."""
    patches_beside_rejected: bool = True
    """On a known table, patches are sought once the candidates are read and only candidates read as
    dice take the patches they touch, so a die boxed on its pips is read through its patch."""
    patch_not_die: float = 0.1
    """A die-sized patch is kept only when the reader's "not a die" probability is below this
    (printed letters read 0.26 to 0.36, dice 0.04 or less)."""
    doubt_look_px: float = 34.0
    """A d6 read less sure than ``doubt_below`` is looked at again by the finder with the die this
    many finder pixels across; two readable dice there, or one surer read, replace it. 0: off."""
    doubt_below: float = 0.9
    """See ``doubt_look_px``: the raw read probability below which a read is looked at again."""
    doubt_at_table: bool = True
    """On a known table a read is doubtful below ``confident_at_table`` instead of ``doubt_below``:
    every read not sure there is looked at again, since a sure read spares a question."""
    doubt_look_max: int = 16
    """Most reads looked at again in one frame, the least sure first."""
    doubt_look_smallest: float = 0.6
    """A die the closer look finds is kept only when its box is at least this share of the median
    side of the frame's readable dice (three or more): a smaller box is a pip."""
    doubt_look_blob: int = 128
    """Side in finder pixels of each square looked at again (a multiple of 32): about four dice."""
    own_scale_mm: float = 20.0
    """Without a known scale, the median box of the dice read at ``own_scale_prob``
    (``own_scale_min`` or more) is taken as this many mm and the frame read again at that scale. 0
    turns it off."""
    own_scale_prob: float = 0.95
    """See ``own_scale_mm``: the least read probability of a die that gives the scale."""
    own_scale_min: int = 2
    """See ``own_scale_mm``: the fewest such dice that give a scale."""
    size_mm: tuple[float, float] = DIE_MM_RANGE
    """Box sizes in millimetres a found die may have when the scale is known (a table whose dice
    were learned narrows it: ``vision.enrol.DiceProfile``)."""
    kinds: tuple[str, ...] | None = None
    """The kinds of die this table holds (Sevens: ``("d6",)``), or ``None`` for any; a die is read
    as one of these only. A reader that knows no d8 finds a d8 table's dice but not their faces."""


_local = threading.local()


@dataclass(frozen=True)
class _Models:
    finder: cv2.dnn.Net
    reader: cv2.dnn.Net
    crop_size: int
    """The reader's input side, pixels (``dice_reader.json``, else ``CROP_SIZE``)."""
    crop_scale: float
    """The reader's crop side over the die box side (``dice_reader.json``, else ``CROP_SCALE``)."""
    classes: int = NUM_READ_CLASSES
    """The reader's classes (``dice_reader.json``): 7 for six-sided dice only, 16 with d8 and cocked."""


def _nets(model_dir: Path) -> _Models:
    """The two networks of ``model_dir`` with the reader's crop geometry, loaded once per thread
    (a cv2.dnn.Net is not thread-safe).

    :raises FileNotFoundError: naming a missing model file.
    :raises ValueError: for a ``dice_reader.json`` that is not what training writes.
    """
    cache: dict[Path, _Models] = _local.__dict__.setdefault("models", {})
    models = cache.get(model_dir)
    if models is None:
        finder_path, reader_path = model_dir / FINDER_MODEL.name, model_dir / READER_MODEL.name
        for path in (finder_path, reader_path):
            if not path.is_file():
                raise FileNotFoundError(f"dice model missing: {path} (train it with tools/train_dice.py)")
        crop_size, crop_scale, classes = CROP_SIZE, CROP_SCALE, NUM_READ_CLASSES
        meta_path = reader_path.with_suffix(".json")
        if meta_path.is_file():
            try:
                meta = json.loads(meta_path.read_text())
                crop_size, crop_scale = int(meta["crop_size"]), float(meta["crop_scale"])
                classes = int(meta.get("classes", NUM_READ_CLASSES))
            except (ValueError, KeyError, TypeError) as exc:
                raise ValueError(f"{meta_path}: needs numbers crop_size and crop_scale ({exc})") from None
            if classes not in (NUM_READ_CLASSES, READ_CLASSES_D8):
                raise ValueError(f"{meta_path}: classes must be {NUM_READ_CLASSES} or {READ_CLASSES_D8}, got {classes}")
        models = _Models(load_onnx(finder_path), load_onnx(reader_path),
                         crop_size, crop_scale, classes)
        cache[model_dir] = models
    return models


def _check_frame(frame: object) -> npt.NDArray[np.uint8]:
    """The frame as a BGR uint8 array, or ValueError naming what is wrong."""
    if not isinstance(frame, np.ndarray):
        raise ValueError(f"frame must be a numpy array, got {type(frame).__name__}")
    if frame.dtype != np.uint8:
        raise ValueError(f"frame dtype must be uint8, got {frame.dtype}")
    if not (frame.ndim == 2 or (frame.ndim == 3 and frame.shape[2] == 3)):
        raise ValueError(f"frame shape must be (H, W, 3) BGR or (H, W) grey, got {frame.shape}")
    if frame.shape[0] < 16 or frame.shape[1] < 16:
        raise ValueError(f"frame shape {frame.shape} is too small (at least 16x16)")
    if frame.ndim == 2:
        return np.asarray(cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR), np.uint8)
    return np.asarray(frame, np.uint8)


def _iou(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> float:
    ax0, ay0, ax1, ay1 = a[0] - a[2] / 2, a[1] - a[3] / 2, a[0] + a[2] / 2, a[1] + a[3] / 2
    bx0, by0, bx1, by1 = b[0] - b[2] / 2, b[1] - b[3] / 2, b[0] + b[2] / 2, b[1] + b[3] / 2
    iw = max(0.0, min(ax1, bx1) - max(ax0, bx0))
    ih = max(0.0, min(ay1, by1) - max(ay0, by0))
    inter = iw * ih
    union = a[2] * a[3] + b[2] * b[3] - inter
    return inter / union if union > 0 else 0.0


def _contains(box: tuple[float, float, float, float], point: tuple[float, float]) -> bool:
    """Whether ``point`` lies inside the centre-size ``box``, shrunk by a tenth for touching dice."""
    return abs(point[0] - box[0]) < 0.4 * box[2] and abs(point[1] - box[1]) < 0.4 * box[3]


def _rescale(raw: float, confident_at: float) -> float:
    """Map the raw read probability so that ``confident_at`` becomes ``CONFIDENT`` (monotone, 0..1)."""
    t = min(max(confident_at, 1e-6), 1.0 - 1e-6)
    if raw < t:
        return CONFIDENT * raw / t
    return CONFIDENT + (1.0 - CONFIDENT) * (raw - t) / (1.0 - t)


def _same_die(
    a: tuple[float, float, float, float], b: tuple[float, float, float, float], iou: float
) -> bool:
    """Two candidates are one die when they overlap a lot or one's centre is deep inside the other."""
    if _iou(a, b) > iou:
        return True
    small = min(max(a[2], a[3]), max(b[2], b[3]))
    return bool(np.hypot(a[0] - b[0], a[1] - b[1]) < 0.35 * small)


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


def _reader_turns(params: DiceParams) -> int:
    """The quarter turns the reader sees each crop at (``DiceParams.reader_turns``, at least 1).

    :raises ValueError: unless 1, 2 or 4.
    """
    turns = max(1, params.reader_turns)
    if turns not in (1, 2, 4):
        raise ValueError(f"reader_turns must be 1, 2 or 4, got {turns}")
    return turns


def _overlap(a: Detection, b: Detection) -> bool:
    """Whether either detection's centre lies in the other's box."""
    def inside(p: tuple[float, float], box: tuple[int, int, int, int]) -> bool:
        return box[0] <= p[0] <= box[0] + box[2] and box[1] <= p[1] <= box[1] + box[3]
    return inside(a.center, b.bbox) or inside(b.center, a.bbox)


@dataclass
class _Seen:
    """What the networks gave on one frame, kept for a second read of it at another scale:
    the finder's first looks by their long side, the reader's logits by box and turns, the
    cocked-die check's probability by box."""

    finder: dict[int, tuple[FloatArray, float]] = field(default_factory=dict)
    logits: dict[tuple[tuple[float, float, float, float], int], FloatArray] = field(default_factory=dict)
    cocked: dict[tuple[int, int, int, int], float] = field(default_factory=dict)


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


def _not_die_prob(logits: FloatArray) -> float:
    """The reader's probability that its crop holds no die face (class 0), from its logits."""
    e = np.exp(logits - logits.max())
    return float(e[0] / e.sum())


_Read = tuple[bool, float, float, tuple[float, float, float, float], FloatArray, FloatArray, int, float, float]
"""A candidate's read in ``find_dice``: readable, size, finder score, box (centre x, y, width,
height), the reader's probabilities and logits, its class, confidence and raw read probability."""


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
    ``_D8_STEADY_LOOKS``, each look at the quarter ``turns``."""
    out = []
    for (cx, cy, w, h), face in zip(boxes, faces):
        side = float(max(w, h))
        # The die's neighbourhood, blurred where a look asks for it, and the box's centre in it.
        r = int(np.ceil(side * 1.5 * net.context)) + 2
        x0, y0 = max(0, int(cx) - r), max(0, int(cy) - r)
        region = np.ascontiguousarray(frame[y0:y0 + 2 * r + 1, x0:x0 + 2 * r + 1])
        least = 1.0
        for scale, dx, dy, sigma in _D8_STEADY_LOOKS:
            image = np.asarray(cv2.GaussianBlur(region, (0, 0), sigma), np.uint8) if sigma > 0 else region
            box = (cx - x0 + dx * side, cy - y0 + dy * side, w * scale, h * scale)
            p = softmax(d8_face_logits(net, image, [box], turns))[0]
            least = min(least, float(p[face]))
        out.append(least)
    return out


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


def draw_dice(frame: npt.NDArray[np.uint8], dice: list[Detection]) -> npt.NDArray[np.uint8]:
    """A copy of ``frame`` with each die's box and read drawn on it (green confident, orange not)."""
    img = frame.copy()
    for d in dice:
        x, y, w, h = d.bbox
        colour = (0, 200, 0) if d.confidence >= CONFIDENT else (0, 140, 255)
        cv2.rectangle(img, (x, y), (x + w, y + h), colour, 2)
        text = f"{d.value if d.value is not None else '?'} {d.confidence:.2f}"
        cv2.putText(img, text, (x, max(10, y - 3)), cv2.FONT_HERSHEY_SIMPLEX, 0.45, colour, 1, cv2.LINE_AA)
    return img
