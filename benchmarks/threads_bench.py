"""Do threads pay for a settled table's read? OpenCV on two threads against one, and a small
pool cutting the dice reader's crops, on the recorded games' frames.

Usage::

    .venv/bin/python -m benchmarks.threads_bench [--passes N] [GAME ...]

**OpenCV's threads.** Every frame of the games (default: all of ``fixtures/games``) is read
by the live loop's read (``web.service.VisionReader`` with the game's kinds, as
``benchmarks.speed_bench``'s ``project``) once with ``cv2.setNumThreads(1)`` and once with
``cv2.setNumThreads(2)``, interleaved (the order turning from frame to frame, so that a busy
machine slows both alike), each setting with a reader of its own that sees every frame in
order. Printed: the median wall and CPU milliseconds a frame of each, and whether every read
is byte-identical (the ``repr`` of each observation, every float in it included).

**A pool for the crops.** The dice that the read found on each frame are cut into the
reader's crops (``vision._dice_net.crop_patch``, as ``vision.dice`` cuts them) in a loop and
by a pool of 2 threads; printed: the wall milliseconds the read itself spends cutting crops (every
candidate, every look: the most a pool could share), the median wall milliseconds a frame of the
loop and the pool on the found dice, and whether the
crops are byte-identical. The crops are the only per-object work in the read that is not
already one batched network call (the finder, the dice reader and the coin appearance
model take all their inputs at once).

Wall time is what a player waits for, and on a shared machine it swings with the neighbours:
the load average is printed before and after.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from benchmarks.speed_bench import GAMES, load_frame
from hardware.replay import ReplaySource
from referee.core import find_game
from vision._dice_net import crop_patch
from vision.dice import DiceParams, _nets
from vision.types import COIN_KINDS, DIE_KINDS
from web.bootstrap import recorded_options
from web.recording import replay_layout
from web.service import VisionReader, kinds_in_play

SETTINGS = (1, 2)
"""OpenCV thread counts compared."""


def game_reader(name: str) -> VisionReader:
    """A fresh live-loop reader for recorded game ``name``, with its camera kinds."""
    source = ReplaySource(GAMES / name)
    recorded = source.game
    players = recorded.get("players") or recorded.get("config", {}).get("players")
    state = find_game(recorded["game"])(players, recorded_options(recorded)).new_state()
    kinds = frozenset(kinds_in_play(state)) & {*COIN_KINDS, *DIE_KINDS}
    return VisionReader(replay_layout(source), kinds=kinds)


def frames_of(name: str) -> list[np.ndarray]:
    """Every frame of recorded game ``name``, in order."""
    import json

    entries = json.loads((GAMES / name / "game.json").read_text())["frames"]
    return [load_frame(GAMES / name / entry["image"]) for entry in entries]


def opencv_threads(names: list[str], passes: int) -> tuple[dict[int, list[float]], dict[int, list[float]], int, int,
                                                         list[Any], list[float]]:
    """Wall and CPU ms a frame per thread setting, frames read, reads that differ, the dice found,
    and the wall ms each frame's read on one thread spent cutting the dice reader's crops."""
    import vision.dice

    cut_ms = [0.0]
    cut = crop_patch

    def timed_cut(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return cut(*args, **kwargs)
        finally:
            cut_ms[0] += 1000 * (time.perf_counter() - started)

    setattr(vision.dice, "crop_patch", timed_cut)  # vision.dice calls it by this name
    wall: dict[int, list[float]] = {n: [] for n in SETTINGS}
    cpu: dict[int, list[float]] = {n: [] for n in SETTINGS}
    frames = differ = 0
    dice: list[Any] = []
    cut_in_read: list[float] = []
    for _ in range(passes):
        for name in names:
            readers = {n: game_reader(name) for n in SETTINGS}
            images = frames_of(name)
            for n in SETTINGS:  # warm: the networks loaded, the calibration found
                cv2.setNumThreads(n)
                readers[n](images[0])
            for index, image in enumerate(images):
                dumps = {}
                for n in SETTINGS if index % 2 == 0 else SETTINGS[::-1]:
                    cv2.setNumThreads(n)
                    cut_ms[0] = 0.0
                    started_wall, started_cpu = time.perf_counter(), time.process_time()
                    observation = readers[n](image)
                    if n == 1:
                        cut_in_read.append(cut_ms[0])
                    wall[n].append(1000 * (time.perf_counter() - started_wall))
                    cpu[n].append(1000 * (time.process_time() - started_cpu))
                    dumps[n] = repr(observation)
                    if n == 1:
                        dice.append((image, [o for o in observation.objects if o.kind in DIE_KINDS]))
                differ += len(set(dumps.values())) > 1
                frames += 1
    cv2.setNumThreads(1)
    setattr(vision.dice, "crop_patch", cut)
    return wall, cpu, frames, differ, dice, cut_in_read


def crop_pool(dice: list[Any], passes: int) -> tuple[list[float], list[float], int, int]:
    """Wall ms a frame to cut every found die's crop in a loop and by a pool of 2; the frames with
    dice, and how many frames' crops differ between the two."""
    models = _nets(DiceParams().model_dir)

    def cut(job: tuple[np.ndarray, Any]) -> np.ndarray:
        image, die = job
        x, y, w, h = die.bbox
        return crop_patch(image, x + w / 2, y + h / 2, models.crop_scale * max(w, h), size=models.crop_size)

    looped: list[float] = []
    pooled: list[float] = []
    differ = 0
    with_dice = [(image, found) for image, found in dice if found]
    with ThreadPoolExecutor(max_workers=2) as pool:
        for _ in range(passes):
            for index, (image, found) in enumerate(with_dice):
                jobs = [(image, die) for die in found]
                results = {}
                for how in (("loop", "pool") if index % 2 == 0 else ("pool", "loop")):
                    started = time.perf_counter()
                    crops = [cut(job) for job in jobs] if how == "loop" else list(pool.map(cut, jobs))
                    (looped if how == "loop" else pooled).append(1000 * (time.perf_counter() - started))
                    results[how] = b"".join(c.tobytes() for c in crops)
                differ += results["loop"] != results["pool"]
    return looped, pooled, len(with_dice), differ


def main(argv: list[str]) -> int:
    known = sorted(p.name for p in GAMES.iterdir() if (p / "game.json").is_file())
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("games", nargs="*", metavar="GAME", help="recorded games (default: all)")
    ap.add_argument("--passes", type=int, default=1, help="times every frame is read with each setting")
    args = ap.parse_args(argv)
    names = args.games or known
    unknown = [name for name in names if name not in known]
    if unknown or args.passes < 1:
        print(f"error: unknown game {', '.join(unknown)} (there are: {', '.join(known)})" if unknown
              else f"error: --passes must be at least 1, got {args.passes}", file=sys.stderr)
        return 2
    print(f"{', '.join(names)}; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    wall, cpu, frames, differ, dice, cut_in_read = opencv_threads(names, args.passes)
    for n in SETTINGS:
        print(f"  OpenCV on {n} thread(s): wall median {statistics.median(wall[n]):6.1f} ms, "
              f"p90 {float(np.percentile(wall[n], 90)):6.1f} ms; CPU median {statistics.median(cpu[n]):6.1f} ms a frame")
    print(f"  {frames} frames, reads byte-identical: {frames - differ} of {frames}")
    cutting = [ms for ms in cut_in_read if ms > 0]
    if cutting:
        print(f"  the read's own crop cutting (every candidate die, every look), on {len(cutting)} frames: median "
              f"{statistics.median(cutting):.2f} ms, worst {max(cutting):.2f} ms a frame (what a pool could share)")
    looped, pooled, with_dice, crops_differ = crop_pool(dice, max(args.passes, 3))
    if with_dice:
        print(f"  dice crops on {with_dice} frames with dice: loop median {statistics.median(looped):.2f} ms, "
              f"pool of 2 median {statistics.median(pooled):.2f} ms a frame; crops byte-identical on "
              f"{len(looped) - crops_differ} of {len(looped)}")
    print(f"load average after: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
