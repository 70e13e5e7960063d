"""The calibration file: a small readable JSON file, checked field by field on load."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from vision.calibration import FORMAT, Calibration, CalibrationError, calibrate_manual, load_calibration
from vision.layouts import default_layout
from vision.markers import MarkerSpec


@pytest.fixture()
def calibration() -> Calibration:
    layout = default_layout("seven-pennies", ["Ann", "Bo"])
    made = calibrate_manual([(100, 80), (1180, 100), (1150, 900), (120, 880)], layout.table_size_mm, layout.zones,
                            frame_size=(1280, 960), game=layout.game)
    # As if made from markers: the same geometry with the layout's marker spec.
    return Calibration(made.homography, made.table_size_mm, made.zones, made.mm_per_px, layout.markers,
                       made.frame_size, "markers", layout.game)


def test_save_and_load_round_trip(tmp_path: Path, calibration: Calibration) -> None:
    path = tmp_path / "table.json"
    calibration.save(path)
    loaded = load_calibration(path)
    assert loaded.zones == calibration.zones
    assert loaded.table_size_mm == calibration.table_size_mm
    assert loaded.markers == calibration.markers and loaded.marker_ids == (0, 1, 2, 3)
    assert loaded.source == "markers" and loaded.game == "seven-pennies" and loaded.frame_size == (1280, 960)
    assert loaded.mm_per_px == pytest.approx(calibration.mm_per_px, rel=1e-5)
    assert np.allclose(loaded.matrix, calibration.matrix, rtol=1e-8, atol=1e-12)
    probe = np.array([[640.0, 480.0], [200.0, 150.0]])
    assert np.allclose(loaded.image_to_table(probe), calibration.image_to_table(probe), atol=1e-4)


def test_the_file_is_small_and_readable(tmp_path: Path, calibration: Calibration) -> None:
    path = tmp_path / "table.json"
    calibration.save(path)
    text = path.read_text()
    assert len(text.splitlines()) < 80
    assert '"id": "gathered:Ann"' in text
    assert '"polygon": [[' in text  # points kept on one line each
    data = json.loads(text)
    assert data["format"] == FORMAT and data["version"] == 1
    assert data["markers"] == {"dictionary": "DICT_4X4_50", "ids": [0, 1, 2, 3], "size_mm": 40.0, "margin_mm": 8.0}


def test_the_lens_distortion_is_saved(tmp_path: Path, calibration: Calibration) -> None:
    from dataclasses import replace

    bent = replace(calibration, distortion=-0.05)
    bent = replace(bent, mm_per_px=bent.mm_per_px_at(tuple(bent.table_to_image(np.array([[280.0, 240.0]]))[0])))
    path = tmp_path / "bent.json"
    bent.save(path)
    loaded = load_calibration(path)
    assert loaded.distortion == -0.05
    probe = np.array([[5.0, 5.0], [1270.0, 950.0]])
    assert np.allclose(loaded.image_to_table(probe), bent.image_to_table(probe), atol=1e-3)
    assert not np.allclose(loaded.image_to_table(probe), calibration.image_to_table(probe), atol=1.0)


def test_a_manual_calibration_saves_without_markers(tmp_path: Path) -> None:
    made = calibrate_manual([(0, 0), (640, 0), (640, 480), (0, 480)], (500.0, 400.0))
    path = tmp_path / "manual.json"
    made.save(path)
    loaded = load_calibration(path)
    assert loaded.markers is None and loaded.source == "manual" and loaded.zones == ()


def _edited(calibration: Calibration, change: Any) -> dict[str, Any]:
    data = calibration.to_json()
    change(data)
    return data


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda d: d.update(format="something else"), "field 'format' must be"),
        (lambda d: d.update(version=2), "field 'version' must be 1"),
        (lambda d: d.update(colour="blue"), "unknown field 'colour'"),
        (lambda d: d.pop("homography"), "field 'homography' is missing"),
        (lambda d: d.update(homography=[[1, 0, 0], [0, 1, 0]]), "field 'homography' must be 3 rows of 3 finite numbers"),
        (lambda d: d.update(homography=[[1, 0, 0], [0, 1, 0], [0, 0, "x"]]), "field 'homography' must be 3 rows"),
        (lambda d: d.update(homography=[[1, 2, 0], [2, 4, 0], [0, 0, 1]]), "field 'homography' is singular"),
        (lambda d: d.update(homography=[[1, 0, 0], [0, 1, 0], [0, 0.01, 1]]), "behind the camera"),
        (lambda d: d.update(table_size_mm=[560]), "field 'table_size_mm' must be"),
        (lambda d: d.update(table_size_mm=[560, 0]), "field 'table_size_mm' must be"),
        (lambda d: d.update(mm_per_px=-1), "field 'mm_per_px' must be a positive number"),
        (lambda d: d.update(mm_per_px=True), "field 'mm_per_px' must be a positive number"),
        (lambda d: d.update(mm_per_px=d["mm_per_px"] * 2), "field 'mm_per_px' is .* but the homography gives"),
        (lambda d: d.update(frame_size=[1280.5, 960]), "field 'frame_size'"),
        (lambda d: d.update(source="guess"), "field 'source' must be one of markers, manual, tracked"),
        (lambda d: d.update(game=3), "field 'game' must be a string"),
        (lambda d: d.update(distortion="barrel"), "field 'distortion' must be a number between -0.09 and 0.09"),
        (lambda d: d.update(distortion=-0.05, frame_size=None), "field 'frame_size' is needed when 'distortion' is not 0"),
        (lambda d: d.update(markers=[0, 1, 2, 3]), "field 'markers' must be an object"),
        (lambda d: d["markers"].update(ids=[0, 1, 2]), "field 'markers.ids' must be 4 whole numbers"),
        (lambda d: d["markers"].update(ids=[0, 1, 1, 2]), "field 'markers.ids' must be 4 different ids"),
        (lambda d: d["markers"].update(size_mm="big"), "field 'markers.size_mm' must be a number"),
        (lambda d: d["markers"].update(size_mm=1), "field 'markers.size_mm' must be between"),
        (lambda d: d["markers"].update(dictionary="DICT_6X6_250"), "field 'markers.dictionary' must be 'DICT_4X4_50'"),
        (lambda d: d["markers"].update(colour=1), "unknown field 'markers.colour'"),
        (lambda d: d.update(zones={"theatre": []}), "field 'zones' must be a list"),
        (lambda d: d["zones"].append({"id": "floor"}), r"field 'zones\[4\]' must be an object with exactly 'id' and 'polygon'"),
        (lambda d: d["zones"][1].update(polygon=[[0, 0], [1]]), r"field 'zones\[1\].polygon' must be a list of \[x, y\]"),
        (lambda d: d["zones"][1].update(polygon=[[0, 0], [10, 0]]), r"field 'zones\[1\]': zone 'theatre': polygon needs at least 3"),
        (lambda d: d["zones"][1].update(polygon=[[0, 0], [10, 0], [20, 0]]), "encloses no area"),
        (lambda d: d["zones"][1].update(id=""), r"field 'zones\[1\]': zone id must be a non-empty string"),
        (lambda d: d["zones"][1].update(id="balcony"), "field 'zones': zone id 'balcony' appears twice"),
    ],
)
def test_a_bad_field_is_named(calibration: Calibration, change: Any, message: str) -> None:
    with pytest.raises(CalibrationError, match=message):
        Calibration.from_json(_edited(calibration, change))


def test_load_names_the_file(tmp_path: Path, calibration: Calibration) -> None:
    path = tmp_path / "bad.json"
    data = calibration.to_json()
    data["mm_per_px"] = "small"
    path.write_text(json.dumps(data))
    with pytest.raises(CalibrationError, match=r"bad\.json: field 'mm_per_px'"):
        load_calibration(path)
    path.write_text("{ not json")
    with pytest.raises(CalibrationError, match=r"bad\.json: not JSON \(line 1, column 3"):
        load_calibration(path)
    with pytest.raises(CalibrationError, match="cannot read calibration file"):
        load_calibration(tmp_path / "missing.json")
    path.write_text("[1, 2]")
    with pytest.raises(CalibrationError, match="must be a JSON object, not list"):
        load_calibration(path)
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\xff")  # a picture given for the calibration
    with pytest.raises(CalibrationError, match=r"bad\.json: not a calibration file \(not UTF-8 text"):
        load_calibration(path)


def test_hand_edited_zones_are_used(tmp_path: Path, calibration: Calibration) -> None:
    data = calibration.to_json()
    data["zones"].append({"id": "score_sheet", "polygon": [[0, 0], [50, 0], [50, 50]]})
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(data, indent=1))
    loaded = load_calibration(path)
    assert loaded.zone_of((30.0, 10.0)) == "score_sheet"
    assert loaded.with_zones(()).zone_of((30.0, 10.0)) is None


def test_marker_spec_rejects_bad_values() -> None:
    with pytest.raises(ValueError, match="markers.margin_mm"):
        MarkerSpec(margin_mm=-1)
