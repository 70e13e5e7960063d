"""The whole read on the real photos at other sizes, in other light, from other cameras and slants.

Usage::

    .venv/bin/python benchmarks/photo_conditions_bench.py [--sizes 0.5,1,2,4] [--conditions warm,dark,blur]
        [--oblique 0.95,0.9,0.8] [--turns 0,15,30,45,90] [--die-px 25,45] [--close-ups 0.3,0.4,0.6,0.8]
        [--close-up-squeeze 0.75] [--every 1]

Other real photos than ours will come at other sizes (a phone's 4000 px, a webcam's 640),
under other light and from other cameras, so ``referee read`` must read them as it reads ours.
Each photo of dice-rune55 and coins-mmr is read as ``referee read IMAGE`` reads it (no
calibration): scaled by each factor of ``--sizes`` (area averaging to shrink, bicubic to
enlarge), altered by each name of ``--conditions`` (``warm``: tungsten light, ``cool``: shade,
``dark``: under half the light, ``flat``: low contrast, ``gamma``: dark mid-tones, ``jpeg``:
saved at JPEG quality 30, ``blur``: out of focus, Gaussian sigma 1.5 px, ``noise``: a small
sensor's grain, sigma 12 levels), foreshortened by each height factor of ``--oblique`` (a
camera tilted forward: 0.9 is about 26 degrees off vertical) and, for the dice, shrunk so that
its median labelled die is each of ``--die-px`` pixels across (the issue reads dice from about
25 px), and each coin of coins-mmr is cut out so that it fills each share of ``--close-ups`` of a
640 px square (a phone's close-up of a coin or two), and again with the square's width squeezed
by each factor of ``--close-up-squeeze`` (a 4:3 close-up resized to a square). The labels are scaled with the photo and scored as ``dice_bench`` and ``coins_bench``
match them: dice found, precision, read right, reads at the shared sure level and how many of
them are wrong; coins found, precision, denominations, faces right, sure and wrong (in a
close-up, of the coin it was cut around; coins reported on no labelled coin, and dice, all
false, are counted apart, since its neighbours show in part). Prints one
line a condition, with the median CPU milliseconds a photo. ``--every N`` reads every Nth
photo only (a quicker look).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import coins_bench  # noqa: E402
import dice_bench  # noqa: E402
from vision.read import read_table  # noqa: E402
from vision.types import CONFIDENT  # noqa: E402

DATA = ROOT.parent / "shared" / "data"
COIN_KINDS = ("penny", "nickel", "dime", "quarter", "other")
DIE_KINDS = ("d6", "d8")


def photo(folder: str, name: str) -> np.ndarray:
    """A photo of ``../shared/data/FOLDER``; a missing or unreadable one stops the run, named."""
    image = cv2.imread(str(DATA / folder / name))
    if image is None:
        raise SystemExit(f"cannot read {DATA / folder / name}")
    return image


def _as_jpeg(image: np.ndarray, quality: int) -> np.ndarray:
    """The image saved as a JPEG of ``quality`` and read back."""
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    assert ok
    return cv2.imdecode(data, cv2.IMREAD_COLOR)


CONDITIONS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "none": lambda f: f,
    "warm": lambda f: f * np.array([0.70, 0.95, 1.15], np.float32),  # BGR: tungsten
    "cool": lambda f: f * np.array([1.20, 1.00, 0.80], np.float32),
    "dark": lambda f: f * 0.45,
    "flat": lambda f: f * 0.6 + 60.0,
    "gamma": lambda f: 255.0 * (f / 255.0) ** 1.8,
    "jpeg": lambda f: _as_jpeg(np.clip(f, 0, 255).astype(np.uint8), 30).astype(np.float32),
    "blur": lambda f: cv2.GaussianBlur(f, (0, 0), 1.5),
    "noise": lambda f: f + np.random.default_rng(1).normal(0.0, 12.0, f.shape).astype(np.float32),
}
"""Each condition as a change of the photo's BGR values (float32, 0..255)."""


def altered(image: np.ndarray, condition: str) -> np.ndarray:
    """The photo as it would look in ``condition`` (one of :data:`CONDITIONS`)."""
    if condition == "none":
        return image
    return np.clip(CONDITIONS[condition](image.astype(np.float32)), 0, 255).astype(np.uint8)


def scaled(image: np.ndarray, factor: float, squash: float = 1.0) -> np.ndarray:
    """The photo ``factor`` times its size, its height ``squash`` times more (a camera tilted
    forward foreshortens the table so): area averaging to shrink, bicubic to enlarge."""
    if factor == 1.0 and squash == 1.0:
        return image
    interpolation = cv2.INTER_AREA if factor * squash < 1.0 else cv2.INTER_CUBIC
    return cv2.resize(image, None, fx=factor, fy=factor * squash, interpolation=interpolation)


def scaled_labels(objects: list[dict], factor: float, squash: float = 1.0) -> list[dict]:
    """The labels of a photo shown ``factor`` times its size, its height ``squash`` times more."""
    gains = (factor, factor * squash, factor, factor * squash)
    return [dict(o, bbox=[v * g for v, g in zip(o["bbox"], gains)]) for o in objects]


def turned(image: np.ndarray, degrees: float) -> tuple[np.ndarray, np.ndarray]:
    """The photo turned ``degrees`` anticlockwise about its centre (a camera turned over the
    table) and the 2 x 3 matrix taking the photo's points to the turned one's. Whatever the
    angle, 0 included, it lies in the middle of a square as wide as its diagonal, the rest filled
    with its median colour: every angle's photo the same size, so that the 0 degree line is the
    plain photo read on that canvas (a larger image shows its dice smaller to the finder)."""
    h, w = image.shape[:2]
    side = int(np.ceil(np.hypot(w, h)))
    m = cv2.getRotationMatrix2D((w / 2.0, h / 2.0), degrees, 1.0)
    m[0, 2] += side / 2.0 - w / 2.0
    m[1, 2] += side / 2.0 - h / 2.0
    fill = tuple(float(v) for v in np.median(image.reshape(-1, image.shape[2]), axis=0))
    out = cv2.warpAffine(image, m, (side, side), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=fill)
    return np.asarray(out, np.uint8), m


def turned_labels(objects: list[dict], m: np.ndarray) -> list[dict]:
    """The labels of a photo turned by the matrix ``m``: each box keeps its size, its centre
    moved as the photo's points are (a die or coin looks as large turned, and the benchmarks
    match a read to a label by their centres)."""
    moved = []
    for o in objects:
        x, y, w, h = o["bbox"]
        cx, cy = m @ np.array([x + w / 2.0, y + h / 2.0, 1.0])
        moved.append(dict(o, bbox=[float(cx - w / 2.0), float(cy - h / 2.0), w, h]))
    return moved


def dice_line(name: str, entries: list[dict], factor_of: Callable[[dict], float], condition: str, squash: float = 1.0,
              turn: float | None = None) -> str:
    """Read every dice photo at its factor (its height ``squash`` times more, turned ``turn``
    degrees) in ``condition``; one report line."""
    labels = found = matched = right = sure = sure_wrong = 0
    ms: list[float] = []
    for e in entries:
        factor = factor_of(e)
        image = altered(scaled(photo("dice-rune55", e["image"]), factor, squash), condition)
        truth = scaled_labels(e["objects"], factor, squash)
        if turn is not None:
            image, m = turned(image, turn)
            truth = turned_labels(truth, m)
        started = time.process_time()
        observation = read_table(image)
        ms.append((time.process_time() - started) * 1000.0)
        dice = [d for d in observation.objects if d.kind in DIE_KINDS]
        pairs = dict(dice_bench.match(truth, dice))
        labels += len(truth)
        found += len(dice)
        matched += len(pairs)
        right += sum(1 for i, o in enumerate(truth) if i in pairs and dice[pairs[i]].kind == o["kind"]
                     and dice[pairs[i]].guess == int(o["value"]))  # the face read, sure or not
        by_die = {j: i for i, j in pairs.items()}
        for j, d in enumerate(dice):
            if d.confidence >= CONFIDENT and d.value is not None:
                sure += 1
                sure_wrong += int(j not in by_die or d.value != int(truth[by_die[j]]["value"]))
    pct = lambda a, b: f"{100.0 * a / b:5.1f}%" if b else "  n/a"  # noqa: E731
    return (f"{name:<30} dice {labels:4d}  found {pct(matched, labels)}  precision {pct(matched, found)}  "
            f"read right {pct(right, labels)}  sure {sure} (wrong {sure_wrong})  ms {statistics.median(ms):.0f}")


def coins_line(name: str, entries: list[dict], factor: float, condition: str, squash: float = 1.0,
               turn: float | None = None) -> str:
    """Read every coin photo at ``factor`` (its height ``squash`` times more, turned ``turn``
    degrees) in ``condition``; one report line."""
    tally = coins_bench.Tally()
    ms: list[float] = []
    for e in entries:
        image = altered(scaled(photo("coins-mmr", e["image"]), factor, squash), condition)
        truth = scaled_labels(e["objects"], factor, squash)
        if turn is not None:
            image, m = turned(image, turn)
            truth = turned_labels(truth, m)
        started = time.process_time()
        observation = read_table(image)
        ms.append((time.process_time() - started) * 1000.0)
        coins_bench.score(tally, [d for d in observation.objects if d.kind in COIN_KINDS], truth)
    return f"{tally.line(name)}  ms {statistics.median(ms):.0f}"


def close_up(image: np.ndarray, box: list[float], share: float, side: int = 640) -> tuple[np.ndarray, float, float, float] | None:
    """A ``side`` px square cut around ``box`` so that the coin fills ``share`` of its width, and
    the cut's left, top and scale (photo to square); ``None`` where the square leaves the photo."""
    x, y, w, h = box
    half = (w + h) / 2.0 / share / 2.0
    x0, y0 = int(x + w / 2.0 - half), int(y + h / 2.0 - half)
    x1, y1 = int(x0 + 2 * half), int(y0 + 2 * half)
    if x0 < 0 or y0 < 0 or x1 > image.shape[1] or y1 > image.shape[0]:
        return None
    f = side / (x1 - x0)
    crop = np.asarray(cv2.resize(image[y0:y1, x0:x1], (side, side),
                                 interpolation=cv2.INTER_AREA if f < 1 else cv2.INTER_CUBIC), np.uint8)
    return crop, float(x0), float(y0), f


def close_ups_line(entries: list[dict], share: float, squeeze: float = 1.0) -> str:
    """Read each coin of ``entries`` shown close up at ``share`` (the square's width then
    ``squeeze`` times itself, as a 4:3 photo resized to a square); one report line."""
    tally = coins_bench.Tally()
    ms: list[float] = []
    false = dice = 0
    for e in entries:
        image = photo("coins-mmr", e["image"])
        for i, o in enumerate(e["objects"]):
            cut = close_up(image, o["bbox"], share)
            if cut is None:
                continue
            crop, x0, y0, f = cut
            if squeeze != 1.0:
                crop = np.asarray(cv2.resize(crop, None, fx=squeeze, fy=1.0, interpolation=cv2.INTER_AREA), np.uint8)
            started = time.process_time()
            observation = read_table(crop)
            ms.append((time.process_time() - started) * 1000.0)
            coins = [d for d in observation.objects if d.kind in COIN_KINDS]
            dice += sum(d.kind in DIE_KINDS for d in observation.objects)
            moved = [dict(lab, bbox=[(lab["bbox"][0] - x0) * f * squeeze, (lab["bbox"][1] - y0) * f,
                                     lab["bbox"][2] * f * squeeze, lab["bbox"][3] * f]) for lab in e["objects"]]
            pairs = coins_bench.match(coins, moved)
            false += len(coins) - sum(d is not None for _, d in pairs)
            read = pairs[i][1]
            coins_bench.score(tally, [] if read is None else [read], [moved[i]])
    pct = lambda a, b: f"{100.0 * a / b:5.1f}%" if b else "  n/a"  # noqa: E731
    name = f"coins filling {share:.0%} of the photo" + (f", width x{squeeze:g}" if squeeze != 1.0 else "")
    return (f"{name:<30} coins {tally.labels:4d}  found {pct(tally.found, tally.labels)}  "
            f"denomination {pct(tally.kinds_right, tally.kinds_total)}  faces right {pct(tally.faces_right, tally.faces_total)} "
            f"unsure {pct(tally.faces_unsure, tally.faces_total)} confident-wrong {pct(tally.faces_confident_wrong, tally.faces_total)}  "
            f"on no coin {false}, dice {dice}  ms {statistics.median(ms) if ms else 0:.0f}")


def median_die_px(entry: dict) -> float:
    """The median labelled die's side (square root of its box's area), in the photo's pixels."""
    return float(np.median([np.sqrt(o["bbox"][2] * o["bbox"][3]) for o in entry["objects"]]))


def main() -> None:
    """Read the photos in every condition asked for and print one line each."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="0.5,1,2,4", help="factors each photo is scaled by")
    ap.add_argument("--conditions", default="warm,cool,dark,flat,gamma,jpeg,blur,noise",
                    help="altered photos, at their own size (see the module docstring)")
    ap.add_argument("--oblique", default="0.95,0.9,0.8",
                    help="photos foreshortened as by a camera tilted forward: their height times each")
    ap.add_argument("--turns", default="0,15,30,45,90",
                    help="photos turned by each of these many degrees (a camera turned over the table), each on a "
                         "square as wide as its diagonal (0: the plain photo on that square)")
    ap.add_argument("--die-px", default="25,45", help="dice photos shrunk so their median die is this many pixels across")
    ap.add_argument("--close-ups", default="0.3,0.4,0.6,0.8",
                    help="each coin cut out so that it fills this share of a 640 px square")
    ap.add_argument("--close-up-squeeze", default="0.75",
                    help="the close-ups again, their width squeezed by each factor (a 4:3 photo resized to a square)")
    ap.add_argument("--every", type=int, default=1, help="read every Nth photo only")
    args = ap.parse_args()
    cv2.setNumThreads(1)
    dice = json.loads((DATA / "dice-rune55" / "labels.json").read_text())[:: args.every]
    coins = json.loads((DATA / "coins-mmr" / "labels.json").read_text())[:: args.every]
    print(f"dice-rune55: {len(dice)} photos; coins-mmr: {len(coins)} photos; read_table, no calibration, one thread")
    for factor in (float(s) for s in args.sizes.split(",") if s):
        print(dice_line(f"dice, size x{factor:g}", dice, lambda e, f=factor: f, "none"), flush=True)
        print(coins_line(f"coins, size x{factor:g}", coins, factor, "none"), flush=True)
    for condition in (s for s in args.conditions.split(",") if s and s != "none"):
        if condition not in CONDITIONS:
            raise SystemExit(f"unknown condition {condition!r}: one of {', '.join(CONDITIONS)}")
        print(dice_line(f"dice, {condition}", dice, lambda e: 1.0, condition), flush=True)
        print(coins_line(f"coins, {condition}", coins, 1.0, condition), flush=True)
    for squash in (float(s) for s in args.oblique.split(",") if s):
        tilt = np.degrees(np.arccos(min(1.0, squash)))
        print(dice_line(f"dice, seen {tilt:.0f} deg off vertical", dice, lambda e: 1.0, "none", squash), flush=True)
        print(coins_line(f"coins, seen {tilt:.0f} deg off vertical", coins, 1.0, "none", squash), flush=True)
    for degrees in (float(s) for s in args.turns.split(",") if s):
        print(dice_line(f"dice, turned {degrees:g} deg", dice, lambda e: 1.0, "none", turn=degrees), flush=True)
        print(coins_line(f"coins, turned {degrees:g} deg", coins, 1.0, "none", turn=degrees), flush=True)
    for px in (float(s) for s in args.die_px.split(",") if s):
        # Only shrunk: a photo whose dice are already smaller is left out of that line.
        small = [e for e in dice if median_die_px(e) >= px]
        print(dice_line(f"dice about {px:g} px across ({len(small)} photos)", small, lambda e, p=px: p / median_die_px(e), "none"),
              flush=True)
    for share in (float(s) for s in args.close_ups.split(",") if s):
        print(close_ups_line(coins, share), flush=True)
        for squeeze in (float(s) for s in args.close_up_squeeze.split(",") if s):
            print(close_ups_line(coins, share, squeeze), flush=True)


if __name__ == "__main__":
    main()
