"""Reading the committed fixtures (``fixtures/``) from tests: scenes, games, labels, images.

A missing fixture is an error, never a skip. See ``fixtures/README.md`` for the label format.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path
from typing import Any

import numpy as np

from vision.types import Detection

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
SPLITS = ("dev", "test")
COIN_KINDS = ("penny", "nickel", "dime", "quarter")
DIE_FACES = {"d6": 6, "d8": 8}
FLAGS = ("cocked", "on_edge", "occluded", "moving")


def _load(path: Path) -> Any:
    if not path.exists():
        raise FileNotFoundError(f"fixture missing: {path} (regenerate with: python -m tools.fixturegen --all)")
    return json.loads(path.read_text())


def scene_labels(split: str) -> list[dict[str, Any]]:
    """The labels of every single scene of ``split`` (``dev`` or ``test``: tuning never reads test).

    :raises ValueError: for an unknown split. :raises FileNotFoundError: when it is missing.
    """
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}; splits are {', '.join(SPLITS)}")
    labels = _load(FIXTURES / "scenes" / split / "labels.json")
    assert isinstance(labels, list)
    return labels


def scene_image_path(split: str, label: dict[str, Any]) -> Path:
    """Where the picture of a scene label lies."""
    return FIXTURES / "scenes" / split / label["image"]


def game_names() -> list[str]:
    """Every recorded game (folder names under ``fixtures/games``)."""
    root = FIXTURES / "games"
    if not root.is_dir():
        raise FileNotFoundError(f"fixture missing: {root}")
    return sorted(p.name for p in root.iterdir() if (p / "game.json").exists())


def load_game(name: str) -> dict[str, Any]:
    """A game's ``game.json``: frames (labels in time order), chance outcomes, decisions, rulings."""
    game = _load(FIXTURES / "games" / name / "game.json")
    assert isinstance(game, dict)
    return game


def game_frame_path(name: str, frame: dict[str, Any]) -> Path:
    """Where one frame of a game lies."""
    return FIXTURES / "games" / name / frame["image"]


def read_image(path: Path) -> np.ndarray:
    """The picture as BGR uint8.

    :raises FileNotFoundError: when it cannot be read.
    """
    import cv2

    img = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if img is None:
        raise FileNotFoundError(f"cannot read fixture image {path}")
    return img


def jpeg_size(path: Path) -> tuple[int, int]:
    """(width, height) from a JPEG's frame header, without decoding it.

    :raises ValueError: when the file is not a baseline or progressive JPEG.
    """
    data = path.read_bytes()
    if data[:2] != b"\xff\xd8":
        raise ValueError(f"{path} is not a JPEG")
    i = 2
    while i + 9 < len(data):
        if data[i] != 0xFF:
            raise ValueError(f"{path}: bad JPEG marker at byte {i}")
        marker = data[i + 1]
        length = struct.unpack(">H", data[i + 2:i + 4])[0]
        if marker in (0xC0, 0xC1, 0xC2):
            h, w = struct.unpack(">HH", data[i + 5:i + 9])
            return w, h
        i += 2 + length
    raise ValueError(f"{path}: no JPEG frame header")


def homography(label: dict[str, Any]) -> np.ndarray:
    """The true homography from (undistorted) image pixels to table millimetres."""
    return np.array(label["homography"], dtype=float)


def image_to_table(label: dict[str, Any], points: np.ndarray) -> np.ndarray:
    """Table mm of pixel ``points`` (N, 2), undoing the camera's radial distortion first."""
    k = np.array(label["camera"]["K"], float)
    k1, k2, _p1, _p2, k3 = label["camera"]["dist"]
    pts = np.asarray(points, float).reshape(-1, 2)
    xd = (pts[:, 0] - k[0, 2]) / k[0, 0]
    yd = (pts[:, 1] - k[1, 2]) / k[1, 1]
    xu, yu = xd.copy(), yd.copy()
    for _ in range(20):
        r2 = xu * xu + yu * yu
        radial = 1 + k1 * r2 + k2 * r2 * r2 + k3 * r2**3
        xu, yu = xd / radial, yd / radial
    und = np.stack([xu * k[0, 0] + k[0, 2], yu * k[1, 1] + k[1, 2], np.ones_like(xu)], 1)
    mapped = und @ homography(label).T
    table: np.ndarray = mapped[:, :2] / mapped[:, 2:3]
    return table


def detection_at(found: list[Detection], box: list[int]) -> Detection | None:
    """The detection whose centre lies in the labelled ``box`` (x, y, w, h), the nearest the
    box's centre when several do, or ``None``."""
    x, y, w, h = box
    inside = [d for d in found if x <= d.center[0] <= x + w and y <= d.center[1] <= y + h]
    return min(inside, key=lambda d: abs(d.center[0] - x - w / 2) + abs(d.center[1] - y - h / 2)) if inside else None
