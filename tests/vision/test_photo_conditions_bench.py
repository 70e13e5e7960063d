"""``benchmarks/photo_conditions_bench.py``: close-ups are cut around their coin and scored on it;
turned photos keep their labels on their objects."""

from __future__ import annotations

import json
import re

import cv2
import numpy as np

from benchmarks.photo_conditions_bench import close_up, close_ups_line, turned, turned_labels
from tests.conftest import COINS_MMR

COINS = COINS_MMR


def test_a_close_up_is_cut_around_its_coin_and_refused_past_the_photos_edge() -> None:
    image = np.zeros((400, 600, 3), np.uint8)
    cv2.circle(image, (300, 200), 50, (200, 200, 200), -1)
    cut = close_up(image, [250.0, 150.0, 100.0, 100.0], 0.5)
    assert cut is not None
    crop, x0, y0, f = cut
    assert crop.shape == (640, 640, 3) and (x0, y0) == (200.0, 100.0) and f == 3.2
    # The coin, 100 px across, fills half of the 640 px square, centred.
    row = crop[320, :, 0] > 100
    assert abs(int(row.sum()) - 320) <= 4 and row[320]
    assert close_up(image, [250.0, 150.0, 100.0, 100.0], 0.2) is None  # 500 px square: past the edge


def test_close_ups_are_scored_on_the_coin_each_was_cut_around() -> None:
    """mmr_90's six coins (a quarter, a nickel, a dime, a penny and two dollar coins), each
    filling 60% of a square: all found, the neighbours that show in part are no false coins."""
    entry = next(e for e in json.loads((COINS / "labels.json").read_text()) if e["image"] == "mmr_90.jpg")
    line = close_ups_line([entry], 0.6)
    coins = int(re.search(r"coins +(\d+)", line).group(1))  # type: ignore[union-attr]
    assert coins >= 4, line
    assert "found 100.0%" in line and "on no coin 0," in line, line


def test_squeezed_close_ups_are_scored_with_their_labels_squeezed() -> None:
    """The same close-ups, each square's width squeezed to 0.75: five of mmr_90's coins fit; a
    floor of found coins well below the benchmark's (three of the five, 95.5% over coins-mmr)."""
    entry = next(e for e in json.loads((COINS / "labels.json").read_text()) if e["image"] == "mmr_90.jpg")
    line = close_ups_line([entry], 0.6, 0.75)
    assert "width x0.75" in line, line
    assert int(re.search(r"coins +(\d+)", line).group(1)) == 5, line  # type: ignore[union-attr]
    found = float(re.search(r"found +([\d.]+)%", line).group(1))  # type: ignore[union-attr]
    assert found >= 40.0, line


def test_a_turned_photo_keeps_each_label_on_its_object_on_a_square_of_its_diagonal() -> None:
    """A bright square off the centre of a 300x200 photo, turned 30 and 0 degrees: the photo
    lies on a square as wide as its diagonal (361 px) whatever the angle, and the label's box,
    its size kept, is centred where the square went."""
    image = np.full((200, 300, 3), 40, np.uint8)
    image[40:70, 200:230] = 250
    label = {"kind": "d6", "value": 3, "bbox": [200.0, 40.0, 30.0, 30.0]}
    for degrees in (0.0, 30.0):
        out, m = turned(image, degrees)
        assert out.shape == (361, 361, 3)
        assert out[0, 0].tolist() == [40, 40, 40]  # the corners filled with the median colour
        (moved,) = turned_labels([label], m)
        x, y, w, h = moved["bbox"]
        assert (w, h) == (30.0, 30.0) and moved["value"] == 3
        ys, xs = np.nonzero(out[..., 0] > 200)
        assert abs(xs.mean() - (x + w / 2)) < 1.0 and abs(ys.mean() - (y + h / 2)) < 1.0
