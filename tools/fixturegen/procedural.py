"""The procedural renderer: 3-D polygons and textured faces drawn with OpenCV, in painter's order.

Every face of every object is a true perspective projection of the shared geometry (coins are
cylinders, d6 cubes, d8 octahedra); faces are textured through a homography, shaded with the
scene's key light (per pixel from the coin relief), and objects cast shadows on the cloth
along the light. The hand is a set of shaded ellipsoids. Camera effects come afterwards
(:mod:`tools.fixturegen.camera_fx`).
"""

from __future__ import annotations

import functools

import cv2
import numpy as np

from tools.fixturegen import textures
from tools.fixturegen.geometry import COIN_SIZES, Thing, d6_normals, d8_circumradius, d8_normals
from tools.fixturegen.scene import PLANE_MARGIN, PLANE_PX_PER_MM, Scene, hand_points, plane_image, plane_to_table


def _unit(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v)


class Canvas:
    """An image being painted (BGR float 0..1) with an optional alpha layer."""

    def __init__(self, img: np.ndarray, with_alpha: bool = False) -> None:
        self.img = img
        self.alpha = np.zeros(img.shape[:2], np.float32) if with_alpha else None

    def paste(self, tex: np.ndarray, mask: np.ndarray, h: np.ndarray) -> None:
        """Warp ``tex`` (with ``mask``) by homography ``h`` onto the canvas, clipped to its bbox."""
        hh, ww = self.img.shape[:2]
        th, tw = tex.shape[:2]
        corners = cv2.perspectiveTransform(np.array([[[0, 0], [tw, 0], [tw, th], [0, th]]], np.float32), h)[0]
        x0, y0 = np.floor(corners.min(axis=0)).astype(int)
        x1, y1 = np.ceil(corners.max(axis=0)).astype(int)
        x0, y0 = max(0, x0), max(0, y0)
        x1, y1 = min(ww, x1 + 1), min(hh, y1 + 1)
        if x1 <= x0 or y1 <= y0:
            return
        shift = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], float)
        hr = shift @ h
        size = (x1 - x0, y1 - y0)
        warped = cv2.warpPerspective(tex, hr, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
        a = cv2.warpPerspective(mask, hr, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
        roi = self.img[y0:y1, x0:x1]
        roi[:] = roi * (1 - a[:, :, None]) + warped * a[:, :, None]
        if self.alpha is not None:
            ar = self.alpha[y0:y1, x0:x1]
            ar[:] = ar + a * (1 - ar)

    def fill(self, poly: np.ndarray, colour: np.ndarray) -> None:
        """Fill a polygon (pixel coords) with a flat colour, anti-aliased by supersampling."""
        hh, ww = self.img.shape[:2]
        x0, y0 = np.floor(poly.min(axis=0)).astype(int) - 1
        x1, y1 = np.ceil(poly.max(axis=0)).astype(int) + 2
        x0, y0 = max(0, x0), max(0, y0)
        x1, y1 = min(ww, x1), min(hh, y1)
        if x1 <= x0 or y1 <= y0:
            return
        m = np.zeros((y1 - y0, x1 - x0), np.uint8)
        pts = np.round((poly - [x0, y0]) * 16).astype(np.int32)
        cv2.fillPoly(m, [pts], 255, cv2.LINE_AA, 4)
        a = m.astype(np.float32) / 255
        roi = self.img[y0:y1, x0:x1]
        roi[:] = roi * (1 - a[:, :, None]) + colour[None, None, :] * a[:, :, None]
        if self.alpha is not None:
            ar = self.alpha[y0:y1, x0:x1]
            ar[:] = ar + a * (1 - ar)


def _light(scene: Scene) -> np.ndarray:
    return _unit(np.array(scene.lighting.direction, float))


def _shade(scene: Scene, normal: np.ndarray, point: np.ndarray, shininess: float, spec: float) -> tuple[float, float]:
    """Diffuse and specular factors of a flat face."""
    lt = scene.lighting
    light = _light(scene)
    view = _unit(scene.camera.centre - point)
    diff = max(0.0, float(normal @ light))
    half = _unit(light + view)
    sp = max(0.0, float(normal @ half)) ** shininess * spec
    return lt.ambient + lt.key * diff, sp * lt.key * lt.glare


@functools.lru_cache(maxsize=64)
def _relief_normals(kind: str, face: str, design: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    h, alpha = textures.coin_face(kind, face, design)
    gx = cv2.Sobel(h, cv2.CV_32F, 1, 0, ksize=3) * 1.6
    gy = cv2.Sobel(h, cv2.CV_32F, 0, 1, ksize=3) * 1.6
    return gx, gy, alpha


def _coin_face_tex(scene: Scene, th: Thing, face: str, u: np.ndarray, v: np.ndarray, n: np.ndarray, centre: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Shaded texture of a coin face: per-pixel normals from the relief, Blinn-Phong metal."""
    design = textures.design_for(th.kind, face, th.style.get("design"))
    gx, gy, alpha = _relief_normals(th.kind, face, design)
    lt = scene.lighting
    light = _light(scene)
    view = _unit(scene.camera.centre - centre)
    half = _unit(light + view)
    # world normal per pixel: n - gx*u - gy*v (relief rising towards the viewer)
    nl = n @ light - gx * (u @ light) - gy * (v @ light)
    nh = n @ half - gx * (u @ half) - gy * (v @ half)
    norm = np.sqrt(1 + gx * gx + gy * gy)
    nl = np.clip(nl / norm, 0, 1)
    nh = np.clip(nh / norm, 0, 1)
    metal = np.array(textures.METALS[th.style["metal"]], np.float32)
    wear = th.style.get("wear", 0.0)
    diff = lt.ambient + lt.key * nl
    spec = (nh ** 40) * lt.key * lt.glare * 1.6 + (nh ** 6) * lt.key * 0.25
    tint = np.array(lt.tint, np.float32)
    tex = metal[None, None, :] * (diff * (1 - wear * 0.4))[:, :, None] * tint + spec[:, :, None] * (0.6 * metal + 0.4) * tint
    return tex.astype(np.float32), alpha


def _draw_coin(canvas: Canvas, scene: Scene, th: Thing) -> None:
    cam = scene.camera
    r = th.size / 2
    half = float(th.style["thickness"]) / 2
    rot, pos = th.rot, th.pos
    ang = np.linspace(0, 2 * np.pi, 40, endpoint=False)
    ring = np.stack([r * np.cos(ang), r * np.sin(ang), np.zeros_like(ang)], 1)
    top = (ring + [0, 0, half]) @ rot.T + pos
    bot = (ring - [0, 0, half]) @ rot.T + pos
    ptop = cam.project(top, distort=False)
    pbot = cam.project(bot, distort=False)
    metal = np.array(textures.METALS[th.style["metal"]], np.float32)
    tint = np.array(scene.lighting.tint, np.float32)
    # The rim: reeded or smooth edge strips, back faces culled.
    for i in range(len(ang)):
        j = (i + 1) % len(ang)
        mid_ang = (ang[i] + ang[j]) / 2 if j else (ang[i] + 2 * np.pi) / 2
        nrm = rot @ np.array([np.cos(mid_ang), np.sin(mid_ang), 0.0])
        ctr = (top[i] + bot[j]) / 2
        if nrm @ (cam.centre - ctr) <= 0:
            continue
        d, s = _shade(scene, nrm, ctr, 20, 0.8)
        col = np.clip(metal * d * 0.8 * tint + s * 0.5, 0, 1.5)
        canvas.fill(np.array([ptop[i], ptop[j], pbot[j], pbot[i]]), col)
    # The face towards the camera.
    for face, sign in (("heads", 1.0), ("tails", -1.0)):
        n = rot @ np.array([0, 0, sign])
        fc = pos + n * half
        if n @ (cam.centre - fc) <= 0:
            continue
        u = rot @ np.array([1.0, 0, 0])
        v = rot @ np.array([0, -1.0, 0]) if sign > 0 else rot @ np.array([0, 1.0, 0])
        tex, alpha = _coin_face_tex(scene, th, face, u, v, n, fc)
        s = tex.shape[0]
        corners_w = np.array([fc + (-r) * u + (-r) * v, fc + r * u - r * v, fc + r * u + r * v, fc - r * u + r * v])
        img_pts = cam.project(corners_w, distort=False).astype(np.float32)
        hmat = cv2.getPerspectiveTransform(np.array([[0, 0], [s, 0], [s, s], [0, s]], np.float32), img_pts)
        canvas.paste(tex, alpha, hmat)


D6_UV = {  # for each face normal (local), the texture u axis (local)
    (1, 0, 0): (0, 1, 0), (-1, 0, 0): (0, -1, 0), (0, 1, 0): (-1, 0, 0),
    (0, -1, 0): (1, 0, 0), (0, 0, 1): (1, 0, 0), (0, 0, -1): (-1, 0, 0),
}


def _draw_d6(canvas: Canvas, scene: Scene, th: Thing) -> None:
    cam = scene.camera
    h = th.size / 2
    for value, n_local in d6_normals().items():
        n = th.rot @ n_local
        fc = th.pos + n * h
        if n @ (cam.centre - fc) <= 0:
            continue
        u = th.rot @ np.array(D6_UV[tuple(int(x) for x in n_local)], float)
        v = np.cross(u, n)
        d, s = _shade(scene, n, fc, 30, 0.35)
        tint = np.array(scene.lighting.tint, np.float32)
        tex = textures.die_face("d6", value, th.style["colour"], th.style["pips"]) * d * tint + s
        size = tex.shape[0]
        corners_w = np.array([fc - h * u - h * v, fc + h * u - h * v, fc + h * u + h * v, fc - h * u + h * v])
        img_pts = cam.project(corners_w, distort=False).astype(np.float32)
        hmat = cv2.getPerspectiveTransform(np.array([[0, 0], [size, 0], [size, size], [0, size]], np.float32), img_pts)
        canvas.paste(tex.astype(np.float32), _rounded_mask(size), hmat)


@functools.lru_cache(maxsize=4)
def _rounded_mask(size: int) -> np.ndarray:
    m = np.zeros((size, size), np.float32)
    r = size // 9
    cv2.rectangle(m, (r, 0), (size - r, size), 1.0, -1)
    cv2.rectangle(m, (0, r), (size, size - r), 1.0, -1)
    for cx in (r, size - r):
        for cy in (r, size - r):
            cv2.circle(m, (cx, cy), r, 1.0, -1, cv2.LINE_AA)
    return m


@functools.lru_cache(maxsize=4)
def _triangle_mask(size: int) -> np.ndarray:
    m = np.zeros((size, size), np.float32)
    tri = np.array([[size / 2, 0], [size, size * 0.866], [0, size * 0.866]]) * 8
    cv2.fillPoly(m, [tri.astype(np.int32)], 1.0, cv2.LINE_AA, 3)
    return m


def _draw_d8(canvas: Canvas, scene: Scene, th: Thing) -> None:
    cam = scene.camera
    a = d8_circumradius(th.size)
    for value, n_local in d8_normals().items():
        sx, sy, sz = np.sign(n_local)
        verts_local = np.array([[sx * a, 0, 0], [0, sy * a, 0], [0, 0, sz * a]])
        verts = verts_local @ th.rot.T + th.pos
        n = th.rot @ n_local
        fc = verts.mean(axis=0)
        if n @ (cam.centre - fc) <= 0:
            continue
        # Order the triangle so it is counter-clockwise seen from outside, apex first.
        if np.cross(verts[1] - verts[0], verts[2] - verts[0]) @ n < 0:
            verts = verts[[0, 2, 1]]
        d, s = _shade(scene, n, fc, 30, 0.35)
        tint = np.array(scene.lighting.tint, np.float32)
        tex = textures.die_face("d8", value, th.style["colour"], th.style["pips"]) * d * tint + s
        size = tex.shape[0]
        src = np.array([[size / 2, 0], [0, size * 0.866], [size, size * 0.866]], np.float32)
        dst = cam.project(verts, distort=False).astype(np.float32)
        aff = cv2.getAffineTransform(src, dst)
        hmat = np.vstack([aff, [0, 0, 1]])
        canvas.paste(tex.astype(np.float32), _triangle_mask(size), hmat)


def draw_thing(canvas: Canvas, scene: Scene, th: Thing) -> None:
    """Draw one object with all its visible faces."""
    if th.kind in COIN_SIZES:
        _draw_coin(canvas, scene, th)
    elif th.kind == "d6":
        _draw_d6(canvas, scene, th)
    elif th.kind == "d8":
        _draw_d8(canvas, scene, th)
    else:
        raise ValueError(f"cannot draw object kind {th.kind!r}")


def _shadow_polys(scene: Scene) -> list[tuple[np.ndarray, float]]:
    """Shadow outlines on the cloth (table mm) with the caster's height (for softness)."""
    light = _light(scene)
    out = []
    casters: list[np.ndarray] = [th.world_vertices() for th in scene.things if "moving" not in th.flags or -th.pos[2] < 40]
    for th in scene.things:
        if "moving" in th.flags and -th.pos[2] >= 40:
            casters.append(th.world_vertices())
    if scene.hand is not None:
        casters.extend(hand_points(scene.hand))
    for pts in casters:
        t = pts[:, 2] / light[2]
        sh = pts[:, :2] - light[None, :2] * t[:, None]
        hull = cv2.convexHull(sh.astype(np.float32)).reshape(-1, 2)
        out.append((hull, float(-pts[:, 2].mean())))
    return out


def render_plane(scene: Scene, plane: np.ndarray | None = None) -> np.ndarray:
    """The lit cloth with shadows, warped into the (undistorted) camera image."""
    cam = scene.camera
    lt = scene.lighting
    base = plane if plane is not None else plane_image(scene)
    s = PLANE_PX_PER_MM
    hp, wp = base.shape[:2]
    small = 4  # the light field is smooth: compute it at a quarter of the plane resolution
    shadow = np.zeros((hp // small, wp // small), np.float32)
    contact = np.zeros_like(shadow)
    for hull, height in _shadow_polys(scene):
        pts = ((hull + PLANE_MARGIN) * s / small * 16).astype(np.int32)
        layer = np.zeros_like(shadow)
        cv2.fillPoly(layer, [pts], 1.0, cv2.LINE_AA, 4)
        blur = 0.5 + (lt.softness * 6 + 0.4) * (1 + height / 25) * s / small
        layer = cv2.GaussianBlur(layer, (0, 0), blur)
        shadow = np.maximum(shadow, layer * min(1.0, 0.95 - lt.softness * 0.4 - min(0.4, height / 400)))
        if height < 30:
            layer2 = np.zeros_like(shadow)
            cv2.fillPoly(layer2, [pts], 1.0, cv2.LINE_AA, 4)
            contact = np.maximum(contact, cv2.GaussianBlur(layer2, (0, 0), 1.5))
    light = _light(scene)
    yy, xx = np.mgrid[0:hp // small, 0:wp // small].astype(np.float32)
    xmm = xx * small / s - PLANE_MARGIN
    ymm = yy * small / s - PLANE_MARGIN
    sx, sy = lt.spot
    dist2 = ((xmm - sx) ** 2 + (ymm - sy) ** 2) / (800.0**2)
    key = lt.key * max(0.0, float(-light[2])) * np.clip(1 - lt.falloff * dist2, 0.2, 1)
    illum = lt.ambient * (1 - 0.35 * contact) + key * (1 - shadow)
    illum = cv2.resize(illum, (wp, hp), interpolation=cv2.INTER_LINEAR)
    lit = base * illum[:, :, None] * np.array(lt.tint, np.float32)[None, None, :]
    h_img = cam.table_to_image() @ plane_to_table()
    return cv2.warpPerspective(lit.astype(np.float32), h_img, (cam.width, cam.height), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def _draw_hand(canvas: Canvas, scene: Scene) -> None:
    assert scene.hand is not None
    cam = scene.camera
    skin = np.array(scene.hand.skin, np.float32) * np.array(scene.lighting.tint, np.float32)
    light = _light(scene)
    # far parts first (the arm), then palm, fingers, thumb
    for pts in sorted(hand_points(scene.hand), key=lambda p: -float(np.linalg.norm(p.mean(0) - cam.centre))):
        px = cam.project(pts, distort=False)
        hull = cv2.convexHull(px.astype(np.float32)).reshape(-1, 2)
        hh, ww = canvas.img.shape[:2]
        x0, y0 = np.maximum(np.floor(hull.min(0)).astype(int) - 2, 0)
        x1, y1 = np.minimum(np.ceil(hull.max(0)).astype(int) + 3, [ww, hh])
        if x1 <= x0 or y1 <= y0:
            continue
        m = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.fillPoly(m, [np.round((hull - [x0, y0]) * 16).astype(np.int32)], 255, cv2.LINE_AA, 4)
        dist = cv2.distanceTransform((m > 127).astype(np.uint8), cv2.DIST_L2, 3)
        dist = np.sqrt(dist / max(1.0, float(dist.max())))
        # brighter on the side facing the light (its image direction)
        lx, ly = light[0], light[1]
        yy, xx = np.mgrid[0:m.shape[0], 0:m.shape[1]].astype(np.float32)
        grad = ((xx - xx.mean()) * lx + (yy - yy.mean()) * ly) / max(m.shape)
        shade = (0.45 + 0.55 * dist) * (scene.lighting.ambient + scene.lighting.key * 0.8) * (1 + 0.5 * grad)
        col = skin[None, None, :] * shade[:, :, None]
        a = (m.astype(np.float32) / 255)[:, :, None]
        roi = canvas.img[y0:y1, x0:x1]
        roi[:] = roi * (1 - a) + col * a


def render(scene: Scene, plane: np.ndarray | None = None) -> np.ndarray:
    """The undistorted, effect-free picture of ``scene`` (BGR float, about 0..1)."""
    cam = scene.camera
    img = render_plane(scene, plane)
    canvas = Canvas(img)
    still = [t for t in scene.things if "moving" not in t.flags]
    moving = [t for t in scene.things if "moving" in t.flags]
    for th in sorted(still, key=lambda t: -float(np.linalg.norm(t.pos - cam.centre))):
        draw_thing(canvas, scene, th)
    if moving:
        layer = Canvas(np.zeros_like(img), with_alpha=True)
        for th in sorted(moving, key=lambda t: -float(np.linalg.norm(t.pos - cam.centre))):
            draw_thing(layer, scene, th)
        assert layer.alpha is not None
        # Motion blur: a line kernel along the mean image-space motion of the moving objects.
        vel = np.mean([t.velocity for t in moving], axis=0)
        p0 = cam.project(np.array([moving[0].pos]), distort=False)[0]
        p1 = cam.project(np.array([moving[0].pos + [vel[0], vel[1], 0]]), distort=False)[0]
        d = p1 - p0
        length = max(1, int(np.hypot(*d)))
        k = np.zeros((2 * length + 1, 2 * length + 1), np.float32)
        cv2.line(k, (length - int(d[0] / 2), length - int(d[1] / 2)), (length + int(d[0] / 2), length + int(d[1] / 2)), 1.0, 1)
        k /= k.sum()
        premult = layer.img * layer.alpha[:, :, None]
        premult = cv2.filter2D(premult, -1, k)
        alpha = cv2.filter2D(layer.alpha, -1, k)
        canvas.img = canvas.img * (1 - alpha[:, :, None]) + premult
    if scene.hand is not None:
        _draw_hand(canvas, scene)
    return canvas.img
