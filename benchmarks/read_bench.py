"""Time the whole read, ``vision.read_table``, on one core: issue 5's speed target.

Usage::

    .venv/bin/python benchmarks/read_bench.py [--scenes fixtures/scenes/test] [--passes 3] [--coin-model-dir DIR]
    .venv/bin/python benchmarks/read_bench.py --scenes ../shared/data/coins-mmr --fit 1280x960
    .venv/bin/python benchmarks/read_bench.py --steps

Reads every scene of the rendered held-back test part (1280x960, up to 20 objects: coins,
dice, a hand now and then) with OpenCV limited to one thread, four ways: with no calibration
and no parameters, as ``referee read`` reads a frame (the printed table's corner markers give
the scale where seen), coins and dice together; with the default parameters, coins alone (a
Seven Pennies or Pennywise table) and dice alone (Sevens, FLIP); then coins and
dice at the table's scale (as the live referee reads its calibrated table,
``vision.read.params_for_scale``; rendered scenes only). ``--scenes`` takes any labelled
folder; ``--fit 1280x960`` first scales each photo to fit a 1280x960 frame, unstretched, its
edges repeated to fill the rest. Prints the median and 90th percentile milliseconds per frame,
as CPU time of this process (wall time on a shared machine swings with its neighbours) and as
wall time, and how many of the flat, whole coins and dice the reads found (a fast read that
misses coins is no answer). The target is a median of 30 ms or less, so that a Pi 5 reads
several frames a second. ``--steps`` instead times each step of the read as ``referee read``
reads (each step's function timed where the read calls it) and prints their medians and means
a frame, a step's own steps indented under it: where the time goes.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import time
from dataclasses import replace
from pathlib import Path
from collections.abc import Callable
from typing import Any

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from vision._coin_split import rendered_scale  # noqa: E402
from vision.marker_scale import marker_scale  # noqa: E402
from vision.read import ReadParams, params_for_scale, read_table  # noqa: E402
from vision.types import COIN_KINDS, DIE_KINDS, TableObservation  # noqa: E402

TARGET_MS = 30.0
"""Issue 5's speed target: median milliseconds per 1280x960 frame on one core."""


Scene = tuple[str, np.ndarray, dict[str, Any]]
"""(image name, frame, its labels.json entry)."""


def load_scenes(folder: Path) -> list[Scene]:
    """(name, frame, labels) for each scene of ``folder``'s labels.json.

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
        scenes.append((entry["image"], frame, entry))
    return scenes


def fit_frame(frame: np.ndarray, width: int, height: int) -> tuple[np.ndarray, float, tuple[int, int]]:
    """``frame`` scaled by one factor to fit ``width`` x ``height`` and centred on it, the rest
    filled by repeating its edges: a photo of another shape becomes a frame of the camera's
    size without stretching its coins into ellipses. Returns the frame, the scale and the
    (x, y) offset of the photo in it."""
    h, w = frame.shape[:2]
    scale = min(width / w, height / h)
    nw, nh = min(width, round(w * scale)), min(height, round(h * scale))
    resized = cv2.resize(frame, (nw, nh), interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR)
    dx, dy = (width - nw) // 2, (height - nh) // 2
    out = cv2.copyMakeBorder(resized, dy, height - nh - dy, dx, width - nw - dx, cv2.BORDER_REPLICATE)
    return out, scale, (dx, dy)


def fitted(scenes: list[Scene], width: int, height: int) -> list[Scene]:
    """The scenes fitted into ``width`` x ``height`` frames (:func:`fit_frame`), their labels' boxes moved with them."""
    out = []
    for name, frame, labels in scenes:
        fit, scale, (dx, dy) = fit_frame(frame, width, height)
        objects = [
            {**o, "bbox": [o["bbox"][0] * scale + dx, o["bbox"][1] * scale + dy, o["bbox"][2] * scale, o["bbox"][3] * scale]}
            for o in labels.get("objects", [])
        ]
        out.append((name, fit, {**labels, "objects": objects}))
    return out


def found(observation: TableObservation, labels: dict[str, Any], kinds: tuple[str, ...]) -> tuple[int, int]:
    """(found, labelled): the flat, whole objects of ``kinds`` in ``labels`` (nothing flagged,
    at least 90% visible) with a read of one of ``kinds`` whose centre is near theirs."""
    reads = [o.center for o in observation.objects if o.kind in kinds]
    wanted = [
        o for o in labels.get("objects", [])
        if o["kind"] in kinds and not o.get("flags") and o.get("visible", 1.0) > 0.9
    ]
    hits = 0
    for o in wanted:
        x, y, w, h = o["bbox"]
        hits += any(np.hypot(cx - (x + w / 2), cy - (y + h / 2)) < 0.4 * max(w, h) for cx, cy in reads)
    return hits, len(wanted)


ParamsOf = Callable[[np.ndarray, dict[str, Any]], ReadParams | None]
"""The read's parameters for a scene (its frame and labels); ``None``: ``read_table``'s own choice."""


def time_reads(
    scenes: list[Scene], params_of: ParamsOf, passes: int
) -> tuple[list[float], list[float], dict[str, tuple[int, int]]]:
    """(CPU ms, wall ms) of each read of each scene, ``passes`` times over, and (found,
    labelled) of the coins and of the dice, for the kinds the read looks for."""
    read_table(scenes[0][1], params=params_of(scenes[0][1], scenes[0][2]))  # load the models before timing
    cpu, wall = [], []
    tally: dict[str, tuple[int, int]] = {}
    for n in range(passes):
        for _name, frame, labels in scenes:
            params = params_of(frame, labels)
            c0, t0 = time.process_time(), time.perf_counter()
            observation = read_table(frame, params=params)
            cpu.append(1000.0 * (time.process_time() - c0))
            wall.append(1000.0 * (time.perf_counter() - t0))
            if n > 0:
                continue
            chosen = params or ReadParams()
            for what, kinds, looked in (("coins", COIN_KINDS, chosen.read_coins), ("dice", DIE_KINDS, chosen.read_dice)):
                if looked:
                    hits, total = found(observation, labels, kinds)
                    before = tally.get(what, (0, 0))
                    tally[what] = (before[0] + hits, before[1] + total)
    return cpu, wall, tally


STEPS: tuple[tuple[int, str, str, str], ...] = (
    (0, "vision.read", "marker_scale", "markers (marker_scale)"),
    (0, "vision.read", "printed_white", "the printed white"),
    (0, "vision.read", "find_coins", "coins (find_coins)"),
    (1, "vision.coins.reader vision.coins.circles", "frame_views", "reduced frame"),
    (1, "vision.coins.reader", "find_coin_circles", "circle search"),
    (2, "vision.coins.circles", "erase_print", "print painted over"),
    (2, "vision.coins.circles", "hough_circles", "the transform"),
    (2, "vision.coins.circles", "_checked_circles", "circles fitted to their edges"),
    (1, "vision.coins.reader", "_coins_seen_by_colour", "coins seen only in colour"),
    (1, "vision.coins.reader", "_coins_seen_in_chroma", "coins seen in chroma (no known scale)"),
    (1, "vision.coins.reader vision.coins.circles", "appearance", "appearance network"),
    (1, "vision.coins.reader", "tilted_coins", "tilted coins"),
    (1, "vision.coins.reader", "coins_on_edge", "coins on edge"),
    (0, "vision.dice", "find_dice", "dice (find_dice)"),
    (1, "vision.dice.find", "finder_blob", "finder's input"),
    (1, "vision.dice.find", "die_patches", "die-sized patches"),
    (1, "vision.dice.find vision.dice.closer", "_read_boxes", "reader crops"),
    (1, "vision.dice.find", "_look_closer_at_doubtful", "closer look at doubtful reads"),
    (1, "vision.dice.find", "_d8_reads", "d8 faces"),
    (1, "vision.dice.find", "_cocked_check", "cocked-die check"),
)
"""(depth, modules, function, label) of the steps ``--steps`` times: each function is timed under
the name the read calls it by, in each module (space-separated) that calls it (its own, or the
one that imported it)."""


def time_steps(
    scenes: list[Scene], passes: int, params_of: ParamsOf | None = None
) -> list[tuple[int, str, list[float]]]:
    """(depth, label, ms a frame) of each of :data:`STEPS` and of the whole read, over ``passes``
    reads of each scene as ``referee read`` reads it (CPU time; a step called twice in a frame
    counts both). ``params_of`` gives each scene's parameters (chosen before the clock starts;
    ``None``: ``read_table``'s own choice)."""
    spent: dict[str, float] = {}
    originals = []
    for _depth, module_names, name, label in STEPS:
        for module_name in module_names.split():
            module = importlib.import_module(module_name)
            original = getattr(module, name)
            originals.append((module, name, original))

            def timed(*args: Any, _f: Callable[..., Any] = original, _label: str = label, **kwargs: Any) -> Any:
                c0 = time.process_time()
                try:
                    return _f(*args, **kwargs)
                finally:
                    spent[_label] = spent.get(_label, 0.0) + 1000.0 * (time.process_time() - c0)

            setattr(module, name, timed)
    per_step: dict[str, list[float]] = {label: [] for *_, label in STEPS}
    whole: list[float] = []
    try:
        chosen = [None if params_of is None else params_of(frame, labels) for _name, frame, labels in scenes]
        read_table(scenes[0][1], params=chosen[0])  # load the models before timing
        for _ in range(passes):
            for (_name, frame, _labels), params in zip(scenes, chosen):
                spent.clear()
                c0 = time.process_time()
                read_table(frame, params=params)
                whole.append(1000.0 * (time.process_time() - c0))
                for label in per_step:
                    per_step[label].append(spent.get(label, 0.0))
    finally:
        for module, name, original in originals:
            setattr(module, name, original)
    return [(0, "the whole read", whole)] + [(depth, label, per_step[label]) for depth, _, _, label in STEPS]


def main(argv: list[str] | None = None) -> int:
    """Time the four kinds of read and print their figures."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scenes", type=Path, default=ROOT / "fixtures" / "scenes" / "test")
    ap.add_argument("--passes", type=int, default=3, help="times each scene is read")
    ap.add_argument("--coin-model-dir", type=Path, help="another coin model to time (default: the shipped one)")
    ap.add_argument("--fit", metavar="WxH", help="fit each photo into a frame of this size first (e.g. 1280x960), unstretched")
    ap.add_argument(
        "--steps", action="store_true",
        help="time each step of the read as referee read reads (see STEPS; with --coin-model-dir, with that model)",
    )
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
    if args.fit:
        try:
            width, height = (int(v) for v in args.fit.lower().split("x"))
        except ValueError:
            ap.error(f"--fit must be WIDTHxHEIGHT, such as 1280x960, got {args.fit!r}")
        if width < 16 or height < 16:
            ap.error(f"--fit must be at least 16x16, got {args.fit!r}")
        scenes = fitted(scenes, width, height)
    base = ReadParams()
    if args.coin_model_dir is not None:
        base = replace(base, coins=replace(base.coins, model_dir=args.coin_model_dir))
    print(
        f"{len(scenes)} scenes from {args.scenes}, {scenes[0][1].shape[1]}x{scenes[0][1].shape[0]}, "
        f"up to {max(len(labels.get('objects', [])) for _, _, labels in scenes)} objects; "
        f"{args.passes} passes, one thread"
    )

    def as_read_table_chooses(frame: np.ndarray, _labels: dict[str, Any]) -> ReadParams | None:
        """``None`` (read_table's own choice) for the shipped coin model; for another, the
        parameters read_table would choose (the markers' scale when seen), with that model."""
        if args.coin_model_dir is None:
            return None
        markers = marker_scale(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY))
        params = params_for_scale(None if markers is None else markers.mm_per_px, frame.shape[1], frame.shape[0])
        return replace(params, coins=replace(params.coins, model_dir=args.coin_model_dir))

    if args.steps:
        print("each step's CPU ms a frame, median and mean (a step's own steps indented under it):")
        for depth, label, ms in time_steps(scenes, args.passes, as_read_table_chooses):
            print(f"{'  ' * depth}{label}: median {np.median(ms):.2f}, mean {np.mean(ms):.2f}")
        return 0

    def at_scale(frame: np.ndarray, labels: dict[str, Any]) -> ReadParams:
        """As the live referee reads its calibrated table: coins searched at their size."""
        params = params_for_scale(rendered_scale(labels), frame.shape[1], frame.shape[0])
        return replace(params, coins=replace(params.coins, model_dir=base.coins.model_dir))

    def fixed(params: ReadParams | None) -> ParamsOf:
        return lambda _frame, _labels: params

    reads = [
        # As ``referee read IMAGE`` reads: read_table chooses (the markers' scale when seen).
        ("coins and dice", as_read_table_chooses),
        ("coins alone", fixed(replace(base, read_dice=False))),
        ("dice alone", fixed(replace(base, read_coins=False))),
    ]
    if all("homography" in labels for _, _, labels in scenes):
        reads.append(("coins and dice at the table's scale", at_scale))
    for label, params_of in reads:
        cpu, wall, tally = time_reads(scenes, params_of, args.passes)
        verdict = "within" if np.median(cpu) <= TARGET_MS else "over"
        seen = ", ".join(f"{what} found {hits} of {total}" for what, (hits, total) in tally.items())
        print(
            f"{label}: median ms per frame: CPU {np.median(cpu):.1f} (p90 {np.percentile(cpu, 90):.1f}), "
            f"wall {np.median(wall):.1f} (p90 {np.percentile(wall, 90):.1f}); {len(cpu)} reads; "
            f"{seen}; {verdict} the {TARGET_MS:.0f} ms target"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
