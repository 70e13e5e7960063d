"""The printed table's long thin marks painted over before the circle search (``vision.print_erase``).

Issue 5's speed target: the circle search's time goes to the edges of the zones' printed
outlines (docs/benchmarks/speed.md); painted over, they cost nothing, and the coins
are found as before.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision._coin_geometry import hough_circles
from vision._coin_split import rendered_scale
from vision.coins import CoinParams, find_coin_circles
from vision.print_erase import erase_print
from vision.read import params_for_scale

DEV_SCENES = Path(__file__).resolve().parents[2] / "fixtures" / "scenes" / "dev"


def printed_table(seed: int = 5) -> tuple[np.ndarray, list[tuple[int, int, int]]]:
    """A grey 1280x960 cloth with a zone's double outline, a name in letters and coins of radius
    17 to 22 px: one lying on a band, one touching it, one with a face only partly unlike the
    cloth, the rest apart."""
    rng = np.random.default_rng(seed)
    img = np.full((960, 1280), 90, np.uint8)
    # Two zones side by side, each outlined by a band 9 px wide, 16 px apart.
    cv2.rectangle(img, (60, 60), (620, 900), 200, 9)
    cv2.rectangle(img, (645, 60), (1220, 900), 200, 9)
    cv2.putText(img, "THEATRE", (100, 900), cv2.FONT_HERSHEY_SIMPLEX, 1.2, 200, 4)
    coins = [(400, 64, 19), (598, 300, 20), (300, 400, 17), (900, 500, 22), (750, 700, 18)]
    for x, y, r in coins:
        cv2.circle(img, (x, y), r, 170, -1, cv2.LINE_AA)
    # Relief: mid-grey strokes across the faces, as like the cloth as not.
    for x, y, r in coins:
        for _ in range(6):
            a, b = rng.uniform(-0.6 * r, 0.6 * r, 2), rng.uniform(-0.6 * r, 0.6 * r, 2)
            cv2.line(img, (int(x + a[0]), int(y + a[1])), (int(x + b[0]), int(y + b[1])), 100, 2)
    noise = rng.normal(0, 2, img.shape)
    return np.clip(img + noise, 0, 255).astype(np.uint8), coins


def edge_pixels(gray: np.ndarray) -> int:
    return int(np.count_nonzero(cv2.Canny(cv2.GaussianBlur(gray, (5, 5), 1.2), 50, 100)))


def test_the_bands_and_letters_are_painted_and_the_coins_kept() -> None:
    """The outline's bands leave (almost) no edge; every coin is found as before, the one lying
    on a band and the one touching it too."""
    img, coins = printed_table()
    erased = erase_print(img, 13)
    assert erased is not img and img[60, 200] > 190  # a copy: the frame itself is not painted
    assert edge_pixels(erased) < 0.35 * edge_pixels(img)
    assert abs(int(erased[60, 200]) - 90) <= 3 and abs(int(erased[500, 645]) - 90) <= 3  # bands read as cloth
    before, after = hough_circles(img, 13, 34, 2.0, 100.0, 0.8), hough_circles(erased, 13, 34, 2.0, 100.0, 0.8)
    for x, y, r in coins:
        assert np.hypot(before[:, 0] - x, before[:, 1] - y).min() < 3
        gap = np.hypot(after[:, 0] - x, after[:, 1] - y)
        assert gap.min() < 3 and abs(after[gap.argmin(), 2] - r) < 3, (x, y)
        # Each coin's own pixels are untouched.
        assert np.array_equal(erased[y - r // 2 : y + r // 2, x - r // 2 : x + r // 2], img[y - r // 2 : y + r // 2, x - r // 2 : x + r // 2])


def test_marks_shorter_than_a_few_coins_are_left() -> None:
    """A coin on its edge (a bar one coin long), a die's shadow, a letter: short thin marks are
    not print, and are left as they are."""
    img = np.full((960, 1280), 90, np.uint8)
    cv2.rectangle(img, (600, 400), (640, 406), 200, -1)  # a coin on its edge, seen from above
    cv2.putText(img, "A", (200, 200), cv2.FONT_HERSHEY_SIMPLEX, 1.2, 200, 4)
    assert erase_print(img, 13) is img


def test_a_plain_cloth_or_a_frame_of_coins_is_returned_as_it_is() -> None:
    plain = np.full((480, 640), 120, np.uint8)
    assert erase_print(plain, 8) is plain
    coins_only = np.full((960, 1280), 90, np.uint8)
    cv2.circle(coins_only, (300, 300), 20, 170, -1)
    assert erase_print(coins_only, 13) is coins_only


@pytest.mark.parametrize("bad", [np.zeros((10, 10, 3), np.uint8), np.zeros((10, 10), np.float32), "frame"])
def test_anything_but_a_grey_image_is_refused(bad: object) -> None:
    with pytest.raises(ValueError, match="gray must be a 2-D uint8 image"):
        erase_print(bad, 10)  # type: ignore[arg-type]


def test_a_radius_that_is_not_positive_is_refused() -> None:
    with pytest.raises(ValueError, match="smallest_radius must be positive"):
        erase_print(np.zeros((100, 100), np.uint8), 0)


def test_at_the_tables_scale_the_dev_scenes_coins_are_found_as_without_it() -> None:
    """On rendered dev scenes read at their scale (the live referee's read), the circles found
    with the print painted over are those found without, give or take a circle."""
    entries = [e for e in json.loads((DEV_SCENES / "labels.json").read_text()) if e["image"] in
               ("dev_0001.jpg", "dev_0010.jpg", "dev_0084.jpg", "dev_0207.jpg")]
    assert len(entries) == 4
    same = total = 0
    for e in entries:
        frame = cv2.imread(str(DEV_SCENES / e["image"]))
        params = params_for_scale(rendered_scale(e), frame.shape[1], frame.shape[0]).coins
        assert params.erase_print and params.circle_size > 0
        with_erase = find_coin_circles(frame, params)
        without = find_coin_circles(frame, replace(params, erase_print=False))
        total += len(without)
        same += sum(any(np.hypot(c.x - d.x, c.y - d.y) < 3 for d in with_erase) for c in without)
    assert total >= 15 and same >= total - 1


def test_without_a_scale_the_search_sees_the_frame_as_it_is(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the search at a known scale paints the print over: without one (a phone's close-up
    of coins on plain cloth) it lost coins and found nothing to paint."""
    import vision.coins.circles  # the module of the circle search, which calls it

    calls: list[int] = []
    monkeypatch.setattr(vision.coins.circles, "erase_print", lambda gray, r: calls.append(1) or gray)
    img, _ = printed_table()
    frame = cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    find_coin_circles(frame, CoinParams())
    assert calls == []
    find_coin_circles(frame, params_for_scale(0.5, 1280, 960).coins)
    assert calls == [1]
