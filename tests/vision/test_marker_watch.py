"""``vision.marker_watch``: a still camera's markers look unchanged, a moved camera's do not."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from hardware.replay import ReplaySource
from web.recording import replay_layout
from vision.calibration import Calibration, calibrate
from vision.marker_watch import MarkerWatch, marker_boxes

GAMES = Path(__file__).resolve().parents[2] / "fixtures" / "games"


def table() -> tuple[np.ndarray, Calibration]:
    """The first frame of the recorded game ``sp_t1`` and its calibration."""
    read = cv2.imread(str(GAMES / "sp_t1" / "0000.jpg"))
    assert read is not None
    image = np.asarray(read, np.uint8)
    layout = replay_layout(ReplaySource(GAMES / "sp_t1"))
    assert layout is not None
    return image, calibrate(image, layout)


def shifted(image: np.ndarray, dx: float, dy: float) -> np.ndarray:
    move = np.array([[1, 0, dx], [0, 1, dy]], np.float32)
    return np.asarray(cv2.warpAffine(image, move, (image.shape[1], image.shape[0]), borderMode=cv2.BORDER_REPLICATE), np.uint8)


def test_each_marker_has_a_window_around_it() -> None:
    image, calibration = table()
    boxes = marker_boxes(calibration)
    spec = calibration.markers
    assert spec is not None and len(boxes) == 4
    for marker_id, (x0, y0, x1, y1) in zip(spec.ids, boxes):
        quad = calibration.table_to_image(spec.corners_mm(marker_id, calibration.table_size_mm))
        assert x0 < quad[:, 0].min() and quad[:, 0].max() < x1 and y0 < quad[:, 1].min() and quad[:, 1].max() < y1


def test_the_same_markers_under_sensor_noise_are_unchanged() -> None:
    image, calibration = table()
    watch = MarkerWatch()
    assert not watch.unchanged(image, calibration)  # nothing remembered yet
    watch.remember(image, calibration)
    assert watch.unchanged(image.copy(), calibration)
    noise = np.random.default_rng(1).integers(-4, 5, image.shape)
    assert watch.unchanged(np.clip(image.astype(int) + noise, 0, 255).astype(np.uint8), calibration)


def test_a_moved_camera_a_hand_or_another_calibration_is_a_change() -> None:
    image, calibration = table()
    watch = MarkerWatch()
    watch.remember(image, calibration)
    assert not watch.unchanged(shifted(image, 1.0, 0.0), calibration)
    assert not watch.unchanged(shifted(image, 0.0, 0.5), calibration)
    x0, y0, x1, y1 = marker_boxes(calibration)[2]
    covered = image.copy()
    covered[y0 + 5 : y1 - 5, x0 + 5 : x1 - 5] = (60, 90, 160)  # a hand over one marker
    assert not watch.unchanged(covered, calibration)
    _, other = table()  # as good a calibration, but not the one the watch remembered
    assert not watch.unchanged(image, other)
    assert not watch.unchanged(image[:480], calibration)
