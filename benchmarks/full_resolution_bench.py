"""Faces read at the sensor's resolution vs the small frame alone, on rendered scenes.

Each scene of a fixture split is rendered procedurally at ``--factor`` times the fixture
camera's 1280x960 (``tools.fixturegen.full_size``: the same field of view, more pixels; kept
in ``--cache``), and shrunk to the small stream's size (``--small-width``, 1280x960 by default) as a Pi
camera's ISP makes its ``lores`` stream.
The small frame is read as the referee reads it today (``read_table``, its scale from the
printed markers); then each object found has its face read again from its crop of the full
picture (``vision.full_resolution.read_faces_closer``), as the live loop does once the table
is still. For the labelled objects lying flat and in full view it prints, per 100 objects,
those ruled right (a ``value`` given and right, kind too), ruled wrong, asked (no ``value``:
unsure or flagged) and missed, with extra reads (no labelled object there) and the median
milliseconds of each read.

    nice -n 19 .venv/bin/python -m benchmarks.full_resolution_bench --scenes 12 --factor 3 [--small-width 640]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tools.fixturegen.full_size import render_full_size  # noqa: E402
from vision.full_resolution import read_faces_closer  # noqa: E402
from vision.read import read_table  # noqa: E402
from vision.types import Detection  # noqa: E402

SMALL = (1280, 960)
"""The small stream's default size: the fixtures' and today's Pi camera frames."""


def scene(index: int, split: str, seed: int, factor: float, cache: Path) -> tuple[np.ndarray, list[dict[str, Any]]]:
    """The full-size picture and its labelled objects, rendered once into ``cache``."""
    image_path = cache / f"{split}_{index:04d}_x{factor:g}.jpg"
    labels_path = image_path.with_suffix(".json")
    if not (image_path.is_file() and labels_path.is_file()):
        cache.mkdir(parents=True, exist_ok=True)
        data, labels = render_full_size(index, split, seed, factor, cache / "work")
        image_path.write_bytes(data)
        labels_path.write_text(json.dumps(labels))
    image = cv2.imread(str(image_path))
    if image is None:
        raise SystemExit(f"cannot read {image_path}")
    return image, json.loads(labels_path.read_text())["objects"]


def score(found: tuple[Detection, ...], labels: list[dict[str, Any]], factor: float, tally: Counter[str]) -> None:
    """Add one read's counts to ``tally``: each labelled object lying flat and in full view is
    matched to the read whose centre (small-frame pixels) lies inside its box."""
    used: set[int] = set()
    for label in labels:
        x, y, w, h = (v / factor for v in label["bbox"])
        inside = [j for j, d in enumerate(found) if j not in used
                  and x <= d.center[0] <= x + w and y <= d.center[1] <= y + h]
        flat = not label.get("flags") and float(label.get("visible", 1.0)) >= 0.9
        if inside:
            used.add(inside[0])
        if not flat:
            continue
        tally["objects"] += 1
        if not inside:
            tally["missed"] += 1
            continue
        d = found[inside[0]]
        if d.value is None:
            tally["asked"] += 1
        elif d.kind == label["kind"] and d.value == label["value"]:
            tally["right"] += 1
        else:
            tally["wrong"] += 1
    tally["extra"] += len(found) - len(used)


def line(name: str, tally: Counter[str], ms: list[float]) -> str:
    n = tally["objects"] or 1
    per = {k: 100.0 * tally[k] / n for k in ("right", "wrong", "asked", "missed")}
    return (f"{name:<28} objects {tally['objects']:4d}  ruled right {per['right']:5.1f}  wrong {per['wrong']:4.1f}  "
            f"asked {per['asked']:5.1f}  missed {per['missed']:4.1f}  extra {tally['extra']:3d}  "
            f"ms median {statistics.median(ms):6.0f}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scenes", type=int, default=12, help="how many scenes of the split, from the first")
    ap.add_argument("--split", default="dev", choices=("dev", "test"))
    ap.add_argument("--factor", type=float, default=3.0, help="full size over 1280x960 (Camera Module 3: 3.6)")
    ap.add_argument("--seed", type=int, default=2024, help="the fixtures' seed (python -m tools.fixturegen)")
    ap.add_argument("--small-width", type=int, default=SMALL[0], help="the small stream's width (4:3)")
    ap.add_argument("--cache", type=Path, default=Path("/tmp/table-referee-full-size"))
    args = ap.parse_args(argv)
    tallies: dict[str, Counter[str]] = {"small frame only (today)": Counter(), "faces from the full picture": Counter()}
    times: dict[str, list[float]] = {name: [] for name in tallies}
    small_name, full_name = list(tallies)
    for index in range(args.scenes):
        full, labels = scene(index, args.split, args.seed, args.factor, args.cache)
        size = (args.small_width, args.small_width * 3 // 4)
        small = cv2.resize(full, size, interpolation=cv2.INTER_AREA)
        started = time.perf_counter()
        observation = read_table(small)
        times[small_name].append(1000.0 * (time.perf_counter() - started))
        started = time.perf_counter()
        closer = read_faces_closer(observation, full)
        times[full_name].append(times[small_name][-1] + 1000.0 * (time.perf_counter() - started))
        factor = full.shape[1] / size[0]
        score(observation.objects, labels, factor, tallies[small_name])
        score(closer.objects, labels, factor, tallies[full_name])
    print(f"{args.split} scenes 0-{args.scenes - 1}, rendered procedurally at {args.factor:g}x 1280x960, "
          f"small frame {args.small_width}x{args.small_width * 3 // 4} (INTER_AREA), no calibration "
          f"(the markers' scale), one thread")
    for name, tally in tallies.items():
        print(line(name, tally, times[name]))
    return 0


if __name__ == "__main__":
    cv2.setNumThreads(1)
    raise SystemExit(main())
