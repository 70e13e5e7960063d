"""The dice reader's parameters (``DiceParams``), its confidence floor and the shipped models' paths."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


CONFIDENT = 0.8
"""A die read with at least this confidence is meant to be almost never wrong (see BENCHMARKS.md)."""

MODEL_DIR = Path(__file__).resolve().parent.parent / "models"
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
