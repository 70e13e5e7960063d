"""Calibration from the printed corner markers, the manual fallback, and following a bumped camera.

Frames are synthetic: the sheet ``referee markers`` prints, warped by a known camera homography
(tilted, rolled), with noise and blur, so the true table-to-image mapping is known exactly.
"""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from vision.calibration import (
    CalibrateParams,
    Calibration,
    CalibrationError,
    Lens,
    calibrate,
    calibrate_manual,
    track,
)
from vision.layouts import Layout, default_layout
from vision.markers import detect_markers, render_view

SIZE = (1280, 960)


def camera(layout: Layout, tilt_deg: float = 0.0, tilt_dir_deg: float = 0.0, roll_deg: float = 0.0,
           coverage: float = 0.85) -> np.ndarray:
    """Table mm -> pixels for a pinhole camera (Pi camera v2 field of view) looking at the table's centre."""
    width, height = SIZE
    f = width / 2.0 / math.tan(math.radians(31.1))
    k = np.array([[f, 0, width / 2.0], [0, f, height / 2.0], [0, 0, 1.0]])
    tw, th = layout.table_size_mm
    z = max(tw / (coverage * width), th / (coverage * height)) * f
    d = math.radians(tilt_dir_deg)
    tilt, _ = cv2.Rodrigues(np.array([math.cos(d), math.sin(d), 0.0]) * math.radians(tilt_deg))
    roll, _ = cv2.Rodrigues(np.array([0.0, 0.0, math.radians(roll_deg)]))
    rot = roll @ tilt
    look = rot.T @ np.array([0.0, 0.0, 1.0])
    centre = np.array([tw / 2.0, th / 2.0, 0.0]) - look * (z / look[2])
    h = k @ np.column_stack([rot[:, 0], rot[:, 1], -rot @ centre])
    return h / h[2, 2]


def noisy(frame: np.ndarray, seed: int, sigma: float = 3.0, blur: float = 0.8) -> np.ndarray:
    """Blur and sensor noise, as a camera adds them."""
    rng = np.random.default_rng(seed)
    out = cv2.GaussianBlur(frame.astype(np.float32), (0, 0), blur) + rng.normal(0, sigma, frame.shape)
    return np.clip(out, 0, 255).astype(np.uint8)


def table_corners(layout: Layout) -> np.ndarray:
    width, height = layout.table_size_mm
    return np.array([(0, 0), (width, 0), (width, height), (0, height)], dtype=np.float64)


def project(matrix: np.ndarray, points: np.ndarray) -> np.ndarray:
    return cv2.perspectiveTransform(np.asarray(points, np.float64).reshape(-1, 1, 2), matrix).reshape(-1, 2)


@pytest.mark.parametrize(
    "game, players, tilt, direction, roll",
    [
        ("seven-pennies", 3, 0.0, 0.0, 0.0),
        ("seven-pennies", 4, 15.0, 30.0, 5.0),
        ("pennywise", 5, 12.0, 200.0, -8.0),
        ("sevens", 2, 9.0, 120.0, 3.0),
        ("pennies-from-heaven", 6, 14.0, 300.0, 178.0),  # camera upside down: markers still say which corner is which
    ],
)
def test_markers_give_the_true_homography_within_a_millimetre(game: str, players: int, tilt: float, direction: float,
                                                               roll: float) -> None:
    layout = default_layout(game, players)
    table_to_image = camera(layout, tilt, direction, roll)
    frame = noisy(render_view(layout, table_to_image, SIZE), seed=players)
    calibration = calibrate(frame, layout)
    corners = table_corners(layout)
    found = calibration.image_to_table(project(table_to_image, corners))
    assert np.max(np.linalg.norm(found - corners, axis=1)) < 1.0
    # The scale at the table's centre matches the true camera's.
    centre_px = project(table_to_image, np.array([[layout.table_size_mm[0] / 2, layout.table_size_mm[1] / 2]]))[0]
    shifted = project(np.linalg.inv(table_to_image), np.array([centre_px, centre_px + (1.0, 0.0), centre_px + (0.0, 1.0)]))
    du, dv = shifted[1] - shifted[0], shifted[2] - shifted[0]
    true_scale = math.sqrt(abs(du[0] * dv[1] - du[1] * dv[0]))
    assert calibration.mm_per_px == pytest.approx(true_scale, rel=0.01)
    assert calibration.source == "markers" and calibration.marker_ids == (0, 1, 2, 3)
    assert calibration.zones == layout.zones and calibration.frame_size == SIZE


def test_every_object_well_inside_a_zone_is_assigned_to_it() -> None:
    layout = default_layout("seven-pennies", ["Ann", "Bo", "Cy"])
    table_to_image = camera(layout, 13.0, 45.0, 4.0)
    calibration = calibrate(noisy(render_view(layout, table_to_image, SIZE), seed=5), layout)
    rng = np.random.default_rng(1)
    checked = 0
    for zone in layout.zones:
        x0, y0, x1, y1 = zone.bounds()
        while checked < 40 * (layout.zones.index(zone) + 1):
            point = (float(rng.uniform(x0, x1)), float(rng.uniform(y0, y1)))
            if zone.depth(point) <= 5.0:
                continue
            pixel = project(table_to_image, np.array([point]))
            mm = calibration.image_to_table(pixel)[0]
            assert calibration.zone_of((float(mm[0]), float(mm[1]))) == zone.id
            checked += 1
    # Outside every zone: the gutter between the Balcony and the Theatre, and off the sheet.
    for point in [(280.0, 113.0), (-30.0, 200.0)]:
        mm = calibration.image_to_table(project(table_to_image, np.array([point])))[0]
        assert calibration.zone_of((float(mm[0]), float(mm[1]))) is None


def test_table_to_image_inverts_image_to_table() -> None:
    layout = default_layout("flip", 2)
    table_to_image = camera(layout, 10.0, 10.0)
    calibration = calibrate(render_view(layout, table_to_image, SIZE), layout)
    points = np.array([[10.0, 20.0], [250.0, 200.0], [480.0, 390.0]])
    assert np.allclose(calibration.image_to_table(calibration.table_to_image(points)), points, atol=1e-6)
    outline = calibration.zone_outline_px("middle")
    assert outline.shape == (4, 2)
    assert calibration.table_outline_px().shape == (4, 2)
    with pytest.raises(KeyError, match="no zone 'balcony'"):
        calibration.zone("balcony")


def test_a_covered_marker_is_named_when_too_few_are_found() -> None:
    layout = default_layout("seven-pennies", 2)
    table_to_image = camera(layout, 5.0)
    frame = render_view(layout, table_to_image, SIZE)
    for marker_id in (2, 3):  # cover the two bottom markers with a cloth-coloured patch
        quad = project(table_to_image, layout.markers.corners_mm(marker_id, layout.table_size_mm))
        cv2.fillConvexPoly(frame, np.round(quad).astype(np.int32), (60, 90, 50))
    assert sorted(detect_markers(frame, layout.markers)) == [0, 1]
    with pytest.raises(CalibrationError, match=r"found 2 of the 4 corner markers.*2 \(bottom-right\), 3 \(bottom-left\)"):
        calibrate(frame, layout)


def test_three_markers_are_enough() -> None:
    layout = default_layout("pennywise", 2)
    table_to_image = camera(layout, 8.0, 90.0)
    frame = render_view(layout, table_to_image, SIZE)
    quad = project(table_to_image, layout.markers.corners_mm(1, layout.table_size_mm))
    cv2.fillConvexPoly(frame, np.round(quad).astype(np.int32), (60, 90, 50))
    calibration = calibrate(frame, layout)
    corners = table_corners(layout)
    assert np.max(np.linalg.norm(calibration.image_to_table(project(table_to_image, corners)) - corners, axis=1)) < 1.5


def test_a_sheet_for_another_table_size_is_refused() -> None:
    printed = default_layout("seven-pennies", 6)  # 642 mm wide
    expected = default_layout("seven-pennies", 2)  # 560 mm wide
    frame = render_view(printed, camera(printed), SIZE)
    with pytest.raises(CalibrationError, match=r"do not fit the seven-pennies layout \(560 x 480 mm\).*instead of 40 mm"):
        calibrate(frame, expected)


def test_no_markers_at_all() -> None:
    layout = default_layout("sevens", 2)
    with pytest.raises(CalibrationError, match="found 0 of the 4 corner markers"):
        calibrate(np.full((480, 640, 3), 90, np.uint8), layout)


# -- manual fallback ---------------------------------------------------------------------------


def test_manual_corners_give_the_homography() -> None:
    layout = default_layout("seven-pennies", 2)
    table_to_image = camera(layout, 12.0, 70.0, 2.0)
    clicked = project(table_to_image, table_corners(layout))
    calibration = calibrate_manual(clicked, layout.table_size_mm, layout.zones, frame_size=SIZE, game=layout.game)
    assert calibration.source == "manual" and calibration.markers is None and calibration.marker_ids is None
    probe = np.array([[100.0, 100.0], [300.0, 250.0], [500.0, 420.0]])
    assert np.allclose(calibration.image_to_table(project(table_to_image, probe)), probe, atol=1e-3)
    theatre_centre = calibration.table_to_image(np.array([[280.0, 240.0]]))[0]
    mm = calibration.image_to_table(theatre_centre.reshape(1, 2))[0]
    assert calibration.zone_of((float(mm[0]), float(mm[1]))) == "theatre"


def test_manual_corners_a_hand_click_off_cost_little() -> None:
    layout = default_layout("flip", 2)
    table_to_image = camera(layout, 6.0)
    clicked = project(table_to_image, table_corners(layout)) + np.array([[2, -1], [-1, 2], [1, 1], [-2, -2]])
    calibration = calibrate_manual(clicked, layout.table_size_mm, layout.zones)
    corners = table_corners(layout)
    error = np.linalg.norm(calibration.image_to_table(project(table_to_image, corners)) - corners, axis=1)
    assert error.max() < 2.0 * calibration.mm_per_px * 1.5


@pytest.mark.parametrize(
    "corners, size, message",
    [
        ([(0, 0), (100, 0), (100, 100)], (500, 400), r"4 points \(x, y\), got an array of shape \(3, 2\)"),
        ([(0, 0), (100, 0), (100, 100), (0, float("nan"))], (500, 400), "finite"),
        ([(0, 0), (100, 0), (100, 100), (0, 100)], (500, -4), "table_size_mm"),
        ([(0, 0), (100, 0), (100, 100), (0, 100)], (500,), "table_size_mm"),
        ([(0, 0), (0, 100), (100, 100), (100, 0)], (500, 400), "anticlockwise"),
        ([(0, 0), (100, 100), (100, 0), (0, 100)], (500, 400), "convex"),
        ([(0, 0), (5, 0), (100, 100), (0, 100)], (500, 400), "top-left and top-right corners are less than 10 px apart"),
        ([(0, 0), (100, 0), (2000, 100), (0, 100)], (500, 400), "top-right|bottom-right corner .* outside the 1280x960 frame"),
    ],
)
def test_manual_corners_bad_input_is_named(corners: list[tuple[float, float]], size: tuple[float, ...], message: str) -> None:
    with pytest.raises(CalibrationError, match=message):
        calibrate_manual(corners, size, frame_size=SIZE)  # type: ignore[arg-type]


# -- following a bumped camera -----------------------------------------------------------------


def _bumped(frame: np.ndarray, angle: float, dx: float, dy: float, scale: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    h, w = frame.shape[:2]
    motion = cv2.getRotationMatrix2D((w / 2, h / 2), angle, scale)
    motion[:, 2] += (dx, dy)
    moved = cv2.warpAffine(frame, motion, (w, h), borderMode=cv2.BORDER_CONSTANT, borderValue=(60, 90, 50))
    return moved, np.vstack([motion, [0, 0, 1]])


@pytest.fixture(scope="module")
def marked() -> tuple[Layout, np.ndarray, np.ndarray, Calibration]:
    layout = default_layout("seven-pennies", 3)
    table_to_image = camera(layout, 10.0, 60.0, 3.0, coverage=0.8)
    frame = noisy(render_view(layout, table_to_image, SIZE), seed=9)
    return layout, table_to_image, frame, calibrate(frame, layout)


def test_track_steady_camera(marked: tuple[Layout, np.ndarray, np.ndarray, Calibration]) -> None:
    layout, _h, frame, calibration = marked
    result = track(calibration, frame)
    assert result.status == "steady" and result.ok
    assert result.calibration is calibration
    assert result.markers_seen == (0, 1, 2, 3)
    assert result.shift_mm is not None and result.shift_mm < 1.0


def test_track_corrects_a_bumped_camera(marked: tuple[Layout, np.ndarray, np.ndarray, Calibration]) -> None:
    layout, table_to_image, frame, calibration = marked
    moved, motion = _bumped(frame, 2.0, 30.0, -18.0, 1.02)
    result = track(calibration, moved)
    assert result.status == "corrected" and result.ok
    assert result.shift_mm is not None and result.shift_mm > 5.0
    assert result.calibration.source == "tracked" and result.calibration.zones == calibration.zones
    corners = table_corners(layout)
    found = result.calibration.image_to_table(project(motion @ table_to_image, corners))
    assert np.max(np.linalg.norm(found - corners, axis=1)) < 1.5
    # The old calibration is now wrong by the shift; the returned one is right.
    stale = calibration.image_to_table(project(motion @ table_to_image, corners))
    assert np.max(np.linalg.norm(stale - corners, axis=1)) > 5.0


def test_track_corrects_from_two_markers(marked: tuple[Layout, np.ndarray, np.ndarray, Calibration]) -> None:
    layout, table_to_image, frame, calibration = marked
    moved, motion = _bumped(frame, -1.5, -20.0, 12.0)
    for marker_id in (0, 3):  # an arm lies over the left-hand markers
        quad = project(motion @ table_to_image, layout.markers.corners_mm(marker_id, layout.table_size_mm))
        cv2.fillConvexPoly(moved, np.round(quad).astype(np.int32), (60, 90, 50))
    result = track(calibration, moved)
    assert result.status == "corrected", result.message
    assert result.markers_seen == (1, 2)
    corners = table_corners(layout)
    found = result.calibration.image_to_table(project(motion @ table_to_image, corners))
    assert np.max(np.linalg.norm(found - corners, axis=1)) < 3.0


def test_track_reports_what_it_cannot_correct(marked: tuple[Layout, np.ndarray, np.ndarray, Calibration]) -> None:
    layout, table_to_image, frame, calibration = marked
    moved, motion = _bumped(frame, 3.0, 25.0, 25.0)
    for marker_id in (0, 1, 3):
        quad = project(motion @ table_to_image, layout.markers.corners_mm(marker_id, layout.table_size_mm))
        cv2.fillConvexPoly(moved, np.round(quad).astype(np.int32), (60, 90, 50))
    result = track(calibration, moved)
    assert result.status == "moved" and not result.ok
    assert result.calibration is calibration
    assert "recalibrate" in result.message
    nothing = track(calibration, np.full_like(frame, 70))
    assert nothing.status == "unseen" and nothing.markers_seen == ()


def test_track_a_manual_calibration_has_nothing_to_follow() -> None:
    calibration = calibrate_manual([(10, 10), (600, 12), (590, 450), (12, 440)], (500.0, 400.0))
    result = track(calibration, np.zeros((480, 640, 3), np.uint8))
    assert result.status == "no_markers" and result.calibration is calibration


# -- lens distortion ---------------------------------------------------------------------------


def distorted(frame: np.ndarray, k: float) -> np.ndarray:
    """The frame as seen through a lens with radial distortion ``k`` (the :class:`Lens` model)."""
    height, width = frame.shape[:2]
    lens = Lens.for_frame(k, (width, height))
    ys, xs = np.mgrid[0:height, 0:width].astype(np.float64)
    source = lens.undistort(np.stack([xs.ravel(), ys.ravel()], axis=1)).reshape(height, width, 2).astype(np.float32)
    return cv2.remap(frame, source[:, :, 0], source[:, :, 1], cv2.INTER_LINEAR, borderValue=(60, 90, 50))


@pytest.mark.parametrize("k", [-0.04, 0.03])
def test_a_distorting_lens_is_measured_from_the_markers(k: float) -> None:
    layout = default_layout("seven-pennies", 3)
    table_to_image = camera(layout, 7.0, 20.0, coverage=0.9)
    frame = noisy(distorted(render_view(layout, table_to_image, SIZE), k), seed=11)
    calibration = calibrate(frame, layout)
    assert calibration.distortion == pytest.approx(k, abs=0.01)
    lens = Lens.for_frame(k, SIZE)
    width, height = layout.table_size_mm
    gx, gy = np.meshgrid(np.linspace(0, width, 9), np.linspace(0, height, 7))
    grid = np.stack([gx.ravel(), gy.ravel()], axis=1)
    seen = lens.distort(project(table_to_image, grid))
    assert np.max(np.linalg.norm(calibration.image_to_table(seen) - grid, axis=1)) < 1.0
    assert np.allclose(calibration.table_to_image(grid), seen, atol=2.0)
    # Taken as a perfect lens, the same markers give millimetres of error inside the table.
    plain = calibrate(frame, layout, CalibrateParams(fit_distortion=False))
    assert plain.distortion == 0.0
    assert np.max(np.linalg.norm(plain.image_to_table(seen) - grid, axis=1)) > 1.5


def test_a_perfect_lens_stays_perfect() -> None:
    layout = default_layout("sevens", 2)
    for seed, tilt in enumerate((0.0, 8.0, 15.0)):
        frame = noisy(render_view(layout, camera(layout, tilt, 100.0 * seed), SIZE), seed=seed)
        assert calibrate(frame, layout).distortion == 0.0


def test_lens_round_trip() -> None:
    lens = Lens.for_frame(-0.09, SIZE)
    points = np.array([[0.0, 0.0], [640.0, 480.0], [1279.0, 959.0], [100.0, 800.0]])
    assert np.allclose(lens.distort(lens.undistort(points)), points, atol=1e-3)
    assert Lens.for_frame(0.0, SIZE) == Lens() and np.array_equal(Lens().undistort(points), points)
    with pytest.raises(CalibrationError, match="needs the frame_size"):
        Calibration(((1, 0, 0), (0, 1, 0), (0, 0, 1)), (100.0, 100.0), (), 1.0, distortion=0.1)
