"""Coins standing on their edge (RULES A1, G-3; ``vision.edge_coins``): the bars looked at, the
check's reports (never a face, never sure), and floors on the rendered scenes (BENCHMARKS.md)."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from benchmarks.backgrounds_bench import DATA, cutouts, run
from vision._coin_geometry import Circle
from vision._coin_model import MODEL_DIR
from vision.coins import CoinParams, find_coins
from vision.edge_coins import EDGE_MODEL, edge_bars, edge_net
from vision.read import read_table
from vision.types import COIN_KINDS

SCENES = Path(__file__).resolve().parents[2] / "fixtures" / "scenes"


def _near(d: object, o: dict) -> bool:
    x, y, w, h = o["bbox"]
    cx, cy = d.center  # type: ignore[attr-defined]
    return abs(cx - x - w / 2) <= 0.6 * w and abs(cy - y - h / 2) <= 0.6 * h


def test_a_bar_about_a_coin_long_is_looked_at_and_nothing_else() -> None:
    """A thin bright bar as long as the round coin is wide is a bar; one three times as long (a
    printed line), a square (a die) and a bar on the round coin itself are not."""
    light = np.full((300, 400), 60, np.uint8)
    cv2.circle(light, (60, 60), 20, 200, -1)  # the round coin, 40 px across
    cv2.rectangle(light, (150, 100), (190, 104), 220, -1)  # on its edge: 41 x 5
    cv2.rectangle(light, (40, 250), (360, 254), 220, -1)  # a printed line
    cv2.rectangle(light, (250, 150), (285, 185), 220, -1)  # a die
    bars = edge_bars(light, [Circle(60, 60, 20)], 1.0, 40.0)
    assert len(bars) == 1
    x, y, length, width = bars[0]
    assert abs(x - 170) < 3 and abs(y - 102) < 3 and 35 < length < 50 and width < 12
    # In a work image at half the frame's scale, the bar is still given in frame pixels (a scrap
    # of the round coin's outline beyond its masked disc may come too: the check judges it).
    half = cv2.resize(light, (200, 150), interpolation=cv2.INTER_AREA)
    (hx, hy, hlength, _), = [b for b in edge_bars(half, [Circle(60, 60, 20)], 0.5, 40.0) if b[0] > 100]
    assert abs(hx - 170) < 4 and abs(hy - 102) < 4 and 35 < hlength < 52


def test_a_coin_on_its_edge_is_reported_never_read() -> None:
    """dev_0015: a nickel stands on its edge. It is reported on edge, with no face and no
    confidence (the players are asked, G-3); with the check turned off it is not found at all."""
    entry = next(e for e in json.loads((SCENES / "dev" / "labels.json").read_text()) if e["image"] == "dev_0015.jpg")
    (coin,) = [o for o in entry["objects"] if "on_edge" in o["flags"]]
    frame = cv2.imread(str(SCENES / "dev" / "dev_0015.jpg"))
    found, _ = find_coins(frame)
    on_edge = [d for d in found if _near(d, coin)]
    assert len(on_edge) == 1 and on_edge[0].flags == ("on_edge",)
    assert on_edge[0].value is None and on_edge[0].confidence == 0.0
    assert on_edge[0].extra["p_on_edge"] >= CoinParams().on_edge_at
    off, _ = find_coins(frame, replace(CoinParams(), on_edge_at=1.01))
    assert not [d for d in off if _near(d, coin)]
    # On a table of pennies (Seven Pennies) it is a penny, whatever the length of its lit rim.
    pennies, _ = find_coins(frame, replace(CoinParams(), kinds=("penny",)))
    assert [d.kind for d in pennies if _near(d, coin)] == ["penny"]


def test_a_coin_alone_on_its_edge_is_looked_for_at_a_known_scale() -> None:
    """dev_0057: a penny on its edge and no round coin to size it by. Without a scale nothing is
    reported; at the table's scale (its markers') it is searched for at a coin's size, and found."""
    entry = next(e for e in json.loads((SCENES / "dev" / "labels.json").read_text()) if e["image"] == "dev_0057.jpg")
    (coin,) = [o for o in entry["objects"] if "on_edge" in o["flags"]]
    frame = cv2.imread(str(SCENES / "dev" / "dev_0057.jpg"))
    alone, _ = find_coins(frame)
    assert alone == []
    scaled, _ = find_coins(frame, mm_per_px=0.608)
    assert [d.flags for d in scaled if _near(d, coin)] == [("on_edge",)]


def test_without_its_model_file_there_is_no_check(tmp_path: Path) -> None:
    for path in MODEL_DIR.glob("coin_face*"):
        shutil.copy(path, tmp_path / path.name)
    assert edge_net(tmp_path) is None and edge_net(MODEL_DIR) is not None
    frame = cv2.imread(str(SCENES / "dev" / "dev_0015.jpg"))
    found, _ = find_coins(frame, replace(CoinParams(), model_dir=tmp_path))
    assert not [d for d in found if "p_on_edge" in d.extra]


def test_a_model_description_that_is_not_what_training_writes_is_named(tmp_path: Path) -> None:
    shutil.copy(MODEL_DIR / EDGE_MODEL, tmp_path / EDGE_MODEL)
    (tmp_path / "coin_edge.json").write_text('{"context": 1.5}')
    with pytest.raises(ValueError, match="coin_edge.json: needs numbers crop_side and context"):
        edge_net(tmp_path)


def test_held_back_scenes_report_coins_on_edge_and_seldom_anything_else() -> None:
    """On the held-back scenes, read as ``referee read`` reads them: some coins on their edge are
    reported so, and an "on edge" report lies on a coin that does not lie flat nearly always."""
    reported = on_edge = elsewhere = 0
    for entry in json.loads((SCENES / "test" / "labels.json").read_text()):
        frame = cv2.imread(str(SCENES / "test" / entry["image"]))
        assert frame is not None, entry["image"]
        reads = [d for d in read_table(frame).objects if "p_on_edge" in d.extra]
        tilted = [o for o in entry["objects"] if o["kind"] in COIN_KINDS and o["flags"]]
        on_edge += sum("on_edge" in o["flags"] for o in tilted)
        reported += sum(any(_near(d, o) for d in reads) for o in tilted if "on_edge" in o["flags"])
        elsewhere += sum(not any(_near(d, o) for o in tilted) for d in reads)
    assert on_edge >= 10
    assert reported >= FLOOR_ON_EDGE_REPORTED
    assert elsewhere <= CEILING_ELSEWHERE


# Measured when committed: 3 of 12 coins on edge reported (4 reports, all on coins that do not
# lie flat), none elsewhere. Floors below.
FLOOR_ON_EDGE_REPORTED = 1
CEILING_ELSEWHERE = 2


def test_card_pips_beside_a_sure_coin_are_no_coins_on_edge() -> None:
    """Coins pasted onto the first 40 card photos of ``benchmarks/backgrounds_bench.py`` (draw 1):
    beside a round coin the model is sure of, the check judges every pip, numeral and border as
    long as the coin is wide, and must take none for a coin on its edge. It learned card photos
    at coin sizes; a check that never saw them made 40 of the 53 coins where none was pasted
    on all 75 of the benchmark's card photos."""
    coins = cutouts(DATA / "coins-mmr", "validation")
    tally = run("cards", coins, seed=1, params=None, limit=40)
    assert tally["coins"] >= 110 and tally["found"] >= 0.85 * tally["coins"]
    assert tally["false"] <= CEILING_FALSE_ON_CARDS


# Measured when committed: 12 coins where none was pasted on those 40 photos (31 with the
# check that never saw card photos at coin sizes, at its threshold 0.98). A ceiling above it,
# well below 31.
CEILING_FALSE_ON_CARDS = 18
