"""Each game's table as the rules lay it out (``referee.table_layouts``): seats, zones, roles."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

import referee.table_layouts as table_layouts
from referee.table_layouts import ZONE_ROLES, game_key, seat_names, table_zones, zone_role


def test_the_rules_side_imports_only_the_standard_library() -> None:
    """``referee/`` imports the standard library only (DESIGN.md): the layouts need no numpy."""
    tree = ast.parse(Path(table_layouts.__file__).read_text(encoding="utf-8"))
    imported = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    imported |= {node.module.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
    assert imported <= set(sys.stdlib_module_names)


@pytest.mark.parametrize(
    "game, players, message",
    [
        ("seven-pennies", 1, "2 to 8"),  # SP-1.1: two or more
        ("flip", 3, "exactly 2"),  # FL-1.1
        ("pennies-from-heaven", 5, "4 or 6"),  # PH-1.1: 4 or 6, in teams of two
        ("pennywise", ["Ann", "Ann"], "must differ"),
        ("sevens", ["Ann", "two words"], "one word"),
    ],
)
def test_seats_a_game_does_not_allow_are_refused_naming_why(game: str, players: int | list[str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        seat_names(game_key(game), players)


def test_seven_pennies_has_its_balcony_theatre_and_a_gathered_zone_per_player() -> None:
    """SP-1.3: the Balcony, the Theatre and one Gathered zone per player, in seating order."""
    names = seat_names("seven-pennies", ["Ann", "Bo", "Cy"])
    (width, height), zones = table_zones("seven-pennies", names, 56.0)
    assert [zone_id for zone_id, _ in zones] == ["balcony", "theatre", "gathered:Ann", "gathered:Bo", "gathered:Cy"]
    for _, polygon in zones:
        assert all(0.0 <= x <= width and 0.0 <= y <= height for x, y in polygon)
    # Player 1 sits at the bottom edge, and seats run clockwise: right to left along the bottom.
    first_x = {zone_id: polygon[0][0] for zone_id, polygon in zones}
    assert first_x["gathered:Ann"] > first_x["gathered:Bo"] > first_x["gathered:Cy"]


def test_every_zone_a_game_lays_out_has_a_role() -> None:
    """Every zone kind of every game's layout says what it is for; an unknown zone has none."""
    for game in table_layouts.GAMES:
        low = 4 if game == "pennies-from-heaven" else 2
        _, zones = table_zones(game, seat_names(game, low), 56.0)
        for zone_id, _ in zones:
            assert zone_role(zone_id) in set(ZONE_ROLES.values()), zone_id
    assert zone_role("theatre") == "play" and zone_role("gathered:Ann") == "seat"
    assert zone_role("garden") is None
