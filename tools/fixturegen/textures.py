"""Textures both renderers use: coin faces (albedo + relief), die faces, cloth, zones, markers.

Everything is drawn with OpenCV from a seed, so the same scene gives the same pixels.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import cv2
import numpy as np

from tools.fixturegen.geometry import COIN_SIZES

TEX = 192  # coin / die face texture size in pixels

# Which design each coin face shows (US coins in circulation on a family table).
COIN_DESIGNS: dict[str, dict[str, tuple[str, ...]]] = {
    "penny": {"heads": ("lincoln",), "tails": ("wheat", "memorial", "shield")},
    "nickel": {"heads": ("jefferson",), "tails": ("monticello",)},
    "dime": {"heads": ("roosevelt",), "tails": ("torch",)},
    "quarter": {"heads": ("washington",), "tails": ("eagle",)},
}
COIN_TEXT = {
    "penny": ("LIBERTY", "ONE CENT"),
    "nickel": ("IN GOD WE TRUST", "FIVE CENTS"),
    "dime": ("LIBERTY", "ONE DIME"),
    "quarter": ("LIBERTY", "QUARTER DOLLAR"),
}
# Metal colours (BGR, linear-ish 0..1).
METALS = {
    "copper": (0.32, 0.45, 0.78),
    "dark_copper": (0.20, 0.30, 0.52),
    "bright_copper": (0.40, 0.58, 0.92),
    "nickel": (0.70, 0.70, 0.68),
    "silver": (0.78, 0.78, 0.76),
}

DIE_COLOURS: dict[str, tuple[tuple[float, float, float], tuple[float, float, float]]] = {
    # name: (body BGR, pips BGR), 0..1
    "white": ((0.93, 0.93, 0.92), (0.08, 0.08, 0.08)),
    "ivory": ((0.80, 0.90, 0.95), (0.10, 0.10, 0.35)),
    "red": ((0.12, 0.12, 0.78), (0.95, 0.95, 0.95)),
    "black": ((0.10, 0.10, 0.10), (0.92, 0.92, 0.92)),
    "green": ((0.25, 0.55, 0.15), (0.95, 0.95, 0.95)),
    "blue": ((0.70, 0.35, 0.10), (0.95, 0.95, 0.95)),
    "yellow": ((0.15, 0.80, 0.92), (0.10, 0.10, 0.10)),
}
PIP_STYLES = ("round", "large", "square")

PIP_LAYOUT = {
    1: [(0, 0)],
    2: [(-1, -1), (1, 1)],
    3: [(-1, -1), (0, 0), (1, 1)],
    4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
    5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
    6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)],
}

CLOTHS: dict[str, tuple[float, float, float]] = {
    "green_felt": (0.22, 0.42, 0.12),
    "blue_felt": (0.45, 0.25, 0.10),
    "red_cloth": (0.12, 0.13, 0.45),
    "grey_cloth": (0.42, 0.42, 0.40),
    "beige_linen": (0.55, 0.66, 0.72),
    "black_felt": (0.09, 0.09, 0.10),
}


def put_text(img: np.ndarray, text: str, org: tuple[int, int], scale: float, value: Any, thickness: int, font: int = cv2.FONT_HERSHEY_SIMPLEX) -> None:
    """``cv2.putText`` for float images (OpenCV 5 draws text on 8-bit images only): blends
    ``value`` into ``img`` through an anti-aliased 8-bit text mask."""
    mask = np.zeros(img.shape[:2], np.uint8)
    cv2.putText(mask, text, org, font, scale, 255, thickness, cv2.LINE_AA)
    a = mask.astype(np.float32) / 255
    if img.ndim == 3:
        img[:] = img * (1 - a[:, :, None]) + np.asarray(value, np.float32)[None, None, :] * a[:, :, None]
    else:
        img[:] = img * (1 - a) + float(value) * a


def _curved_text(canvas: np.ndarray, text: str, radius: float, start_deg: float, top: bool, scale: float, value: float) -> None:
    """Draw ``text`` along a circle centred on the canvas (clockwise on top, counter below)."""
    c = canvas.shape[0] / 2
    step = 360 * 0.62 * scale * 22 / (2 * math.pi * radius)
    n = len(text)
    for i, ch in enumerate(text):
        ang = start_deg + (i - (n - 1) / 2) * step * (1 if top else -1)
        a = math.radians(ang)
        cx, cy = c + radius * math.sin(a), c - radius * math.cos(a)
        glyph = np.zeros((40, 40), np.float32)
        put_text(glyph, ch, (10, 30), scale, 1.0, 2)
        rot = ang if top else ang + 180
        m = cv2.getRotationMatrix2D((20, 20), -rot, 1.0)
        glyph = cv2.warpAffine(glyph, m, (40, 40))
        x0, y0 = int(cx - 20), int(cy - 20)
        h, w = canvas.shape
        xs, ys = max(0, x0), max(0, y0)
        xe, ye = min(w, x0 + 40), min(h, y0 + 40)
        if xe > xs and ye > ys:
            sub = glyph[ys - y0:ye - y0, xs - x0:xe - x0]
            canvas[ys:ye, xs:xe] = np.maximum(canvas[ys:ye, xs:xe], sub * value)


def _bust(h: np.ndarray, facing: int, variant: int) -> None:
    """A relief profile bust; ``facing`` +1 right, -1 left; ``variant`` changes the shape."""
    s = h.shape[0]
    c = s / 2
    f = facing
    head = (int(c + f * 0.02 * s), int(c - 0.12 * s))
    axes = (int(0.17 * s + variant * 2), int(0.21 * s))
    cv2.ellipse(h, head, axes, -10 * f, 0, 360, 0.75, -1, cv2.LINE_AA)
    # nose and chin on the facing side
    nose = np.array([[c + f * 0.17 * s, c - 0.14 * s], [c + f * 0.24 * s, c - 0.06 * s], [c + f * 0.15 * s, c - 0.03 * s]], np.int32)
    cv2.fillPoly(h, [nose], 0.7, cv2.LINE_AA)
    neck = np.array([[c - 0.08 * s, c + 0.02 * s], [c + 0.10 * s, c + 0.02 * s], [c + 0.12 * s, c + 0.16 * s], [c - 0.10 * s, c + 0.16 * s]], np.int32)
    cv2.fillPoly(h, [neck], 0.65, cv2.LINE_AA)
    shoulders = np.array([[c - 0.30 * s, c + 0.36 * s], [c - 0.14 * s, c + 0.14 * s], [c + 0.16 * s, c + 0.14 * s], [c + 0.32 * s, c + 0.36 * s]], np.int32)
    cv2.fillPoly(h, [shoulders], 0.6, cv2.LINE_AA)
    # hair / wig strokes and an eye, for texture the reader can key on
    for k in range(5 + variant):
        y = int(c - 0.28 * s + k * 0.035 * s)
        cv2.ellipse(h, (int(c - f * 0.05 * s), y), (int(0.11 * s), int(0.02 * s)), 10 * f, 0, 180, 1.0, 2, cv2.LINE_AA)
    cv2.circle(h, (int(c + f * 0.10 * s), int(c - 0.15 * s)), max(2, s // 60), 0.4, -1, cv2.LINE_AA)


def _reverse(h: np.ndarray, design: str) -> None:
    """Relief of a coin's reverse design."""
    s = h.shape[0]
    c = s / 2
    if design == "wheat":
        for side in (-1, 1):
            x = c + side * 0.27 * s
            cv2.line(h, (int(x), int(c + 0.32 * s)), (int(x + side * 0.02 * s), int(c - 0.30 * s)), 0.7, 3, cv2.LINE_AA)
            for k in range(9):
                y = int(c - 0.28 * s + k * 0.05 * s)
                cv2.ellipse(h, (int(x - side * 0.03 * s), y), (int(0.035 * s), int(0.016 * s)), 40 * side, 0, 360, 0.85, -1, cv2.LINE_AA)
                cv2.ellipse(h, (int(x + side * 0.03 * s), y), (int(0.035 * s), int(0.016 * s)), -40 * side, 0, 360, 0.85, -1, cv2.LINE_AA)
        put_text(h, "ONE", (int(c - 0.14 * s), int(c - 0.06 * s)), s / 420, 1.0, 2)
        put_text(h, "CENT", (int(c - 0.18 * s), int(c + 0.08 * s)), s / 420, 1.0, 2)
    elif design in ("memorial", "monticello"):
        cv2.rectangle(h, (int(c - 0.32 * s), int(c + 0.06 * s)), (int(c + 0.32 * s), int(c + 0.12 * s)), 0.8, -1)
        cols = 12 if design == "memorial" else 4
        for k in range(cols):
            x = int(c - 0.28 * s + k * 0.56 * s / (cols - 1))
            cv2.line(h, (x, int(c - 0.12 * s)), (x, int(c + 0.06 * s)), 0.9, 3 if design == "memorial" else 5, cv2.LINE_AA)
        roof = np.array([[c - 0.34 * s, c - 0.12 * s], [c + 0.34 * s, c - 0.12 * s], [c + 0.34 * s, c - 0.18 * s], [c - 0.34 * s, c - 0.18 * s]], np.int32)
        if design == "monticello":
            roof = np.array([[c - 0.30 * s, c - 0.12 * s], [c + 0.30 * s, c - 0.12 * s], [c, c - 0.24 * s]], np.int32)
            cv2.ellipse(h, (int(c), int(c - 0.24 * s)), (int(0.1 * s), int(0.08 * s)), 0, 180, 360, 0.9, -1, cv2.LINE_AA)
        cv2.fillPoly(h, [roof], 0.85, cv2.LINE_AA)
    elif design == "shield":
        pts = np.array([[c - 0.26 * s, c - 0.26 * s], [c + 0.26 * s, c - 0.26 * s], [c + 0.26 * s, c + 0.05 * s], [c, c + 0.32 * s], [c - 0.26 * s, c + 0.05 * s]], np.int32)
        cv2.fillPoly(h, [pts], 0.6, cv2.LINE_AA)
        cv2.rectangle(h, (int(c - 0.26 * s), int(c - 0.26 * s)), (int(c + 0.26 * s), int(c - 0.14 * s)), 0.9, -1)
        for k in range(13):
            x = int(c - 0.22 * s + k * 0.44 * s / 12)
            cv2.line(h, (x, int(c - 0.12 * s)), (x, int(c + 0.2 * s)), 0.95 if k % 2 else 0.4, 2, cv2.LINE_AA)
        put_text(h, "ONE CENT", (int(c - 0.2 * s), int(c - 0.16 * s)), s / 640, 0.2, 1)
    elif design == "torch":
        cv2.line(h, (int(c), int(c - 0.3 * s)), (int(c), int(c + 0.3 * s)), 0.9, 6, cv2.LINE_AA)
        cv2.ellipse(h, (int(c), int(c - 0.3 * s)), (int(0.05 * s), int(0.08 * s)), 0, 0, 360, 1.0, -1, cv2.LINE_AA)
        for side in (-1, 1):
            for k in range(6):
                y = int(c - 0.15 * s + k * 0.07 * s)
                cv2.ellipse(h, (int(c + side * 0.12 * s), y), (int(0.05 * s), int(0.02 * s)), 30 * side, 0, 360, 0.75, -1, cv2.LINE_AA)
    elif design == "eagle":
        body = np.array([[c - 0.05 * s, c - 0.2 * s], [c + 0.05 * s, c - 0.2 * s], [c + 0.06 * s, c + 0.2 * s], [c - 0.06 * s, c + 0.2 * s]], np.int32)
        cv2.fillPoly(h, [body], 0.9, cv2.LINE_AA)
        for side in (-1, 1):
            wing = np.array([[c, c - 0.1 * s], [c + side * 0.34 * s, c - 0.22 * s], [c + side * 0.30 * s, c + 0.02 * s], [c, c + 0.08 * s]], np.int32)
            cv2.fillPoly(h, [wing], 0.7, cv2.LINE_AA)
            for k in range(5):
                x = int(c + side * (0.08 + k * 0.05) * s)
                cv2.line(h, (x, int(c - 0.14 * s)), (x, int(c + 0.02 * s)), 1.0, 1, cv2.LINE_AA)
        cv2.circle(h, (int(c), int(c - 0.24 * s)), int(0.05 * s), 0.95, -1, cv2.LINE_AA)
    else:
        raise ValueError(f"unknown coin design {design!r}")


def design_for(kind: str, face: str, design: str | None) -> str:
    """``design`` when that face of the coin has it, else the face's first design (a coin whose
    style names the design of its other face)."""
    return design if design in COIN_DESIGNS[kind][face] else COIN_DESIGNS[kind][face][0]


@functools.lru_cache(maxsize=64)
def coin_face(kind: str, face: str, design: str) -> tuple[np.ndarray, np.ndarray]:
    """Relief height (0..1, float32) and alpha mask of one coin face, ``TEX`` pixels square.

    :raises ValueError: for a design the coin does not have.
    """
    if design not in COIN_DESIGNS[kind][face]:
        raise ValueError(f"a {kind} {face} face has no design {design!r}")
    s = TEX
    h = np.zeros((s, s), np.float32)
    c = s / 2
    r = s / 2 - 1
    # Rim: a raised ring, then a flat field.
    cv2.circle(h, (int(c), int(c)), int(r), 0.8, -1, cv2.LINE_AA)
    cv2.circle(h, (int(c), int(c)), int(r * 0.90), 0.15, -1, cv2.LINE_AA)
    if face == "heads":
        facing = -1 if kind == "quarter" else 1
        _bust(h, facing, {"penny": 1, "nickel": 3, "dime": 0, "quarter": 2}[kind])
        top, bottom = "IN GOD WE TRUST", COIN_TEXT[kind][0]
        _curved_text(h, top, r * 0.78, 0, True, s / 380, 0.9)
        _curved_text(h, bottom, r * 0.78, 0 if kind != "penny" else 180 + 60, kind != "penny", s / 380, 0.9)
        if kind != "penny":
            _curved_text(h, "LIBERTY", r * 0.78, 180, False, s / 380, 0.9)
    else:
        _reverse(h, design)
        _curved_text(h, "UNITED STATES OF AMERICA", r * 0.80, 0, True, s / 430, 0.9)
        _curved_text(h, COIN_TEXT[kind][1], r * 0.80, 180, False, s / 430, 0.9)
    h = cv2.GaussianBlur(h, (0, 0), 1.0)
    alpha = np.zeros((s, s), np.float32)
    cv2.circle(alpha, (int(c * 16), int(c * 16)), int(r * 16), 1.0, -1, cv2.LINE_AA, 4)
    return h, alpha


@functools.lru_cache(maxsize=256)
def die_face(kind: str, value: int, colour: str, pips: str) -> np.ndarray:
    """Albedo (BGR float 0..1) of one die face, ``TEX`` pixels square (d8: a triangle)."""
    body, ink = DIE_COLOURS[colour]
    s = TEX
    img = np.empty((s, s, 3), np.float32)
    img[:] = body
    if kind == "d6":
        if pips == "large":
            rad, spread = 0.11 * s, 0.26 * s
        elif pips == "square":
            rad, spread = 0.075 * s, 0.27 * s
        else:
            rad, spread = 0.085 * s, 0.27 * s
        for dx, dy in PIP_LAYOUT[value]:
            cx, cy = s / 2 + dx * spread, s / 2 + dy * spread
            r0 = rad * (1.5 if (value == 1 and pips != "square") else 1.0)
            if pips == "square":
                cv2.rectangle(img, (int(cx - r0), int(cy - r0)), (int(cx + r0), int(cy + r0)), ink, -1, cv2.LINE_AA)
            else:
                cv2.circle(img, (int(cx * 8), int(cy * 8)), int(r0 * 8), ink, -1, cv2.LINE_AA, 3)
        # darkened bevelled edge
        edge = np.ones((s, s), np.float32)
        cv2.rectangle(edge, (0, 0), (s - 1, s - 1), 0.55, 6)
        edge = cv2.GaussianBlur(edge, (0, 0), 4)
        img *= edge[:, :, None]
        return img
    # d8 face: the numeral in the centre of an equilateral triangle (apex at the top).
    text = str(value)
    scale = s / 110
    (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_DUPLEX, scale, 3)
    org = (int(s / 2 - tw / 2), int(s * 0.62 + th / 2))
    put_text(img, text, org, scale, ink, 3, cv2.FONT_HERSHEY_DUPLEX)
    if value in (6, 9):
        cv2.line(img, (org[0], org[1] + 8), (org[0] + tw, org[1] + 8), ink, 3, cv2.LINE_AA)
    return img


def aruco_marker(marker_id: int, px: int) -> np.ndarray:
    """The DICT_4X4_50 marker ``marker_id``, ``px`` pixels square, black on white (uint8)."""
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    return cv2.aruco.generateImageMarker(dictionary, marker_id, px)


def cloth_texture(cloth: str, w_px: int, h_px: int, rng: np.random.Generator) -> np.ndarray:
    """A cloth or felt surface (BGR float 0..1) with fibre noise and a weave where it applies.

    :raises ValueError: for an unknown cloth.
    """
    if cloth not in CLOTHS:
        raise ValueError(f"unknown cloth {cloth!r}; known: {', '.join(CLOTHS)}")
    base = np.array(CLOTHS[cloth], np.float32)
    noise = rng.normal(0, 1, (h_px // 4 + 1, w_px // 4 + 1)).astype(np.float32)
    noise = cv2.resize(cv2.GaussianBlur(noise, (0, 0), 2), (w_px, h_px))
    fine = rng.normal(0, 1, (h_px, w_px)).astype(np.float32)
    fine = cv2.GaussianBlur(fine, (0, 0), 0.8)
    tex = 1 + 0.05 * noise + 0.05 * fine
    if "felt" not in cloth:
        yy, xx = np.mgrid[0:h_px, 0:w_px].astype(np.float32)
        weave = 0.04 * np.sin(xx * 1.6) * np.sin(yy * 1.6)
        tex += weave
    return np.clip(base[None, None, :] * tex[:, :, None], 0, 1)


def zone_colour(spec: dict[str, Any]) -> tuple[float, float, float]:
    """The tape colour of the zone outlines."""
    return {"white": (0.92, 0.92, 0.90), "yellow": (0.15, 0.80, 0.92), "black": (0.06, 0.06, 0.06)}[spec["tape"]]


def coin_radius_mm(kind: str) -> float:
    """Half the true diameter."""
    return COIN_SIZES[kind][0] / 2
