"""``vision.marker_scale``: the frame's scale from the printed table's corner markers, no calibration.

Frames are the printed sheet warped by a known camera homography (tests/vision/test_calibration's
camera), so the true millimetres per pixel at every point is known.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tests.vision.test_calibration import SIZE, camera, noisy
from vision.layouts import default_layout
from vision.marker_scale import MarkerScale, marker_scale, scale_of
from vision.markers import MarkerSpec, render_view


def true_mm_per_px(table_to_image: np.ndarray, point: tuple[float, float]) -> float:
    """Millimetres per pixel at an image point: the square root of the inverse mapping's local area scale."""
    inverse = np.linalg.inv(table_to_image)
    x, y = point

    def to_mm(u: float, v: float) -> np.ndarray:
        p = inverse @ np.array([u, v, 1.0])
        return p[:2] / p[2]

    dx = to_mm(x + 0.5, y) - to_mm(x - 0.5, y)
    dy = to_mm(x, y + 0.5) - to_mm(x, y - 0.5)
    return float(np.sqrt(abs(dx[0] * dy[1] - dx[1] * dy[0])))


@pytest.mark.parametrize("tilt, direction", [(0.0, 0.0), (12.0, 30.0), (15.0, 200.0)])
def test_the_markers_give_the_scale_across_a_tilted_cameras_frame(tilt: float, direction: float) -> None:
    """Straight down the four markers measure one scale; tilted, the far side is smaller, and
    the plane through the markers' scales follows it to about 2% over the play area."""
    layout = default_layout("seven-pennies", 3)
    table_to_image = camera(layout, tilt_deg=tilt, tilt_dir_deg=direction)
    frame = noisy(render_view(layout, table_to_image, SIZE), seed=3)
    scale = marker_scale(frame)
    assert scale is not None and scale.markers == 4
    assert scale.mm_per_px == pytest.approx(true_mm_per_px(table_to_image, (640, 480)), rel=0.02)
    for point in ((300.0, 250.0), (980.0, 250.0), (640.0, 700.0)):
        assert scale.mm_per_px_at(point) == pytest.approx(true_mm_per_px(table_to_image, point), rel=0.03)


def test_a_grey_frame_gives_the_same_scale_and_is_left_as_it_was() -> None:
    """``read_table`` looks for the markers in the grey frame it also hands the coin reader:
    the same scale as from the colour frame, and the grey frame is not changed."""
    layout = default_layout("seven-pennies", 3)
    frame = noisy(render_view(layout, camera(layout, tilt_deg=10.0, tilt_dir_deg=45.0), SIZE), seed=5)
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    before = gray.copy()
    from_colour, from_grey = marker_scale(frame), marker_scale(gray)
    assert from_colour is not None and from_grey is not None
    assert from_grey.coefficients == pytest.approx(from_colour.coefficients, rel=1e-9)
    assert np.array_equal(gray, before)


def test_too_few_or_disagreeing_markers_give_no_scale() -> None:
    """One marker alone may be a stray print, and markers whose scales differ by half again are
    not one flat table's: no scale, and the reader falls back on the coins' own sizes."""
    layout = default_layout("seven-pennies", 3)
    frame = render_view(layout, camera(layout), SIZE)
    frame[:, 200:] = frame[0, 0]  # only the left-hand markers' column is left...
    frame[500:, :] = frame[0, 0]  # ...and only its top marker
    assert marker_scale(frame) is None
    square = np.array([(0.0, 0.0), (40.0, 0.0), (40.0, 40.0), (0.0, 40.0)])
    spec = MarkerSpec()
    assert scale_of({0: square + 100, 1: square * 1.6 + 600}, spec, SIZE) is None
    two = scale_of({0: square + 100, 1: square * 1.2 + 600}, spec, SIZE)
    assert isinstance(two, MarkerScale) and two.markers == 2
    assert two.mm_per_px == pytest.approx((1.0 + 1.0 / 1.2) / 2)  # two markers: their mean, everywhere
    assert two.mm_per_px_at((0.0, 0.0)) == two.mm_per_px


def test_a_frame_that_is_not_an_image_is_refused() -> None:
    with pytest.raises(ValueError, match="uint8"):
        marker_scale(np.zeros((10, 10, 3), np.float32))  # type: ignore[arg-type]
