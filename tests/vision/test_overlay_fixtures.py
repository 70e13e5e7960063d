"""Overlays on a fixture game's settled table (``fixtures/games/sp_t1``): reads, zones, forced moves."""

from __future__ import annotations

from typing import Any

import numpy as np

from tests.fixtures_support import game_frame_path, load_game, read_image
from vision.calibration import calibrate
from vision.layouts import Layout
from vision.markers import MarkerSpec
from vision.overlay import draw_forced_moves, draw_observation, draw_zones
from vision.types import Detection, TableObservation
from vision.zones import Zone


def layout_of(label: dict[str, Any]) -> Layout:
    corners = {int(k): np.array(v["mm"], dtype=np.float64) for k, v in label["markers"].items()}
    margin = float(corners[0][0, 0])
    spec = MarkerSpec(size_mm=float(corners[0][1, 0] - corners[0][0, 0]), margin_mm=margin)
    zones = tuple(Zone(z, tuple((float(x), float(y)) for x, y in poly)) for z, poly in label["zones_mm"].items())
    return Layout("fixture", (), (float(corners[1][1, 0] + margin), float(corners[3][2, 1] + margin)), zones, spec)


def test_overlays_on_the_first_throw_of_sp_t1() -> None:
    game = load_game("sp_t1")
    # The table after Jess's first throw (3 heads, 4 tails): SP-3.3 sends the Booth pairs to the Balcony.
    k = game["chance"][0]["frame"]
    label = game["frames"][k]
    assert label["settled"] and len(label["markers"]) == 4
    frame = read_image(game_frame_path("sp_t1", label))
    before = frame.copy()
    calibration = calibrate(frame, layout_of(label))
    objects = tuple(
        Detection(obj["kind"], obj["value"], tuple(obj["bbox"]), 0.95,  # type: ignore[arg-type]
                  (obj["bbox"][0] + obj["bbox"][2] / 2.0, obj["bbox"][1] + obj["bbox"][3] / 2.0))
        for obj in label["objects"]
    )
    pennies = [obj for obj in objects if obj.kind == "penny"]
    assert len(pennies) == 7
    heads = [p for p in pennies if p.value == "heads"][:3]
    tails = [p for p in pennies if p.value == "tails"][:3]
    picture = draw_zones(frame, calibration)
    picture = draw_observation(picture, TableObservation(objects, (frame.shape[1], frame.shape[0])))
    picture = draw_forced_moves(picture, [(p.bbox, "balcony") for p in heads + tails], calibration)
    assert np.array_equal(frame, before)
    changed = np.any(picture != frame, axis=2)
    magenta = np.all(picture == (255, 0, 255), axis=2)
    for penny in heads + tails:
        x, y, w, h = penny.bbox
        # A magenta ring just outside each Booth penny, which must go to the Balcony.
        ring = magenta[max(0, y - h):y + 2 * h, max(0, x - w):x + 2 * w]
        assert ring.any()
    # Every object is marked.
    for obj in objects:
        x, y, w, h = obj.bbox
        assert changed[max(0, y - 10):y + h + 10, max(0, x - 10):x + w + 10].any()
