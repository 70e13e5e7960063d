"""Train the eight-sided dice's face reader and export it to ONNX for ``cv2.dnn``.

The dice reader (``tools/train_dice.py``) tells a d8 from a d6 well, but reads the numeral on
a d8's top face badly: in its 40-pixel crop of the whole die the numeral is a few pixels tall.
This network (``vision.d8_faces``) looks at a larger crop of each d8 and names the face, 1..8.

Usage (PyTorch is needed here only, never at run time; CPU is enough). The numerals must be
drawn as a camera sees them, so the training pictures are Cycles renders (Blender's ``bpy`` in
``/work/bpyenv``): mostly dice sheets (``tools/fixturegen/sheets.py``: 16 d8 in a 320-pixel
window of a scene camera's picture, about 5 s each on 2 cores), and whole scenes rich in d8::

    python -m tools.fixturegen --sheets 237 --seed 1601 --out /tmp/sh1 --work /tmp/sh1_work
    python -m tools.fixturegen --sheets 237 --seed 1602 --out /tmp/sh2 --work /tmp/sh2_work
    python -m tools.fixturegen --sheets 300 --seed 1701 --out /tmp/sh3 --work /tmp/sh3_work
    python -m tools.fixturegen --sheets 300 --seed 1702 --out /tmp/sh4 --work /tmp/sh4_work
    python -m tools.fixturegen --scenes --split train --feature d8_dice --feature crowded_dice \
        --limit 68 --blender 100000 --seed 1602 --out /tmp/d8b --work /tmp/d8b_work
    python tools/train_d8.py --scenes /tmp/sh1 --scenes /tmp/sh2 --scenes /tmp/sh3 --scenes /tmp/sh4 \
        --scenes /tmp/d8b/scenes/train --steps 6000 --seed 17 --out vision/models

That first reader learned 18,200 d8 (29 minutes on 2 cores): with fewer dice it learns the dice
rather than their numerals (``docs/benchmarks/d8.md``). It was then trained on three times from
its own weights (``--init``, its norms kept). First with d8 of a second drawing, the procedural
renderer's, whose numerals differ and which the first reader read surely wrong too often, from
400 fresh Cycles sheets and 600 procedural scenes (8,517 d8)::

    python -m tools.fixturegen --sheets 200 --seed 2711 --out /tmp/s27/sh1 --work /tmp/s27/sh1_work
    python -m tools.fixturegen --sheets 200 --seed 2712 --out /tmp/s27/sh2 --work /tmp/s27/sh2_work
    python -m tools.fixturegen --scenes --split train --feature d8_dice --feature crowded_dice \
        --limit 600 --blender 0 --seed 2731 --out /tmp/s27/d8train --work /tmp/s27/d8train_work
    python tools/train_d8.py --scenes /tmp/s27/sh1 --scenes /tmp/s27/sh2 \
        --scenes /tmp/s27/d8train/scenes/train --init vision/models/dice_d8.onnx --lr 1e-3 \
        --steps 5000 --seed 29 --out vision/models

(13 minutes on 2 cores). Then at half the learning rate, with the same sheets and 400 new
procedural scenes (12,180 d8, about half of each drawing), on a lent machine with a GPU and 16
cores (PyTorch trains on a GPU where it sees one; the scenes drawn 16 side by side in 47 s, the
training 171 s)::

    for S in $(seq 1 16); do python -m tools.fixturegen --scenes --split train --feature d8_dice \
        --feature crowded_dice --limit 25 --blender 0 --seed $((2880 + S)) --out /tmp/p/d$S \
        --work /tmp/p/d${S}_w & done; wait
    python tools/train_d8.py --scenes /tmp/s27/sh1 --scenes /tmp/s27/sh2 --scenes /tmp/p/d1/scenes/train \
        ... --scenes /tmp/p/d16/scenes/train --init vision/models/dice_d8.onnx --lr 5e-4 \
        --steps 7000 --seed 282 --out vision/models

Last, the shipped reader, on this project's 2 CPU cores (23 minutes beside a Cycles render),
with 400 fresh Cycles sheets and 300 procedural scenes (10,671 d8)::

    for S in 3411 3412 3413 3414; do python -m tools.fixturegen --sheets 100 --seed $S \
        --out /tmp/s34/sh$S --work /tmp/s34/sh${S}_work; done      (two side by side)
    python -m tools.fixturegen --scenes --split train --feature d8_dice --feature crowded_dice \
        --limit 300 --blender 0 --seed 3431 --out /tmp/s34/pd --work /tmp/s34/pd_w
    python tools/train_d8.py --scenes /tmp/s34/sh3411 --scenes /tmp/s34/sh3412 --scenes /tmp/s34/sh3413 \
        --scenes /tmp/s34/sh3414 --scenes /tmp/s34/pd/scenes/train --init vision/models/dice_d8.onnx \
        --lr 5e-4 --steps 4000 --seed 341 --out vision/models

Its sure threshold is fitted on the dev scenes and on fresh procedural scenes no training used
(``benchmarks/dice_bench.py --fit-d8-confident --fit-scenes``; the scenes of ``--feature d8_dice
--limit 200 --blender 0 --seed 2028``).

It learns every flat, fully visible d8 of the training scenes, cut around its labelled box
as the finder boxes it: the box's centre moved and its side scaled a little, the crop turned
by any angle (a die lies at any angle, and its numeral with it), its light, colour, blur and
noise changed. The fixtures' dev scenes (where the threshold of a sure read is chosen,
``benchmarks/dice_bench.py --fit-d8-confident``) and the held-back ones (the measurement) are
refused.

Writes ``dice_d8.onnx`` and ``dice_d8.json`` into ``--out``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2
import numpy as np
import torch
import torch.nn.functional as F

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from vision._patch_check import check_input  # noqa: E402
from vision.d8_faces import CONTEXT, CROP_SIDE, D8_MODEL, FACES  # noqa: E402

from tools._check_training import CheckNet, export, fit, training_arguments, training_device  # noqa: E402

MARGIN = 2.2
"""Side of the frame region kept per die, over its box side: room for the shifts, scales and
turns of the augmentation (a turned square reaches 1.41 times its side)."""


class Die:
    """A labelled d8: the frame region around it, at the frame's own pixels, and its face."""

    def __init__(self, region: np.ndarray, cx: float, cy: float, size: float, face: int) -> None:
        self.region, self.cx, self.cy, self.size, self.face = region, cx, cy, size, face


def dice_of(folder: Path) -> list[Die]:
    """Every flat d8 of the folder's labelled scenes that is at least 90% in view.

    :raises FileNotFoundError: if the folder has no labels.json or a listed image is missing.
    """
    labels_path = folder / "labels.json"
    if not labels_path.is_file():
        raise FileNotFoundError(f"no labels.json in {folder}")
    out: list[Die] = []
    for entry in json.loads(labels_path.read_text()):
        d8s = [o for o in entry["objects"]
               if o["kind"] == "d8" and not o.get("flags") and o.get("visible", 1.0) >= 0.9 and o.get("value")]
        if not d8s:
            continue
        path = folder / entry["image"]
        frame = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if frame is None:
            raise FileNotFoundError(f"cannot read {path}")
        for o in d8s:
            x, y, w, h = o["bbox"]
            size = float(max(w, h))
            cx, cy = x + w / 2, y + h / 2
            reach = int(np.ceil(MARGIN * size / 2))
            padded = cv2.copyMakeBorder(frame, reach, reach, reach, reach, cv2.BORDER_REPLICATE)
            x0, y0 = int(round(cx)), int(round(cy))  # region of padded: [x0, x0 + 2 reach)
            region = padded[y0:y0 + 2 * reach, x0:x0 + 2 * reach].copy()
            out.append(Die(region, cx - x0 + reach, cy - y0 + reach, size, int(o["value"])))
    return out


def sample(die: Die, rng: np.random.Generator, crop_side: int, context: float) -> np.ndarray:
    """One training crop of ``die``: as ``vision.d8_faces.d8_patches`` cuts it from a finder's
    box, the box a little off, the crop turned by any angle and its look changed."""
    side = context * die.size * rng.uniform(0.9, 1.12)
    cx = die.cx + rng.normal(0, 0.05) * die.size
    cy = die.cy + rng.normal(0, 0.05) * die.size
    k = crop_side / side
    m = cv2.getRotationMatrix2D((cx, cy), float(rng.uniform(0, 360)), k)
    m[0, 2] += crop_side / 2.0 - cx
    m[1, 2] += crop_side / 2.0 - cy
    crop = cv2.warpAffine(die.region, m, (crop_side, crop_side), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    out = crop.astype(np.float32)
    if rng.random() < 0.3:
        out = cv2.GaussianBlur(out, (0, 0), rng.uniform(0.4, 1.0))
    gain = rng.uniform(0.75, 1.25, size=3) * rng.uniform(0.8, 1.2)
    out = np.clip(out * gain + rng.normal(0, rng.uniform(0, 5), out.shape), 0, 255).astype(np.uint8)
    if rng.random() < 0.3:
        ok, enc = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(50, 90))])
        out = cv2.imdecode(enc, cv2.IMREAD_COLOR)
    return np.ascontiguousarray(out)


def train(dice: list[Die], steps: int, seed: int, width: int, blocks: int, crop_side: int, context: float,
          init: Path | None = None, lr: float = 2e-3) -> CheckNet:
    """A network trained on the dice, each face drawn equally often; from the weights of the
    exported ``init`` (its norms then kept as they are) when given."""
    rng = np.random.default_rng(seed)
    torch.manual_seed(seed)
    net = CheckNet(width, outputs=FACES, blocks=blocks, flatten_side=crop_side >> blocks, first_convs=2)
    if init is not None:
        from tools.train_dice import freeze_norms, load_onnx_weights

        load_onnx_weights(net, init)
    device = training_device()
    net = net.to(device)
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps)
    by_face = [[i for i, d in enumerate(dice) if d.face == f + 1] for f in range(FACES)]
    batch = 64

    def batch_loss() -> torch.Tensor:
        if init is not None:
            freeze_norms(net)  # the export folded them into the convolutions: training them would undo it
        faces = rng.integers(FACES, size=batch)
        pick = [by_face[f][int(rng.integers(len(by_face[f])))] for f in faces]
        x = torch.from_numpy(check_input([sample(dice[i], rng, crop_side, context) for i in pick])).to(device)
        return F.cross_entropy(net(x), torch.from_numpy(faces.astype(np.int64)).to(device))

    fit(net, opt, sched, steps, batch_loss)
    return net.cpu()


def main(argv: list[str] | None = None) -> int:
    """Command line entry point."""
    def blocks(ap: argparse.ArgumentParser) -> None:
        ap.add_argument("--blocks", type=int, default=3, help="convolution blocks, each halving the size")
        ap.add_argument("--init", type=Path, help="start from this exported dice_d8.onnx (of the same size)")
        ap.add_argument("--lr", type=float, default=2e-3, help="the learning rate's peak")

    args = training_arguments(__doc__, CROP_SIDE, CONTEXT, 4000, 32, argv, blocks)
    cv2.setNumThreads(1)
    dice: list[Die] = []
    for folder in args.scenes:
        found = dice_of(folder)
        dice += found
        print(f"{folder}: {len(found)} d8", flush=True)
    missing = [f + 1 for f in range(FACES) if not any(d.face == f + 1 for d in dice)]
    if missing:
        raise SystemExit(f"the scenes hold no d8 showing {missing}")
    net = train(dice, args.steps, args.seed, args.width, args.blocks, args.crop_side, args.context, args.init, args.lr)
    counts = {str(f + 1): sum(d.face == f + 1 for d in dice) for f in range(FACES)}
    export(net, args.out / D8_MODEL, args.crop_side, args.context, {
        "width": args.width, "blocks": args.blocks, "first_convs": 2, "head": "flattened", "steps": args.steps, "seed": args.seed,
        "scenes": [str(s) for s in args.scenes], "faces": counts, "trained_by": "tools/train_d8.py",
        **({"init": str(args.init), "lr": args.lr} if args.init is not None else {})},
        output_name="logits")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
