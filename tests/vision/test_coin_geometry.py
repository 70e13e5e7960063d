"""Tests for vision._coin_geometry's circle search: a large image searched tile by tile."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision import _coin_geometry
from vision._coin_geometry import TILE_OVER_MARGIN, _hough, _spans, hough_circles


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

    monkeypatch.setattr(_coin_geometry, "_hough", counting)
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


def test_an_image_near_the_circles_size_is_searched_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tiles pay only where the image is many circles across: the 480 px work image, searched
    for coins up to 72 px in radius, is searched in one piece."""
    img, _ = busy_table(480, 360)
    calls: list[int] = []
    original = _coin_geometry._hough
    monkeypatch.setattr(_coin_geometry, "_hough", lambda *a: calls.append(1) or original(*a))
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
