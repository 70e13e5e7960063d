"""Time the whole read, ``vision.read_table``, on one core: issue 5's speed target.

Usage::

    .venv/bin/python benchmarks/read_bench.py [--scenes fixtures/scenes/test] [--passes 3] [--coin-model-dir DIR]

Reads every scene of the rendered held-back test part (1280x960, up to 20 objects: coins,
dice, a hand now and then) with OpenCV limited to one thread and the default parameters, three
ways: coins and dice together, coins alone (a Seven Pennies or Pennywise table) and dice alone
(Sevens, FLIP). Prints the median and 90th percentile milliseconds per frame, as CPU time of
this process (wall time on a shared machine swings with its neighbours) and as wall time.
The target is a median of 30 ms or less, so that a Pi 5 reads several frames a second.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from vision.read import ReadParams, read_table  # noqa: E402

TARGET_MS = 30.0
"""Issue 5's speed target: median milliseconds per 1280x960 frame on one core."""


def load_scenes(folder: Path) -> list[tuple[str, np.ndarray, int]]:
    """(name, frame, number of labelled objects) for each scene of ``folder``'s labels.json.

    :raises FileNotFoundError: if the folder has no labels.json or a listed image is missing.
    :raises ValueError: if an image cannot be decoded.
    """
    labels = folder / "labels.json"
    if not labels.is_file():
        raise FileNotFoundError(f"no labels.json in {folder}")
    scenes = []
    for entry in json.loads(labels.read_text()):
        path = folder / entry["image"]
        if not path.is_file():
            raise FileNotFoundError(f"{path}: listed in {labels} but missing")
        frame = cv2.imread(str(path))
        if frame is None:
            raise ValueError(f"{path}: not a readable image")
        scenes.append((entry["image"], frame, len(entry.get("objects", []))))
    return scenes


def time_reads(
    scenes: list[tuple[str, np.ndarray, int]], params: ReadParams, passes: int
) -> tuple[list[float], list[float]]:
    """(CPU ms, wall ms) of each read of each scene, ``passes`` times over."""
    read_table(scenes[0][1], params=params)  # load the models before timing
    cpu, wall = [], []
    for _ in range(passes):
        for _name, frame, _n in scenes:
            c0, t0 = time.process_time(), time.perf_counter()
            read_table(frame, params=params)
            cpu.append(1000.0 * (time.process_time() - c0))
            wall.append(1000.0 * (time.perf_counter() - t0))
    return cpu, wall


def main(argv: list[str] | None = None) -> int:
    """Time the three kinds of read and print their figures."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scenes", type=Path, default=ROOT / "fixtures" / "scenes" / "test")
    ap.add_argument("--passes", type=int, default=3, help="times each scene is read")
    ap.add_argument("--coin-model-dir", type=Path, help="another coin model to time (default: the shipped one)")
    args = ap.parse_args(argv)
    if args.passes < 1:
        ap.error("--passes must be at least 1")
    cv2.setNumThreads(1)
    try:
        scenes = load_scenes(args.scenes)
    except (FileNotFoundError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    if not scenes:
        print(f"error: {args.scenes}/labels.json lists no scenes", file=sys.stderr)
        return 2
    base = ReadParams()
    if args.coin_model_dir is not None:
        base = replace(base, coins=replace(base.coins, model_dir=args.coin_model_dir))
    print(
        f"{len(scenes)} scenes from {args.scenes}, {scenes[0][1].shape[1]}x{scenes[0][1].shape[0]}, "
        f"up to {max(n for _, _, n in scenes)} objects; {args.passes} passes, one thread"
    )
    for label, params in (
        ("coins and dice", base),
        ("coins alone", replace(base, read_dice=False)),
        ("dice alone", replace(base, read_coins=False)),
    ):
        cpu, wall = time_reads(scenes, params, args.passes)
        verdict = "within" if np.median(cpu) <= TARGET_MS else "over"
        print(
            f"{label:15s} median ms per frame: CPU {np.median(cpu):.1f} (p90 {np.percentile(cpu, 90):.1f}), "
            f"wall {np.median(wall):.1f} (p90 {np.percentile(wall, 90):.1f}); {len(cpu)} reads; "
            f"{verdict} the {TARGET_MS:.0f} ms target"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
