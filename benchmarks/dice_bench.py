"""Measure ``vision.dice.find_dice`` on the real photos of ../shared/data/dice-rune55.

Usage::

    .venv/bin/python benchmarks/dice_bench.py [--data ../shared/data/dice-rune55] [--failures OUT_DIR]

Prints, for all photos, per group (colour trays, grey close-ups, grey oblique) and per
split (``trained``: the part tools/train_dice.py learned from; ``held-out``: never seen):
recall, precision, value accuracy, share of dice read right, confident wrong reads, a
confusion matrix, and the median milliseconds per 1280x960 frame on one core.
With ``--failures`` it writes one overlay picture per photo with a failure
(blue: label, green: confident read, orange: unsure read, red cross: missed).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import defaultdict
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vision._dice_split import group_of, is_held_out  # noqa: E402
from vision.dice import CONFIDENT, DiceParams, draw_dice, find_dice  # noqa: E402
from vision.types import Detection  # noqa: E402


def match(labels: list[dict], found: list[Detection]) -> list[tuple[int, int]]:
    """Pairs (label index, found index): each read's centre inside the label box and vice versa, nearest first."""
    pairs = []
    for i, lab in enumerate(labels):
        x, y, w, h = lab["bbox"]
        lc = (x + w / 2, y + h / 2)
        for j, d in enumerate(found):
            dx, dy, dw, dh = d.bbox
            inside = x <= d.center[0] <= x + w and y <= d.center[1] <= y + h
            holds = dx <= lc[0] <= dx + dw and dy <= lc[1] <= dy + dh
            if inside and holds:
                pairs.append(((d.center[0] - lc[0]) ** 2 + (d.center[1] - lc[1]) ** 2, i, j))
    pairs.sort()
    used_l: set[int] = set()
    used_f: set[int] = set()
    out = []
    for _, i, j in pairs:
        if i not in used_l and j not in used_f:
            used_l.add(i)
            used_f.add(j)
            out.append((i, j))
    return out


class Tally:
    """Counts for one slice of the photos."""

    def __init__(self) -> None:
        self.labels = 0
        self.found = 0
        self.matched = 0
        self.valued = 0
        self.right = 0
        self.confident = 0
        self.confident_wrong = 0
        self.confusion = np.zeros((7, 8), np.int64)  # label 1..6 x read None,1..6,missed

    def line(self, name: str) -> str:
        """One row of the table."""
        def pct(a: int, b: int) -> str:
            return f"{100.0 * a / b:6.1f}%" if b else "     - "
        return (
            f"{name:<26} {self.labels:5d} {pct(self.matched, self.labels)} {pct(self.matched, self.found)}"
            f" {pct(self.right, self.valued)} {pct(self.right, self.labels)}"
            f" {pct(self.confident_wrong, self.labels)} {pct(self.confident_wrong, self.confident)}"
        )


HEADER = (
    f"{'slice':<26} {'dice':>5} {'recall':>7} {'precis':>7} {'valacc':>7} {'readOK':>7} {'cwr/dice':>7} {'cwr/conf':>7}"
)


def fit_temperature(data: Path, entries: list[dict], params: "DiceParams") -> None:
    """Print the reader temperature that minimises the face log-loss on the trained part."""
    rows = []
    for e in entries:
        if is_held_out(e["image"]):
            continue  # never calibrate on what is measured
        img = cv2.imread(str(data / e["image"]), cv2.IMREAD_COLOR)
        labels = [o for o in e["objects"] if o["kind"] == "d6"]
        found = find_dice(img, params)
        for i, j in match(labels, found):
            rows.append((np.array(found[j].extra["face_logits"], np.float64), int(labels[i]["value"]) - 1))
    best = (1e9, 1.0)
    for t in np.arange(0.5, 6.01, 0.1):
        nll = 0.0
        for lg, y in rows:
            z = lg / t
            z = z - z.max()
            nll -= z[y] - np.log(np.exp(z).sum())
        best = min(best, (nll / len(rows), float(t)))
    print(f"temperature {best[1]:.1f} (mean log-loss {best[0]:.3f} over {len(rows)} trained-part reads)")


def main() -> None:
    """Run the benchmark and print the figures."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=Path("../shared/data/dice-rune55"))
    ap.add_argument("--failures", type=Path, help="folder for overlay pictures of failures")
    ap.add_argument("--timing-frames", type=int, default=30)
    ap.add_argument("--fit-temperature", action="store_true",
                    help="fit DiceParams.temperature on the trained part's matched reads, print it, stop")
    ap.add_argument("--threshold", type=float, help="override DiceParams.det_threshold")
    ap.add_argument("--long-sides", help="override DiceParams.det_long_sides, e.g. 512,192")
    args = ap.parse_args()
    cv2.setNumThreads(1)
    params = DiceParams()
    if args.threshold is not None:
        params = replace(params, det_threshold=args.threshold)
    if args.long_sides:
        params = replace(params, det_long_sides=tuple(int(v) for v in args.long_sides.split(",")))
    entries = json.loads((args.data / "labels.json").read_text())
    if args.fit_temperature:
        fit_temperature(args.data, entries, params)
        return
    tallies: dict[str, Tally] = defaultdict(Tally)
    wrong_notes: list[str] = []
    if args.failures:
        args.failures.mkdir(parents=True, exist_ok=True)
    for e in entries:
        img = cv2.imread(str(args.data / e["image"]), cv2.IMREAD_COLOR)
        if img is None:
            raise FileNotFoundError(args.data / e["image"])
        labels = [o for o in e["objects"] if o["kind"] == "d6"]
        found = find_dice(img, params)
        pairs = match(labels, found)
        split = "held-out" if is_held_out(e["image"]) else "trained"
        keys = ["all", f"all/{split}", group_of(e["image"]), f"{group_of(e['image'])}/{split}"]
        matched_f = {j for _, j in pairs}
        matched_l = {i: j for i, j in pairs}
        failed = False
        for k in keys:
            t = tallies[k]
            t.labels += len(labels)
            t.found += len(found)
            t.matched += len(pairs)
        for i, lab in enumerate(labels):
            v = int(lab["value"])
            j = matched_l.get(i)
            read = None if j is None else found[j].value
            col = 7 if j is None else (0 if read is None else int(read))
            for k in keys:
                t = tallies[k]
                t.confusion[v, col] += 1
                if read is not None:
                    t.valued += 1
                    t.right += int(read == v)
            if read != v:
                failed = True
                if j is not None and read is not None:
                    wrong_notes.append(f"{e['image']} label {v} read {read} conf {found[j].confidence:.2f}")
        for j, d in enumerate(found):
            if d.confidence >= CONFIDENT:
                wrong = j not in matched_f or d.value != int(labels[[i for i, jj in pairs if jj == j][0]]["value"])
                for k in keys:
                    tallies[k].confident += 1
                    tallies[k].confident_wrong += int(wrong)
            if j not in matched_f:
                failed = True
        if failed and args.failures:
            over = draw_dice(img, found)
            for i, lab in enumerate(labels):
                x, y, w, h = (int(round(v)) for v in lab["bbox"])
                cv2.rectangle(over, (x, y), (x + w, y + h), (255, 0, 0), 1)
                cv2.putText(over, str(lab["value"]), (x + w - 10, y + h + 12), cv2.FONT_HERSHEY_SIMPLEX,
                            0.45, (255, 0, 0), 1, cv2.LINE_AA)
                if i not in matched_l:
                    cv2.drawMarker(over, (x + w // 2, y + h // 2), (0, 0, 255), cv2.MARKER_TILTED_CROSS, 14, 2)
            cv2.imwrite(str(args.failures / e["image"].replace(".jpg", ".png")), over)

    print(HEADER)
    order = ["all", "all/trained", "all/held-out"]
    for g in ("colour_tray", "grey_closeup", "grey_oblique"):
        order += [g, f"{g}/trained", f"{g}/held-out"]
    for k in order:
        print(tallies[k].line(k))
    for k in ("all", "all/held-out"):
        print(f"\nconfusion ({k}): rows label 1..6; columns read unsure, 1..6, missed")
        for v in range(1, 7):
            print(f"  {v}: " + " ".join(f"{n:5d}" for n in tallies[k].confusion[v]))
    print("\nconfident: reads with confidence >= CONFIDENT =", CONFIDENT)
    print("cwr/dice: confident wrong reads (wrong face, or no die) per labelled die; cwr/conf: per confident read")
    print(f"\nwrong faces ({len(wrong_notes)}):")
    for n in wrong_notes[:40]:
        print("  " + n)

    # Speed: photos scaled to 1280x960, colour trays (the most dice), one core.
    frames = [e for e in entries if group_of(e["image"]) == "colour_tray"][: args.timing_frames]
    times = []
    counts = []
    for e in frames:
        img = cv2.resize(cv2.imread(str(args.data / e["image"])), (1280, 960), interpolation=cv2.INTER_LINEAR)
        find_dice(img, params)  # warm
        t0 = time.perf_counter()
        n = len(find_dice(img, params))
        times.append((time.perf_counter() - t0) * 1000.0)
        counts.append(n)
    print(
        f"\nspeed: median {statistics.median(times):.1f} ms per 1280x960 frame on one core "
        f"({len(times)} frames, {min(counts)}..{max(counts)} dice each)"
    )


if __name__ == "__main__":
    main()
