"""Tests for vision._coin_geometry: the circle search tile by tile, circles fitted to edges, the
work image, the colour distance looked up, and polar images read backwards (mirrored coins)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision import _coin_geometry
from vision._coin_geometry import search as circle_search
from vision._coin_geometry import (
    TILE_OVER_MARGIN,
    _hough,
    _spans,
    hough_circles,
    polar_grid,
    polar_samples,
    work_image,
)


def busy_table(w: int = 1000, h: int = 760, seed: int = 3) -> tuple[np.ndarray, list[tuple[int, int, int]]]:
    """A grey table with printed lines and text and 40 discs of radius 8 to 16, many across tile borders."""
    rng = np.random.default_rng(seed)
    img = np.full((h, w), 150, np.uint8)
    for x in range(40, w, 230):
        cv2.line(img, (x, 10), (x + 20, h - 10), 40, 4)
    for y in range(60, h, 170):
        cv2.line(img, (10, y), (w - 10, y + 10), 40, 4)
        cv2.putText(img, "THEATRE 7", (30, y - 8), cv2.FONT_HERSHEY_SIMPLEX, 0.6, 40, 2)
    discs: list[tuple[int, int, int]] = []
    while len(discs) < 40:
        x, y, r = int(rng.integers(20, w - 20)), int(rng.integers(20, h - 20)), int(rng.integers(8, 17))
        if all(np.hypot(x - a, y - b) > r + c + 4 for a, b, c in discs):
            discs.append((x, y, r))
            cv2.circle(img, (x, y), r, int(rng.choice([70, 230])), -1, cv2.LINE_AA)
    noise = rng.normal(0, 3, img.shape)
    return np.clip(img + noise, 0, 255).astype(np.uint8), discs


def test_a_large_image_is_searched_in_tiles_and_finds_what_one_search_finds(monkeypatch: pytest.MonkeyPatch) -> None:
    """The circle search weighs every candidate centre against every edge pixel, so a large
    image is searched tile by tile (each with a margin that holds any circle centred in its
    core): the same circles as one search over the whole image."""
    img, discs = busy_table()
    calls: list[tuple[int, int]] = []
    original = _coin_geometry._hough

    def counting(blurred: np.ndarray, *args: float) -> np.ndarray:
        calls.append(blurred.shape[:2])
        return original(blurred, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(circle_search, "_hough", counting)
    tiled = hough_circles(img, 7, 17, 2.0, 100.0, 0.8)
    assert len(calls) >= 6 and all(max(shape) < max(img.shape) for shape in calls)
    whole = _hough(cv2.GaussianBlur(img, (5, 5), 1.2), 7, 17, 2.0, 7 * 1.2, 100.0, 0.8)
    assert len(tiled) == len(whole)
    for x, y, r in whole:
        gap = np.hypot(tiled[:, 0] - x, tiled[:, 1] - y)
        assert gap.min() < 0.5 and abs(tiled[gap.argmin(), 2] - r) < 0.5
    # And it finds the discs, those across tile borders too (a few lying on a printed line
    # or a name are lost to both).
    found = [np.hypot(tiled[:, 0] - x, tiled[:, 1] - y).min() < 2 for x, y, _ in discs]
    assert sum(found) >= 0.8 * len(discs), sum(found)


def test_a_frame_at_the_tables_scale_is_searched_in_six_tiles(monkeypatch: pytest.MonkeyPatch) -> None:
    """The full 1280x960 frame, searched for coins of 12 to 34 px in radius (the fixture camera's
    scale), is cut 3 x 2, not 3 x 3: the search's time grows with the count of tiles (each
    searches its margins again), and a tile this size costs no more for its area."""
    img, _ = busy_table(1280, 960)
    shapes: list[tuple[int, int]] = []
    original = _coin_geometry._hough
    monkeypatch.setattr(circle_search, "_hough", lambda b, *a: shapes.append(b.shape[:2]) or original(b, *a))
    tiled = hough_circles(img, 12, 34, 2.0, 100.0, 0.8)
    assert len(shapes) == 6
    whole = _hough(cv2.GaussianBlur(img, (5, 5), 1.2), 12, 34, 2.0, 12 * 1.2, 100.0, 0.8)
    assert len(tiled) == len(whole) > 0
    for x, y, r in whole:
        gap = np.hypot(tiled[:, 0] - x, tiled[:, 1] - y)
        assert gap.min() < 0.5 and abs(tiled[gap.argmin(), 2] - r) < 0.5


def test_an_image_near_the_circles_size_is_searched_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tiles pay only where the image is many circles across: the 480 px work image, searched
    for coins up to 72 px in radius, is searched in one piece."""
    img, _ = busy_table(480, 360)
    calls: list[int] = []
    original = _coin_geometry._hough
    monkeypatch.setattr(circle_search, "_hough", lambda *a: calls.append(1) or original(*a))
    hough_circles(img, 9, 72, 2.0, 100.0, 0.8)
    assert calls == [1]


@pytest.mark.parametrize("length, core, step", [(778, 270, 2), (583, 270, 2), (1024, 400, 2), (100, 270, 2), (999, 300, 3)])
def test_spans_cover_the_image_and_start_on_the_accumulators_grid(length: int, core: int, step: int) -> None:
    spans = _spans(length, core, step)
    assert spans[0][0] == 0 and spans[-1][1] == length
    assert all(a[1] == b[0] for a, b in zip(spans, spans[1:]))
    assert all(start % step == 0 and end > start for start, end in spans)
    assert len(spans) == max(1, int(np.ceil(length / core)))


def test_tiles_are_many_margins_wide() -> None:
    assert TILE_OVER_MARGIN >= 4


def test_circles_are_fitted_row_by_row_without_their_outliers() -> None:
    rng = np.random.default_rng(3)
    angles = np.linspace(0, 2 * np.pi, 72, endpoint=False)
    rows = [(400.0, 300.0, 20.0), (35.5, 910.25, 11.0), (1200.0, 40.0, 64.0)]
    x = np.array([cx + r * np.cos(angles) for cx, _, r in rows])
    y = np.array([cy + r * np.sin(angles) for _, cy, r in rows])
    x += rng.normal(0, 0.05, x.shape)
    # A touching coin's edge on a sixth of the first row's rays: outliers to leave out.
    x[0, :12] += 6.0
    use = np.ones(x.shape, bool)
    use[2] = False
    use[2, ::9] = True  # the last row keeps only 8 points, round the circle
    cx, cy, r, fitted = _coin_geometry.fit_circles(x, y, use)
    assert fitted.all()
    for i, (tx, ty, tr) in enumerate(rows):
        assert abs(cx[i] - tx) < 0.2 and abs(cy[i] - ty) < 0.2 and abs(r[i] - tr) < 0.2, i


def test_too_few_points_or_points_on_a_line_fit_no_circle() -> None:
    x = np.vstack([np.arange(72.0), np.arange(72.0)])
    y = np.vstack([np.zeros(72), 5.0 + np.arange(72.0) * 0.5])  # two straight lines
    use = np.ones(x.shape, bool)
    assert not _coin_geometry.fit_circles(x, y, use)[3].any()
    use[:, 7:] = False
    few = _coin_geometry.fit_circles(x + np.cos(x), y + np.sin(x), use)[3]
    assert not few.any()


def test_each_circle_is_fitted_to_its_coins_outer_edge() -> None:
    img = np.full((200, 300), 120, np.uint8)
    cv2.circle(img, (80, 100), 30, 200, -1)
    cv2.circle(img, (80, 100), 24, 160, 2)  # the raised rim inside the edge
    cv2.circle(img, (220, 90), 18, 40, -1)
    rough = [_coin_geometry.Circle(82.0, 98.0, 27.0), _coin_geometry.Circle(219.0, 91.0, 20.0)]
    fitted = _coin_geometry.refine_circles(img, rough)
    for c, (x, y, r) in zip(fitted, [(80, 100, 30.5), (220, 90, 18.5)]):
        assert abs(c.x - x) < 0.7 and abs(c.y - y) < 0.7 and abs(c.r - r) < 0.8
        assert c.support > 0.9
    assert _coin_geometry.refine_circles(img, []) == []


def test_a_blurred_coin_is_sized_by_its_edges_middle_not_its_flank() -> None:
    """Blur spreads a coin's edge outwards: the circle through the edge's outer flank (``r``,
    where the coin model looks) grows with it, the one through its middle (``edge_r``) does not."""
    sharp = np.full((200, 200), 120, np.uint8)
    cv2.circle(sharp, (100, 100), 30, 220, -1, cv2.LINE_AA)
    rough = [_coin_geometry.Circle(101.0, 99.0, 29.0)]
    for sigma in (0.8, 3.0):
        (c,) = _coin_geometry.refine_circles(cv2.GaussianBlur(sharp, (0, 0), sigma), rough)
        assert c.edge_r is not None and c.size_r == c.edge_r
        assert c.edge_r == pytest.approx(30.0, abs=0.8)
        assert c.r > c.edge_r
    assert c.r > 32.0  # the flank of the most blurred edge lies 2 px and more out


def test_a_circle_measured_without_its_edges_middle_is_sized_by_its_flank_less_the_usual_margin() -> None:
    c = _coin_geometry.Circle(10.0, 10.0, 20.94)
    assert c.edge_r is None
    assert c.size_r == pytest.approx(20.94 / _coin_geometry.FLANK_BEYOND_MIDDLE)


def test_the_work_image_is_the_frame_reduced_by_area_averaging() -> None:
    """A 1280x960 frame becomes 480x360 at scale 0.375, each pixel the mean of the frame's
    pixels it covers (a stripe pattern finer than the work image's pixels averages to grey);
    a frame already as small is handed back as it is."""
    frame = np.zeros((960, 1280, 3), np.uint8)
    frame[:, ::2] = 200  # one-pixel stripes: 0, 200, 0, 200...
    small, scale = work_image(frame, 480)
    assert small.shape == (360, 480, 3) and scale == 0.375
    assert np.abs(small[5:-5, 5:-5].astype(int) - 100).max() <= 1
    little = np.zeros((300, 400, 3), np.uint8)
    same, one = work_image(little, 480)
    assert same is little and one == 1.0


def test_the_looked_up_distance_marks_what_the_distance_worked_out_marks() -> None:
    """``beyond_distance`` (each channel's share looked up) is ``table_distance`` over the
    threshold, pixel for pixel: patches, and the ellipses fitted to them, are the same."""
    # Every lightness with every a*, at three b*: pixels as near the threshold as there are
    # (looked up in 8 bits and rounded, as ``vision.colour_coins.unlike_table`` does, 4 to 28
    # of each 65,536 differ).
    lightness, a = np.meshgrid(np.arange(256), np.arange(256), indexing="ij")
    lab = np.concatenate([np.dstack([lightness, a, np.full_like(a, b)]) for b in (120, 128, 140)]).astype(np.uint8)
    for table in ([87.0, 102.0, 145.0], [128.5, 128.0, 128.0], [40.2, 150.7, 170.1]):
        t = np.array(table, np.float32)
        distance = _coin_geometry.table_distance(lab.astype(np.float32) - t)
        for threshold in (12.0, 18.0, 25.0):
            mask = _coin_geometry.beyond_distance(lab, t, threshold)
            assert mask.dtype == np.uint8 and set(np.unique(mask)) <= {0, 255}
            assert np.array_equal(mask > 0, distance > threshold)


def test_a_polar_image_read_backwards_is_the_coin_mirrored() -> None:
    """``tools/train_coins.py --mirror`` teaches mirrored coins (a face mirrored is the same
    face: the Washington quarter's portrait faces right from 2022 on, left before) by reversing
    the polar image's angles. That must be the polar image of the mirrored coin, up to a turn
    (and the half step between sampled angles), padding included, and unlike any turn of the
    coin unmirrored."""
    img = np.full((120, 120), 90, np.uint8)
    cv2.circle(img, (60, 60), 40, 170, -1, cv2.LINE_AA)
    # A design with a handedness: an L and a dot, which no turn maps onto its mirror image.
    cv2.line(img, (45, 35), (45, 80), 30, 6)
    cv2.line(img, (45, 80), (70, 80), 30, 6)
    cv2.circle(img, (78, 45), 6, 240, -1)
    n_angles, pad = 64, 8
    grid = polar_grid(16, n_angles, pad, 0.0, 0.97)
    polar = polar_samples(img, [(60.0, 60.0, 40.0)], grid, 24, "zscore")[0]
    mirrored = polar_samples(cv2.flip(img, 1), [(59.0, 60.0, 40.0)], grid, 24, "zscore")[0]
    backwards = polar[:, ::-1]

    def nearest_turn(a: np.ndarray, b: np.ndarray) -> float:
        """The least mean difference between ``a`` turned by any whole step and ``b`` (cores only)."""
        core_a, core_b = a[:, pad:-pad], b[:, pad:-pad]
        return min(float(np.abs(np.roll(core_a, k, axis=1) - core_b).mean()) for k in range(n_angles))

    assert nearest_turn(backwards, mirrored) < 0.25
    assert nearest_turn(backwards, mirrored) < 0.5 * nearest_turn(polar, mirrored)
    # The padding still wraps round the reversed angles.
    assert np.array_equal(backwards[:, :pad], backwards[:, n_angles : n_angles + pad])
    assert np.array_equal(backwards[:, -pad:], backwards[:, pad : 2 * pad])
