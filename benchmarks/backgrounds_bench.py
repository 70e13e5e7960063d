"""Real coins on other backgrounds: coins-mmr's coins pasted onto the dice and card photos.

Usage::

    .venv/bin/python benchmarks/backgrounds_bench.py [--coins validation|held-out] [--seeds 1,2]
        [--scale-outlier X|nan] [--no-chroma-search] [--no-agreed-fit]

Every coins-mmr photo shows its coins on one grey cloth; other real photos will not. Each coin
of the chosen coins-mmr photos (``validation``: the photos candidates are chosen on; ``held-out``:
never learned, measured after a choice) is cut out on its labelled circle and pasted, at its true
size, with a soft shadow, three to a photo, onto every third dice-rune55 photo (clear of the
labelled dice; 16 mm taken for the dice's median box) and every second card photo (anywhere, on
the cards too; 2 to 3.2 pixels a millimetre). Each picture is read as ``referee read IMAGE``
reads it (``vision.read_table``, no calibration) and scored on the pasted coins: found (a coin
read within 40% of a radius of the pasted centre), its denomination, its face (right only with
the right denomination), faces read surely (at the shared ``vision.types.CONFIDENT``) and
wrong, and coins reported where none was pasted (the photos hold none of their own). Every share is
of all the coins pasted, so that a coin missed counts against its denomination and face too
(``coins_bench.py``'s denominations and faces are shares of the coins found). The pictures are
made in memory only; the photos stay in ../shared/data.

The coin model learned circles found on some of these photos as "not a coin"
(``tools/train_coins.py``'s negatives: the dice photos outside the dice split's held-out part and
every other card photo by name): 82 of the 97 dice photos and 6 of the 75 card photos here. Their
backgrounds are no coins' backgrounds it ever saw, but its doubt of their false circles is not
that of a photo it never saw.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from coins_bench import VALIDATION  # noqa: E402
from vision._coin_geometry import COIN_DIAMETER_MM  # noqa: E402
from vision._coin_split import is_held_out  # noqa: E402
from vision.coins import CoinParams  # noqa: E402
from vision.read import ReadParams, read_table  # noqa: E402
from vision.types import COIN_KINDS, CONFIDENT, Detection  # noqa: E402

DATA = ROOT.parent / "shared" / "data"


@dataclass(frozen=True)
class Cutout:
    """One labelled coin cut out of its photo: a square around its circle."""

    kind: str
    face: str
    patch: np.ndarray
    radius_share: float
    """The coin's radius over half the square's side."""


@dataclass(frozen=True)
class Pasted:
    """Where one coin was pasted, in the picture's pixels."""

    kind: str
    face: str
    x: float
    y: float
    r: float


def cutouts(data: Path, part: str) -> list[Cutout]:
    """The flat US coins with a labelled face of coins-mmr's ``part`` photos ("validation" or
    "held-out"), each cut out on a square 1.15 times its labelled radius.

    :raises ValueError: for another ``part``.
    """
    if part not in ("validation", "held-out"):
        raise ValueError(f"part must be 'validation' or 'held-out', got {part!r}")
    out = []
    for entry in json.loads((data / "labels.json").read_text()):
        name = entry["image"]
        if not (name in VALIDATION if part == "validation" else is_held_out(name)):
            continue
        img = cv2.imread(str(data / name))
        if img is None:
            raise SystemExit(f"cannot read {data / name}")
        for o in entry["objects"]:
            if o["kind"] not in COIN_KINDS or o["value"] not in ("heads", "tails"):
                continue
            x, y, w, h = o["bbox"]
            cx, cy, r = x + w / 2, y + h / 2, (w + h) / 4
            half = int(r * 1.15)
            x0, y0 = int(cx - half), int(cy - half)
            if x0 < 0 or y0 < 0 or x0 + 2 * half > img.shape[1] or y0 + 2 * half > img.shape[0]:
                continue
            out.append(Cutout(o["kind"], o["value"], img[y0:y0 + 2 * half, x0:x0 + 2 * half].copy(), r / half))
    return out


def footprint(coin: Cutout, px_per_mm: float) -> tuple[float, int]:
    """The coin's radius at its true size for ``px_per_mm``, and the side of its cut-out square then."""
    r = COIN_DIAMETER_MM[coin.kind] / 2 * px_per_mm
    return r, int(round(2 * r / coin.radius_share))


def paste_at(picture: np.ndarray, coin: Cutout, x: float, y: float, px_per_mm: float) -> Pasted:
    """Paste ``coin`` into ``picture`` (in place) centred at (x, y), at its true size for
    ``px_per_mm``, its disc's edge softened and a soft shadow beneath, as a coin on a table casts.

    :raises ValueError: if the coin would not lie wholly in the picture.
    """
    r, side = footprint(coin, px_per_mm)
    x0, y0 = int(x - side / 2), int(y - side / 2)
    if side < 8 or x0 < 0 or y0 < 0 or x0 + side > picture.shape[1] or y0 + side > picture.shape[0]:
        raise ValueError(f"a {coin.kind} {side} px across does not fit at ({x:.0f}, {y:.0f})")
    patch = cv2.resize(coin.patch, (side, side), interpolation=cv2.INTER_AREA).astype(np.float32)
    # The coin's own disc (its label's circle is within about a tenth of its radius).
    mask = np.zeros((side, side), np.float32)
    cv2.circle(mask, (side // 2, side // 2), int(r * 0.98), 1.0, -1, cv2.LINE_AA)
    mask = cv2.GaussianBlur(mask, (0, 0), 1.0)[..., None]
    shadow = cv2.GaussianBlur(np.roll(mask[..., 0], (2, 2), (0, 1)), (0, 0), 2.0)[..., None]
    roi = picture[y0:y0 + side, x0:x0 + side].astype(np.float32) * (1 - 0.35 * shadow)
    picture[y0:y0 + side, x0:x0 + side] = np.clip(roi * (1 - mask) + patch * mask, 0, 255).astype(np.uint8)
    return Pasted(coin.kind, coin.face, x, y, r)


def paste(
    background: np.ndarray, coins: list[Cutout], px_per_mm: float, keep_clear: list[list[float]],
    rng: np.random.Generator, count: int = 3,
) -> tuple[np.ndarray, list[Pasted]]:
    """``background`` with ``count`` coins drawn from ``coins`` pasted at their true size
    (``px_per_mm``), apart from each other and from the ``keep_clear`` boxes (x, y, w, h)."""
    picture = background.copy()
    h, w = picture.shape[:2]
    placed: list[Pasted] = []
    for _ in range(count):
        coin = coins[int(rng.integers(len(coins)))]
        r, side = footprint(coin, px_per_mm)
        if side < 8 or side >= min(h, w) - 4:
            continue
        for _try in range(40):
            cx, cy = rng.uniform(side / 2 + 2, w - side / 2 - 2), rng.uniform(side / 2 + 2, h - side / 2 - 2)
            apart = all(np.hypot(cx - p.x, cy - p.y) > r + p.r + 3 for p in placed)
            clear = all(not (bx - r < cx < bx + bw + r and by - r < cy < by + bh + r) for bx, by, bw, bh in keep_clear)
            if apart and clear:
                placed.append(paste_at(picture, coin, cx, cy, px_per_mm))
                break
    return picture, placed


def backgrounds(data: Path, which: str) -> list[tuple[str, list[list[float]], float | None]]:
    """(photo path, boxes to keep clear, pixels a millimetre or None) for every third dice
    photo ("dice": its labelled dice kept clear, a die's median box taken for 16 mm) or every
    second card photo ("cards")."""
    if which == "dice":
        entries = json.loads((data / "dice-rune55" / "labels.json").read_text())[::3]
        return [(str(data / "dice-rune55" / e["image"]), [o["bbox"] for o in e["objects"]],
                 float(np.median([max(o["bbox"][2], o["bbox"][3]) for o in e["objects"]])) / 16.0)
                for e in entries if e["objects"]]
    entries = json.loads((data / "cards-cadyze" / "labels.json").read_text())[::2]
    return [(str(data / "cards-cadyze" / e["image"]), [], None) for e in entries]


def score(pasted: list[Pasted], found: list[Detection], tally: Counter) -> None:
    """Add one picture's coin reads of its pasted coins to ``tally``."""
    used: set[int] = set()
    for p in pasted:
        tally["coins"] += 1
        near = [(float(np.hypot(d.center[0] - p.x, d.center[1] - p.y)), j) for j, d in enumerate(found) if j not in used]
        near = [(dist, j) for dist, j in near if dist < 0.4 * p.r]
        if not near:
            continue
        d = found[min(near)[1]]
        used.add(min(near)[1])
        tally["found"] += 1
        tally["kind"] += d.kind == p.kind
        right = d.kind == p.kind and d.guess == p.face  # the face read, sure or not
        tally["face"] += right
        tally["sure wrong"] += d.value is not None and d.confidence >= CONFIDENT and not right
    tally["false"] += len(found) - len(used)


def run(which: str, coins: list[Cutout], seed: int, params: ReadParams | None, data: Path = DATA,
        limit: int | None = None) -> Counter:
    """The tally of one background set ("dice" or "cards") with one draw of pasted coins."""
    rng = np.random.default_rng(seed)
    tally: Counter = Counter()
    for path, clear, px_per_mm in backgrounds(data, which)[:limit]:
        photo = cv2.imread(path)
        if photo is None:
            raise SystemExit(f"cannot read {path}")
        scale = px_per_mm if px_per_mm is not None else float(rng.uniform(2.0, 3.2))
        picture, pasted = paste(photo, coins, scale, clear, rng)
        reads = [o for o in read_table(picture, params=params).objects if o.kind in COIN_KINDS]
        score(pasted, reads, tally)
    return tally


def line(name: str, t: Counter) -> str:
    """One report line."""
    n = max(1, t["coins"])
    return (f"{name:<34} coins {t['coins']:4d}  found {100 * t['found'] / n:5.1f}%  denomination "
            f"{100 * t['kind'] / n:5.1f}%  faces right {100 * t['face'] / n:5.1f}%  sure and wrong "
            f"{100 * t['sure wrong'] / n:4.1f}%  coins where none was pasted {t['false']}")


def main() -> None:
    """Run the benchmark and print its figures."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--coins", choices=("validation", "held-out"), default="validation",
                    help="which coins-mmr photos' coins to paste (default: validation)")
    ap.add_argument("--seeds", default="1,2", help="draws of the coins and their places, comma-separated")
    ap.add_argument("--scale-outlier", type=float, default=None,
                    help="override CoinParams.scale_outlier (nan: every circle taken for a coin)")
    ap.add_argument("--no-chroma-search", action="store_true",
                    help="search circles in grey only (CoinParams.chroma_search off)")
    ap.add_argument("--no-agreed-fit", action="store_true",
                    help="fit every circle on its outermost edges (CoinParams.agreed_fit off)")
    args = ap.parse_args()
    cv2.setNumThreads(1)
    coin_params = CoinParams()
    if args.scale_outlier is not None:
        outlier = None if np.isnan(args.scale_outlier) else args.scale_outlier
        coin_params = replace(coin_params, scale_outlier=outlier)
    if args.no_chroma_search:
        coin_params = replace(coin_params, chroma_search=False)
    if args.no_agreed_fit:
        coin_params = replace(coin_params, agreed_fit=False)
    params = None if coin_params == CoinParams() else ReadParams(coins=coin_params)
    coins = cutouts(DATA / "coins-mmr", args.coins)
    print(f"{len(coins)} coins of coins-mmr's {args.coins} photos to paste")
    for which in ("dice", "cards"):
        for seed in (int(s) for s in args.seeds.split(",")):
            print(line(f"{which} photos, draw {seed}", run(which, coins, seed, params)))


if __name__ == "__main__":
    main()
