"""``read_table(..., kinds=...)``: a game's frame is searched only for the objects the game has."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

import vision.coins
import vision.dice
import vision.read
from hardware.replay import ReplaySource
from vision.calibration import Calibration, calibrate
from vision.read import ReadParams, params_for_kinds, read_table
from vision.types import CONFIDENT
from web.cli import main
from web.recording import replay_layout
from web.service import VisionReader

GAMES = Path(__file__).resolve().parents[2] / "fixtures" / "games"


def settled(name: str, index: int) -> tuple[np.ndarray, list[dict[str, Any]]]:
    """A fixture game's ``index``-th settled frame and its labelled objects."""
    frames = [entry for entry in json.loads((GAMES / name / "game.json").read_text())["frames"] if entry.get("settled")]
    entry = frames[index]
    image = cv2.imread(str(GAMES / name / entry["image"]))
    assert image is not None, entry["image"]
    return image, entry["objects"]


def table_calibration(name: str, image: np.ndarray) -> Calibration:
    """The calibration the live reader makes from a fixture game's own table."""
    layout = replay_layout(ReplaySource(GAMES / name))
    assert layout is not None
    return calibrate(image, layout)


def refuse(what: str) -> Any:
    """A stand-in that fails the test when the read calls it."""

    def called(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError(f"{what} ran")

    return called


def agrees_with_labels(objects: Any, labels: list[dict[str, Any]]) -> None:
    """Every labelled object is read once, of its kind, and every sure read is right."""
    assert len(objects) == len(labels)
    for label in labels:
        x, y, w, h = label["bbox"]
        on_it = [o for o in objects if x <= o.center[0] <= x + w and y <= o.center[1] <= y + h]
        assert len(on_it) == 1, label["id"]
        assert on_it[0].kind == label["kind"]
        if on_it[0].confidence >= CONFIDENT:
            assert on_it[0].value == label["value"], label["id"]


def test_a_coin_games_read_never_runs_the_dice_finder(monkeypatch: pytest.MonkeyPatch) -> None:
    """Seven Pennies has pennies and no dice (SP-1.4): no dice finder, and the pennies are read."""
    image, labels = settled("sp_t1", 2)
    calibration = table_calibration("sp_t1", image)
    monkeypatch.setattr(vision.dice, "find_dice", refuse("the dice finder"))
    observation = read_table(image, calibration, kinds={"penny"})
    agrees_with_labels(observation.objects, labels)
    assert {o.kind for o in observation.objects} == {"penny"}


def test_a_dice_games_read_never_runs_the_circle_search(monkeypatch: pytest.MonkeyPatch) -> None:
    """Sevens has d6 and no coins: no circle search, and the dice are read."""
    image, labels = settled("sevens_sv_t1_t3", 1)
    calibration = table_calibration("sevens_sv_t1_t3", image)
    monkeypatch.setattr(vision.read, "find_coins", refuse("the coin reader"))
    monkeypatch.setattr(vision.coins, "find_coin_circles", refuse("the circle search"))
    observation = read_table(image, calibration, kinds={"d6"})
    agrees_with_labels(observation.objects, labels)


def test_no_kinds_no_search(monkeypatch: pytest.MonkeyPatch) -> None:
    """A game whose objects the camera does not read (Pennies From Heaven's cards): nothing is
    looked for, and the read is empty."""
    image, _ = settled("sp_t4_dice", 0)
    monkeypatch.setattr(vision.dice, "find_dice", refuse("the dice finder"))
    monkeypatch.setattr(vision.read, "find_coins", refuse("the coin reader"))
    assert read_table(image, kinds=()).objects == ()


def test_kinds_narrow_what_each_reader_names() -> None:
    """The coin reader names only the table's coins and the dice reader its dice; kinds the
    parameters already leave out stay out."""
    both = params_for_kinds(ReadParams(), ["nickel", "penny", "d6"])
    assert both.read_coins and both.read_dice
    assert both.coins.kinds == ("penny", "nickel") and both.dice.kinds == ("d6",)
    narrowed = params_for_kinds(both, {"penny", "dime", "d8"})
    assert narrowed.coins.kinds == ("penny",) and not narrowed.read_dice


def test_a_kind_vision_does_not_read_is_refused() -> None:
    image, _ = settled("sp_t1", 0)
    with pytest.raises(ValueError, match="card"):
        read_table(image, kinds={"penny", "card"})


def test_the_live_reader_passes_the_games_kinds(monkeypatch: pytest.MonkeyPatch) -> None:
    """The service's reader, given a game's kinds (cards among them: not the camera's), reads
    a dice game's frame without the coin reader and a coin game's without the dice finder."""
    image, labels = settled("sevens_sv_t1_t3", 1)
    dice_reader = VisionReader(replay_layout(ReplaySource(GAMES / "sevens_sv_t1_t3")), kinds=frozenset({"d6", "card"}))
    with monkeypatch.context() as patch:
        patch.setattr(vision.read, "find_coins", refuse("the coin reader"))
        agrees_with_labels(dice_reader(image).objects, labels)
    image, labels = settled("sp_t1", 2)
    coin_reader = VisionReader(replay_layout(ReplaySource(GAMES / "sp_t1")), kinds=frozenset({"penny"}))
    monkeypatch.setattr(vision.dice, "find_dice", refuse("the dice finder"))
    agrees_with_labels(coin_reader(image).objects, labels)
    card_reader = VisionReader(replay_layout(ReplaySource(GAMES / "sp_t1")), kinds=frozenset({"card"}))
    monkeypatch.setattr(vision.read, "find_coins", refuse("the coin reader"))
    assert card_reader(image).objects == ()


def test_referee_read_kinds(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """``referee read --kinds d6`` reports only dice; a kind vision does not read stops with exit 2."""
    path = GAMES / "sevens_sv_t1_t3" / "0000.jpg"
    assert main(["read", str(path), "--kinds", "d6", "--json"]) == 0
    line = json.loads(capsys.readouterr().out)
    assert line["objects"] and {o["kind"] for o in line["objects"]} == {"d6"}
    assert main(["read", str(path), "--kinds", "penny,chess"]) == 2
    assert "chess" in capsys.readouterr().err
    assert main(["read", str(path), "--kinds", ","]) == 2
    assert "names no kind" in capsys.readouterr().err
