"""What ``tools/train_cocked.py`` and ``tools/train_edge_coins.py`` share: the small network of a
yes-or-no check over square crops (``vision._patch_check``), its augmentation, its training
and its export to ONNX with the ``.json`` that names its crop."""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from vision._patch_check import check_input


class CheckNet(nn.Module):
    """Convolution blocks (three by default), then ``outputs`` logits (one for a yes-or-no
    check). The first block has one convolution (at full size it costs the most), the others
    two; each block doubles the width and halves the size."""

    def __init__(self, width: int = 16, outputs: int = 1, blocks: int = 3, flatten_side: int = 0,
                 first_convs: int = 1) -> None:
        """``flatten_side``: 0 averages the last block's map over the crop (where a thing lies
        in the crop does not matter); else the side of that map, and the head sees each place
        of it apart (an eight-sided die shows numerals on its sides too: the one that matters
        is the one in the middle). ``first_convs``: convolutions in the first block (fine
        strokes, such as a numeral's a few pixels tall, need two before the first halving)."""
        super().__init__()
        chans = [3] + [width * 2**k for k in range(blocks)]
        layers: list[nn.Module] = []
        for k, (a, b) in enumerate(zip(chans[:-1], chans[1:])):
            layers += [nn.Conv2d(a, b, 3, padding=1, bias=False), nn.BatchNorm2d(b), nn.ReLU()]
            if k > 0 or first_convs > 1:
                layers += [nn.Conv2d(b, b, 3, padding=1, bias=False), nn.BatchNorm2d(b), nn.ReLU()]
            layers += [nn.MaxPool2d(2)]
        self.features = nn.Sequential(*layers)
        self.flatten = flatten_side > 0
        self.head = nn.Linear(chans[-1] * max(1, flatten_side) ** 2, outputs)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        f = self.features(x)
        return self.head(f.flatten(1) if self.flatten else f.mean(dim=(2, 3)))


def augment(crop: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A quarter-turned, perhaps mirrored copy, its light and colour changed a little."""
    out = np.rot90(crop, int(rng.integers(4)))
    if rng.random() < 0.5:
        out = out[:, ::-1]
    gain = rng.uniform(0.7, 1.3, size=3) * rng.uniform(0.8, 1.2)
    out = np.clip(out.astype(np.float32) * gain + rng.normal(0, 3, out.shape), 0, 255)
    return np.ascontiguousarray(out.astype(np.uint8))


def train(crops: list[np.ndarray], ys: list[int], steps: int, seed: int, width: int) -> CheckNet:
    """A network trained on the crops (1: yes, 0: no), both drawn equally often."""
    rng = np.random.default_rng(seed)
    torch.manual_seed(seed)
    net = CheckNet(width)
    opt = torch.optim.AdamW(net.parameters(), lr=3e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=steps)
    y = np.array(ys)
    pos, neg = np.flatnonzero(y == 1), np.flatnonzero(y == 0)
    batch = 64

    def batch_loss() -> torch.Tensor:
        pick = np.concatenate([rng.choice(pos, batch // 2), rng.choice(neg, batch // 2)])
        x = torch.from_numpy(check_input([augment(crops[i], rng) for i in pick]))
        target = torch.from_numpy(y[pick].astype(np.float32))[:, None]
        return F.binary_cross_entropy_with_logits(net(x), target)

    fit(net, opt, sched, steps, batch_loss)
    return net


def fit(net: nn.Module, opt: torch.optim.Optimizer, sched: torch.optim.lr_scheduler.LRScheduler, steps: int,
        batch_loss: Callable[[], torch.Tensor]) -> None:
    """``steps`` optimiser steps, each on the loss of a fresh batch, printing the loss now and then;
    leaves the network in evaluation mode."""
    net.train()
    t0 = time.time()
    for step in range(steps):
        loss = batch_loss()
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        if step % 200 == 0 or step == steps - 1:
            print(f"step {step:5d} loss {loss.item():.3f} ({time.time() - t0:.0f} s)", flush=True)
    net.eval()


def export(net: CheckNet, onnx_path: Path, crop_side: int, context: float, meta: dict[str, Any],
           output_name: str = "logit") -> None:
    """Write the network to ``onnx_path`` and, beside it, a ``.json`` naming its crop and ``meta``."""
    onnx_path.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(net, torch.zeros(1, 3, crop_side, crop_side), str(onnx_path), input_names=["crops"],
                      output_names=[output_name], dynamic_axes={"crops": {0: "n"}, output_name: {0: "n"}},
                      opset_version=13, dynamo=False)
    onnx_path.with_suffix(".json").write_text(json.dumps({"crop_side": crop_side, "context": context, **meta}, indent=1) + "\n")
    print(f"wrote {onnx_path}")


Examples = Callable[[Path, bool, int, float], tuple[list[np.ndarray], list[int]]]
"""(folder, real photos?, crop side, context) -> the folder's crops and their answers (1 yes, 0 no)."""

ROOT = Path(__file__).resolve().parent.parent
MEASURED = ("fixtures/scenes/dev", "fixtures/scenes/test")
"""Scene folders never learned from: the dev scenes choose the threshold, the held-back ones measure."""


def training_arguments(doc: str, crop_side: int, context: float, steps: int, width: int,
                       argv: list[str] | None, more: Callable[[argparse.ArgumentParser], None] = lambda ap: None
                       ) -> argparse.Namespace:
    """The arguments every crop network's training command takes (``more`` adds its own), parsed;
    scene folders that are measured on are refused."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--scenes", type=Path, action="append", required=True, help="rendered training scenes (repeatable)")
    ap.add_argument("--out", type=Path, default=ROOT / "vision" / "models")
    ap.add_argument("--steps", type=int, default=steps)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--width", type=int, default=width)
    ap.add_argument("--crop-side", type=int, default=crop_side, help="the network's input side, pixels")
    ap.add_argument("--context", type=float, default=context, help="crop side over the object's size")
    more(ap)
    args = ap.parse_args(argv)
    for folder in args.scenes:
        if any(folder.resolve() == (ROOT / m).resolve() for m in MEASURED):
            ap.error(f"{folder} is measured on, never learned from")
    return args


def main_for(doc: str, model_name: str, examples: Examples, yes_no: tuple[str, str], trained_by: str,
             crop_side: int, context: float, photos_help: str, argv: list[str] | None) -> int:
    """A check's training command: parse the arguments, gather examples, train, export."""
    def photos(ap: argparse.ArgumentParser) -> None:
        ap.add_argument("--photos", type=Path, action="append", default=[], help=photos_help)

    args = training_arguments(doc, crop_side, context, 3000, 16, argv, photos)
    cv2.setNumThreads(1)
    crops: list[np.ndarray] = []
    ys: list[int] = []
    for folder, photos in [(f, False) for f in args.scenes] + [(f, True) for f in args.photos]:
        c, y = examples(folder, photos, args.crop_side, args.context)
        crops += c
        ys += y
        print(f"{folder}: {sum(y)} {yes_no[0]} and {len(y) - sum(y)} {yes_no[1]}", flush=True)
    if not 0 < sum(ys) < len(ys):
        raise SystemExit(f"the pictures must hold both {yes_no[0]} and {yes_no[1]}")
    net = train(crops, ys, args.steps, args.seed, args.width)
    export(net, args.out / model_name, args.crop_side, args.context, {
        "width": args.width, "steps": args.steps, "seed": args.seed,
        "scenes": [str(s) for s in args.scenes], "photos": [str(p) for p in args.photos],
        "examples": {yes_no[0]: sum(ys), yes_no[1]: len(ys) - sum(ys)}, "trained_by": trained_by})
    return 0
