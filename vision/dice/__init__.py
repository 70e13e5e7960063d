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

The package's modules, one job each: ``params`` (``DiceParams``, the shipped models' paths),
``models`` (the networks, loaded once per thread), ``boxes`` (frames and box geometry), ``find``
(``find_dice``, ``read_die_boxes``: the finder's passes), ``reading`` (the reader's classes and
what they mean), ``closer`` (second looks at doubtful and small dice), ``d8`` (eight-sided
dice's numerals), ``cocked_check`` (the cocked-die network's say), ``drawing`` (``draw_dice``).
Every name is importable from ``vision.dice`` itself.

>>> import numpy as np
>>> find_dice(np.zeros((64, 64, 3), np.uint8))
[]
"""

from __future__ import annotations

from vision.dice.params import (
    CONFIDENT as CONFIDENT,
    DIE_MM_RANGE as DIE_MM_RANGE,
    DiceParams as DiceParams,
    FINDER_MODEL as FINDER_MODEL,
    MODEL_DIR as MODEL_DIR,
    READER_MODEL as READER_MODEL,
)
from vision.dice.models import (
    _Models as _Models,
    _Seen as _Seen,
    _local as _local,
    _nets as _nets,
)
from vision.dice.boxes import (
    _check_frame as _check_frame,
    _contains as _contains,
    _iou as _iou,
    _overlap as _overlap,
    _rescale as _rescale,
    _same_die as _same_die,
)
from vision.dice.find import (
    _find_dice as _find_dice,
    _finder_look as _finder_look,
    _own_scale as _own_scale,
    find_dice as find_dice,
    read_die_boxes as read_die_boxes,
)
from vision.dice.reading import (
    _Read as _Read,
    _allowed_classes as _allowed_classes,
    _meaning as _meaning,
    _not_die_prob as _not_die_prob,
    _read_boxes as _read_boxes,
    _read_of as _read_of,
    _reader_logits as _reader_logits,
    _reader_turns as _reader_turns,
)
from vision.dice.closer import (
    _close_look as _close_look,
    _finder_closer as _finder_closer,
    _finder_in_squares as _finder_in_squares,
    _look_closer_at_doubtful as _look_closer_at_doubtful,
    _look_wider as _look_wider,
    _may_be_die as _may_be_die,
    _shoulders as _shoulders,
)
from vision.dice.d8 import (
    _D8_STEADY_LOOKS as _D8_STEADY_LOOKS,
    _d8_reads as _d8_reads,
    _d8_steady_probs as _d8_steady_probs,
)
from vision.dice.cocked_check import (
    _cocked_check as _cocked_check,
)
from vision.dice.drawing import (
    draw_dice as draw_dice,
)
from vision._dice_net import (  # the finder's and reader's tensors, as this module has always offered them
    crop_patch as crop_patch,
    decode_finder as decode_finder,
    finder_blob as finder_blob,
    reader_input as reader_input,
)
