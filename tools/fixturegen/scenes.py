"""Random single scenes: a seeded sampler that covers every condition the referee must face."""

from __future__ import annotations

import math
import random
from typing import Any

import numpy as np

from tools.fixturegen import textures
from tools.fixturegen.geometry import COIN_SIZES, Thing, make_camera, rot_x, rot_z
from tools.fixturegen.scene import (
    TABLE_H,
    TABLE_W,
    Effects,
    Lighting,
    Scene,
    coin_style,
    die_style,
    layout,
    make_hand,
    place_flat,
    place_tilted,
)

# Conditions a scene can carry on top of its ordinary objects; every scene gets one or two,
# cycling, so each appears in dozens of scenes of both splits.
FEATURES = (
    "touching_coins", "overlapping_coins", "leaning_coin", "on_edge_coin", "touching_dice",
    "cocked_die", "outside_zone", "hand", "motion", "harsh_light", "no_markers", "distortion",
    "d8_dice", "all_denominations",
)
TRAIN_FEATURES = ("crowded_dice",)
"""Features only a training split asks for (``force``), never drawn by chance: listing them in
``FEATURES`` would change which features the committed scenes get. ``crowded_dice``: 10 more
dice than usual (a training split rich in d8 gets three times the dice for each render)."""
PLAYERS = (["Jess", "Kevin"], ["Ann", "Bo", "Cy"], ["A", "B"])
SKINS = ((0.55, 0.65, 0.85), (0.35, 0.45, 0.62), (0.20, 0.28, 0.40), (0.62, 0.72, 0.88))


def random_lighting(rng: random.Random, harsh: bool) -> Lighting:
    """Soft to harsh light from a random direction, with a coloured tint and a light spot."""
    elev = rng.uniform(35, 60) if harsh else rng.uniform(50, 85)
    az = rng.uniform(0, 360)
    d = (math.cos(math.radians(elev)) * math.cos(math.radians(az)), math.cos(math.radians(elev)) * math.sin(math.radians(az)), -math.sin(math.radians(elev)))
    warm = rng.uniform(-0.12, 0.12)
    return Lighting(
        direction=d,
        softness=rng.uniform(0.0, 0.15) if harsh else rng.uniform(0.3, 1.0),
        key=rng.uniform(0.75, 0.95) if harsh else rng.uniform(0.45, 0.7),
        ambient=rng.uniform(0.18, 0.3) if harsh else rng.uniform(0.3, 0.45),
        tint=(1 - warm, 1.0, 1 + warm),
        glare=rng.uniform(1.2, 2.2) if harsh else rng.uniform(0.4, 1.0),
        falloff=rng.uniform(0.0, 0.9),
        spot=(rng.uniform(0, TABLE_W), rng.uniform(0, TABLE_H)),
    )


def random_effects(rng: random.Random) -> Effects:
    """Sensor noise, defocus, vignette, white balance and JPEG quality of a cheap camera."""
    return Effects(
        noise=rng.uniform(0.003, 0.014),
        blur=rng.choice([0.0, 0.0, 0.4, 0.7, 1.0]),
        vignette=rng.uniform(0.05, 0.35),
        jpeg=rng.randint(68, 86),
        white_balance=(rng.uniform(0.92, 1.08), 1.0, rng.uniform(0.92, 1.08)),
        gain=rng.uniform(0.85, 1.12),
    )


def random_coin(rng: random.Random, kind: str, oid: str, face: str | None = None) -> dict[str, Any]:
    """A coin's kind, face and style (design of the face up, metal, wear)."""
    face = face or rng.choice(["heads", "tails"])
    design = rng.choice(textures.COIN_DESIGNS[kind][face])
    metal = {"penny": rng.choice(["copper", "copper", "dark_copper", "bright_copper"]), "nickel": "nickel"}.get(kind, "silver")
    style = coin_style(kind, face, design, metal)
    style["wear"] = rng.uniform(0, 1)
    return {"oid": oid, "kind": kind, "value": face, "style": style}


def random_die(rng: random.Random, kind: str, oid: str, colour: str, pips: str, size: float) -> dict[str, Any]:
    """A die with a random face up."""
    value = rng.randint(1, 6 if kind == "d6" else 8)
    return {"oid": oid, "kind": kind, "value": value, "style": die_style(kind, colour, pips, size)}


def footprint(kind: str, style: dict[str, Any]) -> float:
    """Radius of the circle an object covers lying flat, mm."""
    if kind in COIN_SIZES:
        return float(style["size"]) / 2
    if kind == "d6":
        return float(style["size"]) * 0.71
    return float(style["size"]) * 0.62


class Placer:
    """Places objects in zones without unintended overlaps."""

    def __init__(self, rng: random.Random, zones: dict[str, list[tuple[float, float]]]) -> None:
        self.rng = rng
        self.zones = zones
        self.taken: list[tuple[float, float, float]] = []

    def free_spot(self, radius: float, zone: str | None, margin: float = 4.0) -> tuple[float, float]:
        """A random point in ``zone`` (or anywhere on the table) where a disc of ``radius`` fits.

        :raises RuntimeError: when no spot is found.
        """
        if zone is None:
            x0, y0, x1, y1 = 20.0, 20.0, TABLE_W - 20, TABLE_H - 20
        else:
            xs = [p[0] for p in self.zones[zone]]
            ys = [p[1] for p in self.zones[zone]]
            x0, y0, x1, y1 = min(xs), min(ys), max(xs), max(ys)
        for _ in range(400):
            x = self.rng.uniform(x0 + radius + margin, x1 - radius - margin)
            y = self.rng.uniform(y0 + radius + margin, y1 - radius - margin)
            if all(math.hypot(x - a, y - b) > radius + r + 2.0 for a, b, r in self.taken):
                self.taken.append((x, y, radius))
                return x, y
        if zone is not None:
            # A narrow zone is full: use the largest zone instead.
            def area(z: str) -> float:
                xs = [p[0] for p in self.zones[z]]
                ys = [p[1] for p in self.zones[z]]
                return (max(xs) - min(xs)) * (max(ys) - min(ys))

            biggest = max(self.zones, key=area)
            if biggest != zone:
                return self.free_spot(radius, biggest, margin)
        raise RuntimeError(f"no free spot of radius {radius} in {zone}")

    def outside_spot(self, radius: float) -> tuple[float, float]:
        """A point on the cloth outside every zone (between zones or in the margins)."""
        from tools.fixturegen.scene import zone_of

        for _ in range(2000):
            x = self.rng.uniform(radius + 2, TABLE_W - radius - 2)
            y = self.rng.uniform(radius + 2, TABLE_H - radius - 2)
            ring = [(x + radius * math.cos(a), y + radius * math.sin(a)) for a in np.linspace(0, 2 * math.pi, 12)]
            if zone_of(x, y, self.zones) is None and all(zone_of(px, py, self.zones) is None for px, py in ring) \
                    and all(math.hypot(x - a, y - b) > radius + r + 2 for a, b, r in self.taken) \
                    and not (x < 70 and y < 70) and not (x > TABLE_W - 70 and y < 70) \
                    and not (x < 70 and y > TABLE_H - 70) and not (x > TABLE_W - 70 and y > TABLE_H - 70):
                self.taken.append((x, y, radius))
                return x, y
        raise RuntimeError("no spot outside the zones")


def flat(spec: dict[str, Any], x: float, y: float, yaw: float, base: float = 0.0) -> Thing:
    """Lay ``spec`` flat at (x, y)."""
    return place_flat(spec["oid"], spec["kind"], spec["value"], spec["style"], x, y, yaw, base)


def sample_scene(index: int, split: str, seed: int, force: tuple[str, ...] = ()) -> Scene:
    """The ``index``-th scene of ``split``; the same arguments always give the same scene.

    ``force`` adds features to every scene (a training split rich in, say, d8 dice)."""
    unknown = set(force) - set(FEATURES) - set(TRAIN_FEATURES)
    if unknown:
        raise ValueError(f"unknown scene features {sorted(unknown)}; known: {', '.join(FEATURES + TRAIN_FEATURES)}")
    rng = random.Random(f"{seed}:{split}:{index}")
    feats = {FEATURES[(index * 3 + (split == "test")) % len(FEATURES)]} | set(force)
    if rng.random() < 0.6:
        feats.add(rng.choice(FEATURES))
    game = rng.choice(["seven_pennies", "seven_pennies", "tko", "sevens", "pennywise", "flip"])
    players = rng.choice(PLAYERS[:2]) if game in ("seven_pennies", "tko") else ["A", "B"]
    zones = layout(game, players)
    placer = Placer(rng, zones)
    zone_ids = list(zones)
    things: list[Thing] = []
    n = 0

    def oid() -> str:
        nonlocal n
        n += 1
        return f"o{n}"

    coin_kinds = ["penny"] * 6 + ["nickel", "dime", "quarter"]
    if game == "pennywise" or "all_denominations" in feats:
        coin_kinds = ["penny", "penny", "nickel", "nickel", "dime", "quarter"]
    use_dice = game in ("sevens", "flip") or rng.random() < 0.45 or "touching_dice" in feats or "cocked_die" in feats or "d8_dice" in feats
    use_coins = game in ("seven_pennies", "tko", "pennywise") or not use_dice or rng.random() < 0.4
    die_colour = rng.choice(list(textures.DIE_COLOURS))
    pips = rng.choice(textures.PIP_STYLES)
    die_size = rng.choice([12.0, 14.0, 16.0, 16.0, 19.0])
    # Ordinary objects, lying flat in random zones.
    if use_coins:
        for _ in range(rng.randint(3, 11)):
            spec = random_coin(rng, rng.choice(coin_kinds), oid())
            x, y = placer.free_spot(footprint(spec["kind"], spec["style"]), rng.choice(zone_ids))
            things.append(flat(spec, x, y, rng.uniform(0, 360)))
    if use_dice:
        kind = "d8" if "d8_dice" in feats else "d6"
        count = rng.randint(2, 7) + (10 if "crowded_dice" in feats else 0)
        for _ in range(count):
            col = die_colour if rng.random() < 0.7 else rng.choice(list(textures.DIE_COLOURS))
            spec = random_die(rng, kind, oid(), col, pips, die_size if kind == "d6" else rng.choice([15.0, 17.0]))
            x, y = placer.free_spot(footprint(kind, spec["style"]), rng.choice(zone_ids))
            things.append(flat(spec, x, y, rng.uniform(0, 360)))
    main_zone = "theatre" if "theatre" in zones else zone_ids[len(zone_ids) // 2]
    if "touching_coins" in feats or "overlapping_coins" in feats or "leaning_coin" in feats:
        a = random_coin(rng, rng.choice(coin_kinds), oid())
        b = random_coin(rng, "penny", oid())
        ra, rb = footprint(a["kind"], a["style"]), footprint(b["kind"], b["style"])
        x, y = placer.free_spot(ra + rb + 2, main_zone)
        d = rng.uniform(0, 2 * math.pi)
        things.append(flat(a, x, y, rng.uniform(0, 360)))
        if "overlapping_coins" in feats:
            off = rng.uniform(0.45, 0.85) * (ra + rb) / 2
            things.append(flat(b, x + off * math.cos(d), y + off * math.sin(d), rng.uniform(0, 360), base=float(a["style"]["thickness"])))
            things[-1] = place_tilted(things[-1], math.degrees(math.atan2(float(a["style"]["thickness"]), 2 * rb)), math.degrees(d) + 90)
        elif "leaning_coin" in feats:
            # b rests with one edge on the cloth and the other on a's rim: tilted towards a.
            dist = ra + rb * 0.75
            bx, by = x + dist * math.cos(d), y + dist * math.sin(d)
            tb = flat(b, bx, by, rng.uniform(0, 360))
            tilt = math.degrees(math.asin(min(0.9, (float(a["style"]["thickness"]) + 1.0) / (rb * 1.1)))) + rng.uniform(6, 14)
            things.append(place_tilted(tb, tilt, math.degrees(d) + 90))
            things[-1].flags.add("cocked")
        else:
            things.append(flat(b, x + (ra + rb) * math.cos(d), y + (ra + rb) * math.sin(d), rng.uniform(0, 360)))
    if "on_edge_coin" in feats:
        spec = random_coin(rng, rng.choice(["penny", "nickel", "quarter"]), oid())
        x, y = placer.free_spot(footprint(spec["kind"], spec["style"]), main_zone)
        th = flat(spec, x, y, 0.0)
        th = place_tilted(th, rng.uniform(80, 90), rng.uniform(0, 360))
        th.flags.add("on_edge")
        things.append(th)
    if "touching_dice" in feats or "cocked_die" in feats:
        kind = "d6"
        a = random_die(rng, kind, oid(), die_colour, pips, die_size)
        b = random_die(rng, kind, oid(), die_colour, pips, die_size)
        x, y = placer.free_spot(die_size * 1.8, main_zone)
        yaw = rng.uniform(0, 90)
        d = math.radians(yaw)
        things.append(flat(a, x, y, yaw))
        if "cocked_die" in feats:
            # b leans on a: one bottom edge on the cloth, the face towards a propped on a's top edge.
            gap = die_size * rng.uniform(0.95, 1.05)
            tb = flat(b, x + gap * math.cos(d), y + gap * math.sin(d), yaw)
            things.append(place_tilted(tb, rng.uniform(18, 32), yaw + 90))
            things[-1].pos[:2] += np.array([math.cos(d), math.sin(d)]) * die_size * 0.18
            things[-1].flags.add("cocked")
        else:
            things.append(flat(b, x + die_size * math.cos(d), y + die_size * math.sin(d), yaw + rng.uniform(-8, 8)))
    if "outside_zone" in feats:
        spec = random_coin(rng, rng.choice(coin_kinds), oid()) if rng.random() < 0.5 else random_die(rng, "d6", oid(), die_colour, pips, die_size)
        x, y = placer.outside_spot(footprint(spec["kind"], spec["style"]))
        things.append(flat(spec, x, y, rng.uniform(0, 360)))
    if "motion" in feats:
        for _ in range(rng.randint(1, 4)):
            spec = random_coin(rng, "penny", oid()) if rng.random() < 0.5 else random_die(rng, "d6", oid(), die_colour, pips, die_size)
            x, y = placer.free_spot(footprint(spec["kind"], spec["style"]) + 6, main_zone)
            th = flat(spec, x, y, rng.uniform(0, 360))
            th.rot = rot_z(rng.uniform(0, 360)) @ rot_x(rng.uniform(0, 360)) @ th.rot
            th.pos[2] = -rng.uniform(8, 50)
            th.flags.add("moving")
            ang = rng.uniform(0, 2 * math.pi)
            speed = rng.uniform(12, 40)
            th.velocity = (speed * math.cos(ang), speed * math.sin(ang))
            things.append(th)
    for th in things:
        th.value = th.top_value()
    hand = None
    if "hand" in feats:
        tip = (rng.uniform(120, TABLE_W - 120), rng.uniform(120, TABLE_H - 120))
        hand = make_hand(tip, rng.choice([90, 270, 0, 180]) + rng.uniform(-30, 30), rng.uniform(25, 90), rng.choice(SKINS), rng.random())
    tilt = rng.uniform(0, 15) if rng.random() < 0.7 else rng.uniform(0, 3)
    tilt_dir, roll = rng.uniform(0, 360), rng.uniform(-4, 4)
    k1 = rng.uniform(-0.12, 0.06) if "distortion" in feats else 0.0
    coverage = rng.uniform(0.86, 1.0)
    offset = (rng.uniform(-15, 15), rng.uniform(-12, 12))
    while True:
        # Widen the view until every object (and the markers) lies inside the picture.
        cam = make_camera(TABLE_W, TABLE_H, tilt=tilt, tilt_dir=tilt_dir, roll=roll, k1=k1, coverage=coverage, offset=offset)
        pts = [t.world_vertices() for t in things] + [np.array([[0, 0, 0], [TABLE_W, 0, 0], [TABLE_W, TABLE_H, 0], [0, TABLE_H, 0]], float)]
        px = cam.project(np.concatenate(pts))
        if (px[:, 0].min() >= 2 and px[:, 1].min() >= 2 and px[:, 0].max() <= cam.width - 3 and px[:, 1].max() <= cam.height - 3) or coverage < 0.5:
            break
        coverage *= 0.96
    titles = {z: z.split(":")[-1] for z in zones}
    cloth = rng.choice(list(textures.CLOTHS))
    tape = rng.choice(["white", "white", "yellow", "black"])
    if tape == "black" and cloth in ("black_felt", "blue_felt", "red_cloth"):
        tape = "white"  # nobody marks a dark cloth with black tape
    return Scene(
        name=f"{split}_{index:04d}",
        game=game,
        zones=zones,
        cloth=cloth,
        tape=tape,
        markers="no_markers" not in feats and rng.random() < 0.92,
        things=things,
        camera=cam,
        lighting=random_lighting(rng, "harsh_light" in feats or rng.random() < 0.25),
        effects=random_effects(rng),
        seed=rng.randrange(2**31),
        hand=hand,
        zone_titles=titles,
    )
