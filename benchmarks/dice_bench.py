"""Measure ``vision.dice.find_dice`` on the real photos of ../shared/data/dice-rune55.

Usage::

    .venv/bin/python benchmarks/dice_bench.py [--data ../shared/data/dice-rune55] [--fixtures fixtures/scenes/test] [--failures OUT_DIR]

Prints, for all photos, per group (colour trays, grey close-ups, grey oblique) and per
split (``trained``: the part tools/train_dice.py learns from; ``validation``: kept out of
training to fit ``DiceParams.confident_at`` on; ``held-out``: never seen), and for the
rendered fixtures' held-back test part (flat d6 and d8 must be read, kind and face; a cocked
die must be reported cocked, and a confident face on it is a confident wrong read; moving or
occluded dice are owed no read; the held-back part again at each scene's scale, as the live
referee reads its calibrated table, sure from ``DiceParams.confident_at_table``: ``fixtures/test
scaled``): recall, precision, value
accuracy, share of dice read right, confident wrong reads, a confusion matrix, the share of
cocked dice reported cocked (and how many flat dice are flagged cocked: the players are asked
about those, since only a sure flag rules), and the median milliseconds per 1280x960 frame on one core.
``--label-boxes`` instead reads each labelled six-sided die's own box with the reader alone
(``vision.dice.read_die_boxes``: no finder, no thresholds) and prints, per slice, the share whose
likelier face is the label's: the reader's own accuracy, apart from the finder's boxes.
``--fit-confident`` and ``--fit-d8-confident`` fit the thresholds of a sure read
(``DiceParams.confident_at`` and ``confident_at_table``, ``DiceParams.d8_confident_at``) on the
validation parts and stop.
With ``--failures`` it writes one overlay picture per photo with a failure
(blue: label, green: confident read, orange: unsure read, red cross: missed).
"""

from __future__ import annotations

import argparse
import itertools
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

from vision._coin_split import rendered_scale  # noqa: E402
from vision._dice_net import read_class  # noqa: E402
from vision._dice_split import group_of, is_held_out, is_validation  # noqa: E402
from vision.dice import CONFIDENT, DiceParams, draw_dice, find_dice, read_die_boxes  # noqa: E402
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
        self.confusion = np.zeros((7, 8), np.int64)  # d6 label 1..6 x read None,1..6,missed
        self.cocked = 0
        self.cocked_reported = 0
        self.flat_flagged_cocked = 0
        """Dice lying flat that the reader flagged as cocked (asked about: not a ruling)."""

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


def score_photo(
    img: np.ndarray,
    name: str,
    labels: list[dict],
    others: list[dict],
    params: DiceParams,
    keys: list[str],
    tallies: dict[str, Tally],
    wrong_notes: list[str],
    failures: Path | None,
    mm_per_px: float | None = None,
) -> None:
    """Read one photo (at the scale ``mm_per_px`` when given) and add it to the tallies named by ``keys``.

    ``labels`` are the dice that must be read (flat, unhidden d6 and d8), kind and face;
    ``others`` are dice owed no read (cocked, moving or occluded, in the fixtures): a read on
    one of them is neither found nor a false die, unless it is a confident face on a cocked
    die, which counts as a confident wrong read. The first key's tally also counts cocked
    dice reported as cocked, and ``{key}:d6`` / ``{key}:d8`` tallies the labels of each kind.
    """
    # At a known scale, as the live referee reads its calibrated table.
    found = find_dice(img, params, mm_per_px=mm_per_px, table=mm_per_px is not None)
    pairs = match(labels, found)
    matched_f = {j for _, j in pairs}
    matched_l = {i: j for i, j in pairs}
    on_other: dict[int, dict] = {}
    rest = [j for j in range(len(found)) if j not in matched_f]
    for i, j in match(others, [found[j] for j in rest]):
        on_other[rest[j]] = others[i]
    failed = False
    n_found = len(found) - len(on_other)
    for k in keys:
        t = tallies[k]
        t.labels += len(labels)
        t.found += n_found
        t.matched += len(pairs)
    for o in others:
        if "cocked" in o.get("flags", []):
            tallies[keys[0]].cocked += 1
    for j, o in on_other.items():
        if "cocked" in o.get("flags", []) and "cocked" in found[j].flags:
            tallies[keys[0]].cocked_reported += 1
    for i, lab in enumerate(labels):
        v = int(lab["value"])
        j = matched_l.get(i)
        read = None if j is None or found[j].kind != lab["kind"] else found[j].value
        if j is not None and found[j].kind != lab["kind"]:
            read = -1  # the wrong kind of die: a wrong read, whatever the face
        col = 7 if j is None else (0 if read is None or read < 0 else int(read))
        kind_key = f"{keys[0]}:{lab['kind']}"
        if j is not None and "cocked" in found[j].flags:
            tallies[keys[0]].flat_flagged_cocked += 1
        tallies[kind_key].labels += 1
        tallies[kind_key].matched += int(j is not None)
        for k in [*keys, kind_key]:
            t = tallies[k]
            if lab["kind"] == "d6":
                t.confusion[v, col] += 1
            if read is not None:
                t.valued += 1
                t.right += int(read == v)
        if read != v:
            failed = True
            if j is not None and read is not None:
                wrong_notes.append(f"{name} label {v} read {read} conf {found[j].confidence:.2f}")
    for j, d in enumerate(found):
        if d.confidence >= CONFIDENT:
            if j in on_other:
                o = on_other[j]
                if "cocked" not in o.get("flags", []) or d.value is None:
                    continue  # moving or occluded, or a cocked die reported cocked: no read is owed
                wrong = True
            else:
                lab = labels[[i for i, jj in pairs if jj == j][0]] if j in matched_f else None
                wrong = lab is None or d.kind != lab["kind"] or d.value != int(lab["value"])
            for k in keys:
                tallies[k].confident += 1
                tallies[k].confident_wrong += int(wrong)
        if j not in matched_f and j not in on_other:
            failed = True
    if failed and failures:
        over = draw_dice(img, found)
        for i, lab in enumerate(labels):
            x, y, w, h = (int(round(v)) for v in lab["bbox"])
            cv2.rectangle(over, (x, y), (x + w, y + h), (255, 0, 0), 1)
            cv2.putText(over, str(lab["value"]), (x + w - 10, y + h + 12), cv2.FONT_HERSHEY_SIMPLEX,
                        0.45, (255, 0, 0), 1, cv2.LINE_AA)
            if i not in matched_l:
                cv2.drawMarker(over, (x + w // 2, y + h // 2), (0, 0, 255), cv2.MARKER_TILTED_CROSS, 14, 2)
        cv2.imwrite(str(failures / name.replace(".jpg", ".png")), over)


def fit_confident(data: Path, fixtures_dev: Path, params: DiceParams, wrong_share: float = 0.005) -> tuple[float, float]:
    """The lowest raw read probability above which, on each validation part (dice-rune55's and
    the fixtures dev part's, ``is_validation``: never trained on), at most ``wrong_share`` of the
    reads are wrong (wrong kind or face, no die, a face on a cocked die); and the same for a
    known table (``DiceParams.confident_at_table``): the dev validation part read at its scale,
    and dice-rune55's grey validation photos (a few dice each, no heaped tray). Prints both and
    returns them."""
    parts: dict[str, list[tuple[float, bool]]] = {
        "dice-rune55": [], "fixtures dev": [], "fixtures dev at scale": [], "dice-rune55 grey": [],
    }
    sources = [("dice-rune55", data, json.loads((data / "labels.json").read_text()))]
    sources.append(("fixtures dev", fixtures_dev, json.loads((fixtures_dev / "labels.json").read_text())))
    for part, folder, entries in sources:
        for e in entries:
            if not is_validation(e["image"]):
                continue
            img = cv2.imread(str(folder / e["image"]), cv2.IMREAD_COLOR)
            dice = [o for o in e["objects"] if o["kind"] in ("d6", "d8")]
            labels = [o for o in dice if not o.get("flags")]
            others = [o for o in dice if o.get("flags")]
            reads = [(part, find_dice(img, params))]
            if part == "fixtures dev":
                reads.append(("fixtures dev at scale", find_dice(img, params, mm_per_px=rendered_scale(e), table=True)))
            for name, found in reads:
                rows = _fit_rows(found, labels, others)
                parts[name] += rows
                if part == "dice-rune55" and group_of(e["image"]).startswith("grey"):
                    parts["dice-rune55 grey"] += rows
    best = max(_threshold(part, parts[part], wrong_share) for part in ("dice-rune55", "fixtures dev"))
    table = max(_threshold(part, parts[part], wrong_share) for part in ("fixtures dev at scale", "dice-rune55 grey"))
    print(f"confident_at {best:.4f}")
    print(f"confident_at_table {table:.4f}")
    return best, table


def _fit_rows(found: list[Detection], labels: list[dict], others: list[dict]) -> list[tuple[float, bool]]:
    """Each six-sided read's raw probability and whether it is right (see :func:`fit_confident`)."""
    by_found = {j: i for i, j in match(labels, found)}
    rest = [j for j in range(len(found)) if j not in by_found]
    on_other = {rest[j]: others[i] for i, j in match(others, [found[j] for j in rest])}
    rows = []
    for j, d in enumerate(found):
        if d.extra["much_smaller"] or ("cocked" in d.flags and d.confidence == 0.0):
            # Never confident, whatever its probability: a read flagged cocked with no
            # confidence (by the cocked-die check, which looks at every read not sure on a
            # photo) is asked about. A sure "cocked" from the reader is a ruling, and counts.
            continue
        if d.extra["d8_face"] is not None:
            # An eight-sided die's face read by the d8 face reader: its probability is
            # that reader's, sure at ``d8_confident_at`` (``--fit-d8-confident``), not here.
            continue
        logits = d.extra["face_logits"]
        kind, face = read_class(int(np.argmax(logits)) + 1, len(logits) + 1)
        if j in by_found:
            lab = labels[by_found[j]]
            ok = kind == lab["kind"] and face == int(lab["value"])
        elif j in on_other and "cocked" in on_other[j]["flags"]:
            ok = kind == "cocked"
        elif j in on_other:
            continue  # moving or occluded: owed no read
        else:
            ok = False
        rows.append((float(d.extra["read_prob"]), ok))
    return rows


def _threshold(part: str, rows: list[tuple[float, bool]], wrong_share: float) -> float:
    """The lowest probability above which at most ``wrong_share`` of ``rows`` (probability,
    right?) are wrong, counted from the most probable down; prints what it keeps."""
    # Most probable first and, among reads of one (rounded) probability, the wrong ones
    # first: a wrong read tied with a right one must not slip in under the right one's
    # threshold (an earlier fit let one in that way).
    rows = sorted(rows, key=lambda r: (r[0], not r[1]), reverse=True)
    # The most reads, from the top, of which at most the share are wrong.
    t, wrong = 1.0, 0
    for n, (prob, ok) in enumerate(rows, 1):
        wrong += int(not ok)
        if wrong <= wrong_share * n:
            t = prob
    kept = [ok for prob, ok in rows if prob >= t]
    print(f"{part}: {len(rows)} reads; confident at {t:.4f}: {len(kept)} reads, {len(kept) - sum(kept)} wrong")
    return t


def fit_d8_confident(fixtures_dev: Path, params: DiceParams, wrong_share: float = 0.005) -> float:
    """The lowest probability of an eight-sided die's face read by ``vision.d8_faces`` above
    which at most ``wrong_share`` of those reads are wrong (not a d8, another face, a cocked
    die) on the rendered scenes of ``fixtures_dev`` (the dev scenes, or others never trained on),
    read as on any table and as on a table of d8 only (the scenes' d6 then left out: such a
    table holds none), each without and with the scene's scale (as the live referee reads its
    calibrated table: fainter candidates are taken, and a die's box may differ), the strictest
    of the four. Prints it and returns it."""
    entries = json.loads((fixtures_dev / "labels.json").read_text())
    best = 0.0
    for (table, kinds), scaled in itertools.product((("any table", None), ("a table of d8", ("d8",))), (False, True)):
        rows: list[tuple[float, bool]] = []
        for e in entries:
            dice = [o for o in e["objects"] if o["kind"] in ("d6", "d8")]
            if not dice:
                continue
            img = cv2.imread(str(fixtures_dev / e["image"]), cv2.IMREAD_COLOR)
            labels = [o for o in dice if not o.get("flags")]
            others = [o for o in dice if o.get("flags")]
            found = find_dice(img, replace(params, kinds=kinds), mm_per_px=rendered_scale(e) if scaled else None)
            by_found = {j: i for i, j in match(labels, found)}
            rest = [j for j in range(len(found)) if j not in by_found]
            on_other = {rest[j]: others[i] for i, j in match(others, [found[j] for j in rest])}
            for j, d in enumerate(found):
                face = d.extra["d8_face"]
                if face is None:
                    continue
                if j in on_other and "cocked" not in on_other[j]["flags"]:
                    continue  # moving or occluded: owed no read
                lab = labels[by_found[j]] if j in by_found else None
                if kinds is not None and lab is not None and lab["kind"] not in kinds:
                    continue  # a table of d8 holds no d6: a d6 of the scene read as a d8 says nothing
                ok = lab is not None and lab["kind"] == "d8" and int(lab["value"]) == face
                rows.append((float(d.extra["read_prob"]), ok))
        best = max(best, _threshold(f"{fixtures_dev}, {table}{', at scale' if scaled else ''}", rows, wrong_share))
    print(f"d8_confident_at {best:.4f}")
    return best


def game_enrolment(games: Path, params: DiceParams) -> None:
    """Learning the table's dice on the fixture games (one table each): the dice of each game's
    first frame with dice are confirmed from its labels and learned (``vision.enrol.enrol_dice``),
    then every later frame is read with and without what was learned. Prints recall, precision
    and dice read right for both (games without dice are skipped)."""
    from vision.enrol import enrol_dice

    print("\nlearning the table's dice on the fixture games (first throw learned, the rest measured):")
    for folder in sorted(p for p in games.iterdir() if (p / "game.json").is_file()):
        frames = json.loads((folder / "game.json").read_text())["frames"]
        with_dice = [f for f in frames if any(o["kind"] in ("d6", "d8") for o in f["objects"])]
        if len(with_dice) < 2:
            continue
        confirmed: list[Detection] = []
        while with_dice and not confirmed:  # the first settled throw: a throw in flight has no faces
            first = with_dice.pop(0)
            img = cv2.imread(str(folder / first["image"]), cv2.IMREAD_COLOR)
            scale = rendered_scale(first)
            found = find_dice(img, params, mm_per_px=scale)
            dice = [o for o in first["objects"] if o["kind"] in ("d6", "d8") and not o.get("flags")]
            confirmed = [replace(found[j], kind=dice[i]["kind"], value=int(dice[i]["value"])) for i, j in match(dice, found)]
        if not confirmed:
            continue
        profile = enrol_dice([(scale, confirmed)])
        rows = {}
        for name, p in (("without", params), ("learned", profile.dice_params(params))):
            t = Tally()
            for f in with_dice:
                fimg = cv2.imread(str(folder / f["image"]), cv2.IMREAD_COLOR)
                all_dice = [o for o in f["objects"] if o["kind"] in ("d6", "d8")]
                labels = [o for o in all_dice if not o.get("flags")]
                others = [o for o in all_dice if o.get("flags")]
                reads = find_dice(fimg, p, mm_per_px=rendered_scale(f))
                pairs = match(labels, reads)
                rest = [j for j in range(len(reads)) if j not in {jj for _, jj in pairs}]
                on_other = len(match(others, [reads[j] for j in rest]))
                t.labels += len(labels)
                t.matched += len(pairs)
                t.found += len(reads) - on_other
                t.right += sum(reads[j].kind == labels[i]["kind"] and reads[j].value == int(labels[i]["value"])
                               for i, j in pairs)
            rows[name] = t
        w, lrn = rows["without"], rows["learned"]

        def pct(a: int, b: int) -> str:
            return f"{100.0 * a / b:5.1f}%" if b else "  -  "
        print(f"  {folder.name:<18} {len(confirmed)} dice learned {profile.kinds} {profile.size_mm and tuple(round(v, 1) for v in profile.size_mm)} mm;"
              f" {w.labels} dice after: recall {pct(w.matched, w.labels)} -> {pct(lrn.matched, lrn.labels)},"
              f" precision {pct(w.matched, w.found)} -> {pct(lrn.matched, lrn.found)},"
              f" read right {pct(w.right, w.labels)} -> {pct(lrn.right, lrn.labels)}")


OPTIONAL_MODELS = {"dice_cocked.onnx": "the cocked-die check", "dice_d8.onnx": "the d8 face reader"}
"""Dice models, by file name, that ``find_dice`` does without when a model folder lacks them:
their checks are then left out of the read."""


def label_box_accuracy(data: Path, entries: list[dict], params: DiceParams) -> dict[str, tuple[int, int]]:
    """(right, dice) per slice of dice-rune55 when the reader reads each labelled d6's own box
    (``read_die_boxes``): the slices of the main table, keyed the same way."""
    out: dict[str, tuple[int, int]] = {}
    for e in entries:
        labels = [o for o in e["objects"] if o["kind"] == "d6"]
        if not labels:
            continue
        img = cv2.imread(str(data / e["image"]), cv2.IMREAD_COLOR)
        if img is None:
            raise FileNotFoundError(data / e["image"])
        reads = read_die_boxes(img, [tuple(o["bbox"]) for o in labels], params)
        right = sum(int(face == int(o["value"])) for (face, _), o in zip(reads, labels))
        split = "held-out" if is_held_out(e["image"]) else "validation" if is_validation(e["image"]) else "trained"
        group = group_of(e["image"])
        for key in ("all", f"all/{split}", group, f"{group}/{split}"):
            r, n = out.get(key, (0, 0))
            out[key] = (r + right, n + len(labels))
    return out


def models_left_out(model_dir: Path) -> list[str]:
    """The files of ``OPTIONAL_MODELS`` missing from ``model_dir``: what a read with its models
    goes without. A candidate's folder must hold them too, or it is measured without them."""
    return [name for name in OPTIONAL_MODELS if not (model_dir / name).is_file()]


OVERRIDES = {
    "model_dir": "model_dir",
    "confident_at": "confident_at",
    "confident_at_table": "confident_at_table",
    "coarse_min_side": "coarse_min_side",
    "turns": "reader_turns",
    "unsure_not_die": "unsure_not_die",
    "faint_not_die": "faint_not_die",
    "faint_score": "faint_score",
    "wider_look": "wider_look",
    "wider_look_read": "wider_look_read",
    "temperature": "temperature",
    "doubt_look_px": "doubt_look_px",
    "doubt_below": "doubt_below",
    "d8_doubt_turns": "d8_doubt_turns",
    "d8_confident_at": "d8_confident_at",
    "cocked_at": "cocked_at",
    "cocked_doubt": "cocked_doubt",
}
"""Command-line options (argparse names) that set a ``DiceParams`` field of their own."""


def main() -> None:
    """Run the benchmark and print the figures."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=Path("../shared/data/dice-rune55"))
    ap.add_argument("--failures", type=Path, help="folder for overlay pictures of failures")
    ap.add_argument("--timing-frames", type=int, default=30)
    ap.add_argument("--fixtures", type=Path, default=Path("fixtures/scenes/test"),
                    help="rendered fixture scenes measured too (the held-back test part by default)")
    ap.add_argument("--no-fixtures", action="store_true", help="measure dice-rune55 only")
    ap.add_argument("--games", type=Path, default=Path("fixtures/games"),
                    help="fixture games on which learning the table's dice is measured")
    ap.add_argument("--fit-temperature", action="store_true",
                    help="fit DiceParams.temperature on the trained part's matched reads, print it, stop")
    ap.add_argument("--fit-confident", action="store_true",
                    help="fit DiceParams.confident_at on the validation parts (at most 0.5%% wrong), print it, stop")
    ap.add_argument("--fit-d8-confident", action="store_true",
                    help="fit DiceParams.d8_confident_at on the fixtures' dev scenes and the --fit-scenes (at most "
                         "0.5%% wrong on each), print it, stop")
    ap.add_argument("--fit-scenes", type=Path, action="append", default=[],
                    help="more rendered scenes (their labels.json) --fit-d8-confident fits on, never learned from: "
                         "d8 of another style (repeatable)")
    ap.add_argument("--label-boxes", action="store_true",
                    help="read each labelled d6's own box with the reader alone and print the share read right per slice, stop")
    ap.add_argument("--threshold", type=float, help="override DiceParams.det_threshold (and det_threshold_scaled)")
    ap.add_argument("--long-sides", help="override DiceParams.det_long_sides, e.g. 512,192")
    ap.add_argument("--model-dir", type=Path, help="measure the dice models in this folder (default: the shipped ones)")
    ap.add_argument("--confident-at", type=float, help="override DiceParams.confident_at")
    ap.add_argument("--confident-at-table", type=float, help="override DiceParams.confident_at_table")
    ap.add_argument("--coarse-min-side", type=float, help="override DiceParams.coarse_min_side")
    ap.add_argument("--wider-look", type=float, help="override DiceParams.wider_look (1: off)")
    ap.add_argument("--wider-look-read", type=float, help="override DiceParams.wider_look_read")
    ap.add_argument("--turns", type=int, help="override DiceParams.reader_turns (1, 2 or 4)")
    ap.add_argument("--unsure-not-die", type=float, help="override DiceParams.unsure_not_die")
    ap.add_argument("--faint-not-die", type=float,
                    help="override DiceParams.faint_not_die (1.01: faint unsure candidates kept)")
    ap.add_argument("--faint-score", type=float, help="override DiceParams.faint_score")
    ap.add_argument("--temperature", type=float, help="override DiceParams.temperature")
    ap.add_argument("--doubt-look-px", type=float,
                    help="override DiceParams.doubt_look_px (0: no closer look at doubtful reads)")
    ap.add_argument("--doubt-below", type=float, help="override DiceParams.doubt_below")
    ap.add_argument("--no-doubt-at-table", action="store_true",
                    help="on a known table, doubtful below doubt_below only (DiceParams.doubt_at_table off)")
    ap.add_argument("--d8-doubt-turns", type=int,
                    help="override DiceParams.d8_doubt_turns (1: a doubtful d8 face is not read again)")
    ap.add_argument("--d8-confident-at", type=float, help="override DiceParams.d8_confident_at")
    ap.add_argument("--cocked-at", type=float, help="override DiceParams.cocked_at (1.01: no cocked-die check)")
    ap.add_argument("--cocked-doubt", type=float,
                    help="override DiceParams.cocked_doubt (1.01: a read the check half believes cocked may be sure)")
    ap.add_argument("--no-patch-candidates", action="store_true",
                    help="read no die-sized patches the finder missed (DiceParams.patch_candidates off)")
    args = ap.parse_args()
    if args.no_fixtures:
        args.fixtures = None
    cv2.setNumThreads(1)
    params = DiceParams()
    if args.threshold is not None:
        params = replace(params, det_threshold=args.threshold, det_threshold_scaled=args.threshold)
    if args.long_sides:
        params = replace(params, det_long_sides=tuple(int(v) for v in args.long_sides.split(",")))
    given = {field: getattr(args, arg) for arg, field in OVERRIDES.items() if getattr(args, arg) is not None}
    params = replace(params, **given)
    if args.model_dir is not None:
        for name in models_left_out(args.model_dir):
            print(f"warning: {args.model_dir} lacks {name}, so it is measured without {OPTIONAL_MODELS[name]}", file=sys.stderr)
    if args.no_patch_candidates:
        params = replace(params, patch_candidates=False)
    if args.no_doubt_at_table:
        params = replace(params, doubt_at_table=False)
    entries = json.loads((args.data / "labels.json").read_text())
    if args.fit_confident:
        fit_confident(args.data, Path("fixtures/scenes/dev"), replace(params, confident_at=0.8))
        return
    if args.fit_d8_confident:
        fits = [fit_d8_confident(folder, params) for folder in (Path("fixtures/scenes/dev"), *args.fit_scenes)]
        if len(fits) > 1:
            print(f"d8_confident_at {max(fits):.4f} (the strictest of {len(fits)} scene sets)")
        return
    if args.fit_temperature:
        fit_temperature(args.data, entries, params)
        return
    if args.label_boxes:
        print("the reader alone on each labelled d6's own box: likelier face right / dice")
        slices = label_box_accuracy(args.data, entries, params)
        for g in ("all", "colour_tray", "grey_closeup", "grey_oblique"):
            for key in (g, f"{g}/trained", f"{g}/validation", f"{g}/held-out"):
                if key in slices:
                    right, n = slices[key]
                    print(f"{key:<26} {n:5d} {100.0 * right / n:6.1f}%")
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
        split = "held-out" if is_held_out(e["image"]) else "validation" if is_validation(e["image"]) else "trained"
        keys = ["all", f"all/{split}", group_of(e["image"]), f"{group_of(e['image'])}/{split}"]
        score_photo(img, e["image"], labels, [], params, keys, tallies, wrong_notes, args.failures)
    fixture_keys: list[str] = []
    if args.fixtures is not None:
        for e in json.loads((args.fixtures / "labels.json").read_text()):
            img = cv2.imread(str(args.fixtures / e["image"]), cv2.IMREAD_COLOR)
            if img is None:
                raise FileNotFoundError(args.fixtures / e["image"])
            dice = [o for o in e["objects"] if o["kind"] in ("d6", "d8")]
            labels = [o for o in dice if not o.get("flags")]
            others = [o for o in dice if o.get("flags")]
            key = f"fixtures/{args.fixtures.name}"
            scaled = f"{key} scaled"  # read at the table's scale
            fixture_keys = [key, f"{key}/procedural", f"{key}/blender", f"{key}:d6", f"{key}:d8", scaled, f"{scaled}:d6"]
            keys = [key, f"{key}/{e.get('renderer', 'procedural')}"]
            scaled_keys = [scaled]
            # The dev scenes' validation part (never trained on), where candidates are chosen.
            validation_part = args.fixtures.name != "test" and is_validation(e["image"])
            if validation_part:
                keys.append(f"{key}/validation")
                scaled_keys.append(f"{scaled}/validation")
            score_photo(img, e["image"], labels, others, params, keys, tallies, wrong_notes, args.failures)
            # As the live referee reads its calibrated table: sizes known, fainter candidates taken.
            score_photo(img, e["image"], labels, others, params, scaled_keys, tallies, [], None, rendered_scale(e))
        if args.fixtures.name != "test":
            fixture_keys += [f"fixtures/{args.fixtures.name}/validation", f"fixtures/{args.fixtures.name} scaled/validation"]

    print(HEADER)
    order = ["all", "all/trained", "all/validation", "all/held-out"]
    for g in ("colour_tray", "grey_closeup", "grey_oblique"):
        order += [g, f"{g}/trained", f"{g}/held-out"]
    for k in order + fixture_keys:
        print(tallies[k].line(k))
    for k in ["all", "all/held-out"] + fixture_keys[:1]:
        print(f"\nconfusion ({k}): rows label 1..6; columns read unsure, 1..6, missed")
        for v in range(1, 7):
            print(f"  {v}: " + " ".join(f"{n:5d}" for n in tallies[k].confusion[v]))
    print("\nconfident: reads with confidence >= CONFIDENT =", CONFIDENT)
    sure_keys = order[:4] + fixture_keys[:1] + fixture_keys[5:6]  # the held-back scenes, as read and at scale
    print("confident reads: " + ", ".join(f"{k} {tallies[k].confident}" for k in sure_keys))
    print("cwr/dice: confident wrong reads (wrong kind or face, or no die) per labelled die; cwr/conf: per confident read")
    print(f"flat dice flagged cocked (all photos): {tallies['all'].flat_flagged_cocked} of {tallies['all'].labels}")
    for k in fixture_keys[:1] + fixture_keys[5:6]:  # the scenes as read, and at their scale
        t = tallies[k]
        print(f"cocked dice reported cocked ({k}): {t.cocked_reported} of {t.cocked}; "
              f"flat dice flagged cocked: {t.flat_flagged_cocked} of {t.labels}")
    print(f"\nwrong faces ({len(wrong_notes)}):")
    for n in wrong_notes[:40]:
        print("  " + n)

    if args.fixtures is not None:
        game_enrolment(args.games, params)

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
    if times:  # --timing-frames 0 skips the timing
        print(
            f"\nspeed: median {statistics.median(times):.1f} ms per 1280x960 frame on one core "
            f"({len(times)} frames, {min(counts)}..{max(counts)} dice each)"
        )


if __name__ == "__main__":
    main()
