"""``layout_from_label``: the table a recorded frame was taken on (fixtures/README.md, "Table geometry")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from vision.layouts import default_layout, layout_from_label

GAMES = Path(__file__).resolve().parents[2] / "fixtures" / "games"


def first_label(game: str) -> dict[str, Any]:
    frames: list[dict[str, Any]] = json.loads((GAMES / game / "game.json").read_text())["frames"]
    return frames[0]


def test_fixture_table_is_640_by_480_with_markers_12_mm_in() -> None:
    layout = layout_from_label(first_label("sp_t1"), "seven-pennies", ["Jess", "Kevin"])
    assert layout.table_size_mm == (640.0, 480.0)
    assert (layout.markers.ids, layout.markers.size_mm, layout.markers.margin_mm) == ((0, 1, 2, 3), 40.0, 12.0)
    assert layout.zone_ids == ("balcony", "theatre", "gathered:Jess", "gathered:Kevin")
    assert layout.players == ("Jess", "Kevin")
    # Not the default sheet: its markers lie 8 mm in.
    assert default_layout("seven-pennies", ["Jess", "Kevin"]).markers.margin_mm != layout.markers.margin_mm


def test_players_default_to_the_zone_owners() -> None:
    layout = layout_from_label(first_label("sp_t2_tko"))
    assert layout.players == ("A", "B", "C")
    assert "nickels:B" in layout.zone_ids


def test_a_label_without_markers_is_refused_by_name() -> None:
    label = dict(first_label("sp_t1"), markers={})
    with pytest.raises(ValueError, match="no 'markers'"):
        layout_from_label(label)


def test_a_marker_of_another_size_is_named() -> None:
    label = json.loads(json.dumps(first_label("sp_t1")))
    label["markers"]["2"]["mm"] = [[598.0, 438.0], [628.0, 438.0], [628.0, 468.0], [598.0, 468.0]]
    with pytest.raises(ValueError, match="marker 2 .* not a 40 mm square"):
        layout_from_label(label)


def test_a_label_without_zones_is_refused() -> None:
    with pytest.raises(ValueError, match="zones_mm"):
        layout_from_label(dict(first_label("sp_t1"), zones_mm={}))
