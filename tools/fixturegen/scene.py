"""A table scene: layout (zones, markers, cloth), objects, hand, lights, camera, camera effects.

Both renderers draw a :class:`Scene`; :func:`frame_labels` computes its exact labels from the
same geometry, so a label never depends on which renderer drew the picture.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from tools.fixturegen import textures
from tools.fixturegen.geometry import (
    COIN_SIZES,
    Camera,
    Thing,
    point_in_polygon,
    rest_height,
    resting_rotation,
    rot_x,
    rot_z,
)

TABLE_W = 640.0  # the marked table area, mm
TABLE_H = 480.0
MARKER_MM = 40.0  # printed ArUco marker side, mm (black square; the paper adds a white margin)
MARKER_INSET = 12.0  # from the table edge to the marker's outer corner, mm
PLANE_PX_PER_MM = 2.0
PLANE_MARGIN = 200.0  # cloth drawn beyond the table area on every side, mm

Poly = list[tuple[float, float]]


def rect(x0: float, y0: float, x1: float, y1: float) -> Poly:
    """A rectangle's corners, clockwise from top-left."""
    return [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]


def layout(game: str, players: list[str]) -> dict[str, Poly]:
    """Zone outlines (table mm) for a game's table.

    ``seven_pennies`` (also T.K.O. and dice): ``balcony`` along the top, ``theatre`` in the
    middle, one ``gathered:<name>`` per player along the bottom (T.K.O. adds ``nickels:<name>``).
    ``sevens``: ``theatre`` and ``aside``. ``pennywise``: ``centre`` and ``stash:<name>``.
    ``flip``: ``middle`` and ``area:<name>``.

    :raises ValueError: for an unknown game or a player count the layout has no room for.
    """
    x0, x1 = 64.0, TABLE_W - 64.0
    zones: dict[str, Poly] = {}
    if game in ("seven_pennies", "tko", "seven_dice"):
        if not 2 <= len(players) <= 4:
            raise ValueError(f"the Seven Pennies layout seats 2 to 4 players, got {len(players)}")
        zones["balcony"] = rect(x0, 16, x1, 118)
        zones["theatre"] = rect(x0, 130, x1, 340)
        width = (x1 - x0 - 10 * (len(players) - 1)) / len(players)
        for i, name in enumerate(players):
            a = x0 + i * (width + 10)
            if game == "tko":
                zones[f"gathered:{name}"] = rect(a, 352, a + width - 58, 464)
                zones[f"nickels:{name}"] = rect(a + width - 52, 352, a + width, 464)
            else:
                zones[f"gathered:{name}"] = rect(a, 352, a + width, 464)
    elif game == "sevens":
        zones["theatre"] = rect(x0, 16, 440, 464)
        zones["aside"] = rect(452, 16, x1, 464)
    elif game == "pennywise":
        if len(players) != 2:
            raise ValueError("the Pennywise layout seats 2 players")
        zones["stash:" + players[1]] = rect(x0, 16, x1, 150)
        zones["centre"] = rect(150, 162, 490, 318)
        zones["stash:" + players[0]] = rect(x0, 330, x1, 464)
    elif game == "flip":
        if len(players) != 2:
            raise ValueError("FLIP is a two-player game")
        zones["area:" + players[1]] = rect(x0, 16, x1, 150)
        zones["middle"] = rect(150, 162, 490, 318)
        zones["area:" + players[0]] = rect(x0, 330, x1, 464)
    else:
        raise ValueError(f"no table layout for game {game!r}")
    return zones


def marker_corners() -> dict[int, Poly]:
    """ArUco ids 0-3 at the table corners, clockwise from top-left; each marker's corners in
    OpenCV's order (its own top-left, top-right, bottom-right, bottom-left), in table mm."""
    a, m = MARKER_INSET, MARKER_MM
    origins = {0: (a, a), 1: (TABLE_W - a - m, a), 2: (TABLE_W - a - m, TABLE_H - a - m), 3: (a, TABLE_H - a - m)}
    return {i: rect(x, y, x + m, y + m) for i, (x, y) in origins.items()}


@dataclass
class Hand:
    """A hand reaching in: ellipsoids (centre mm, radii mm, yaw degrees) and a skin tone."""

    parts: list[tuple[tuple[float, float, float], tuple[float, float, float], float]]
    skin: tuple[float, float, float]

    def to_json(self) -> dict[str, Any]:
        """Plain form."""
        return {"parts": [[list(c), list(r), y] for c, r, y in self.parts], "skin": list(self.skin)}


def make_hand(tip: tuple[float, float], angle: float, height: float, skin: tuple[float, float, float], open_: float = 0.5) -> Hand:
    """A hand whose fingertips are near ``tip`` (table mm), the arm coming from direction
    ``angle`` (degrees; 90 = from the bottom edge), ``height`` mm above the cloth."""
    a = math.radians(angle)
    d = np.array([math.cos(a), math.sin(a)])  # from fingertips towards the wrist
    n = np.array([-d[1], d[0]])
    tip_v = np.array(tip, float)
    parts: list[tuple[tuple[float, float, float], tuple[float, float, float], float]] = []
    yaw = math.degrees(math.atan2(d[1], d[0]))
    palm = tip_v + d * 95
    parts.append(((float(palm[0]), float(palm[1]), -height - 10), (50.0, 42.0, 16.0), yaw))
    arm = tip_v + d * 260
    parts.append(((float(arm[0]), float(arm[1]), -height - 40), (140.0, 36.0, 30.0), yaw))
    spread = 14 + 10 * open_
    for k, length in enumerate((44.0, 52.0, 50.0, 44.0)):
        off = (k - 1.5) * spread
        c = tip_v + d * (48 - length / 2 + 10 + abs(k - 1.5) * 6) + n * off
        parts.append(((float(c[0]), float(c[1]), -height), (length / 2 + 8, 8.5, 8.0), yaw))
    thumb = tip_v + d * 80 + n * 55
    parts.append(((float(thumb[0]), float(thumb[1]), -height - 4), (30.0, 10.0, 9.0), yaw - 40))
    return Hand(parts, skin)


def hand_points(hand: Hand) -> list[np.ndarray]:
    """Surface samples (world) of each ellipsoid of the hand."""
    u = np.linspace(0, 2 * np.pi, 24)
    v = np.linspace(0.05, np.pi - 0.05, 12)
    uu, vv = np.meshgrid(u, v)
    unit = np.stack([np.cos(uu) * np.sin(vv), np.sin(uu) * np.sin(vv), np.cos(vv)], -1).reshape(-1, 3)
    out = []
    for centre, radii, yaw in hand.parts:
        pts = unit * np.array(radii)
        pts = pts @ rot_z(yaw).T + np.array(centre)
        out.append(pts)
    return out


@dataclass
class Lighting:
    """Key light direction (towards the light, world), softness 0..1, strengths and tint."""

    direction: tuple[float, float, float]
    softness: float
    key: float
    ambient: float
    tint: tuple[float, float, float]
    glare: float
    falloff: float
    spot: tuple[float, float]

    def to_json(self) -> dict[str, Any]:
        """Plain form."""
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in self.__dict__.items()}


@dataclass
class Effects:
    """Camera effects applied after rendering (OpenCV, both renderers)."""

    noise: float = 0.01
    blur: float = 0.0
    vignette: float = 0.2
    jpeg: int = 85
    white_balance: tuple[float, float, float] = (1.0, 1.0, 1.0)
    gain: float = 1.0

    def to_json(self) -> dict[str, Any]:
        """Plain form."""
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in self.__dict__.items()}


@dataclass
class Scene:
    """Everything a renderer needs, and everything a label says."""

    name: str
    game: str
    zones: dict[str, Poly]
    cloth: str
    tape: str
    markers: bool
    things: list[Thing]
    camera: Camera
    lighting: Lighting
    effects: Effects
    seed: int
    hand: Hand | None = None
    zone_titles: dict[str, str] = field(default_factory=dict)
    decor: list[dict[str, Any]] = field(default_factory=list)

    def settled(self) -> bool:
        """Nothing moves and no hand is in view."""
        return self.hand is None and not any("moving" in t.flags for t in self.things)


def place_flat(oid: str, kind: str, value: str | int, style: dict[str, Any], x: float, y: float, yaw: float, base: float = 0.0) -> Thing:
    """An object lying flat at (x, y) mm with ``value`` up, its bottom ``base`` mm above the cloth."""
    rot = resting_rotation(kind, value, yaw)
    z = -(rest_height(kind, style) + base)
    return Thing(oid, kind, value, dict(style), rot, np.array([x, y, z]))


def place_tilted(thing: Thing, tilt: float, axis_deg: float) -> Thing:
    """Tilt a flat-lying object by ``tilt`` degrees about a horizontal axis at ``axis_deg``, then
    lower it until its lowest point touches the cloth (a die cocked against something, a coin
    leaning on another)."""
    tilt_rot = rot_z(axis_deg) @ rot_x(tilt) @ rot_z(-axis_deg)
    thing.rot = tilt_rot @ thing.rot
    lowest = float(thing.world_vertices()[:, 2].max())  # z grows into the table
    thing.pos = thing.pos - np.array([0.0, 0.0, lowest])
    return thing


def coin_style(kind: str, face: str, design: str, metal: str) -> dict[str, Any]:
    """Style of a coin: true size, design on the face up, metal."""
    d, th = COIN_SIZES[kind]
    return {"size": d, "thickness": th, "design": design, "metal": metal}


def die_style(kind: str, colour: str, pips: str, size: float) -> dict[str, Any]:
    """Style of a die: body colour, pip style, size (edge) in mm."""
    return {"size": size, "colour": colour, "pips": pips}


# ---------------------------------------------------------------- labels


def zone_of(x: float, y: float, zones: dict[str, Poly]) -> str | None:
    """The zone whose outline contains (x, y) mm, or ``None`` outside every zone."""
    for zid, poly in zones.items():
        if point_in_polygon((x, y), poly):
            return zid
    return None


def _outline(cam: Camera, pts: np.ndarray) -> np.ndarray:
    px = cam.project(pts).astype(np.float32)
    return cv2.convexHull(px).reshape(-1, 2)


def frame_labels(scene: Scene, image_name: str, renderer: str, t: float | None = None) -> dict[str, Any]:
    """The exact labels of one frame of ``scene``.

    Per object: kind, value, zone, bbox and outline in pixels, position in table mm, flags,
    tilt and visible fraction; per frame: homography image->table mm (undistorted pixels),
    camera, zone and marker outlines in pixels and mm, hand_in_view, settled, renderer.
    """
    cam = scene.camera
    w, h = cam.width, cam.height
    scale = 0.5
    # Painter's order (far to near) for the visibility estimate, hand last.
    order = sorted(range(len(scene.things)), key=lambda i: -float(np.linalg.norm(scene.things[i].pos - cam.centre)))
    hulls = {i: _outline(cam, scene.things[i].world_vertices()) for i in range(len(scene.things))}
    owner = np.full((int(h * scale), int(w * scale)), -1, np.int32)
    area = {}
    for i in order:
        m = np.zeros_like(owner, np.uint8)
        cv2.fillPoly(m, [np.round(hulls[i] * scale).astype(np.int32)], 1)
        area[i] = int(m.sum())
        owner[m > 0] = i
    if scene.hand is not None:
        for pts in hand_points(scene.hand):
            hull = _outline(cam, pts)
            cv2.fillPoly(owner, [np.round(hull * scale).astype(np.int32)], -2)
    objects = []
    for i, th in enumerate(scene.things):
        hull = hulls[i]
        x0, y0 = hull.min(axis=0)
        x1, y1 = hull.max(axis=0)
        visible = float((owner == i).sum()) / max(1, area[i])
        flags = set(th.flags)
        if visible < 0.85:
            flags.add("occluded")
        value = th.value
        obj: dict[str, Any] = {
            "id": th.oid,
            "kind": th.kind,
            "value": value,
            "zone": zone_of(float(th.pos[0]), float(th.pos[1]), scene.zones),
            "bbox": [int(math.floor(x0)), int(math.floor(y0)), int(math.ceil(x1 - math.floor(x0))), int(math.ceil(y1 - math.floor(y0)))],
            "outline": np.round(hull, 1).tolist(),
            "position_mm": [round(float(th.pos[0]), 1), round(float(th.pos[1]), 1)],
            "height_mm": round(float(-th.pos[2]), 2),
            "tilt_deg": round(th.tilt_deg(), 1),
            "visible": round(visible, 3),
            "flags": sorted(flags),
        }
        for key in ("design", "colour", "pips", "metal"):
            if key in th.style:
                obj[key] = th.style[key]
        if th.kind in COIN_SIZES:
            if value in ("heads", "tails"):
                obj["design"] = textures.design_for(th.kind, str(value), th.style.get("design"))
            else:
                obj.pop("design", None)  # on its edge: no face up
        else:
            obj["size_mm"] = th.size
        if "moving" in flags:
            obj["velocity_mm"] = [round(v, 1) for v in th.velocity]
        objects.append(obj)
    zones_px = {}
    for zid, poly in scene.zones.items():
        pts = np.array([[x, y, 0.0] for x, y in poly])
        zones_px[zid] = np.round(cam.project(pts), 1).tolist()
    markers: dict[str, Any] = {}
    if scene.markers:
        for mid, poly in marker_corners().items():
            pts = np.array([[x, y, -0.1] for x, y in poly])
            markers[str(mid)] = {"mm": [list(p) for p in poly], "px": np.round(cam.project(pts), 1).tolist()}
    hand_bbox = None
    if scene.hand is not None:
        allpts = np.concatenate([cam.project(p) for p in hand_points(scene.hand)])
        allpts[:, 0] = np.clip(allpts[:, 0], 0, w - 1)
        allpts[:, 1] = np.clip(allpts[:, 1], 0, h - 1)
        hx0, hy0 = allpts.min(axis=0)
        hx1, hy1 = allpts.max(axis=0)
        hand_bbox = [int(hx0), int(hy0), int(hx1 - hx0), int(hy1 - hy0)]
    label: dict[str, Any] = {
        "image": image_name,
        "source": f"rendered:{renderer} seed {scene.seed}",
        "renderer": renderer,
        "size": [w, h],
        "objects": objects,
        "homography": np.round(cam.image_to_table(), 9).tolist(),
        "camera": cam.to_json(),
        "zones_mm": {z: [list(p) for p in poly] for z, poly in scene.zones.items()},
        "zones_px": zones_px,
        "markers": markers,
        "hand_in_view": scene.hand is not None,
        "hand_bbox": hand_bbox,
        "settled": scene.settled(),
        "cloth": scene.cloth,
        "lighting": scene.lighting.to_json(),
        "effects": scene.effects.to_json(),
    }
    if t is not None:
        label["t"] = round(t, 3)
    return label


# ---------------------------------------------------------------- the table plane


def plane_image(scene: Scene) -> np.ndarray:
    """The cloth with zones, names and markers, seen from straight above (BGR float 0..1).

    Pixel (u, v) is table point (u / PLANE_PX_PER_MM - PLANE_MARGIN, ...): see :func:`plane_to_table`.
    """
    s = PLANE_PX_PER_MM
    wpx = int((TABLE_W + 2 * PLANE_MARGIN) * s)
    hpx = int((TABLE_H + 2 * PLANE_MARGIN) * s)
    rng = np.random.default_rng(scene.seed % (2**32))
    img = textures.cloth_texture(scene.cloth, wpx, hpx, rng)

    def to_px(x: float, y: float) -> tuple[int, int]:
        return int(round((x + PLANE_MARGIN) * s * 8)), int(round((y + PLANE_MARGIN) * s * 8))

    # Beyond the table area: a wooden table top.
    wood = np.array((0.18, 0.32, 0.45), np.float32)
    mask = np.ones((hpx, wpx), np.uint8)
    edge = 30.0
    p0, p1 = to_px(-edge, -edge), to_px(TABLE_W + edge, TABLE_H + edge)
    cv2.rectangle(mask, (p0[0] >> 3, p0[1] >> 3), (p1[0] >> 3, p1[1] >> 3), 0, -1)
    grain = (np.sin(np.arange(hpx, dtype=np.float32)[:, None] * 0.21 + rng.normal(0, 0.3, (hpx, 1)).astype(np.float32)) * 0.06 + 1)
    img[mask > 0] = (wood[None, None, :] * grain[:, :, None] * np.ones((1, wpx, 1), np.float32))[mask > 0]
    tape = textures.zone_colour({"tape": scene.tape})
    for zid, poly in scene.zones.items():
        pts = np.array([to_px(x, y) for x, y in poly], np.int32)
        cv2.polylines(img, [pts], True, tape, int(5 * s), cv2.LINE_AA, 3)
        title = scene.zone_titles.get(zid, zid.split(":")[-1]).upper()
        x0 = min(p[0] for p in poly) + 6
        y1 = max(p[1] for p in poly) - 6
        textures.put_text(img, title, (int((x0 + PLANE_MARGIN) * s), int((y1 + PLANE_MARGIN) * s)), 0.9, tape, 2)
    if scene.markers:
        for mid, poly in marker_corners().items():
            x0, y0 = poly[0]
            margin = 5.0
            a0, b0 = int((x0 - margin + PLANE_MARGIN) * s), int((y0 - margin + PLANE_MARGIN) * s)
            side = int((MARKER_MM + 2 * margin) * s)
            img[b0:b0 + side, a0:a0 + side] = 0.95  # white paper
            mpx = int(MARKER_MM * s)
            marker = textures.aruco_marker(mid, mpx).astype(np.float32) / 255.0 * 0.93 + 0.04
            m0, n0 = int((x0 + PLANE_MARGIN) * s), int((y0 + PLANE_MARGIN) * s)
            img[n0:n0 + mpx, m0:m0 + mpx] = marker[:, :, None]
    for item in scene.decor:
        if item["kind"] == "scoresheet":
            x, y, w, h = item["rect"]
            a0, b0 = int((x + PLANE_MARGIN) * s), int((y + PLANE_MARGIN) * s)
            img[b0:b0 + int(h * s), a0:a0 + int(w * s)] = (0.85, 0.93, 0.96)
            for k in range(int(h // 8)):
                yy = b0 + int(k * 8 * s)
                cv2.line(img, (a0, yy), (a0 + int(w * s), yy), (0.7, 0.5, 0.4), 1)
    return img


def plane_to_table() -> np.ndarray:
    """Homography from plane-image pixels to table mm."""
    s = PLANE_PX_PER_MM
    return np.array([[1 / s, 0, -PLANE_MARGIN], [0, 1 / s, -PLANE_MARGIN], [0, 0, 1]], dtype=float)
