"""The true geometry every renderer shares: table frame, object sizes and poses, the camera.

World frame ("table frame"): millimetres, origin at the table area's top-left corner as the
camera sees it, ``x`` to the right, ``y`` down the picture, ``z`` *into* the table (so the
frame is right-handed and a height ``h`` above the cloth is ``z = -h``). An overhead camera
with no tilt has the identity rotation: its OpenCV axes (x right, y down, z forward) are the
table's axes.

Each object has a local frame with ``+z`` out of its "up" face (heads for a coin, the face
labelled 1 for a d6, the face labelled 1 for a d8); its pose maps local points to the world.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

# True sizes, in mm (US Mint specifications): diameter and thickness.
COIN_SIZES: dict[str, tuple[float, float]] = {
    "penny": (19.05, 1.52),
    "nickel": (21.21, 1.95),
    "dime": (17.91, 1.35),
    "quarter": (24.26, 1.75),
}
COIN_KINDS = tuple(COIN_SIZES)
DIE_KINDS = ("d6", "d8")

# d6: the face values on the local +x, -x, +y, -y, +z, -z faces (opposite faces sum to 7).
D6_FACES: dict[int, tuple[float, float, float]] = {
    2: (1, 0, 0), 5: (-1, 0, 0), 3: (0, 1, 0), 4: (0, -1, 0), 1: (0, 0, 1), 6: (0, 0, -1),
}
# d8: the value on each octant face (normal (sx, sy, sz)/sqrt 3); opposite faces sum to 9.
D8_FACES: dict[int, tuple[int, int, int]] = {
    1: (1, 1, 1), 8: (-1, -1, -1),
    2: (-1, 1, -1), 7: (1, -1, 1),
    3: (1, -1, -1), 6: (-1, 1, 1),
    4: (-1, -1, 1), 5: (1, 1, -1),
}

# Local -> world for an object lying flat with no yaw: a half turn about x (local up = world -z).
FLIP = np.diag([1.0, -1.0, -1.0])


def rot_x(deg: float) -> np.ndarray:
    """Rotation about x by ``deg`` degrees (right-hand rule)."""
    a = math.radians(deg)
    c, s = math.cos(a), math.sin(a)
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]], dtype=float)


def rot_y(deg: float) -> np.ndarray:
    """Rotation about y by ``deg`` degrees."""
    a = math.radians(deg)
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]], dtype=float)


def rot_z(deg: float) -> np.ndarray:
    """Rotation about z by ``deg`` degrees."""
    a = math.radians(deg)
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]], dtype=float)


def align(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The smallest rotation taking unit vector ``a`` onto unit vector ``b``."""
    a = a / np.linalg.norm(a)
    b = b / np.linalg.norm(b)
    v = np.cross(a, b)
    c = float(np.dot(a, b))
    if c < -0.999999:
        # Opposite vectors: a half turn about any axis perpendicular to a.
        axis = np.cross(a, [1.0, 0, 0]) if abs(a[0]) < 0.9 else np.cross(a, [0, 1.0, 0])
        axis /= np.linalg.norm(axis)
        return 2 * np.outer(axis, axis) - np.eye(3)
    vx = np.array([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]])
    return np.eye(3) + vx + vx @ vx / (1 + c)


@dataclass
class Thing:
    """One coin or die on the table, with its true pose.

    ``kind``: penny, nickel, dime, quarter, d6, d8. ``value``: ``heads``/``tails`` or the face up
    (``None`` for a coin standing on its edge). ``style``: how it looks (design, colours, pips).
    ``rot``: local -> world rotation; ``pos``: the centre in world mm (z negative = above cloth).
    ``velocity``: mm travelled during the exposure (for motion blur), with ``spin`` in degrees.
    """

    oid: str
    kind: str
    value: str | int | None
    style: dict[str, Any]
    rot: np.ndarray
    pos: np.ndarray
    flags: set[str] = field(default_factory=set)
    velocity: tuple[float, float] = (0.0, 0.0)
    lift: float = 0.0

    @property
    def size(self) -> float:
        """Diameter (coin), edge (d6) or edge length (d8), in mm."""
        return float(self.style["size"])

    def local_vertices(self) -> np.ndarray:
        """Points on the object's surface (local frame) whose projections bound its outline."""
        if self.kind in COIN_SIZES:
            r = self.size / 2
            th = float(self.style["thickness"])
            ang = np.linspace(0, 2 * np.pi, 40, endpoint=False)
            ring = np.stack([r * np.cos(ang), r * np.sin(ang), np.zeros_like(ang)], axis=1)
            return np.concatenate([ring + [0, 0, th / 2], ring - [0, 0, th / 2]])
        if self.kind == "d6":
            h = self.size / 2
            return np.array([[sx * h, sy * h, sz * h] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)])
        if self.kind == "d8":
            a = d8_circumradius(self.size)
            return np.array([[a, 0, 0], [-a, 0, 0], [0, a, 0], [0, -a, 0], [0, 0, a], [0, 0, -a]], dtype=float)
        raise ValueError(f"unknown object kind {self.kind!r}")

    def world_vertices(self) -> np.ndarray:
        """The surface points of :meth:`local_vertices` in the world frame."""
        return self.local_vertices() @ self.rot.T + self.pos

    def up_axis_world(self) -> np.ndarray:
        """The world direction of the local +z axis."""
        return self.rot[:, 2]

    def tilt_deg(self) -> float:
        """How far the resting face is from flat, in degrees (0 = flat on the cloth)."""
        if self.kind in COIN_SIZES:
            cosang = abs(float(self.up_axis_world()[2]))
            return math.degrees(math.acos(min(1.0, cosang)))
        normals = d6_normals() if self.kind == "d6" else d8_normals()
        ups = [float(-(self.rot @ n)[2]) for n in normals.values()]
        return math.degrees(math.acos(min(1.0, max(ups))))

    def top_value(self) -> str | int | None:
        """The face that points most nearly up, read from the pose (the label's ``value``)."""
        if self.kind in COIN_SIZES:
            up = -float(self.up_axis_world()[2])
            if abs(up) < math.cos(math.radians(60)):
                return None  # standing on its edge: neither face is up
            return "heads" if up > 0 else "tails"
        normals = d6_normals() if self.kind == "d6" else d8_normals()
        return max(normals, key=lambda v: float(-(self.rot @ normals[v])[2]))


def d8_circumradius(edge: float) -> float:
    """Distance from the centre of a regular octahedron to a vertex."""
    return edge / math.sqrt(2)


def d8_inradius(edge: float) -> float:
    """Distance from the centre of a regular octahedron to a face."""
    return edge / math.sqrt(6)


def d6_normals() -> dict[int, np.ndarray]:
    """Local outward face normals of a d6 by face value."""
    return {v: np.array(n, dtype=float) for v, n in D6_FACES.items()}


def d8_normals() -> dict[int, np.ndarray]:
    """Local outward face normals of a d8 by face value."""
    return {v: np.array(n, dtype=float) / math.sqrt(3) for v, n in D8_FACES.items()}


def resting_rotation(kind: str, value: str | int | None, yaw: float) -> np.ndarray:
    """Local -> world rotation of an object lying flat with ``value`` up, turned by ``yaw``.

    :raises ValueError: for a value the kind cannot show.
    """
    if kind in COIN_SIZES:
        if value == "heads":
            base = np.eye(3)
        elif value == "tails":
            base = rot_x(180)
        else:
            raise ValueError(f"a lying {kind} shows heads or tails, not {value!r}")
        return FLIP @ rot_z(yaw) @ base
    if kind == "d6":
        normals = d6_normals()
    elif kind == "d8":
        normals = d8_normals()
    else:
        raise ValueError(f"unknown object kind {kind!r}")
    if value not in normals:
        raise ValueError(f"a {kind} has no face {value!r}")
    base = align(normals[int(value)], np.array([0.0, 0.0, 1.0]))
    return FLIP @ rot_z(yaw) @ base


def rest_height(kind: str, style: dict[str, Any]) -> float:
    """Height of the centre above the cloth of an object lying flat."""
    size = float(style["size"])
    if kind in COIN_SIZES:
        return float(style["thickness"]) / 2
    if kind == "d6":
        return size / 2
    return d8_inradius(size)


def lowest_height(thing: Thing) -> float:
    """Height above the cloth of the object's lowest point (negative: it dips into the cloth)."""
    pts = exact_extreme_points(thing)
    return float(-pts[:, 2].max())


def exact_extreme_points(thing: Thing) -> np.ndarray:
    """World points that bound the object (coins use a fine rim sampling)."""
    return thing.world_vertices()


@dataclass
class Camera:
    """A pinhole camera with OpenCV's distortion model; ``rot``/``centre`` place it in the world."""

    width: int
    height: int
    fx: float
    fy: float
    cx: float
    cy: float
    rot: np.ndarray
    centre: np.ndarray
    dist: tuple[float, float, float, float, float] = (0.0, 0.0, 0.0, 0.0, 0.0)

    @property
    def K(self) -> np.ndarray:
        """The intrinsic matrix."""
        return np.array([[self.fx, 0, self.cx], [0, self.fy, self.cy], [0, 0, 1]], dtype=float)

    @property
    def tvec(self) -> np.ndarray:
        """OpenCV's translation: X_cam = rot @ X_world + tvec."""
        return -self.rot @ self.centre

    def to_camera(self, pts: np.ndarray) -> np.ndarray:
        """World points (N, 3) in camera coordinates."""
        return pts @ self.rot.T + self.tvec

    def project(self, pts: np.ndarray, distort: bool = True) -> np.ndarray:
        """Pixel coordinates (N, 2) of world points (N, 3), lens distortion included."""
        cam = self.to_camera(np.asarray(pts, dtype=float).reshape(-1, 3))
        xn = cam[:, 0] / cam[:, 2]
        yn = cam[:, 1] / cam[:, 2]
        if distort and any(self.dist):
            k1, k2, p1, p2, k3 = self.dist
            r2 = xn * xn + yn * yn
            radial = 1 + k1 * r2 + k2 * r2 * r2 + k3 * r2 ** 3
            xd = xn * radial + 2 * p1 * xn * yn + p2 * (r2 + 2 * xn * xn)
            yd = yn * radial + p1 * (r2 + 2 * yn * yn) + 2 * p2 * xn * yn
            xn, yn = xd, yd
        return np.stack([self.fx * xn + self.cx, self.fy * yn + self.cy], axis=1)

    def table_to_image(self, height: float = 0.0) -> np.ndarray:
        """Homography from table mm (plane at ``height`` above the cloth) to undistorted pixels."""
        r = self.rot
        t = self.tvec + r[:, 2] * (-height)
        h = self.K @ np.column_stack([r[:, 0], r[:, 1], t])
        return h / h[2, 2]

    def image_to_table(self) -> np.ndarray:
        """Homography from undistorted pixels to table mm on the cloth (the label's ``homography``)."""
        h = np.linalg.inv(self.table_to_image())
        return h / h[2, 2]

    def to_json(self) -> dict[str, Any]:
        """Intrinsics, pose and distortion as plain lists."""
        return {
            "K": np.round(self.K, 4).tolist(),
            "dist": [round(float(d), 6) for d in self.dist],
            "R": np.round(self.rot, 8).tolist(),
            "centre_mm": np.round(self.centre, 3).tolist(),
            "size": [self.width, self.height],
        }


def make_camera(
    table_w: float,
    table_h: float,
    *,
    width: int = 1280,
    height: int = 960,
    coverage: float = 0.94,
    tilt: float = 0.0,
    tilt_dir: float = 0.0,
    roll: float = 0.0,
    k1: float = 0.0,
    offset: tuple[float, float] = (0.0, 0.0),
) -> Camera:
    """A camera above the table's centre, tilted ``tilt`` degrees towards ``tilt_dir``.

    The focal length is that of the Pi camera v2 (62.2 degrees across); the height is chosen so
    the untilted view shows the table across ``coverage`` of the picture's width.
    """
    fx = (width / 2) / math.tan(math.radians(62.2 / 2))
    height_mm = fx * (table_w / coverage) / width
    # Tilt: rotate the viewing direction about a horizontal axis; the camera moves so that it
    # still looks at the table's centre (as a person mounting a camera would aim it).
    rot_cam_to_world = rot_z(tilt_dir) @ rot_x(tilt) @ rot_z(-tilt_dir) @ rot_z(roll)
    target = np.array([table_w / 2 + offset[0], table_h / 2 + offset[1], 0.0])
    forward = rot_cam_to_world[:, 2]
    centre = target - forward * height_mm
    return Camera(
        width=width, height=height, fx=fx, fy=fx, cx=width / 2, cy=height / 2,
        rot=rot_cam_to_world.T, centre=centre, dist=(k1, 0.0, 0.0, 0.0, 0.0),
    )


def point_in_polygon(pt: tuple[float, float], poly: list[tuple[float, float]]) -> bool:
    """Ray-casting test: is ``pt`` inside ``poly`` (vertices in order)?"""
    x, y = pt
    inside = False
    n = len(poly)
    for i in range(n):
        x1, y1 = poly[i]
        x2, y2 = poly[(i + 1) % n]
        if (y1 > y) != (y2 > y):
            xc = x1 + (y - y1) * (x2 - x1) / (y2 - y1)
            if xc > x:
                inside = not inside
    return inside
