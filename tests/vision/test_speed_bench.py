"""``benchmarks/speed_bench.py``: its peer counts drawn pips, its DBSCAN clusters, bad input is named."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from benchmarks.speed_bench import blob_dbscan_dice, blob_detector, dbscan, main
from vision._dice_net import PIPS


def test_dbscan_links_points_within_reach_and_leaves_lone_ones_as_noise() -> None:
    points = np.array([[0, 0], [30, 0], [60, 0], [200, 0], [400, 0], [405, 0]], float)
    assert dbscan(points, 40.0, 1).tolist() == [0, 0, 0, 1, 2, 2]
    assert dbscan(points, 40.0, 2).tolist() == [0, 0, 0, -1, 1, 1]
    assert dbscan(np.zeros((0, 2)), 40.0, 1).tolist() == []


def test_the_peer_counts_the_pips_of_drawn_dice() -> None:
    """Two white dice showing 5 and 3, far apart on a dark cloth: two clusters of their pips."""
    frame = np.full((480, 640, 3), (40, 90, 30), np.uint8)
    side = 90
    for (x0, y0), face in (((100, 150), 5), ((400, 250), 3)):
        cv2.rectangle(frame, (x0, y0), (x0 + side, y0 + side), (235, 235, 235), -1)
        for u, v in PIPS[face]:
            cv2.circle(frame, (int(x0 + u * side), int(y0 + v * side)), 8, (20, 20, 20), -1)
    dice = sorted(blob_dbscan_dice(frame, blob_detector()))
    assert [value for _, _, _, value in dice] == [5, 3]
    assert abs(dice[0][0] - 145) < 3 and abs(dice[1][1] - 295) < 3


def test_an_unknown_game_and_bad_passes_are_named(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sp_t1x"]) == 2
    err = capsys.readouterr().err
    assert "no recorded game sp_t1x" in err and "sp_t1," in err
    assert main(["--passes", "0"]) == 2
    assert "--passes" in capsys.readouterr().err
