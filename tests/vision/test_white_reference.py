"""The printed table's white as a white reference for coins' colour (``vision.white_reference``).

Issue 5: a coin's denomination is "checked against colour (copper or silver)". The cloth is a
poor reference where it is strongly coloured, and so is the camera's white balance; the
markers' white cells are paper under the coins' own light.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

import vision.read
from vision.calibration import calibrate
from vision.coins import find_coins
from vision.layouts import layout_from_label
from vision.markers import detect_markers
from vision.read import ReadParams, calibrated_marker_quads, params_for_scale, read_table
from vision.types import TableObservation
from vision.white_reference import printed_white

ROOT = Path(__file__).resolve().parents[2]
DEV_SCENES = ROOT / "fixtures" / "scenes" / "dev"
GAMES = ROOT / "fixtures" / "games"


def lab_of(bgr: tuple[float, float, float]) -> np.ndarray:
    """OpenCV's 8-bit Lab of one BGR colour (0..255)."""
    pixel = (np.array(bgr, np.float32) / 255.0).reshape(1, 1, 3)
    lab = cv2.cvtColor(pixel, cv2.COLOR_BGR2LAB).reshape(3)
    return np.array([lab[0] * 2.55, lab[1] + 128.0, lab[2] + 128.0])


def marker_on_cloth(light: tuple[float, float, float], cloth: tuple[int, int, int]) -> tuple[np.ndarray, np.ndarray]:
    """A 4x4 ArUco marker (id 0, 120 px, a white quiet zone) on cloth, all lit by ``light``
    (a gain per BGR channel), and the marker's corners."""
    frame = np.zeros((300, 400, 3), np.uint8)
    frame[:] = cloth
    frame[70:230, 120:280] = 235  # the sheet's white quiet zone
    marker = cv2.aruco.generateImageMarker(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50), 0, 120)
    frame[90:210, 140:260] = np.where(marker[:, :, None] > 127, 235, 20)
    lit = np.clip(frame.astype(np.float32) * np.array(light, np.float32), 0, 255).astype(np.uint8)
    quad = np.array([[140, 90], [260, 90], [260, 210], [140, 210]], np.float64)
    return lit, quad


def test_the_markers_white_is_the_lights_colour_whatever_the_cloth() -> None:
    """Under a warm light, on red felt, the marker's white cells give the light's colour: the
    paper's white as lit, not the cloth's red nor a neutral grey."""
    warm = (0.75, 0.9, 1.0)
    frame, quad = marker_on_cloth(warm, cloth=(40, 40, 170))
    white = printed_white(frame, [quad])
    assert white is not None
    expected = lab_of(tuple(235 * g for g in warm))
    assert np.abs(white[1:] - expected[1:]).max() < 1.5
    assert white[2] > 135  # warm: well off neutral (128) towards yellow
    # The same marker on green cloth under the same light: the same white.
    on_green, _ = marker_on_cloth(warm, cloth=(60, 150, 40))
    assert np.abs(printed_white(on_green, [quad]) - white).max() < 1.0


def test_no_white_where_none_is_seen() -> None:
    """No markers, a quad on plain cloth, a marker burnt out to white, or a degenerate quad give no white."""
    frame, quad = marker_on_cloth((1.0, 1.0, 1.0), cloth=(40, 40, 170))
    assert printed_white(frame, []) is None
    on_cloth = np.array([[0, 90], [100, 90], [100, 190], [0, 190]], np.float64)
    assert printed_white(frame, [on_cloth]) is None
    burnt, _ = marker_on_cloth((1.2, 1.2, 1.2), cloth=(40, 40, 170))  # 235 x 1.2: every white clipped
    assert printed_white(burnt, [quad]) is None
    assert printed_white(frame, [np.zeros((4, 2))]) is None


def dev_entry(name: str) -> dict[str, Any]:
    return next(e for e in json.loads((DEV_SCENES / "labels.json").read_text()) if e["image"] == name)


@pytest.mark.parametrize("name", ["dev_0065.jpg", "dev_0132.jpg"])
def test_a_penny_on_coloured_cloth_is_a_penny_against_the_printed_white(name: str) -> None:
    """Issue 5, denominations checked against colour (Pennywise's coinages, PW-1.2, count by
    them): a penny measuring about 10% large (its rim's shadow) on coloured cloth. Against the
    cloth its copper counted little and its size made it a nickel; against the markers' white
    its colour is copper, and it is read as a penny."""
    entry = dev_entry(name)
    frame = cv2.imread(str(DEV_SCENES / name))
    pennies = [o for o in entry["objects"] if o["kind"] == "penny" and not o["flags"]]

    def kinds_at_pennies(obs: TableObservation) -> list[str]:
        kinds = []
        for o in pennies:
            x, y, w, h = o["bbox"]
            near = [d for d in obs.objects if x <= d.center[0] <= x + w and y <= d.center[1] <= y + h]
            kinds += [d.kind for d in near]
        return kinds

    with_white = read_table(frame)  # the markers' scale, and their white
    assert any("corner markers" in note for note in with_white.notes)
    assert kinds_at_pennies(with_white) and set(kinds_at_pennies(with_white)) == {"penny"}
    params = params_for_scale(with_white.mm_per_px, frame.shape[1], frame.shape[0])
    against_cloth = read_table(frame, params=replace(params, coins=replace(params.coins, colour_against_white=False)))
    assert "nickel" in kinds_at_pennies(against_cloth)


def test_a_calibrated_tables_markers_are_found_where_the_calibration_puts_them(monkeypatch: pytest.MonkeyPatch) -> None:
    """The live referee reads with a calibration: its markers are where the calibration
    places the layout's, their white is seen there and the coin reader is given it; a
    calibration without markers (made by hand) or one placing them outside the frame gives none."""
    game = GAMES / "sp_t1"
    recorded = json.loads((game / "game.json").read_text())
    first = recorded["frames"][0]
    frame = cv2.imread(str(game / first["image"]))
    layout = layout_from_label(first, "seven-pennies", recorded["players"])
    calibration = calibrate(frame, layout)
    quads = calibrated_marker_quads(calibration, frame.shape)
    assert len(quads) == 4
    seen = detect_markers(frame, layout.markers)
    for marker_id, quad in zip(layout.markers.ids, quads):
        assert np.abs(seen[marker_id] - quad).max() < 3.0
    white = printed_white(frame, quads)
    assert white is not None
    assert calibrated_marker_quads(object(), frame.shape) == []
    assert calibrated_marker_quads(calibration, (100, 100, 3)) == []  # a frame the markers lie outside

    given: list[object] = []

    def spy(*args: object, **kwargs: object) -> object:
        given.append(kwargs.get("white"))
        return find_coins(*args, **kwargs)

    monkeypatch.setattr(vision.read, "find_coins", spy)
    obs = read_table(frame, calibration=calibration)
    assert any(d.kind == "penny" for d in obs.objects)
    assert len(given) == 1 and np.allclose(given[0], white)
