"""Game-night benchmark: one table's photos read in order as the throws of one evening.

Usage::

    .venv/bin/python benchmarks/game_night_bench.py [--reader adaptive|today|cold]
        [--sets coins-mmr dice-byler-dec08 dice-rune55-trays] [--scale given none] [--limit N]

Each set is the photos of one table taken in order as the throws of one evening's play:
``coins-mmr`` in name order, ``dice-byler-dec08`` in time order (the time is in the file
name), the colour trays of ``dice-rune55`` in name order. Each throw is read with what the
reader has learned of the table so far; then every found object's label is given as the
players' answer (a coin's kind and face, a die's face) before the next throw, as the live
loop teaches the reader (``web.learn.TableLearner``).

Per 100 labelled objects, for throws 1-5 and throws 6 on, at the referee's gate
(``vision.types.CONFIDENT``): ruled right (found, sure, kind and face right), ruled wrong
(sure, and the kind or face wrong) and asked (the rest: unsure, no face, flagged, or missed:
the referee asks about a missing object too); also sure reads of no labelled object (false
objects), per 100 labelled objects. Coins labelled ``unsure`` (even a person could not tell)
and ``other`` coins (dollars) are not scored and not taught.

``--scale given`` reads each throw at the table's scale, as a calibration gives it: for coins
the median over the labelled coins of true diameter over box diameter; for dice a 16 mm die
(``DIE_MM``) over the median labelled box's longer side. ``--scale none`` reads with no scale,
as ``referee read`` reads a photo.

Readers: ``cold`` learns nothing; ``today`` is the shipped enrolment (``web.learn.TableLearner``:
the coin model's embedding as nearest-neighbour exemplars, dice kinds and sizes);
``adaptive`` (the default) is today's with its confidence made on the table's own answers
(``vision.adaptive``: a read is made sure where the table's look-alikes agree with it and
reads like it have been right on this table), as the live loop reads.

Labels believed wrong (looked at, not edited): coins-mmr ``mmr_52.jpg``, the quarter read
tails at 0.99 shows a reverse design, labelled heads; dice-rune55 trays ``..._191333849_...``,
``..._192009089_...`` (two dice) and ``..._192342359_...``: a die labelled 1 showing 3 to 5
pips, read surely as what it shows. They count as ruled wrong above.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import coins_bench  # noqa: E402
import dice_bench  # noqa: E402
from vision._coin_geometry import COIN_DIAMETER_MM  # noqa: E402
from vision._dice_split import group_of  # noqa: E402
from vision.dice import DiceParams  # noqa: E402
from vision.adaptive import AdaptParams, TableExamples, adapt, examples_of, features_of  # noqa: E402
from vision.read import params_for_scale, read_table  # noqa: E402
from vision.types import CONFIDENT, Detection, TableObservation  # noqa: E402
from web.learn import TableLearner  # noqa: E402

DIE_MM = 16.0
"""The side of the dice assumed when the dice sets' scale is given (a common table die)."""

DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data"

SETS = ("coins-mmr", "dice-byler-dec08", "dice-rune55-trays")

EARLY = 5
"""Throws 1 to ``EARLY`` are the early part of the evening; the rest are "throws 6 on"."""


@dataclass
class Throw:
    """One photo of the evening: its image, labelled objects and scale."""

    name: str
    image: np.ndarray
    objects: list[dict[str, Any]]
    mm_per_px: float


@dataclass
class Counts:
    """Ruled right, ruled wrong, asked and false sure objects over some throws."""

    objects: int = 0
    right: int = 0
    wrong: int = 0
    asked: int = 0
    missed: int = 0
    false_sure: int = 0
    wrong_notes: list[str] = field(default_factory=list)

    def line(self, name: str) -> str:
        """One report row, per 100 labelled objects."""
        def per(n: int) -> str:
            return f"{100.0 * n / self.objects:6.1f}" if self.objects else "     -"
        return (f"{name:<40} {self.objects:5d} {per(self.right)} {per(self.wrong)} {per(self.asked)}"
                f" {per(self.missed)} {per(self.false_sure)}")


HEADER = f"{'set, scale, throws':<40} {'objs':>5} {'right':>6} {'wrong':>6} {'asked':>6} {'(miss)':>6} {'false':>6}"


class Scale:
    """A calibration that knows only the table's scale (what ``read_table`` needs of one)."""

    def __init__(self, mm_per_px: float) -> None:
        self.mm_per_px = mm_per_px

    def image_to_table(self, points: Any) -> Any:
        """Frame pixels to millimetres, at the one scale."""
        return np.asarray(points, np.float64) * self.mm_per_px

    def zone_of(self, point_mm: tuple[float, float]) -> str | None:
        """The one zone of the photo's table."""
        return "theatre"


def load_set(name: str, limit: int | None) -> tuple[str, list[Throw]]:
    """The set's photos in the evening's order, with their labels and scale, and the set's kind
    (``coins`` or ``dice``)."""
    folder = DATA / ("dice-rune55" if name == "dice-rune55-trays" else name)
    entries = json.loads((folder / "labels.json").read_text())
    if name == "dice-rune55-trays":
        entries = [e for e in entries if group_of(e["image"]) == "colour_tray"]
    # Names order them: coins-mmr by number, byler by the time in the name, rune55 by name.
    if name == "coins-mmr":
        entries.sort(key=lambda e: int("".join(c for c in e["image"] if c.isdigit()) or 0))
    else:
        entries.sort(key=lambda e: e["image"])
    kind = "coins" if name.startswith("coins") else "dice"
    throws = []
    for e in entries[:limit]:
        img = cv2.imread(str(folder / e["image"]), cv2.IMREAD_COLOR)
        if img is None:
            raise SystemExit(f"cannot read {folder / e['image']}")
        objects = e["objects"]
        if kind == "coins":
            sizes = [COIN_DIAMETER_MM[o["kind"]] / ((o["bbox"][2] + o["bbox"][3]) / 2.0)
                     for o in objects if o["kind"] in COIN_DIAMETER_MM and o["kind"] != "other"]
        else:
            sizes = [DIE_MM / float(np.median([max(o["bbox"][2], o["bbox"][3]) for o in objects]))] if objects else []
        throws.append(Throw(e["image"], img, objects, float(np.median(sizes)) if sizes else 0.0))
    return kind, throws


class Reader:
    """A table's reader through one evening: read a throw, then learn its answers."""

    def read(self, image: np.ndarray, mm_per_px: float | None) -> TableObservation:
        """Read one throw with what was learned so far."""
        raise NotImplementedError

    def learn(self, image: np.ndarray, answered: list[Detection], observation: TableObservation,
              mm_per_px: float | None) -> None:
        """The players' answers for the found objects of the throw just read."""


class TodayReader(Reader):
    """The shipped reader with the shipped enrolment (``web.learn.TableLearner``), read as the
    live ``VisionReader`` reads: only the game's kinds of object, the dice profile's kinds and
    sizes, the coin profile's exemplars."""

    def __init__(self, kind: str, learns: bool = True) -> None:
        self.kind = kind
        self.learns = learns
        self.learner = TableLearner(None)

    def params(self, image: np.ndarray, mm_per_px: float | None) -> Any:
        """The read's parameters, as ``web.service.VisionReader`` makes them for this game."""
        params = params_for_scale(mm_per_px, image.shape[1], image.shape[0])
        if self.kind == "coins":
            return replace(params, read_dice=False)
        dice = replace(params.dice or DiceParams(), kinds=("d6",))
        if self.learner.dice_profile is not None:
            dice = self.learner.dice_profile.dice_params(dice)
        return replace(params, read_coins=False, dice=dice)

    def read(self, image: np.ndarray, mm_per_px: float | None) -> TableObservation:
        calibration = Scale(mm_per_px) if mm_per_px else None
        return read_table(image, calibration, self.params(image, mm_per_px), self.learner.profile)

    def learn(self, image: np.ndarray, answered: list[Detection], observation: TableObservation,
              mm_per_px: float | None) -> None:
        if not self.learns or not answered:
            return
        if self.kind == "coins":
            self.learner.learn(image, answered, None, mm_per_px)
        else:
            self.learner.learn(image, [], answered, mm_per_px)


def pairs_of(kind: str, dets: list[Detection], objects: list[dict[str, Any]]) -> list[tuple[dict[str, Any], Detection | None]]:
    """Each labelled object with the read matched to it (the coin and dice benchmarks' matching)."""
    if kind == "coins":
        return coins_bench.match(dets, objects)
    found = {i: j for i, j in dice_bench.match(objects, dets)}
    return [(o, dets[found[i]] if i in found else None) for i, o in enumerate(objects)]


def scored(kind: str, o: dict[str, Any]) -> bool:
    """Whether a labelled object is scored and taught (a coin's face a person could tell)."""
    if kind == "coins":
        return o["kind"] in COIN_DIAMETER_MM and o["kind"] != "other" and o["value"] in ("heads", "tails")
    return o["kind"] == "d6"


def evening(kind: str, throws: list[Throw], reader: Reader, with_scale: bool,
            counts: tuple[Counts, Counts]) -> float:
    """Read every throw in order, score it into ``counts`` (throws 1-5, throws 6 on), teach the
    answers; the seconds spent reading."""
    spent = 0.0
    for n, throw in enumerate(throws):
        tally = counts[0] if n < EARLY else counts[1]
        mm = throw.mm_per_px if with_scale and throw.mm_per_px > 0 else None
        t0 = time.perf_counter()
        observation = reader.read(throw.image, mm)
        spent += time.perf_counter() - t0
        dets = list(observation.objects)
        pairs = pairs_of(kind, dets, throw.objects)
        matched = {id(d) for _, d in pairs if d is not None}
        answered: list[Detection] = []
        for o, d in pairs:
            if not scored(kind, o):
                continue
            tally.objects += 1
            if d is None:
                tally.asked += 1
                tally.missed += 1
                continue
            truth = o["value"] if kind == "coins" else int(o["value"])
            answered.append(replace(d, kind=o["kind"], value=truth, confidence=1.0))
            sure = d.confidence >= CONFIDENT and d.value is not None and not d.flags
            if not sure:
                tally.asked += 1
            elif d.kind == o["kind"] and d.value == truth:
                tally.right += 1
            else:
                tally.wrong += 1
                tally.wrong_notes.append(f"{throw.name}: {o['kind']} {truth} read {d.kind} {d.value} at {d.confidence:.2f}")
        unlabelled = [o for o, d in pairs if d is not None and not scored(kind, o)]
        skip = {id(d) for o, d in pairs if d is not None and o in unlabelled}
        tally.false_sure += sum(1 for d in dets if id(d) not in matched and id(d) not in skip
                                and d.confidence >= CONFIDENT and d.value is not None and not d.flags)
        t0 = time.perf_counter()
        reader.learn(throw.image, answered, observation, mm)
        spent += time.perf_counter() - t0
    return spent


class AdaptiveReader(TodayReader):
    """Today's reader and enrolment, with its confidence made on this table's own answers
    (``vision.adaptive``)."""

    adapt_params = AdaptParams()

    def __init__(self, kind: str) -> None:
        super().__init__(kind)
        self.examples = TableExamples()

    def read(self, image: np.ndarray, mm_per_px: float | None) -> TableObservation:
        observation = super().read(image, mm_per_px)
        return adapt(observation, self.examples, self.adapt_params, features_of(image, observation))

    def learn(self, image: np.ndarray, answered: list[Detection], observation: TableObservation,
              mm_per_px: float | None) -> None:
        super().learn(image, answered, observation, mm_per_px)
        reads = {(d.bbox, d.center): d for d in observation.objects}
        self.examples.add(str(len(self.examples.by_frame)), *examples_of(
            (reads[(a.bbox, a.center)], a.kind, a.value) for a in answered if a.value is not None))


READERS: dict[str, Callable[[str], Reader]] = {
    "adaptive": AdaptiveReader,
    "cold": lambda kind: TodayReader(kind, learns=False),
    "today": lambda kind: TodayReader(kind),
}


def main() -> int:
    """Run the benchmark and print the figures."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reader", choices=sorted(READERS), default="adaptive")
    ap.add_argument("--sets", nargs="*", default=list(SETS), choices=SETS)
    ap.add_argument("--scale", nargs="*", default=["given", "none"], choices=["given", "none"])
    ap.add_argument("--limit", type=int, default=None, help="only the first N throws of each set (development)")
    ap.add_argument("--wrong", action="store_true", help="list the wrong rulings")
    ap.add_argument("--support", type=int, default=None, help="override AdaptParams.support")
    ap.add_argument("--wrong-share", type=float, default=None, help="override AdaptParams.wrong_share")
    ap.add_argument("--floor", type=float, default=None, help="override AdaptParams.floor")
    ap.add_argument("--neighbours", type=int, default=None, help="override AdaptParams.neighbours")
    ap.add_argument("--agreed-only", action="store_true", help="AdaptParams.agreed_only")
    args = ap.parse_args()
    cv2.setNumThreads(1)
    overrides = {"support": args.support, "wrong_share": args.wrong_share, "floor": args.floor, "neighbours": args.neighbours, "agreed_only": args.agreed_only or None}
    AdaptiveReader.adapt_params = replace(AdaptParams(), **{k: v for k, v in overrides.items() if v is not None})
    print(f"reader: {args.reader}; per 100 labelled objects; gate CONFIDENT = {CONFIDENT}")
    print(HEADER)
    for name in args.sets:
        kind, throws = load_set(name, args.limit)
        for scale in args.scale:
            counts = (Counts(), Counts())
            spent = evening(kind, throws, READERS[args.reader](kind), scale == "given", counts)
            label = f"{name}, scale {scale}"
            print(counts[0].line(f"{label}, throws 1-{EARLY}"))
            print(counts[1].line(f"{label}, throws {EARLY + 1} on"))
            print(f"  {len(throws)} throws, {spent / max(1, len(throws)):.2f} s a throw (read and learn)")
            if args.wrong:
                for note in counts[0].wrong_notes + counts[1].wrong_notes:
                    print("  wrong: " + note)
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
