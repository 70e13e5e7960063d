"""Train the cocked-die check and export it to ONNX for ``cv2.dnn``.

The dice reader (``tools/train_dice.py``) has a "cocked" class, but it sees the die alone and
finds it likeliest on about a third of the cocked dice. This small network sees each die the
finder found with the ground around it (``vision.cocked.CONTEXT`` times its box: the die
it leans on, the side face it shows) and says whether it lies flat or is cocked.

Usage (PyTorch is needed here only, never at run time; CPU is enough, a few minutes)::

    python -m tools.fixturegen --scenes --split train --feature cocked_die --limit 300 \\
        --blender 0 --seed 501 --out /tmp/ck1 --work /tmp/tw1
    python -m tools.fixturegen --scenes --split train --feature cocked_die --limit 300 \\
        --blender 0 --seed 502 --out /tmp/ck2 --work /tmp/tw2
    python tools/train_cocked.py --scenes /tmp/ck1/scenes/train --scenes /tmp/ck2/scenes/train \\
        --out vision/models

The shipped model (session 15) learned 850 such scenes of cocked dice (seeds 501 to 503),
240 of touching dice (``--feature touching_dice``, seeds 601 and 602: two flat dice side by
side are not cocked) and 150 of eight-sided dice (``--feature d8_dice``, seed 701), all
procedural (``--blender 0``), and dice-rune55's trained part (``--photos
../shared/data/dice-rune55``), with ``--width 24 --steps 4000 --seed 8``
(``vision/models/dice_cocked.json`` lists them).

It learns from rendered training scenes (a cocked-die scene holds one die cocked against
another and a few lying flat) and the trained part of real photos: every die the finder
finds there, matched to its label, is a flat or a cocked example (moving and hidden dice
are left out). The fixtures' dev and held-back scenes
are refused: the first is where the threshold is chosen (``benchmarks/dice_bench.py``), the
second the measurement. Augmentation: quarter turns, mirror images, light and colour.

Writes ``dice_cocked.onnx`` and ``dice_cocked.json`` into ``--out``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.dice_bench import match  # noqa: E402
from vision._dice_split import is_held_out, is_validation  # noqa: E402
from vision.cocked import CONTEXT, COCKED_MODEL, CROP_SIDE, cocked_patches  # noqa: E402
from vision.dice import find_dice  # noqa: E402

from tools._check_training import main_for  # noqa: E402



def examples(folder: Path, photos: bool, crop_side: int, context: float) -> tuple[list[np.ndarray], list[int]]:
    """Crops of every die the finder finds in the folder's labelled pictures, with 1 for cocked
    and 0 for flat. ``photos``: a folder of real photos (dice-rune55), whose trained part only
    is taken (its validation and held-out photos are measured on): all flat, and crowded in
    trays, they teach that a die beside another is not cocked for that.

    :raises FileNotFoundError: if the folder has no labels.json or a listed image is missing.
    """
    labels_path = folder / "labels.json"
    if not labels_path.is_file():
        raise FileNotFoundError(f"no labels.json in {folder}")
    crops: list[np.ndarray] = []
    ys: list[int] = []
    for entry in json.loads(labels_path.read_text()):
        if photos and (is_held_out(entry["image"]) or is_validation(entry["image"])):
            continue
        dice = [o for o in entry["objects"] if o["kind"] in ("d6", "d8")]
        if not dice:
            continue
        path = folder / entry["image"]
        frame = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if frame is None:
            raise FileNotFoundError(f"cannot read {path}")
        found = find_dice(frame)
        pairs = [(dice[i], found[j]) for i, j in match(dice, found)
                 if not dice[i].get("flags") or "cocked" in dice[i]["flags"]]
        if not pairs:
            continue
        crops += cocked_patches(frame, [d.bbox for _, d in pairs], crop_side, context)
        ys += [int("cocked" in lab.get("flags", [])) for lab, _ in pairs]
    return crops, ys


def main(argv: list[str] | None = None) -> int:
    return main_for(__doc__ or "", COCKED_MODEL, examples, ("cocked dice", "flat dice"),
                    "tools/train_cocked.py (see its docstring)", CROP_SIDE, CONTEXT,
                    "real labelled dice photos whose trained part is learned as flat dice (repeatable)", argv)


if __name__ == "__main__":
    raise SystemExit(main())
