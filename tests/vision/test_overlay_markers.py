"""Numbered markers: beside each object, never over an object or another marker, drawn on a copy."""

from __future__ import annotations

import numpy as np
import pytest

from vision.overlay import Marker, MarkerParams, _area, draw_markers, place_markers
from vision.types import Detection, TableObservation

W, H = 1280, 960


def boxes_overlap(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> bool:
    return _area(a, b) > 0


def as_box(bbox: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
    x, y, w, h = bbox
    return x, y, x + w, y + h


def test_markers_on_a_crowded_table_cover_no_object_and_no_other_marker() -> None:
    # Ten dice as FLIP's areas hold them (FL-1.4), two rows close together, and a pile of seven
    # pennies in a Balcony: where the old labels printed over each other.
    dice = [(200 + 70 * i, 300 + (i % 2) * 50, 40, 40) for i in range(10)]
    coins = [(700 + 45 * i, 600 + (i % 3) * 10, 38, 38) for i in range(7)]
    boxes = dice + coins
    texts = [str(i + 1) for i in range(len(boxes))]
    placed = place_markers(boxes, texts, (W, H))
    objects = [as_box(b) for b in boxes]
    for i, marker in enumerate(placed):
        assert 0 <= marker[0] < marker[2] <= W and 0 <= marker[1] < marker[3] <= H
        assert not any(boxes_overlap(marker, o) for o in objects), f"marker {texts[i]} covers an object"
        assert not any(boxes_overlap(marker, other) for other in placed[:i]), f"marker {texts[i]} covers another"
        assert marker[3] - marker[1] >= 0.045 * H, "readable at arm's length: about 5% of the picture's height"


def test_a_marker_stays_next_to_its_object() -> None:
    placed = place_markers([(600, 400, 40, 40)], ["9"], (W, H))
    x0, y0, x1, y1 = placed[0]
    assert abs((x0 + x1) / 2 - 620) < 120 and abs((y0 + y1) / 2 - 420) < 120


def test_an_object_at_the_frames_edge_gets_a_marker_inside_the_frame() -> None:
    placed = place_markers([(W - 30, H - 30, 30, 30)], ["10"], (W, H))
    assert 0 <= placed[0][0] and placed[0][2] <= W and placed[0][3] <= H


def test_draw_markers_draws_on_a_copy_in_each_states_colour() -> None:
    frame = np.full((H, W, 3), 90, np.uint8)
    objects = (Detection("d6", 6, (300, 300, 40, 40), 0.95, center=(320, 320)),
               Detection("penny", "heads", (800, 500, 40, 40), 0.95, center=(820, 520)))
    out = draw_markers(frame, TableObservation(objects, (W, H)), [Marker("9", "locked"), Marker("1", "forced")])
    assert (frame == 90).all(), "the input frame is never changed"
    params = MarkerParams()
    assert (out == np.array(params.colour("locked"), np.uint8)).all(axis=2).any()
    assert (out == np.array(params.colour("forced"), np.uint8)).all(axis=2).any()


def test_markers_and_objects_must_agree_in_number() -> None:
    frame = np.zeros((H, W, 3), np.uint8)
    observation = TableObservation((Detection("d6", 1, (10, 10, 40, 40), 0.9),), (W, H))
    with pytest.raises(ValueError, match="1 objects but 0 markers"):
        draw_markers(frame, observation, [])
    with pytest.raises(ValueError, match="2 objects but 1 marker texts"):
        place_markers([(0, 0, 1, 1), (5, 5, 1, 1)], ["1"], (W, H))
