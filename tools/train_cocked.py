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

import argparse
import json
import sys
import time
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.dice_bench import match  # noqa: E402
from vision._dice_split import is_held_out, is_validation  # noqa: E402
from vision.cocked import CONTEXT, COCKED_MODEL, CROP_SIDE, cocked_input, cocked_patches  # noqa: E402
from vision.dice import find_dice  # noqa: E402

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

MEASURED = ("fixtures/scenes/dev", "fixtures/scenes/test")
"""Scene folders never learned from."""


class CockedNet(nn.Module):
    """Three convolution blocks, then one logit: cocked (positive) or flat. The first block has
    one convolution (at full size it costs the most), the others two."""

    def __init__(self, width: int = 16) -> None:
        super().__init__()
        chans = [3, width, 2 * width, 4 * width]
        layers: list[nn.Module] = []
        for k, (a, b) in enumerate(zip(chans[:-1], chans[1:])):
            layers += [nn.Conv2d(a, b, 3, padding=1, bias=False), nn.BatchNorm2d(b), nn.ReLU()]
            if k > 0:
                layers += [nn.Conv2d(b, b, 3, padding=1, bias=False), nn.BatchNorm2d(b), nn.ReLU()]
            layers += [nn.MaxPool2d(2)]
        self.features = nn.Sequential(*layers)
        self.head = nn.Linear(chans[-1], 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        f = self.features(x).mean(dim=(2, 3))
        return self.head(f)


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


def augment(crop: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A quarter-turned, perhaps mirrored copy, its light and colour changed a little."""
    out = np.rot90(crop, int(rng.integers(4)))
    if rng.random() < 0.5:
        out = out[:, ::-1]
    gain = rng.uniform(0.7, 1.3, size=3) * rng.uniform(0.8, 1.2)
    out = np.clip(out.astype(np.float32) * gain + rng.normal(0, 3, out.shape), 0, 255)
    return np.ascontiguousarray(out.astype(np.uint8))


def train(crops: list[np.ndarray], ys: list[int], steps: int, seed: int, width: int) -> CockedNet:
    """A network trained on the crops, cocked and flat dice drawn equally often."""
    rng = np.random.default_rng(seed)
    torch.manual_seed(seed)
    net = CockedNet(width)
    opt = torch.optim.AdamW(net.parameters(), lr=3e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=steps)
    y = np.array(ys)
    pos, neg = np.flatnonzero(y == 1), np.flatnonzero(y == 0)
    batch = 64
    net.train()
    t0 = time.time()
    for step in range(steps):
        pick = np.concatenate([rng.choice(pos, batch // 2), rng.choice(neg, batch // 2)])
        x = torch.from_numpy(cocked_input([augment(crops[i], rng) for i in pick]))
        target = torch.from_numpy(y[pick].astype(np.float32))[:, None]
        loss = F.binary_cross_entropy_with_logits(net(x), target)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        if step % 200 == 0 or step == steps - 1:
            print(f"step {step:5d} loss {loss.item():.3f} ({time.time() - t0:.0f} s)", flush=True)
    net.eval()
    return net


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenes", type=Path, action="append", required=True, help="rendered training scenes (repeatable)")
    ap.add_argument("--photos", type=Path, action="append", default=[],
                    help="real labelled dice photos whose trained part is learned as flat dice (repeatable)")
    ap.add_argument("--out", type=Path, default=ROOT / "vision" / "models")
    ap.add_argument("--steps", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--width", type=int, default=16)
    ap.add_argument("--crop-side", type=int, default=CROP_SIDE, help="the network's input side, pixels")
    ap.add_argument("--context", type=float, default=CONTEXT, help="crop side over the die box's side")
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    for folder in args.scenes:
        if any(folder.resolve() == (ROOT / m).resolve() for m in MEASURED):
            ap.error(f"{folder} is measured on, never learned from")
    crops: list[np.ndarray] = []
    ys: list[int] = []
    for folder, photos in [(f, False) for f in args.scenes] + [(f, True) for f in args.photos]:
        c, y = examples(folder, photos, args.crop_side, args.context)
        crops += c
        ys += y
        print(f"{folder}: {sum(y)} cocked and {len(y) - sum(y)} flat dice found", flush=True)
    if not 0 < sum(ys) < len(ys):
        ap.error("the scenes must hold both cocked and flat dice the finder finds")
    net = train(crops, ys, args.steps, args.seed, args.width)
    args.out.mkdir(parents=True, exist_ok=True)
    onnx_path = args.out / COCKED_MODEL
    torch.onnx.export(net, torch.zeros(1, 3, args.crop_side, args.crop_side), str(onnx_path), input_names=["crops"],
                      output_names=["cocked_logit"], dynamic_axes={"crops": {0: "n"}, "cocked_logit": {0: "n"}},
                      opset_version=13, dynamo=False)
    meta = {"crop_side": args.crop_side, "context": args.context, "width": args.width, "steps": args.steps, "seed": args.seed,
            "scenes": [str(s) for s in args.scenes], "photos": [str(p) for p in args.photos], "examples": {"cocked": sum(ys), "flat": len(ys) - sum(ys)},
            "trained_by": "tools/train_cocked.py (see its docstring)"}
    onnx_path.with_suffix(".json").write_text(json.dumps(meta, indent=1) + "\n")
    print(f"wrote {onnx_path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
