"""``benchmarks/photo_conditions_bench.py``: close-ups are cut around their coin and scored on it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import cv2
import numpy as np

from benchmarks.photo_conditions_bench import close_up, close_ups_line

COINS = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "coins-mmr"


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
