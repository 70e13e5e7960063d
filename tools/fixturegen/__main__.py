"""Regenerate the committed fixtures: ``python -m tools.fixturegen --all``.

Seeded and reproducible: the same seed gives the same scenes, games and labels. Scenes chosen
for Blender (see :func:`blender_choice`) are drawn with Cycles when a ``bpy`` Python exists
(``/work/bpyenv``), otherwise procedurally; the labels never depend on the renderer.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from tools.fixturegen.labels import FORMAT, write_json
from tools.fixturegen.render import render_frame
from tools.fixturegen.scenes import sample_scene

ROOT = Path(__file__).resolve().parents[2]
SPLITS = {"dev": 220, "test": 100}
TRAIN_SPLIT = "train"
"""Extra scenes for training only (``--split train --limit N --feature ...``), never committed:
written under ``--out``, which must then lie outside ``fixtures/``."""


def blender_choice(index: int, count: int) -> bool:
    """Whether scene ``index`` of a split is among the first ``count`` of it that Blender draws
    (those with moving objects excepted: Blender gets no motion blur here, so the OpenCV
    renderer draws them)."""
    return index < count


def build_scenes(out: Path, work: Path, seed: int, blender: int, only: str, splits: list[str], limit: int | None,
                 missing_only: bool = False, samples: int = 8, force: tuple[str, ...] = ()) -> None:
    """Render the single scenes of ``splits`` and write each split's ``labels.json``."""
    from tools.fixturegen.blender_job import blender_python

    have_blender = blender_python() is not None
    counts = {split: SPLITS.get(split, limit or 0) for split in splits}
    order = [(split, i) for split in splits for i in range(counts[split] if limit is None else min(limit, counts[split]))]
    if only == "blender":
        # Interleave the splits so a pass cut short leaves both with Blender scenes.
        order.sort(key=lambda si: (si[1], si[0]))
    for split, i in order:
        folder = out / "scenes" / split
        folder.mkdir(parents=True, exist_ok=True)
        side = work / "labels" / split
        side.mkdir(parents=True, exist_ok=True)
        scene = sample_scene(i, split, seed, force)
        moving = any("moving" in t.flags for t in scene.things)
        wants_blender = blender_choice(i, blender) and not moving
        renderer = "blender" if wants_blender and have_blender else "procedural"
        if only == "blender" and renderer != "blender":
            continue
        if only == "procedural" and wants_blender and have_blender:
            continue  # left to the Blender pass
        name = f"{scene.name}.jpg"
        sidecar = side / f"{scene.name}.json"
        if missing_only and (folder / name).exists() and sidecar.exists() and json.loads(sidecar.read_text())["renderer"] == renderer:
            continue
        data, label, secs = render_frame(scene, name, renderer, work / "blender", samples=samples)
        (folder / name).write_bytes(data)
        label["split"] = split
        label["format"] = FORMAT
        (side / f"{scene.name}.json").write_text(json.dumps(label))
        print(f"{split} {i:4d} {renderer:10s} {secs:6.1f}s {len(data) // 1024:4d} KB", flush=True)


def index_scenes(out: Path, work: Path, splits: list[str]) -> None:
    """Gather the per-scene labels of each split into ``fixtures/scenes/<split>/labels.json``.

    :raises SystemExit: when an image has no label or a label no image.
    """
    for split in splits:
        folder = out / "scenes" / split
        side = work / "labels" / split
        labels = [json.loads(p.read_text()) for p in sorted(side.glob("*.json"))]
        images = {p.name for p in folder.glob("*.jpg")}
        named = {lab["image"] for lab in labels}
        if images != named:
            raise SystemExit(f"{split}: images without labels {sorted(images - named)[:5]}, labels without images {sorted(named - images)[:5]}")
        write_json(folder / "labels.json", labels)
        print(f"{split}: {len(labels)} labelled scenes", flush=True)


def main(argv: list[str] | None = None) -> int:
    """Command line entry point."""
    ap = argparse.ArgumentParser(prog="python -m tools.fixturegen", description=__doc__)
    ap.add_argument("--all", action="store_true", help="scenes (both splits) and games, then the index")
    ap.add_argument("--scenes", action="store_true", help="single scenes only")
    ap.add_argument("--games", action="store_true", help="whole games only")
    ap.add_argument("--game", action="append", metavar="NAME",
                    help="render only this whole game, e.g. flip_fl_t1 (repeatable; implies --games)")
    ap.add_argument("--index", action="store_true", help="only rebuild the scenes' labels.json from the work folder")
    ap.add_argument("--only", choices=["any", "blender", "procedural"], default="any", help="render only one renderer's scenes")
    ap.add_argument("--split", choices=[*SPLITS, TRAIN_SPLIT], action="append",
                    help=f"limit to one split (repeatable); {TRAIN_SPLIT!r}: extra training scenes, needs --limit and an --out outside fixtures/")
    ap.add_argument("--feature", action="append", default=[], metavar="NAME",
                    help="add this scene feature to every scene, e.g. d8_dice (repeatable; for training splits)")
    ap.add_argument("--limit", type=int, default=None, help="at most this many scenes per split (a quick look)")
    ap.add_argument("--blender", type=int, default=max(SPLITS.values()),
                    help="Blender draws the settled scenes among the first N of each split (default: all; 0: none)")
    ap.add_argument("--samples", type=int, default=8,
                    help="Cycles samples per pixel, denoised (8: about 12 s a frame on 2 cores)")
    ap.add_argument("--sheets", type=int, metavar="N",
                    help="render N training sheets of dice or coins (tools/fixturegen/sheets.py; Cycles only) into --out, "
                         "which must lie outside fixtures/")
    ap.add_argument("--sheet-kind", choices=["d6", "d8", "coin"], default="d8", help="what the sheets hold: dice of one kind, or coins")
    ap.add_argument("--missing", action="store_true", help="keep scenes already rendered by the renderer they need")
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--out", type=Path, default=ROOT / "fixtures")
    ap.add_argument("--work", type=Path, default=ROOT / "build" / "fixturegen")
    args = ap.parse_args(argv)
    splits = args.split or list(SPLITS)
    if TRAIN_SPLIT in splits:
        if args.limit is None:
            ap.error(f"--split {TRAIN_SPLIT} needs --limit N (how many scenes)")
        if args.out.resolve().is_relative_to((ROOT / "fixtures").resolve()) or args.games or args.all:
            ap.error(f"--split {TRAIN_SPLIT} scenes are never committed: give --out outside fixtures/, without --all/--games")
    start = time.monotonic()
    if args.sheets:
        if args.out.resolve().is_relative_to((ROOT / "fixtures").resolve()):
            ap.error("training sheets are never committed: give --out outside fixtures/")
        from tools.fixturegen.sheets import build_sheets

        build_sheets(args.out, args.work, args.seed, args.sheets, args.sheet_kind, args.samples)
    if args.all or args.scenes:
        build_scenes(args.out, args.work, args.seed, args.blender, args.only, splits, args.limit, args.missing, args.samples,
                     tuple(args.feature))
    if args.all or args.games or args.game:
        from tools.fixturegen.games import build_games

        build_games(args.out / "games", args.work, args.seed, args.game)
    if args.all or args.scenes or args.index:
        if args.only == "any":
            index_scenes(args.out, args.work, splits)
    print(f"done in {time.monotonic() - start:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
