"""Overlays: the reads, the zones and the forced moves drawn where they belong, on a copy."""

from __future__ import annotations

import numpy as np
import pytest

from vision.calibration import Calibration, calibrate_manual
from vision.layouts import default_layout
from vision.overlay import ForcedMark, describe, draw_forced_moves, draw_observation, draw_zones, label
from vision.types import Detection, TableObservation

W, H = 1120, 960  # the Seven Pennies table (560 x 480 mm) seen straight down at 0.5 mm per pixel


@pytest.fixture()
def calibration() -> Calibration:
    layout = default_layout("seven-pennies", ["Ann", "Bo"])
    return calibrate_manual([(0, 0), (W, 0), (W, H), (0, H)], layout.table_size_mm, layout.zones)


@pytest.fixture()
def frame() -> np.ndarray:
    rng = np.random.default_rng(0)
    return np.clip(rng.normal(90, 4, (H, W, 3)), 0, 255).astype(np.uint8)


def changed(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.any(a != b, axis=2)


def px(mm: tuple[float, float]) -> tuple[int, int]:
    return int(mm[0] * 2), int(mm[1] * 2)


def test_draw_zones_tints_outlines_and_names_every_zone(frame: np.ndarray, calibration: Calibration) -> None:
    before = frame.copy()
    out = draw_zones(frame, calibration)
    assert np.array_equal(frame, before) and out is not frame and out.shape == frame.shape
    diff = changed(out, frame)
    for zone in calibration.zones:
        x0, y0, x1, y1 = (int(v * 2) for v in zone.bounds())
        assert diff[y0 + 2:y1 - 2, x0 + 2:x1 - 2].mean() > 0.9  # tinted all over
        # The outline: the zone's colour on its left edge.
        assert diff[(y0 + y1) // 2, x0]
    # The gutter between the Balcony and the Theatre (108 to 118 mm) is left alone, off the labels.
    assert not diff[226, 60:100].any()


def test_highlighted_zones_are_outlined_in_yellow(frame: np.ndarray, calibration: Calibration) -> None:
    out = draw_zones(frame, calibration, highlight=["balcony"])
    x0, y0, _x1, y1 = (int(v * 2) for v in calibration.zone("balcony").bounds())
    edge = out[(y0 + y1) // 2, x0 - 2:x0 + 3].astype(int)
    assert any(p[1] > 200 and p[2] > 200 and p[0] < 80 for p in edge)  # BGR yellow
    with pytest.raises(ValueError, match="no zone 'stage' to highlight"):
        draw_zones(frame, calibration, highlight=["stage"])


def test_draw_observation_marks_each_object_by_how_sure_it_is(frame: np.ndarray) -> None:
    sure = Detection("penny", "heads", (100, 500, 38, 38), 0.95, (119, 519))
    doubt = Detection("penny", "tails", (300, 500, 38, 38), 0.6, (319, 519))
    unsure = Detection("penny", None, (500, 500, 38, 38), 0.2, (519, 519), flags=("on_edge",))
    die = Detection("d6", 5, (700, 500, 32, 32), 0.9, (716, 516))
    observation = TableObservation((sure, doubt, unsure, die), (W, H))
    before = frame.copy()
    out = draw_observation(frame, observation)
    assert np.array_equal(frame, before)

    def ring_colour(obj: Detection) -> np.ndarray:
        x, y, w, h = obj.bbox
        cx, cy = x + w // 2, y + h // 2
        ring = out[cy, cx + w // 2: cx + w // 2 + 12].astype(int)
        return ring[np.argmax(np.abs(ring - 90).sum(axis=1))]

    assert tuple(ring_colour(sure)) == (60, 200, 60)
    assert tuple(ring_colour(doubt)) == (0, 200, 255)
    assert tuple(ring_colour(unsure)) == (40, 40, 230)
    # The die gets a box: its corner is drawn; the middle of each object is left to be seen.
    assert changed(out, frame)[500, 700]
    for obj in observation.objects:
        x, y, w, h = obj.bbox
        assert not changed(out, frame)[y + h // 2, x + w // 2]
        # Its label sits above it.
        assert changed(out, frame)[max(0, y - 40):y, x:x + w].any()
    assert not changed(out, frame)[800:, :].any()


def test_labels_of_objects_in_one_spot_do_not_cover_each_other(frame: np.ndarray) -> None:
    """A coin lying on another is read as two stacked coins in one spot: their labels are
    stacked too, each readable, not printed over each other."""
    taken: list = []
    first = label(frame, "1c ? stacked", (500, 400), 20, taken=taken)
    second = label(frame, "1c ? stacked", (504, 404), 20, taken=taken)
    assert taken == [first, second]
    assert second[3] <= first[1] or second[1] >= first[3]  # one wholly above or below the other
    pair = (Detection("penny", None, (480, 480, 40, 40), 0.0, (500, 500), flags=("stacked",)),
            Detection("penny", None, (486, 476, 40, 40), 0.0, (506, 496), flags=("stacked",)))
    one = draw_observation(frame, TableObservation(pair[:1], (W, H)))
    both = draw_observation(frame, TableObservation(pair, (W, H)))
    rows = lambda out: np.flatnonzero(changed(out, frame)[:476, 440:560].any(axis=1))  # noqa: E731
    # The second label sits above the first: the drawn rows above the coins reach higher.
    assert rows(both).min() < rows(one).min() - 15


def test_labels_raised_out_of_each_others_way_stay_in_the_frame() -> None:
    """A frame with room for one label only: the second, with no free place above or below the
    first, overlaps it but is still written inside the frame."""
    small = np.zeros((60, 300, 3), np.uint8)
    taken: list = []
    boxes = [label(small, "1c ? stacked", (150, 20), 20, taken=taken) for _ in range(2)]
    assert all(0 <= x0 < x1 <= 300 and 0 <= y0 < y1 <= 60 for x0, y0, x1, y1 in boxes)


def test_describe() -> None:
    assert describe(Detection("penny", "heads", (0, 0, 1, 1), 1.0)) == "1c H"
    assert describe(Detection("quarter", "tails", (0, 0, 1, 1), 1.0)) == "25c T"
    assert describe(Detection("d8", 7, (0, 0, 1, 1), 1.0)) == "d8 7"
    assert describe(Detection("d6", None, (0, 0, 1, 1), 0.1, flags=("cocked",))) == "d6 ? cocked"


def test_draw_forced_moves_points_each_object_to_its_zone(frame: np.ndarray, calibration: Calibration) -> None:
    start = px((280.0, 240.0))  # a coin in the Theatre
    moves = [((start[0] - 19, start[1] - 19, 38, 38), "balcony"), ForcedMark((float(px((100, 300))[0]), float(px((100, 300))[1])), "gathered:Ann", "keep")]
    before = frame.copy()
    out = draw_forced_moves(frame, moves, calibration)
    assert np.array_equal(frame, before)
    diff = changed(out, frame)
    magenta = np.all(out == (255, 0, 255), axis=2)
    # A magenta ring round the coin, and the arrow runs up towards the Balcony.
    assert magenta[start[1], start[0] + 19:start[0] + 40].any()
    assert magenta[130:200, start[0] - 6:start[0] + 7].any()
    # Target zones outlined in yellow; the Theatre is not a target and keeps its look.
    for zone_id in ("balcony", "gathered:Ann"):
        x0, y0, _x1, y1 = (int(v * 2) for v in calibration.zone(zone_id).bounds())
        assert diff[(y0 + y1) // 2, x0 - 3:x0 + 4].any()
    tx0, ty0, _tx1, ty1 = (int(v * 2) for v in calibration.zone("theatre").bounds())
    assert not diff[(ty0 + ty1) // 2 + 60, tx0 - 3:tx0 + 4].any()
    assert not diff[ty1 - 30, W // 2 + 200]  # far from any move


def test_draw_forced_moves_highlight_only_and_errors(frame: np.ndarray, calibration: Calibration) -> None:
    out = draw_forced_moves(frame, [], calibration, highlight=["theatre"])
    assert changed(out, frame).any()
    assert np.array_equal(draw_forced_moves(frame, [], calibration), frame)
    with pytest.raises(ValueError, match="no zone 'floor' on this table"):
        draw_forced_moves(frame, [((10.0, 10.0), "floor")], calibration)
    with pytest.raises(ValueError, match="a forced move is"):
        draw_forced_moves(frame, [((10.0, 10.0), "balcony", "extra")], calibration)  # type: ignore[list-item]
    with pytest.raises(ValueError, match=r"a box \(x, y, w, h\) or a centre"):
        draw_forced_moves(frame, [((10.0, 10.0, 3.0), "balcony")], calibration)  # type: ignore[list-item]
    with pytest.raises(ValueError, match="frame must be BGR uint8"):
        draw_zones(frame[:, :, 0], calibration)


def test_labels_scale_with_the_frame(calibration: Calibration) -> None:
    # The same overlay on a frame twice the size draws text twice as tall (legible on a tablet).
    small = np.full((H // 2, W // 2, 3), 90, np.uint8)
    big = np.full((H, W, 3), 90, np.uint8)
    obj_small = Detection("penny", "heads", (200, 200, 20, 20), 0.9)
    obj_big = Detection("penny", "heads", (400, 400, 40, 40), 0.9)
    ink_small = changed(draw_observation(small, TableObservation((obj_small,), (W // 2, H // 2))), small).sum()
    ink_big = changed(draw_observation(big, TableObservation((obj_big,), (W, H))), big).sum()
    assert 3.0 < ink_big / ink_small < 5.0
