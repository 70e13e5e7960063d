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

The shipped model learned 850 such scenes of cocked dice (seeds 501 to 503),
240 of touching dice (``--feature touching_dice``, seeds 601 and 602: two flat dice side by
side are not cocked) and 150 of eight-sided dice (``--feature d8_dice``, seed 701), all
procedural (``--blender 0``), and dice-rune55's trained part (``--photos
../shared/data/dice-rune55``), with ``--width 24 --steps 4000 --seed 8``
(``vision/models/dice_cocked.json`` lists them).

A flat die beside another (label boxes grown by :data:`BESIDE` meet) is a hard "no": every
cocked die lies so. ``--hard-share S`` draws that share of the noes from them. Cutting the
examples (the finder reads every picture) can be done once, ``--save-examples FILE.npz``, and
trained from many times, ``--examples FILE.npz``; PyTorch trains on a GPU where it sees one.
Checks were also trained (none shipped: ``docs/benchmarks/dice.md``) on 1,240 procedural scenes
drawn on a 16-core machine with a GPU, 85 Cycles scenes (``--feature cocked_die`` and ``--feature
touching_dice`` without ``--blender 0``), the photos and, in a second round, 740 more procedural
scenes with the hard noes marked, for example::

    python tools/train_cocked.py --scenes /tmp/ckc --scenes /tmp/tdc --photos ../shared/data/dice-rune55 \\
        --save-examples /tmp/ex/local_24.npz
    python tools/train_cocked.py --examples /tmp/ex/local_24.npz --examples /tmp/ex/proc_24.npz \\
        --hard-share 0.5 --width 16 --steps 4000 --seed 8 --out /tmp/h05

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

from tools._check_training import HARD_NO, main_for  # noqa: E402



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
        ys += [1 if "cocked" in lab.get("flags", []) else HARD_NO if beside_another(lab, dice) else 0
               for lab, _ in pairs]
    return crops, ys


BESIDE = 0.15
"""A die lies beside another when their label boxes, each grown by this share of its side, meet."""


def beside_another(die: dict, dice: list[dict]) -> bool:
    """Whether the labelled ``die`` lies beside (touches or nearly) another of ``dice``: a flat one
    there is a hard "no" (:data:`tools._check_training.HARD_NO`), for every cocked die lies so."""
    def grown(box: list[float]) -> tuple[float, float, float, float]:
        x, y, w, h = box
        m = BESIDE * max(w, h)
        return x - m, y - m, x + w + m, y + h + m

    ax0, ay0, ax1, ay1 = grown(die["bbox"])
    for other in dice:
        if other is die:
            continue
        bx0, by0, bx1, by1 = grown(other["bbox"])
        if ax0 < bx1 and bx0 < ax1 and ay0 < by1 and by0 < ay1:
            return True
    return False


def main(argv: list[str] | None = None) -> int:
    return main_for(__doc__ or "", COCKED_MODEL, examples, ("cocked dice", "flat dice"),
                    "tools/train_cocked.py (see its docstring)", CROP_SIDE, CONTEXT,
                    "real labelled dice photos whose trained part is learned as flat dice (repeatable)", argv)


if __name__ == "__main__":
    raise SystemExit(main())
