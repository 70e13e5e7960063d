"""The settle detector on the fixture games (``fixtures/games/<name>``), streamed as a camera sees them.

The games hold key frames only (the hand over the coins, the coins in the air, the table after
each move), 0.15 to 1 s apart. A camera sees each moment for as long as it lasts, so each key
frame is held until the next one's time at 10 frames a second, with fresh sensor noise on
each repeat; a frame with objects in flight is shown once (they cannot hang in the air). A settled frame must never be taken while the key frame shows a hand or an object
in the air, and every settled table the game reaches must be taken, within a few frames.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import cv2
import numpy as np
import pytest

from tests.fixtures_support import game_frame_path, game_names, load_game, read_image
from vision.settle import SettleDetector

FPS = 10.0
"""Frames a second of the emulated camera (a Pi camera gives 10 to 30)."""
WORK = (640, 480)
"""The frames are halved first: the detector works at 320 px wide anyway."""


def busy(label: dict[str, Any]) -> bool:
    """A hand in view, an object in the air, or not labelled settled."""
    moving = any("moving" in obj.get("flags", []) for obj in label["objects"])
    return bool(label["hand_in_view"]) or moving or not label["settled"]


def stream(name: str, seed: int) -> Iterator[tuple[np.ndarray, float, int]]:
    """(frame, time, key frame index) as a camera at FPS would deliver the game."""
    frames = load_game(name)["frames"]
    rng = np.random.default_rng(seed)
    grains = [rng.normal(0.0, 1.5, (WORK[1], WORK[0], 3)).astype(np.int16) for _ in range(4)]
    count = 0
    for k, label in enumerate(frames):
        key = cv2.resize(read_image(game_frame_path(name, label)), WORK, interpolation=cv2.INTER_AREA).astype(np.int16)
        start = float(label["t"])
        end = float(frames[k + 1]["t"]) if k + 1 < len(frames) else start + 1.0
        # Objects in flight are never still: that moment is shown once, not held.
        in_flight = any("moving" in obj.get("flags", []) for obj in label["objects"])
        for r in range(1 if in_flight else max(1, int(round((end - start) * FPS)))):
            count += 1
            yield np.clip(key + grains[count % len(grains)], 0, 255).astype(np.uint8), start + r / FPS, k


def test_every_game_is_there() -> None:
    assert len(game_names()) >= 5


@pytest.mark.parametrize("name", ["sp_t1", "sevens_sv_t1_t3", "flip_fl_t1"])
def test_settles_on_a_fixture_game(name: str) -> None:
    frames = load_game(name)["frames"]
    detector = SettleDetector()
    settled_keys: list[int] = []
    for frame, stamp, key in stream(name, seed=len(name)):
        event = detector.update(frame, stamp)
        if event is not None:
            assert not busy(frames[key]), f"{name}: settled frame taken on key frame {key} ({frames[key]['event']})"
            settled_keys.append(key)
    # Every labelled settled table that follows a hand or a throw is taken (it lasts a second or so).
    wanted = [k for k in range(1, len(frames)) if busy(frames[k - 1]) and not busy(frames[k])]
    missed = [frames[k]["event"] for k in wanted if not any(k <= s <= next_busy(frames, k) for s in settled_keys)]
    assert not missed, f"{name}: no settled frame for {missed}"


def next_busy(frames: list[dict[str, Any]], k: int) -> int:
    """The last key frame before the next busy one (the end of the quiet stretch starting at ``k``)."""
    for j in range(k, len(frames)):
        if busy(frames[j]):
            return j - 1
    return len(frames) - 1
