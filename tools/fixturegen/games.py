"""Whole games as frame sequences: every coin and die moves between zones as players move them.

Each game is a short script over a :class:`Director`, which keeps the physical table (objects
with stable ids and poses), renders a frame for every moment (a hand reaching in, objects in
the air with motion blur, the settled table) and records the moments of tablet decisions and
chance outcomes, and the rulings the rules (RULES.md, cited per step) make at each.
"""

from __future__ import annotations

import math
import random
from pathlib import Path
from typing import Any

import numpy as np

from tools.fixturegen import textures
from tools.fixturegen.geometry import Thing, make_camera, rot_x, rot_z
from tools.fixturegen.labels import FORMAT, write_json
from tools.fixturegen.render import render_frame
from tools.fixturegen.scene import TABLE_H, TABLE_W, Effects, Lighting, Scene, layout, make_hand, plane_image
from tools.fixturegen.scenes import Placer, flat, footprint, random_coin, random_die

SKIN = (0.52, 0.62, 0.82)


class Director:
    """The table of one game, frame by frame."""

    def __init__(self, name: str, game: str, players: list[str], seed: int, cloth: str, tape: str, zone_game: str | None = None,
                 tilt: float = 6.0, harsh: bool = False) -> None:
        self.name = name
        self.game = game
        self.players = players
        self.rng = random.Random(f"{seed}:{name}")
        self.zones = layout(zone_game or game, players)
        self.things: dict[str, Thing] = {}
        self.frames: list[dict[str, Any]] = []
        self.images: list[bytes] = []
        self.decisions: list[dict[str, Any]] = []
        self.chance: list[dict[str, Any]] = []
        self.expected: list[dict[str, Any]] = []
        self.t = 0.0
        self.seconds: list[float] = []
        rng = self.rng
        tilt_dir, roll, coverage = rng.uniform(0, 360), rng.uniform(-2, 2), 0.95
        corners = np.array([[0, 0, -20], [TABLE_W, 0, -20], [TABLE_W, TABLE_H, -20], [0, TABLE_H, -20]], float)
        while True:
            # The whole table in view (objects never leave it), 20 mm up for dice and hands.
            self.camera = make_camera(TABLE_W, TABLE_H, tilt=tilt, tilt_dir=tilt_dir, roll=roll, coverage=coverage)
            px = self.camera.project(corners)
            if px.min() >= 2 and px[:, 0].max() <= 1277 and px[:, 1].max() <= 957:
                break
            coverage *= 0.97
        elev = 48 if harsh else 68
        az = rng.uniform(0, 360)
        self.lighting = Lighting(
            direction=(math.cos(math.radians(elev)) * math.cos(math.radians(az)), math.cos(math.radians(elev)) * math.sin(math.radians(az)), -math.sin(math.radians(elev))),
            softness=0.1 if harsh else 0.6, key=0.85 if harsh else 0.6, ambient=0.25 if harsh else 0.38,
            tint=(0.97, 1.0, 1.04), glare=1.6 if harsh else 0.8, falloff=0.4, spot=(TABLE_W * 0.4, TABLE_H * 0.5),
        )
        self.cloth, self.tape = cloth, tape
        self.scene_seed = rng.randrange(2**31)
        self.plane = plane_image(self._scene([], None, 0))
        self.placers: dict[str, Placer] = {}
        self.where: dict[str, str] = {}
        self.in_hand: list[str] = []

    # ------------------------------------------------------------ objects and zones

    def _scene(self, things: list[Thing], hand: Any, k: int) -> Scene:
        return Scene(
            name=f"{self.name}_{k:04d}", game=self.game, zones=self.zones, cloth=self.cloth, tape=self.tape, markers=True,
            things=things, camera=self.camera, lighting=self.lighting,
            effects=Effects(noise=0.007, blur=0.0, vignette=0.18, jpeg=76, white_balance=(1.0, 1.0, 1.0), gain=1.0),
            seed=self.scene_seed, hand=hand, zone_titles={z: z.split(":")[-1] for z in self.zones},
        )

    def _placer(self, zone: str) -> Placer:
        placer = Placer(self.rng, self.zones)
        placer.taken = [(float(t.pos[0]), float(t.pos[1]), footprint(t.kind, t.style)) for oid, t in self.things.items()
                        if oid not in self.in_hand]
        return placer

    def add(self, spec: dict[str, Any], zone: str) -> None:
        """Put a new object flat in ``zone``."""
        x, y = self._placer(zone).free_spot(footprint(spec["kind"], spec["style"]), zone, margin=6)
        self.things[spec["oid"]] = flat(spec, x, y, self.rng.uniform(0, 360))
        self.where[spec["oid"]] = zone

    def _set(self, oid: str, value: Any, zone: str) -> None:
        th = self.things[oid]
        spec = {"oid": oid, "kind": th.kind, "value": value, "style": dict(th.style)}
        if th.kind == "penny" and value != th.value:
            spec["style"]["design"] = self.rng.choice(textures.COIN_DESIGNS["penny"][value]) if value == "tails" else "lincoln"
        elif th.kind in ("nickel", "dime", "quarter") and value != th.value:
            spec["style"]["design"] = textures.COIN_DESIGNS[th.kind][value][0]
        del self.things[oid]
        placer = self._placer(zone)
        x, y = placer.free_spot(footprint(th.kind, th.style), zone, margin=6)
        self.things[oid] = flat(spec, x, y, self.rng.uniform(0, 360))
        self.where[oid] = zone

    def ids_in(self, zone: str) -> list[str]:
        """Ids of the objects lying in ``zone`` now."""
        return [oid for oid, z in self.where.items() if z == zone and oid in self.things]

    # ------------------------------------------------------------ frames

    def snap(self, dt: float, hand: Any = None, flying: list[Thing] | None = None, event: str = "") -> int:
        """Render the table now (after ``dt`` seconds), optionally with a hand and objects in the air."""
        self.t += dt
        k = len(self.frames)
        visible = [t for oid, t in self.things.items() if oid not in self.in_hand]
        scene = self._scene(visible + (flying or []), hand, k)
        name = f"{k:04d}.jpg"
        data, label, secs = render_frame(scene, name, "procedural", Path("/nonexistent"), plane=self.plane, t=self.t)
        label["index"] = k
        label["in_hand"] = sorted(self.in_hand)
        label["event"] = event
        label["format"] = FORMAT
        self.frames.append(label)
        self.images.append(data)
        self.seconds.append(secs)
        return k

    def _hand_at(self, x: float, y: float, height: float = 45.0, from_: str | None = None) -> Any:
        player_side = {"bottom": 90.0, "top": 270.0, "right": 0.0, "left": 180.0}
        side = from_ or ("bottom" if y > TABLE_H * 0.45 else "top")
        return make_hand((x, y), player_side[side] + self.rng.uniform(-20, 20), height, SKIN, self.rng.random())

    def _centre(self, ids: list[str]) -> tuple[float, float]:
        pts = np.array([self.things[i].pos[:2] for i in ids])
        return float(pts[:, 0].mean()), float(pts[:, 1].mean())

    def move(self, ids: list[str], zone: str, event: str, values: dict[str, Any] | None = None, side: str | None = None) -> int:
        """A hand moves ``ids`` into ``zone`` (faces kept unless ``values`` says otherwise):
        one frame with the hand over them, one settled frame after."""
        if ids:
            x, y = self._centre(ids)
            self.snap(0.6, hand=self._hand_at(x, y, 40, side), event=f"hand: {event}")
            for oid in ids:
                self._set(oid, (values or {}).get(oid, self.things[oid].value), zone)
        return self.snap(0.8, event=f"settled: {event}")

    def remove(self, ids: list[str], event: str) -> int:
        """A hand takes ``ids`` off the table (a nickel paid to the supply)."""
        x, y = self._centre(ids)
        self.snap(0.6, hand=self._hand_at(x, y, 35), event=f"hand: {event}")
        for oid in ids:
            del self.things[oid]
            self.where.pop(oid, None)
        return self.snap(0.8, event=f"settled: {event}")

    def throw(self, ids: list[str], values: dict[str, Any], zone: str, event: str, side: str = "bottom") -> int:
        """Pick ``ids`` up (hand in view, objects in the hand), toss them into ``zone`` (objects in
        the air with motion blur), and let them settle showing ``values``. Returns the settled frame."""
        x, y = self._centre(ids)
        self.snap(0.7, hand=self._hand_at(x, y, 40), event=f"hand: picking up for {event}")
        self.in_hand = list(ids)
        zx = [p[0] for p in self.zones[zone]]
        zy = [p[1] for p in self.zones[zone]]
        cx, cy = (min(zx) + max(zx)) / 2, (min(zy) + max(zy)) / 2
        self.snap(0.8, hand=self._hand_at(cx, cy, 70, side), event=f"hand: about to {event}")
        flying = self._in_flight(ids, zone, side)
        self.in_hand = []
        hidden = {oid: self.things.pop(oid) for oid in ids}
        self.snap(0.15, flying=flying, event=f"in the air: {event}")
        self.things.update(hidden)
        for oid in ids:
            self._set(oid, values[oid], zone)
        self.snap(0.5, event=f"landing: {event}")  # just landed: settled only after a still second
        return self.snap(1.0, event=f"settled: {event}")

    def _in_flight(self, ids: list[str], zone: str, side: str) -> list[Thing]:
        """``ids`` in the air: every object tumbling above ``zone``, blurred along its flight."""
        zx = [p[0] for p in self.zones[zone]]
        zy = [p[1] for p in self.zones[zone]]
        flying = []
        for oid in ids:
            th = self.things[oid]
            spec = {"oid": oid, "kind": th.kind, "value": th.value, "style": th.style}
            fx = self.rng.uniform(min(zx) + 30, max(zx) - 30)
            fy = self.rng.uniform(min(zy) + 30, max(zy) - 30)
            f = flat(spec, fx, fy, self.rng.uniform(0, 360))
            f.rot = rot_z(self.rng.uniform(0, 360)) @ rot_x(self.rng.uniform(20, 160)) @ f.rot
            f.pos[2] = -self.rng.uniform(10, 60)
            f.flags.add("moving")
            # about 1 m/s over a 1/40 s exposure
            f.velocity = (self.rng.uniform(-10, 10), -25.0 if side == "bottom" else 25.0)
            f.value = f.top_value()
            flying.append(f)
        return flying

    def throw_together(self, groups: list[tuple[list[str], dict[str, Any], str, str]], event: str) -> int:
        """Several players throw at once, each group ``(ids, values, zone, side)`` from the hand
        (``in_hand``) into its zone: the first thrower's hand about to throw, everything in the
        air, landing, settled. Returns the settled frame."""
        ids0, _, zone0, side0 = groups[0]
        zx = [p[0] for p in self.zones[zone0]]
        zy = [p[1] for p in self.zones[zone0]]
        self.snap(0.8, hand=self._hand_at((min(zx) + max(zx)) / 2, (min(zy) + max(zy)) / 2, 70, side0),
                  event=f"hand: about to {event}")
        self.in_hand = []
        for ids, values, zone, _ in groups:
            # Where each object will land, clear of the others.
            for oid in ids:
                self._set(oid, values[oid], zone)
        flying = [f for ids, _, zone, side in groups for f in self._in_flight(ids, zone, side)]
        hidden = {oid: self.things.pop(oid) for ids, _, _, _ in groups for oid in ids}
        self.snap(0.15, flying=flying, event=f"in the air: {event}")
        self.things.update(hidden)
        self.snap(0.5, event=f"landing: {event}")
        return self.snap(1.0, event=f"settled: {event}")

    # ------------------------------------------------------------ records

    def decide(self, player: str, action: str, rule: str, frame: int | None = None, **extra: Any) -> None:
        """A tablet decision made after ``frame`` (default: the last frame)."""
        k = len(self.frames) - 1 if frame is None else frame
        self.decisions.append({"frame": k, "t": round(self.frames[k]["t"] + 0.4, 3), "player": player, "action": action, "rule": rule, **extra})

    def outcome(self, frame: int, action: str, rule: str, **extra: Any) -> None:
        """The chance outcome the camera reads on the settled ``frame``."""
        self.chance.append({"frame": frame, "t": self.frames[frame]["t"], "action": action, "rule": rule, **extra})

    def expect(self, frame: int, rule: str, **state: Any) -> None:
        """What the referee must rule, and the state it must hold, once ``frame`` is seen."""
        self.expected.append({"frame": frame, "rule": rule, **state})

    def write(self, out: Path, meta: dict[str, Any]) -> None:
        """Write frames and ``game.json`` into ``out/<name>/``."""
        folder = out / self.name
        folder.mkdir(parents=True, exist_ok=True)
        for old in folder.glob("*.jpg"):
            old.unlink()
        for k, data in enumerate(self.images):
            (folder / f"{k:04d}.jpg").write_bytes(data)
        game = {"format": FORMAT, "name": self.name, "game": self.game.replace("_", "-"), "players": self.players, **meta,
                "chance": self.chance, "decisions": self.decisions, "expected": self.expected,
                "render_seconds_mean": round(float(np.mean(self.seconds)), 2), "frames": self.frames}
        write_json(folder / "game.json", game)
        print(f"game {self.name}: {len(self.frames)} frames, {np.mean(self.seconds):.1f} s/frame", flush=True)


def _pennies(d: Director, n: int, zone: str) -> list[str]:
    ids = []
    for i in range(1, n + 1):
        spec = random_coin(d.rng, "penny", f"p{i}", "heads" if i % 2 else "tails")
        d.add(spec, zone)
        ids.append(spec["oid"])
    return ids


def _faces(ids: list[str], h: int) -> dict[str, str]:
    return {oid: ("heads" if k < h else "tails") for k, oid in enumerate(ids)}


def _penny_turn(d: Director, player: str, h: int, t: int, rule: str) -> tuple[int, list[str], list[str]]:
    """Throw every Balcony penny (SP-3.1) landing ``h`` heads, ``t`` tails; returns the settled
    frame and the heads and tails ids."""
    ids = d.ids_in("balcony")
    assert len(ids) == h + t, (player, len(ids), h, t)
    faces = _faces(ids, h)
    k = d.throw(ids, faces, "theatre", f"{player} throws {h}H {t}T")
    d.outcome(k, f"throw {h}H {t}T", rule, player=player)
    heads = [i for i in ids if faces[i] == "heads"]
    tails = [i for i in ids if faces[i] == "tails"]
    return k, heads, tails


def _booth(d: Director, heads: list[str], tails: list[str]) -> tuple[list[str], int]:
    p = min(len(heads), len(tails))
    pair_ids = heads[:p] + tails[:p]
    k = d.move(pair_ids, "balcony", f"Booth: {p} head-tail pairs to the Balcony (SP-3.2)") if p else len(d.frames) - 1
    return heads[p:] + tails[p:], k


def game_sp_t1(seed: int) -> tuple[Director, dict[str, Any]]:
    """SP-T1: Jess and Kevin, the GATHER line to the end of round 1 (Jess 3, Kevin 4)."""
    d = Director("sp_t1", "seven_pennies", ["Jess", "Kevin"], seed, "green_felt", "white")
    _pennies(d, 7, "balcony")
    k0 = d.snap(0.0, event="settled: setup, 7 pennies in the Balcony (SP-1.4)")
    d.expect(k0, "SP-1.4", b=7, scores={"Jess": 0, "Kevin": 0}, next="Jess")
    k, hs, ts = _penny_turn(d, "Jess", 3, 4, "SP-3.1")
    d.expect(k, "SP-3.2", booth_pairs=3, forced="move 3 heads and 3 tails to the Balcony")
    left, k = _booth(d, hs, ts)
    d.expect(k, "SP-3.4", b=6, theatre="1T", legal=["gather", "cancel"])
    d.decide("Jess", "gather", "SP-3.4")
    k = d.move(left, "gathered:Jess", "Jess Gathers 1T (SP-3.5)")
    d.expect(k, "SP-3.5", holdings={"Jess": "1T", "Kevin": ""}, b=6, next="Kevin")
    k, hs, ts = _penny_turn(d, "Kevin", 5, 1, "SP-3.1")
    d.expect(k, "SP-3.2", booth_pairs=1, forced="move 1 head and 1 tail to the Balcony")
    left, k = _booth(d, hs, ts)
    d.expect(k, "SP-3.4", b=2, theatre="4H", legal=["gather", "cancel"])
    d.decide("Kevin", "gather", "SP-3.4")
    k = d.move(left, "gathered:Kevin", "Kevin Gathers 4H (SP-3.5)")
    d.expect(k, "SP-3.5", holdings={"Jess": "1T", "Kevin": "4H"}, b=2, next="Jess")
    k, hs, ts = _penny_turn(d, "Jess", 0, 2, "SP-3.1")
    d.expect(k, "SP-3.4", booth_pairs=0, b=0, theatre="2T", legal=["gather", "cancel"])
    d.decide("Jess", "gather", "SP-3.4")
    k = d.move(hs + ts, "gathered:Jess", "Jess Gathers 2T: the Balcony is empty, the round ends (SP-4.1)")
    d.expect(k, "SP-4.2", round_end=True, scores={"Jess": 3, "Kevin": 4}, forced="return every Gathered penny to the Balcony")
    k = d.move(d.ids_in("gathered:Jess") + d.ids_in("gathered:Kevin"), "balcony", "scoring: all pennies back to the Balcony (SP-4.2)")
    d.expect(k, "SP-4.3", b=7, scores={"Jess": 3, "Kevin": 4}, next_round_first="Kevin")
    return d, {"rules": ["SP-T1"], "config": {"players": ["Jess", "Kevin"], "first": "Jess"},
               "final": {"scores": {"Jess": 3, "Kevin": 4}, "round_end": True, "next_round_first": "Kevin"}}


def game_sp_t2(seed: int) -> tuple[Director, dict[str, Any]]:
    """SP-T2: three players, T.K.O. on, default options: the whole first round."""
    players = ["A", "B", "C"]
    d = Director("sp_t2_tko", "seven_pennies", players, seed, "blue_felt", "yellow", zone_game="tko", tilt=9)
    _pennies(d, 9, "balcony")
    nick = 0
    for p in players:
        for _ in range(3):
            nick += 1
            spec = random_coin(d.rng, "nickel", f"n{nick}")
            d.add(spec, f"nickels:{p}")
    k0 = d.snap(0.0, event="settled: setup, 9 pennies in the Balcony, 3 nickels each (SPT-1)")
    d.expect(k0, "SPT-1", b=9, nickels={"A": 3, "B": 3, "C": 3}, next="A")

    def turn(player: str, h: int, t: int) -> tuple[list[str], int]:
        k, hs, ts = _penny_turn(d, player, h, t, "SP-3.1")
        d.expect(k, "SP-3.2", booth_pairs=min(h, t))
        return _booth(d, hs, ts)

    left, k = turn("A", 4, 5)
    d.decide("A", "gather", "SP-3.4")
    k = d.move(left, "gathered:A", "A Gathers 1T")
    d.expect(k, "SP-3.5", holdings={"A": "1T"}, b=8)
    left, k = turn("B", 5, 3)
    d.decide("B", "gather", "SP-3.4")
    k = d.move(left, "gathered:B", "B Gathers 2H")
    d.expect(k, "SP-3.5", holdings={"B": "2H"}, b=6)
    left, k = turn("C", 4, 2)
    d.decide("C", "gather", "SP-3.4")
    k = d.move(left, "gathered:C", "C Gathers 2H")
    d.expect(k, "SP-3.5", holdings={"C": "2H"}, b=4)
    left, k = turn("A", 1, 3)
    d.expect(k, "SP-3.4", theatre="2T", b=2, legal=["gather", "cancel"])
    d.decide("A", "cancel", "SP-3.6")
    d.move(left, "balcony", "A Cancels 2T to the Balcony (SP-3.6.1)")
    k = d.move(d.ids_in("gathered:B") + d.ids_in("gathered:C"), "balcony", "penalty tie, all pay: B and C return 2H each (SP-3.6.4, A10)")
    d.expect(k, "SPT-3.2", forced="B and C each lose a nickel", holdings={"A": "1T", "B": "", "C": ""}, b=8)
    k = d.remove([d.ids_in("nickels:B")[0], d.ids_in("nickels:C")[0]], "B and C pay a nickel each (SPT-3.2)")
    d.expect(k, "SPT-3.2", nickels={"A": 3, "B": 2, "C": 2}, next="B")
    left, k = turn("B", 5, 3)
    d.decide("B", "gather", "SP-3.4")
    k = d.move(left, "gathered:B", "B Gathers 2H")
    d.expect(k, "SP-3.5", holdings={"B": "2H"}, b=6)
    left, k = turn("C", 3, 3)
    d.expect(k, "SPT-3.1", booth_out=True, forced="C loses a nickel", b=6)
    k = d.remove([d.ids_in("nickels:C")[0]], "C booths out and pays a nickel (SPT-3.1)")
    d.expect(k, "SPT-3.1", nickels={"A": 3, "B": 2, "C": 1}, next="A")
    left, k = turn("A", 5, 1)
    d.expect(k, "SP-3.4", theatre="4H", legal=["cancel"], note="A holds tails: Cancel is mandated (A8)")
    d.decide("A", "cancel", "SP-3.4")
    d.move(left, "balcony", "A Cancels 4H (SP-3.6.1)")
    k = d.move(d.ids_in("gathered:A"), "balcony", "A is the only tails holder and pays 1 (SP-3.6.5); no nickel for a self-cancel")
    d.expect(k, "SPT-3.2", holdings={"A": "", "B": "2H", "C": ""}, b=7, nickels={"A": 3, "B": 2, "C": 1}, next="B")
    left, k = turn("B", 7, 0)
    d.expect(k, "SP-3.4", theatre="7H", legal=["gather", "cancel"])
    d.decide("B", "gather", "SP-3.4")
    k = d.move(left, "gathered:B", "B Gathers 7H: clean gather, the round ends (SPT-3.3)")
    d.expect(k, "SPT-3.3", round_end=True, forced="B gains a nickel")
    spec = random_coin(d.rng, "nickel", "n10")
    d.add(spec, "nickels:B")
    d.in_hand = []
    k = d.snap(0.8, hand=d._hand_at(float(d.things["n10"].pos[0]), float(d.things["n10"].pos[1]), 35), event="hand: B takes a nickel from the supply (SPT-3.3)")
    k = d.snap(0.8, event="settled: B's new nickel")
    d.expect(k, "SPT-3.3", nickels={"A": 3, "B": 3, "C": 1}, next_round_first="C")
    k = d.move(d.ids_in("gathered:B"), "balcony", "round end: pennies back to the Balcony (SPT-4)")
    d.expect(k, "SPT-4", b=9)
    return d, {"rules": ["SP-T2"], "config": {"players": players, "first": "A", "spt.enabled": True},
               "final": {"nickels": {"A": 3, "B": 3, "C": 1}, "round_end": True, "next_round_first": "C",
                         "without_tko_round_scores": {"A": 0, "B": 9, "C": 0}}}


def _dice(d: Director, n: int, zone: str, colour: str, pips: str, prefix: str = "d", size: float = 16.0) -> list[str]:
    ids = []
    for i in range(1, n + 1):
        spec = random_die(d.rng, "d6", f"{prefix}{i}", colour, pips, size)
        d.add(spec, zone)
        ids.append(spec["oid"])
    return ids


def game_sp_t4(seed: int) -> tuple[Director, dict[str, Any]]:
    """SP-T4: the dice variant with seven d6 (the GATHER 5, GATHER 3 line)."""
    d = Director("sp_t4_dice", "seven_pennies", ["A", "B"], seed, "grey_cloth", "white", zone_game="seven_dice", tilt=4)
    _dice(d, 7, "balcony", "white", "round")
    k0 = d.snap(0.0, event="settled: setup, 7 dice in the Balcony")
    d.expect(k0, "SPD-1", b=7, next="A")

    def throw(player: str, faces: list[int]) -> tuple[int, dict[str, int]]:
        ids = d.ids_in("balcony")
        assert len(ids) == len(faces)
        vals = dict(zip(ids, faces))
        k = d.throw(ids, vals, "theatre", f"{player} throws {' '.join(map(str, faces))}")
        d.outcome(k, "throw " + " ".join(map(str, faces)), "SPD-3", player=player)
        return k, vals

    def booth(vals: dict[str, int]) -> dict[str, int]:
        left = dict(vals)
        out: list[str] = []
        for v in range(1, 4):
            a = [i for i, f in left.items() if f == v]
            b = [i for i, f in left.items() if f == 7 - v]
            m = min(len(a), len(b))
            out += a[:m] + b[:m]
            for i in a[:m] + b[:m]:
                del left[i]
        if out:
            d.move(out, "balcony", f"Booth: {len(out) // 2} pairs summing to 7 to the Balcony (SPD-4)")
        return left

    k, vals = throw("A", [1, 6, 2, 3, 3, 5, 4])
    d.expect(k, "SPD-4", booth_pairs=["1-6", "2-5", "3-4"])
    left = booth(vals)
    d.expect(len(d.frames) - 1, "SPD-5", theatre=[3], b=6, legal=["gather 3", "cancel 3"])
    d.decide("A", "gather 3", "SPD-5")
    k = d.move(list(left), "gathered:A", "A Gathers the 3")
    d.expect(k, "SPD-5", holdings={"A": "1x3"}, b=6, next="B")
    k, vals = throw("B", [4, 4, 5, 5, 1, 6])
    d.expect(k, "SPD-4", booth_pairs=["1-6"])
    left = booth(vals)
    d.expect(len(d.frames) - 1, "SPD-5", theatre=[4, 4, 5, 5], b=2, legal=["gather 4", "gather 5", "cancel 4", "cancel 5"])
    d.decide("B", "gather 5", "SPD-5")
    d.move([i for i, f in left.items() if f == 5], "gathered:B", "B Gathers the two 5s")
    k = d.move([i for i, f in left.items() if f != 5], "balcony", "leftovers 4, 4 to the Balcony (SPD-5.1)")
    d.expect(k, "SPD-5.1", holdings={"A": "1x3", "B": "2x5"}, b=4, next="A")
    k, vals = throw("A", [2, 2, 3, 6])
    d.expect(k, "SPD-4", booth_pairs=[])
    d.expect(k, "SPD-5", theatre=[2, 2, 3, 6], b=0, legal=["gather 3", "cancel 2", "cancel 3", "cancel 6"])
    d.decide("A", "gather 3", "SPD-5")
    d.move([i for i, f in vals.items() if f == 3], "gathered:A", "A Gathers the 3")
    k = d.move([i for i, f in vals.items() if f != 3], "balcony", "leftovers 2, 2, 6 to the Balcony (SPD-5.1)")
    d.expect(k, "SPD-5.1", holdings={"A": "2x3", "B": "2x5"}, b=3, next="B")
    return d, {"rules": ["SP-T4"], "config": {"players": ["A", "B"], "first": "A", "spd.enabled": True, "spd.faces": 6},
               "final": {"holdings": {"A": "2x3", "B": "2x5"}, "b": 3}}


def game_sevens(seed: int) -> tuple[Director, dict[str, Any]]:
    """Sevens, two players, one round: order roll, A plays SV-T1 (12), B plays SV-T3 (0)."""
    d = Director("sevens_sv_t1_t3", "sevens", ["A", "B"], seed, "red_cloth", "white", tilt=11, harsh=True)
    ids = _dice(d, 6, "aside", "ivory", "large", size=16.0)
    k0 = d.snap(0.0, event="settled: six dice aside")
    d.expect(k0, "SV-2.1", rounds=1)

    def do_roll(player: str, which: list[str], faces: list[int], rule: str) -> int:
        k = d.throw(which, dict(zip(which, faces)), "theatre", f"{player} rolls {' '.join(map(str, faces))}", side="bottom" if player == "A" else "top")
        d.outcome(k, "roll " + " ".join(map(str, sorted(faces))), rule, player=player, faces=faces)
        return k

    k = do_roll("A", ids, [6, 5, 4, 4, 3, 3], "SV-2.2")
    d.expect(k, "SV-2.2", order_roll={"A": 25})
    d.move(ids, "aside", "A's order-roll dice back aside")
    k = do_roll("B", ids, [6, 5, 3, 2, 2, 2], "SV-2.2")
    d.expect(k, "SV-2.2", order_roll={"A": 25, "B": 20}, first="A")
    d.move(ids, "aside", "B's order-roll dice back aside")

    def remove(vals: dict[str, int]) -> dict[str, int]:
        left = dict(vals)
        out: list[str] = []
        for v in range(1, 4):
            a = [i for i, f in left.items() if f == v]
            b = [i for i, f in left.items() if f == 7 - v]
            m = min(len(a), len(b))
            for i in a[:m] + b[:m]:
                out.append(i)
                del left[i]
        if out:
            d.move(out, "aside", f"remove {len(out) // 2} pairs summing to 7 (SV-4.2)")
        return left

    # A: SV-T1
    k = do_roll("A", ids, [1, 2, 4, 6, 3, 3], "SV-4.1")
    d.expect(k, "SV-4.2", removed=["1-6", "4-3"], left=[2, 3], sum=5, legal=["keep", "reroll"])
    left = remove(dict(zip(ids, [1, 2, 4, 6, 3, 3])))
    d.decide("A", "reroll", "SV-4.4")
    k = do_roll("A", list(left), [1, 1], "SV-4.4")
    d.expect(k, "SV-4.2", removed=[], left=[1, 1], sum=2, legal=["keep", "reroll"])
    d.decide("A", "reroll", "SV-4.4")
    k = do_roll("A", list(left), [6, 6], "SV-4.4")
    d.expect(k, "SV-4.5", removed=[], left=[6, 6], forced="keep", turn_score=12, totals={"A": 12, "B": 0}, next="B")
    d.move(list(left), "aside", "A's turn over: dice aside")
    # B: SV-T3
    k = do_roll("B", ids, [2, 2, 2, 5, 6, 6], "SV-4.1")
    d.expect(k, "SV-4.2", removed=["2-5"], left=[2, 2, 6, 6], sum=16, legal=["keep", "reroll"])
    left = remove(dict(zip(ids, [2, 2, 2, 5, 6, 6])))
    d.decide("B", "reroll", "SV-4.4")
    k = do_roll("B", list(left), [4, 4, 4, 3], "SV-4.4")
    d.expect(k, "SV-4.2", removed=["4-3"], left=[4, 4], sum=8, legal=["keep", "reroll"])
    left = remove(dict(zip(left, [4, 4, 4, 3])))
    d.decide("B", "reroll", "SV-4.4")
    k = do_roll("B", list(left), [5, 2], "SV-4.4")
    d.expect(k, "SV-4.3", removed=["5-2"], left=[], turn_score=0)
    k = d.move(list(left), "aside", "the 5-2 is removed: B scores 0 (SV-4.3)")
    d.expect(k, "SV-5.1", totals={"A": 12, "B": 0}, game_over=True, winners=["A"])
    return d, {"rules": ["SV-T1", "SV-T3", "SV-2.2"], "config": {"players": ["A", "B"], "sv.rounds": 1},
               "final": {"totals": {"A": 12, "B": 0}, "winners": ["A"], "game_over": True}}


FL_T1_NAMES = {"1": "a1", "2": "a2", "3": "a3", "4": "a4", "5": "a5", "6": "b4", "7": "b5", "8": "b3", "9": "b1", "10": "b2"}
"""The engine's id of each FL-T1 die: the roll numbers each player's dice by ascending face
(referee/games/flip.py), A's 1 2 3 4 6 as dice 1-5, B's 1 2 5 6 6 as dice 6-10 (b1 before b2)."""


def game_flip(seed: int) -> tuple[Director, dict[str, Any]]:
    """FLIP: the FL-T1 round in the engine's ids (one roll of ten dice, flips, taps, a change),
    played on to the end of the round (A taps B's last die and scores 11, as in FL-T2) and the
    dice going back to their owners (FL-3.1)."""
    d = Director("flip_fl_t1", "flip", ["A", "B"], seed, "beige_linen", "black", tilt=7)
    a_ids = [str(i) for i in range(1, 6)]
    b_ids = [str(i) for i in range(6, 11)]
    for oid in a_ids:
        d.add(random_die(d.rng, "d6", oid, "red", "round", 16.0), "area:A")
    for oid in b_ids:
        d.add(random_die(d.rng, "d6", oid, "black", "square", 16.0), "area:B")
    # Before the first roll the referee knows no faces: the players hold their dice until they roll.
    d.in_hand = a_ids + b_ids
    k = d.snap(0.0, event="settled: empty areas, each player holds five dice")
    d.expect(k, "FL-3.2", waiting="roll")
    a_faces = dict(zip(a_ids, [1, 2, 3, 4, 6]))
    b_faces = dict(zip(b_ids, [1, 2, 5, 6, 6]))
    k = d.throw_together([(a_ids, a_faces, "area:A", "bottom"), (b_ids, b_faces, "area:B", "top")], "A and B roll five dice each")
    d.outcome(k, "roll 1 2 3 4 6 1 2 5 6 6", "FL-3.2", dice={**a_faces, **b_faces},
              fl_t1={FL_T1_NAMES[i]: f for i, f in {**a_faces, **b_faces}.items()})
    d.expect(k, "FL-3.3", totals={"A": 16, "B": 20}, first="A")

    def decide(player: str, action: str, rule: str) -> None:
        verb, *dice = action.split()
        d.decide(player, action, rule, fl_t1=" ".join([verb] + [FL_T1_NAMES.get(w, w) for w in dice]))

    def flip(player: str, oid: str, new: int) -> int:
        decide(player, f"flip {oid}", "FL-4.1")
        th = d.things[oid]
        x, y = float(th.pos[0]), float(th.pos[1])
        d.snap(0.6, hand=d._hand_at(x, y, 35), event=f"hand: {player} flips die {oid}")
        spec = {"oid": oid, "kind": th.kind, "value": new, "style": th.style}
        d.things[oid] = flat(spec, x, y, d.rng.uniform(0, 360))
        return d.snap(0.8, event=f"settled: die {oid} now shows {new}")

    def tap(player: str, oid: str, owner_side: str) -> int:
        decide(player, f"tap {oid}", "FL-4.2")
        return d.move([oid], "middle", f"die {oid} goes to the middle (FL-4.2)", side=owner_side)

    # FL-T1, step by step (RULES.md FL-8), FL-T1's names in the comments.
    k = flip("A", "1", 6)  # a1
    d.expect(k, "FL-4.1", dice={"1": 6}, locks={"A": ["1"]}, next="B")
    k = tap("B", "5", "bottom")  # a5
    d.expect(k, "FL-4.2", middle={"5": 6}, change_options={"A": [[]]})
    decide("A", "take nothing", "FL-4.2")
    k = tap("A", "8", "top")  # b3
    d.expect(k, "FL-4.2", middle={"5": 6, "8": 5}, change_options={"B": [[]]}, locks={"A": []})
    decide("B", "take nothing", "FL-4.2")
    k = flip("B", "6", 6)  # b4
    d.expect(k, "FL-4.1", dice={"6": 6}, locks={"B": ["6"]})
    k = tap("A", "7", "top")  # b5
    d.expect(k, "FL-4.2", middle={"5": 6, "8": 5, "7": 2}, change_options={"B": [[]]})
    decide("B", "take nothing", "FL-4.2")
    k = tap("B", "4", "bottom")  # a4
    d.expect(k, "FL-4.2", middle={"5": 6, "8": 5, "7": 2, "4": 4}, change_options={"A": [[], ["7"]]})
    decide("A", "take 7", "FL-4.2")  # b5
    k = d.move(["7"], "area:A", "A takes die 7 (2 < 4) as change", side="bottom")
    d.expect(k, "FL-4.2", areas={"A": {"1": 6, "2": 2, "3": 3, "7": 2}, "B": {"6": 6, "9": 6, "10": 6}},
             locks={"B": []}, next="A", legal=["flip 1", "flip 2", "flip 3", "flip 7", "tap 6", "tap 9", "tap 10"])
    # On to the end of the round.
    k = tap("A", "6", "top")
    d.expect(k, "FL-4.2", middle={"5": 6, "8": 5, "4": 4, "6": 6}, change_options={"B": [[], ["4"], ["8"]]})
    decide("B", "take nothing", "FL-4.2")
    k = flip("B", "9", 1)
    d.expect(k, "FL-4.1", dice={"9": 1}, locks={"B": ["9"]}, next="A")
    k = tap("A", "10", "top")
    d.expect(k, "FL-4.2", middle={"5": 6, "8": 5, "4": 4, "6": 6, "10": 6})
    decide("B", "take nothing", "FL-4.2")
    d.expect(k, "FL-4.1", legal={"B": ["tap 1", "tap 2", "tap 3", "tap 7"]})  # die 9 is locked: B must tap
    k = tap("B", "7", "bottom")
    d.expect(k, "FL-4.2", change_options={"A": [[]]})  # nothing in the middle is below 2
    decide("A", "take nothing", "FL-4.2")
    k = tap("A", "9", "top")
    d.expect(k, "FL-7.3", change_options={"B": [[]]})  # a tapped 1 never brings change
    decide("B", "take nothing", "FL-5")
    d.expect(k, "FL-5", scores={"A": 11, "B": 0}, round_winner="A")  # A holds 6 + 2 + 3
    # FL-3.1: every die goes back to its owner for round 2.
    d.move(["4", "5"], "area:A", "dice 4 and 5 back to A (FL-3.1)", side="bottom")
    k = d.move(["6", "7", "8", "9", "10"], "area:B", "dice 6-10 back to B (FL-3.1)", side="top")
    d.expect(k, "FL-3.1", round=2, waiting="roll")
    for frame in d.frames:
        for obj in frame["objects"]:
            obj["fl_t1"] = FL_T1_NAMES[obj["id"]]
    final_a = {"1": 6, "2": 2, "3": 3, "4": 4, "5": 6}
    final_b = {"6": 6, "7": 2, "8": 5, "9": 1, "10": 6}
    return d, {"rules": ["FL-T1", "FL-T2", "FL-5", "FL-3.1"], "config": {"players": ["A", "B"]}, "fl_t1_names": FL_T1_NAMES,
               "final": {"scores": {"A": 11, "B": 0}, "round": 2, "areas": {"A": final_a, "B": final_b}, "middle": {}}}


def game_pennywise(seed: int) -> tuple[Director, dict[str, Any]]:
    """Pennywise: the four PW-T3 turns, original coinage (pennies, nickels, dimes, quarters)."""
    d = Director("pennywise_pw_t3", "pennywise", ["A", "B"], seed, "black_felt", "white", tilt=5)
    n = 0
    ids: dict[str, dict[int, list[str]]] = {"A": {}, "B": {}}
    for p in ("A", "B"):
        for kind, cents, count in (("penny", 1, 4), ("nickel", 5, 3), ("dime", 10, 2), ("quarter", 25, 1)):
            for _ in range(count):
                n += 1
                spec = random_coin(d.rng, kind, f"{p.lower()}{kind[0]}{n}")
                d.add(spec, f"stash:{p}")
                ids[p].setdefault(cents, []).append(spec["oid"])
    k = d.snap(0.0, event="settled: two identical stashes of 64 cents")
    d.expect(k, "PW-2", stash={"A": 64, "B": 64}, centre=0, next="A")
    centre: dict[int, list[str]] = {}

    def turn(player: str, put: int, take: int | None, value_after: int, legal: list[list[int]]) -> None:
        coin = ids[player][put].pop()
        k = d.move([coin], "centre", f"{player} puts {put} cents in the centre (PW-4.1)", side="bottom" if player == "A" else "top")
        d.expect(k, "PW-4.2", legal_change=legal)
        if take is None:
            d.decide(player, f"put {put} take nothing", "PW-4.2")
            k = d.snap(0.6, event=f"settled: {player} takes no change")
        else:
            got = centre[take].pop()
            d.decide(player, f"put {put} take {take}", "PW-4.2")
            k = d.move([got], f"stash:{player}", f"{player} takes {take} cents change (PW-4.2)", side="bottom" if player == "A" else "top")
            ids[player].setdefault(take, []).append(got)
        centre.setdefault(put, []).append(coin)
        d.expect(k, "PW-4.2", stash={player: value_after}, centre=sorted(v for v, c in centre.items() for _ in c))

    turn("A", 1, None, 63, [[]])
    turn("B", 5, 1, 60, [[], [1]])
    turn("A", 10, 5, 58, [[], [5]])
    turn("B", 25, 10, 45, [[], [10]])
    return d, {"rules": ["PW-T3"], "config": {"players": ["A", "B"], "first": "A", "pw.coinage": "Original", "pw.change_rule": "original"},
               "final": {"stash_cents": {"A": 58, "B": 45}, "centre": [25]}}


GAMES = {"sp_t1": game_sp_t1, "sp_t2_tko": game_sp_t2, "sp_t4_dice": game_sp_t4, "sevens_sv_t1_t3": game_sevens,
         "flip_fl_t1": game_flip, "pennywise_pw_t3": game_pennywise}
"""Each game's folder under ``fixtures/games`` and the script that renders it."""


def build_games(out: Path, work: Path, seed: int, only: list[str] | None = None) -> None:
    """Render every game (or only the folders named in ``only``) into ``out/<name>/``.

    :raises SystemExit: for a name in ``only`` that is no game.
    """
    unknown = sorted(set(only or ()) - set(GAMES))
    if unknown:
        raise SystemExit(f"no fixture game {', '.join(unknown)}; the games are: {', '.join(GAMES)}")
    for name, make in GAMES.items():
        if only and name not in only:
            continue  # each game has its own seeded rng, so skipping one changes no other
        d, meta = make(seed)
        assert d.name == name, (d.name, name)
        d.write(out, meta)
