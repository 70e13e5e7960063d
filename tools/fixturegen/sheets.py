"""Sheets: small training pictures packed with dice or coins, for models that need many of them.

A sheet is a window of a scene camera's picture (``SHEET_PX`` pixels a side, at the scale and
tilt a fixture scene's camera sees the table) holding a 4 x 4 grid of dice of one kind, each
of a random colour, face up and turn, or of coins of every kind, each of a random face,
design, metal, wear and turn, on a random cloth under random light. Cycles draws a sheet's 16
objects in about a tenth of a whole scene's time (the time goes as the pixels), which makes
thousands of eight-sided dice or coins an hour on 2 cores: the numeral reader
(``tools/train_d8.py``) needs that many to learn numerals rather than dice, and the coin
model (``tools/train_coins.py``) learns the rendered coins' faces from them.
"""

from __future__ import annotations

import dataclasses
import json
import random
from pathlib import Path

from tools.fixturegen import textures
from tools.fixturegen.geometry import Thing, make_camera
from tools.fixturegen.scene import TABLE_H, TABLE_W, Scene, layout
from tools.fixturegen.scenes import flat, footprint, random_coin, random_die, random_effects, random_lighting

SHEET_PX = 320
"""A sheet's side, pixels."""
GRID = 4
"""Objects along each side of a sheet."""
SHEET_KINDS = ("d6", "d8", "coin")
"""What a sheet can hold: dice of one kind, or coins of every kind."""
COIN_WEIGHTS = {"penny": 4, "nickel": 2, "dime": 2, "quarter": 2}
"""How often each coin lies on a coin sheet: pennies are the games' commonest coin."""


def sheet_name(index: int) -> str:
    """The ``index``-th sheet's name (its picture is the name with ``.jpg``)."""
    return f"sheet_{index:05d}"


def training_sheet(index: int, seed: int, kind: str = "d8") -> Scene:
    """The ``index``-th sheet of ``kind`` (``d6``, ``d8``, or ``coin`` for coins of every kind);
    the same arguments always give the same sheet.

    :raises ValueError: for a kind no sheet holds.
    """
    if kind not in SHEET_KINDS:
        raise ValueError(f"a sheet holds d6, d8 or coins, not {kind!r}")
    rng = random.Random(f"{seed}:sheet:{index}" if kind != "coin" else f"{seed}:coin-sheet:{index}")
    game = rng.choice(["seven_pennies", "tko", "sevens", "pennywise", "flip"])
    zones = layout(game, ["A", "B"])
    if kind == "coin":
        things, (gx, gy) = _coin_grid(rng)
    else:
        # Drawn in this order so that a seed gives the dice sheets it gave before coin sheets were.
        size = rng.choice([15.0, 17.0]) if kind == "d8" else rng.choice([12.0, 14.0, 16.0, 19.0])
        spacing = 2 * footprint(kind, {"size": size}) + rng.uniform(3.0, 6.0)
        span = spacing * (GRID - 1)
        gx = rng.uniform(40 + span / 2, TABLE_W - 40 - span / 2)
        gy = rng.uniform(40 + span / 2, TABLE_H - 40 - span / 2)
        pips = rng.choice(textures.PIP_STYLES)
        things = []
        for row in range(GRID):
            for col in range(GRID):
                colour = rng.choice(list(textures.DIE_COLOURS))
                spec = random_die(rng, kind, f"o{len(things) + 1}", colour, pips, size)
                x = gx - span / 2 + col * spacing + rng.uniform(-1.5, 1.5)
                y = gy - span / 2 + row * spacing + rng.uniform(-1.5, 1.5)
                things.append(flat(spec, x, y, rng.uniform(0, 360)))
    for th in things:
        th.value = th.top_value()
    tilt = rng.uniform(0, 15) if rng.random() < 0.7 else rng.uniform(0, 3)
    cam = make_camera(TABLE_W, TABLE_H, tilt=tilt, tilt_dir=rng.uniform(0, 360), roll=rng.uniform(-4, 4),
                      coverage=rng.uniform(0.86, 1.0), offset=(rng.uniform(-15, 15), rng.uniform(-12, 12)))
    # The window of the picture around the grid, within the picture.
    (px, py), = cam.project([[gx, gy, 0.0]])
    x0 = int(min(max(0.0, px - SHEET_PX / 2), cam.width - SHEET_PX))
    y0 = int(min(max(0.0, py - SHEET_PX / 2), cam.height - SHEET_PX))
    window = dataclasses.replace(cam, width=SHEET_PX, height=SHEET_PX, cx=cam.cx - x0, cy=cam.cy - y0)
    cloth = rng.choice(list(textures.CLOTHS))
    return Scene(
        name=sheet_name(index),
        game=game,
        zones=zones,
        cloth=cloth,
        tape=rng.choice(["white", "yellow"]) if cloth in ("black_felt", "blue_felt", "red_cloth") else rng.choice(["white", "yellow", "black"]),
        markers=False,
        things=things,
        camera=window,
        lighting=random_lighting(rng, rng.random() < 0.25),
        effects=random_effects(rng),
        seed=rng.randrange(2**31),
        zone_titles={z: z.split(":")[-1] for z in zones},
    )


def _coin_grid(rng: random.Random) -> tuple[list[Thing], tuple[float, float]]:
    """A grid of coins of every kind (:data:`COIN_WEIGHTS`) at a random place on the table, spaced
    for the largest coin on it with a little cloth between; and the grid's middle, mm. (The dice
    grid draws its numbers in another order, kept so that old seeds make the same dice sheets.)"""
    kinds, weights = zip(*COIN_WEIGHTS.items())
    specs = [random_coin(rng, rng.choices(kinds, weights)[0], f"o{i + 1}") for i in range(GRID * GRID)]
    # Each coin is moved up to 1.5 mm along each axis: at least 0.5 mm of cloth is left between.
    spacing = 2 * max(footprint(s["kind"], s["style"]) for s in specs) + rng.uniform(3.5, 6.0)
    span = spacing * (GRID - 1)
    gx = rng.uniform(40 + span / 2, TABLE_W - 40 - span / 2)
    gy = rng.uniform(40 + span / 2, TABLE_H - 40 - span / 2)
    things = []
    for i, spec in enumerate(specs):
        row, col = divmod(i, GRID)
        x = gx - span / 2 + col * spacing + rng.uniform(-1.5, 1.5)
        y = gy - span / 2 + row * spacing + rng.uniform(-1.5, 1.5)
        things.append(flat(spec, x, y, rng.uniform(0, 360)))
    return things, (gx, gy)


def build_sheets(out: Path, work: Path, seed: int, count: int, kind: str = "d8", samples: int = 8) -> None:
    """Render sheets 0..count-1 of ``kind`` (see :func:`training_sheet`) with Cycles into ``out`` and
    write ``out/labels.json``; sheets already there are kept (a run cut short goes on where it
    stopped).

    :raises RuntimeError: when no Blender Python is found: sheets are Cycles renders only.
    """
    from tools.fixturegen.blender_job import blender_python
    from tools.fixturegen.labels import FORMAT, write_json
    from tools.fixturegen.render import render_frame

    if blender_python() is None:
        raise RuntimeError("sheets need Blender's bpy (/work/bpyenv or $FIXTUREGEN_BPY)")
    out.mkdir(parents=True, exist_ok=True)
    side = work / "labels"
    side.mkdir(parents=True, exist_ok=True)
    for i in range(count):
        scene = training_sheet(i, seed, kind)
        name, sidecar = f"{scene.name}.jpg", side / f"{scene.name}.json"
        if (out / name).exists() and sidecar.exists():
            continue
        data, label, secs = render_frame(scene, name, "blender", work / "blender", samples=samples)
        (out / name).write_bytes(data)
        label["split"], label["format"] = "train", FORMAT
        sidecar.write_text(json.dumps(label))
        print(f"sheet {i:5d} {secs:5.1f}s", flush=True)
    labels = [json.loads((side / f"{sheet_name(i)}.json").read_text()) for i in range(count)]
    write_json(out / "labels.json", labels)
