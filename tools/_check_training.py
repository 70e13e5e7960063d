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


HARD_NO = 2
"""An example's answer meaning "no, though it looks most like a yes" (for the cocked-die check, a
flat die beside another, as every cocked die is): learned as a no, drawn more often than its share
(``hard_share``)."""


def train(crops: list[np.ndarray], ys: list[int], steps: int, seed: int, width: int,
          hard_share: float = 0.0) -> CheckNet:
    """A network trained on the crops (1: yes; 0 or :data:`HARD_NO`: no), yes and no drawn
    equally often; of the noes drawn, ``hard_share`` are hard ones where there are any."""
    rng = np.random.default_rng(seed)
    torch.manual_seed(seed)
    device = training_device()
    net = CheckNet(width).to(device)
    opt = torch.optim.AdamW(net.parameters(), lr=3e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=steps)
    y = np.array(ys)
    pos, neg, hard = np.flatnonzero(y == 1), np.flatnonzero(y != 1), np.flatnonzero(y == HARD_NO)
    batch = 64
    n_hard = int(round(hard_share * batch / 2)) if len(hard) else 0

    def batch_loss() -> torch.Tensor:
        pick = np.concatenate([rng.choice(pos, batch // 2), rng.choice(neg, batch // 2 - n_hard),
                               rng.choice(hard, n_hard)])
        x = torch.from_numpy(check_input([augment(crops[i], rng) for i in pick])).to(device)
        target = torch.from_numpy((y[pick] == 1).astype(np.float32))[:, None].to(device)
        return F.binary_cross_entropy_with_logits(net(x), target)

    fit(net, opt, sched, steps, batch_loss)
    return net.cpu()


def training_device() -> torch.device:
    """A GPU where PyTorch sees one (the same training, faster), else the CPU."""
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


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
                       argv: list[str] | None, more: Callable[[argparse.ArgumentParser], None] = lambda ap: None,
                       scenes_required: bool = True) -> argparse.Namespace:
    """The arguments every crop network's training command takes (``more`` adds its own), parsed;
    scene folders that are measured on are refused. ``scenes_required`` false: ``--scenes`` may
    be left out (the command has other sources of examples)."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--scenes", type=Path, action="append", required=scenes_required, default=[],
                    help="rendered training scenes (repeatable)")
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
    """A check's training command: parse the arguments, gather examples, train, export.

    Cutting the examples reads every picture with the finder, the slow part on a CPU:
    ``--save-examples FILE`` writes them (with their answers) to an ``.npz`` file and stops,
    and ``--examples FILE`` (repeatable) trains on such files besides any pictures named, so
    that several trainings (other seeds, on another machine) share one cutting. A file holds
    crops of one side and context, which must be the training's."""
    def more(ap: argparse.ArgumentParser) -> None:
        ap.add_argument("--photos", type=Path, action="append", default=[], help=photos_help)
        ap.add_argument("--examples", type=Path, action="append", default=[],
                        help="examples cut before (--save-examples), trained on too (repeatable)")
        ap.add_argument("--save-examples", type=Path, help="write the examples cut to this .npz file and stop")
        ap.add_argument("--hard-share", type=float, default=0.0,
                        help="share of the noes drawn from the hard ones (answer 2), where there are any")

    args = training_arguments(doc, crop_side, context, 3000, 16, argv, more, scenes_required=False)
    if not (args.scenes or args.photos or args.examples):
        raise SystemExit("name some --scenes, --photos or --examples to learn from")
    cv2.setNumThreads(1)
    crops: list[np.ndarray] = []
    ys: list[int] = []
    sources = [str(s) for s in (*args.scenes, *args.photos)]
    for path in args.examples:
        c, y, cut_from = load_examples(path, args.crop_side, args.context)
        crops += c
        ys += y
        sources += cut_from
        print(f"{path}: {count(y, yes_no)}", flush=True)
    for folder, photos in [(f, False) for f in args.scenes] + [(f, True) for f in args.photos]:
        c, y = examples(folder, photos, args.crop_side, args.context)
        crops += c
        ys += y
        print(f"{folder}: {count(y, yes_no)}", flush=True)
    if args.save_examples is not None:
        save_examples(args.save_examples, crops, ys, args.crop_side, args.context, sources)
        return 0
    yes = sum(y == 1 for y in ys)
    if not 0 < yes < len(ys):
        raise SystemExit(f"the pictures must hold both {yes_no[0]} and {yes_no[1]}")
    net = train(crops, ys, args.steps, args.seed, args.width, args.hard_share)
    export(net, args.out / model_name, args.crop_side, args.context, {
        "width": args.width, "steps": args.steps, "seed": args.seed, "hard_share": args.hard_share,
        "scenes": [str(s) for s in args.scenes], "photos": [str(p) for p in args.photos],
        "example_files": [str(e) for e in args.examples], "cut_from": sources,
        "examples": {yes_no[0]: yes, yes_no[1]: len(ys) - yes, f"{yes_no[1]}, hard": sum(y == HARD_NO for y in ys)},
        "trained_by": trained_by})
    return 0


def count(ys: list[int], yes_no: tuple[str, str]) -> str:
    """How many yes and no examples there are (and hard noes among them), in words."""
    yes, hard = sum(y == 1 for y in ys), sum(y == HARD_NO for y in ys)
    return f"{yes} {yes_no[0]} and {len(ys) - yes} {yes_no[1]}" + (f" ({hard} of them hard)" if hard else "")


def save_examples(path: Path, crops: list[np.ndarray], ys: list[int], crop_side: int, context: float,
                  sources: list[str]) -> None:
    """Write examples (square crops and their answers) to a compressed ``.npz`` file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    stack = np.stack(crops) if crops else np.zeros((0, crop_side, crop_side, 3), np.uint8)
    np.savez_compressed(path, crops=stack, answers=np.asarray(ys, np.uint8),
                        crop_side=crop_side, context=context, sources=np.asarray(sources))
    print(f"wrote {len(ys)} examples to {path}")


def load_examples(path: Path, crop_side: int, context: float) -> tuple[list[np.ndarray], list[int], list[str]]:
    """The crops, answers and sources of a :func:`save_examples` file.

    :raises SystemExit: naming the file, when its crops are of another side or context.
    """
    with np.load(path) as f:
        if int(f["crop_side"]) != crop_side or abs(float(f["context"]) - context) > 1e-9:
            raise SystemExit(f"{path} holds crops of side {int(f['crop_side'])} and context "
                             f"{float(f['context'])}, not {crop_side} and {context}")
        return list(f["crops"]), [int(v) for v in f["answers"]], [str(s) for s in f["sources"]]
