"""``benchmarks/read_bench.py``: the speed benchmark of the whole read runs and names bad input."""

from __future__ import annotations

import importlib
import json
import shutil
from pathlib import Path

import pytest

from benchmarks.read_bench import load_scenes, main
from tests.conftest import COINS_MMR

TEST_SCENES = Path(__file__).resolve().parents[2] / "fixtures" / "scenes" / "test"


def two_scenes(folder: Path) -> Path:
    """A folder holding the first two held-back scenes and their labels."""
    labels = json.loads((TEST_SCENES / "labels.json").read_text())[:2]
    for entry in labels:
        shutil.copy(TEST_SCENES / entry["image"], folder / entry["image"])
    (folder / "labels.json").write_text(json.dumps(labels))
    return folder


def test_times_the_four_reads_of_each_scene_and_counts_what_they_found(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = two_scenes(tmp_path)
    labels = json.loads((folder / "labels.json").read_text())
    coins = sum(
        o["kind"] in ("penny", "nickel", "dime", "quarter") and not o["flags"] and o["visible"] > 0.9
        for entry in labels for o in entry["objects"]
    )
    assert coins > 0
    assert main(["--scenes", str(folder), "--passes", "1"]) == 0
    out = capsys.readouterr().out
    assert "2 scenes" in out and "1280x960" in out
    lines = {row.split(":")[0]: row for row in out.splitlines()[1:]}
    assert set(lines) == {"coins and dice", "coins alone", "dice alone", "coins and dice at the table's scale"}
    for line in lines.values():
        assert "2 reads" in line and "median ms per frame: CPU" in line
        assert line.endswith(("within the 30 ms target", "over the 30 ms target"))
    # Each read says how many of the labelled coins it found, of the kinds it looks for.
    assert f"of {coins}" in lines["coins alone"] and "dice found" not in lines["coins alone"]
    assert "coins found" not in lines["dice alone"] and "dice found" in lines["dice alone"]
    found = int(lines["coins and dice at the table's scale"].split("coins found ")[1].split(" of")[0])
    assert found >= coins // 2


def test_a_missing_or_unreadable_scene_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = two_scenes(tmp_path)
    name = json.loads((folder / "labels.json").read_text())[1]["image"]
    (folder / name).write_bytes(b"not a jpeg")
    with pytest.raises(ValueError, match=name):
        load_scenes(folder)
    (folder / name).unlink()
    assert main(["--scenes", str(folder)]) == 2
    assert name in capsys.readouterr().err
    assert main(["--scenes", str(tmp_path / "nowhere")]) == 2
    assert "no labels.json" in capsys.readouterr().err


def test_photos_are_fitted_into_the_frame_unstretched(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--fit 1280x960``: a 936x837 photo becomes a 1280x960 frame at one scale (its coins stay
    round), its labels moved with it, so the reads found what they would in the photo; the
    table's-scale read needs a rendered scene's homography and is left out."""
    import cv2
    import numpy as np

    from benchmarks.read_bench import fit_frame

    photo = np.zeros((837, 936, 3), np.uint8)
    cv2.circle(photo, (468, 418), 100, (255, 255, 255), -1)
    frame, scale, (dx, dy) = fit_frame(photo, 1280, 960)
    assert frame.shape == (960, 1280, 3) and scale == pytest.approx(960 / 837)
    ys, xs = np.nonzero(frame[:, :, 0] > 127)
    assert (xs.max() - xs.min()) == pytest.approx(ys.max() - ys.min(), abs=2)  # still round
    assert abs((xs.max() + xs.min()) / 2 - (468 * scale + dx)) < 2 and abs((ys.max() + ys.min()) / 2 - (418 * scale + dy)) < 2

    labels = json.loads((COINS_MMR / "labels.json").read_text())[:2]
    for entry in labels:
        shutil.copy(COINS_MMR / entry["image"], tmp_path / entry["image"])
    (tmp_path / "labels.json").write_text(json.dumps(labels))
    assert main(["--scenes", str(tmp_path), "--passes", "1", "--fit", "1280x960"]) == 0
    out = capsys.readouterr().out
    lines = {row.split(":")[0]: row for row in out.splitlines()[1:]}
    assert set(lines) == {"coins and dice", "coins alone", "dice alone"}
    assert "1280x960" in out
    found, labelled = (int(v) for v in lines["coins alone"].split("coins found ")[1].split(";")[0].split(" of "))
    assert labelled >= 10 and found >= 0.9 * labelled


@pytest.mark.parametrize("fit", ["1280", "big", "8x8"])
def test_a_bad_fit_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str], fit: str) -> None:
    folder = two_scenes(tmp_path)
    with pytest.raises(SystemExit):
        main(["--scenes", str(folder), "--fit", fit])
    assert "--fit" in capsys.readouterr().err


def test_steps_say_where_a_reads_time_goes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--steps``: each step of the read, its own steps indented under it, timed where the read
    calls it; a step takes no longer than the read it is part of, and the read's functions are
    put back afterwards."""
    import vision.coins
    import vision.read

    before = (vision.read.find_coins, vision.coins.hough_circles)
    folder = two_scenes(tmp_path)
    assert main(["--scenes", str(folder), "--passes", "1", "--steps"]) == 0
    assert (vision.read.find_coins, vision.coins.hough_circles) == before
    rows = [row for row in capsys.readouterr().out.splitlines() if ": median " in row]
    ms = {row.strip().split(":")[0]: float(row.split("median ")[1].split(",")[0]) for row in rows}
    assert {"the whole read", "coins (find_coins)", "the transform", "reader crops", "dice (find_dice)"} <= set(ms)
    assert any(row.startswith("    the transform") for row in rows)
    assert 0 < ms["the transform"] <= ms["circle search"] <= ms["coins (find_coins)"] < ms["the whole read"]
    assert 0 < ms["reader crops"] <= ms["dice (find_dice)"] < ms["the whole read"]


def test_steps_time_another_coin_model_when_given_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--steps --coin-model-dir DIR`` times the read with that coin model (every coin read
    loads it from DIR), so that a candidate's steps are compared with the shipped model's."""
    from vision._coin_model import MODEL_DIR

    # The coin reader's module, which loads the model (the package's ``appearance`` is a function).
    reader = importlib.import_module("vision.coins.appearance")

    (tmp_path / "scenes").mkdir()
    folder = two_scenes(tmp_path / "scenes")
    models = tmp_path / "models"
    shutil.copytree(MODEL_DIR, models)
    asked: list[Path] = []
    load = reader.load_model
    monkeypatch.setattr(reader, "load_model",
                        lambda model_dir=MODEL_DIR: asked.append(model_dir) or load(model_dir))
    assert main(["--scenes", str(folder), "--passes", "1", "--steps", "--coin-model-dir", str(models)]) == 0
    assert "appearance network: median" in capsys.readouterr().out
    assert asked and set(asked) == {models}
