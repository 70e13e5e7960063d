"""Training pictures from the fixture generator (``tools.fixturegen``): dice and coin sheets
and the training-only scene features. These tests build scenes and labels; they never render."""

from __future__ import annotations

import pytest

from tools.fixturegen.geometry import COIN_KINDS
from tools.fixturegen.scene import frame_labels
from tools.fixturegen.scenes import FEATURES, TRAIN_FEATURES, sample_scene
from tools.fixturegen.sheets import GRID, SHEET_PX, training_sheet


def test_a_sheet_is_a_grid_of_dice_inside_its_window_and_the_same_every_time() -> None:
    for index in range(6):
        sheet = training_sheet(index, seed=3)
        labels = frame_labels(sheet, f"{sheet.name}.jpg", "blender")
        assert tuple(labels["size"]) == (SHEET_PX, SHEET_PX)
        dice = [o for o in labels["objects"] if o["kind"] == "d8"]
        assert len(dice) == len(labels["objects"]) == GRID * GRID
        for o in dice:
            x, y, w, h = o["bbox"]
            assert 0 <= x and 0 <= y and x + w <= SHEET_PX and y + h <= SHEET_PX, (index, o["bbox"])
            assert 1 <= int(o["value"]) <= 8 and not o["flags"]
        again = frame_labels(training_sheet(index, seed=3), f"{sheet.name}.jpg", "blender")
        assert [(o["value"], o["bbox"]) for o in again["objects"]] == [(o["value"], o["bbox"]) for o in dice]
    faces = {o.value for i in range(6) for o in training_sheet(i, seed=3).things}
    assert faces == set(range(1, 9))
    assert all(o.kind == "d6" for o in training_sheet(0, seed=3, kind="d6").things)
    # The first d8 reader's sheets (tools/train_d8.py, --seed 1601) are still made the same.
    assert [o.value for o in training_sheet(0, seed=1601).things] == [7, 4, 4, 6, 5, 8, 6, 8, 5, 4, 5, 6, 6, 6, 1, 2]
    with pytest.raises(ValueError, match="d6, d8 or coins, not 'd20'"):
        training_sheet(0, seed=3, kind="d20")


def test_a_coin_sheet_holds_every_kind_and_face_flat_apart_and_inside_its_window() -> None:
    """Coin sheets teach the coin model (tools/train_coins.py) faces: every coin lies flat and
    whole, none touches another, and over a few sheets every kind shows both faces."""
    seen = set()
    for index in range(6):
        sheet = training_sheet(index, seed=3, kind="coin")
        labels = frame_labels(sheet, f"{sheet.name}.jpg", "blender")
        coins = labels["objects"]
        assert len(coins) == GRID * GRID and all(o["kind"] in COIN_KINDS for o in coins)
        for o in coins:
            x, y, w, h = o["bbox"]
            assert 0 <= x and 0 <= y and x + w <= SHEET_PX and y + h <= SHEET_PX, (index, o["bbox"])
            assert o["value"] in ("heads", "tails") and not o["flags"] and o["visible"] == 1.0
            seen.add((o["kind"], o["value"]))
        things = sheet.things
        for i, a in enumerate(things):
            for b in things[i + 1:]:
                gap = float(((a.pos[:2] - b.pos[:2]) ** 2).sum() ** 0.5) - (a.size + b.size) / 2
                assert gap > 0, (index, a.oid, b.oid)
        again = frame_labels(training_sheet(index, seed=3, kind="coin"), f"{sheet.name}.jpg", "blender")
        assert [(o["kind"], o["value"], o["bbox"]) for o in again["objects"]] == [
            (o["kind"], o["value"], o["bbox"]) for o in coins
        ]
    assert seen == {(kind, face) for kind in COIN_KINDS for face in ("heads", "tails")}


def test_training_only_features_are_asked_for_never_drawn() -> None:
    """``crowded_dice`` adds ten dice; it is not among the features scenes draw by chance (which
    would change the committed scenes), and an unknown feature is named."""
    assert not set(TRAIN_FEATURES) & set(FEATURES)
    plain = sample_scene(4, "train", 9, ("d8_dice",))
    crowded = sample_scene(4, "train", 9, ("d8_dice", "crowded_dice"))
    count = sum(t.kind == "d8" for t in plain.things)
    assert sum(t.kind == "d8" for t in crowded.things) == count + 10
    with pytest.raises(ValueError, match="unknown scene features.*crowded_dice"):
        sample_scene(0, "train", 9, ("crowded_die",))
