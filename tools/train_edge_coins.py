"""Train the coin-on-edge check (``vision.edge_coins``) and export it to ONNX for ``cv2.dnn``.

Every bar of strong gradient about a coin long that ``vision.edge_coins.edge_bars`` finds in
a labelled picture is an example: a coin on its edge where a coin labelled ``on_edge`` stands,
not one elsewhere (printed letters and lines, dice edges, shadows, coins' own designs); bars on
coins that lean or move are left out (neither answer is wrong there).

Usage (PyTorch is needed here only, never at run time; CPU is enough, a few minutes)::

    python -m tools.fixturegen --scenes --split train --feature on_edge_coin --limit 250 \\
        --blender 0 --seed 801 --out /tmp/oe1 --work /tmp/tw1
    python tools/train_edge_coins.py --scenes /tmp/oe1/scenes/train \\
        --photos ../shared/data/coins-mmr --out vision/models

The shipped model learned 500 such scenes (seeds 801 and 802), 300 of cocked dice (``--feature cocked_die
--seed 501``) and 120 of touching dice (``--feature touching_dice --seed 601``), all procedural
(``--blender 0``), and ``--photos`` coins-mmr, dice-rune55 and cards-cadyze
(``vision/models/coin_edge.json`` lists them and the commands), cut with ``--save-examples`` in
three parts and trained from them with ``--examples``, with the default steps and seed.

``--photos`` takes real labelled photos (coins-mmr, dice-rune55, cards-cadyze) whose trained
part (not ``vision._coin_split``'s or ``vision._dice_split``'s held-out or validation photos,
every other card photo) gives bars that are no coin on edge. A dice photo without a round coin
is searched at its dice's size (the dice's edges, pips and trays are what the check must not
take for a coin); a photo of neither coins nor dice (the card photos) at three coin sizes
(``UNMARKED_DIAMETERS``), its pips and numerals the bars a coin thrown on it would make.
The fixtures' dev and held-back scenes are refused: the first is where the threshold
(``CoinParams.on_edge_at``) is chosen, the second the measurement.

Writes ``coin_edge.onnx`` and ``coin_edge.json`` into ``--out``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from vision._coin_geometry import Circle, work_image  # noqa: E402
from vision._coin_split import VALIDATION, is_held_out  # noqa: E402
from vision._dice_split import is_held_out as dice_held_out, is_validation as dice_validation  # noqa: E402
from vision.coins import CoinParams, find_coins  # noqa: E402
from vision.edge_coins import CONTEXT, CROP_SIDE, EDGE_MODEL, edge_bars, edge_patches  # noqa: E402
from vision.types import COIN_KINDS  # noqa: E402

from tools._check_training import main_for  # noqa: E402

NEAR = 0.35
"""A bar stands for a labelled coin when its centre is within this share of the label box's longer side."""


UNMARKED_DIAMETERS = (0.035, 0.06, 0.1)
"""Coin diameters, as shares of the photo's long side, at which a labelled photo of neither
coins nor dice (the card photos) is searched: a coin thrown on such a print makes its pips,
numerals and borders into bars of its own length, which the check must learn are no coin on
edge (a check that never learned them confirmed card pips as coins on edge). From a
table's camera (a coin about 0.035 of the frame) to a close phone photo."""


def circles_of(frame: np.ndarray, params: CoinParams) -> list[Circle]:
    """The round coins ``vision.coins.find_coins`` finds in a frame, as circles."""
    coins, _ = find_coins(frame, params)
    return [Circle(d.center[0], d.center[1], float(d.extra["radius_px"])) for d in coins if "radius_px" in d.extra]


def bars_at(
    frame: np.ndarray, circles: list[Circle], diameters: list[float], params: CoinParams
) -> list[list[tuple[float, float, float, float]]]:
    """The bars ``vision.coins.coins_on_edge`` would judge in a frame for coins of each of
    ``diameters`` frame pixels, away from the round coins found there (``circles``)."""
    small, scale = work_image(frame, params.work_size)
    lightness = cv2.cvtColor(small, cv2.COLOR_BGR2LAB)[:, :, 0]
    return [edge_bars(lightness, circles, scale, d) for d in diameters]


def bars_of(
    frame: np.ndarray, params: CoinParams = CoinParams(), fallback: float = 0.0
) -> tuple[list[tuple[float, float, float, float]], float]:
    """The bars ``vision.coins.coins_on_edge`` would judge in a frame, and the coins' diameter.
    Without a round coin there are none, unless a ``fallback`` diameter is given (a photo of
    dice: its dice's size, so that what they show is learned as no coin on edge)."""
    circles = circles_of(frame, params)
    if circles:
        diameter = 2.0 * float(np.median([c.r for c in circles]))
    elif fallback > 0:
        diameter = fallback
    else:
        return [], 0.0
    return bars_at(frame, circles, [diameter], params)[0], diameter


def trained_part(image: str, trained_cards: set[str]) -> bool:
    """Whether a real photo may be learned from: not one of its data set's held-out or
    validation photos (for the card photos, every other one: ``benchmarks/coins_bench.py``
    counts false coins on the rest)."""
    if image.startswith("rune55_"):
        return not (dice_held_out(image) or dice_validation(image))
    if image.startswith("cards_"):
        return image in trained_cards
    return not (is_held_out(image) or image in VALIDATION)


def examples(folder: Path, photos: bool, crop_side: int, context: float) -> tuple[list[np.ndarray], list[int]]:
    """Crops of every bar in the folder's labelled pictures, 1 for a coin on its edge, 0 for anything else.

    :raises FileNotFoundError: if the folder has no labels.json or a listed image is missing.
    """
    labels_path = folder / "labels.json"
    if not labels_path.is_file():
        raise FileNotFoundError(f"no labels.json in {folder}")
    params = CoinParams(on_edge_at=1.01)
    crops: list[np.ndarray] = []
    ys: list[int] = []
    trained_cards = set(sorted(p.name for p in folder.glob("cards_*.jpg"))[0::2])
    for entry in json.loads(labels_path.read_text()):
        if photos and not trained_part(entry["image"], trained_cards):
            continue
        path = folder / entry["image"]
        frame = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if frame is None:
            raise FileNotFoundError(f"cannot read {path}")
        kinds = {o["kind"] for o in entry["objects"]}
        if photos and not kinds & (set(COIN_KINDS) | {"d6", "d8"}):
            # A photo of neither (cards): searched at coin sizes, every bar no coin on edge.
            diameters = [share * max(frame.shape[:2]) for share in UNMARKED_DIAMETERS]
            for diameter, bars in zip(diameters, bars_at(frame, circles_of(frame, params), diameters, params)):
                crops += edge_patches(frame, bars, diameter, crop_side, context)
                ys += [0] * len(bars)
            continue
        # Dice photos have no round coin: their dice's size stands for the coins'.
        sizes = [max(o["bbox"][2], o["bbox"][3]) for o in entry["objects"] if o["kind"] in ("d6", "d8")]
        bars, diameter = bars_of(frame, params, float(np.median(sizes)) if photos and sizes else 0.0)
        if not bars:
            continue
        tilted = [o for o in entry["objects"] if o["kind"] in COIN_KINDS and o.get("flags")]
        kept, labels = [], []
        for bar in bars:
            near = [o for o in tilted
                    if np.hypot(bar[0] - o["bbox"][0] - o["bbox"][2] / 2, bar[1] - o["bbox"][1] - o["bbox"][3] / 2)
                    < NEAR * max(o["bbox"][2], o["bbox"][3])]
            if near and "on_edge" not in near[0]["flags"]:
                continue  # on a leaning or moving coin: not flat, but not on its edge either
            kept.append(bar)
            labels.append(int(bool(near)))
        crops += edge_patches(frame, kept, diameter, crop_side, context)
        ys += labels
    return crops, ys


def main(argv: list[str] | None = None) -> int:
    return main_for(__doc__ or "", EDGE_MODEL, examples, ("on_edge", "other"),
                    "tools/train_edge_coins.py (see its docstring)", CROP_SIDE, CONTEXT,
                    "real labelled photos whose trained part gives bars that are no coin on edge (repeatable)", argv)


if __name__ == "__main__":
    raise SystemExit(main())
