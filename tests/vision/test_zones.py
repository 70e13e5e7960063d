"""Zones in table millimetres, the default layouts per game, and giving detections their zone."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from vision.calibration import calibrate_manual
from vision.layouts import GAMES, default_layout, game_key
from vision.types import Detection, TableObservation
from vision.zones import Zone, assign_zones, check_zones, zone_of, zone_title


def test_zone_geometry() -> None:
    zone = Zone.rect("theatre", 10, 20, 100, 50)
    assert zone.area() == pytest.approx(5000.0)
    assert zone.contains((10.0, 20.0)) and zone.contains((60.0, 45.0)) and not zone.contains((9.0, 45.0))
    assert zone.depth((60.0, 45.0)) == pytest.approx(25.0)
    assert zone.depth((0.0, 45.0)) == pytest.approx(-10.0)
    assert zone.centroid() == pytest.approx((60.0, 45.0))
    assert zone.bounds() == (10.0, 20.0, 110.0, 70.0)
    assert zone.to_json() == {"id": "theatre", "polygon": [[10, 20], [110, 20], [110, 70], [10, 70]]}
    triangle = Zone("corner", ((0.0, 0.0), (100.0, 0.0), (0.0, 100.0)))
    assert triangle.contains((10.0, 10.0)) and not triangle.contains((60.0, 60.0))


@pytest.mark.parametrize(
    "zone_id, polygon, message",
    [
        ("", ((0, 0), (1, 0), (0, 1)), "zone id must be a non-empty string"),
        (" theatre", ((0, 0), (1, 0), (0, 1)), "without outer spaces"),
        ("theatre", ((0, 0), (1, 0)), "polygon needs at least 3 points"),
        ("theatre", ((0, 0), (1, 0), (0, float("inf"))), "is not two finite numbers"),
        ("theatre", ((0, 0), (10, 0), (20, 0)), "encloses no area"),
    ],
)
def test_bad_zones_are_named(zone_id: str, polygon: tuple[tuple[float, float], ...], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Zone(zone_id, polygon)


def test_zone_of_picks_the_deepest_of_overlapping_zones() -> None:
    left = Zone.rect("left", 0, 0, 100, 100)
    right = Zone.rect("right", 90, 0, 100, 100)
    assert zone_of([left, right], (50.0, 50.0)) == "left"
    assert zone_of([left, right], (97.0, 50.0)) == "right"  # 3 mm inside left, 7 inside right
    assert zone_of([left, right], (300.0, 50.0)) is None
    with pytest.raises(ValueError, match="zone id 'left' appears twice"):
        check_zones([left, Zone.rect("left", 0, 0, 5, 5)])


def test_zone_titles() -> None:
    assert zone_title("theatre") == "Theatre"
    assert zone_title("gathered:Kevin") == "Gathered: Kevin"
    assert zone_title("stash:Ann") == "Stash: Ann"


# -- default layouts ---------------------------------------------------------------------------

CASES = [
    ("seven-pennies", n) for n in range(2, 9)
] + [("sevens", n) for n in (2, 5, 8)] + [("pennywise", n) for n in range(2, 7)] + [("flip", 2)] + [
    ("pennies-from-heaven", 4), ("pennies-from-heaven", 6)]


@pytest.mark.parametrize("game, players", CASES)
def test_layouts_are_sound(game: str, players: int) -> None:
    layout = default_layout(game, players)
    width, height = layout.table_size_mm
    reserved = layout.markers.reserved_mm()
    for zone in layout.zones:
        x0, y0, x1, y1 = zone.bounds()
        assert 0 <= x0 < x1 <= width and 0 <= y0 < y1 <= height, zone.id
        # Clear of every marker and its quiet zone.
        for marker_id in layout.markers.ids:
            mx, my = layout.markers.origin_mm(marker_id, layout.table_size_mm)
            m0x, m0y = mx - layout.markers.margin_mm, my - layout.markers.margin_mm
            m1x, m1y = m0x + reserved, m0y + reserved
            for px, py in zone.polygon:
                assert not (m0x < px < m1x and m0y < py < m1y), (zone.id, marker_id)
        # Big enough to hold what goes there: a few coins at least (a penny is 19 mm).
        assert min(x1 - x0, y1 - y0) >= 75, zone.id
    for a, b in itertools.combinations(layout.zones, 2):
        # No point of one zone lies inside another: an object is in one zone at most.
        assert not any(b.depth(p) > 0 for p in a.polygon) and not any(a.depth(p) > 0 for p in b.polygon), (a.id, b.id)


def test_zone_ids_per_game() -> None:
    assert default_layout("seven-pennies", ["Jess", "Kevin"]).zone_ids == ("balcony", "theatre", "gathered:Jess", "gathered:Kevin")
    assert default_layout("sevens", 3).zone_ids == ("theatre", "aside")
    assert default_layout("pennywise", ["A", "B", "C"]).zone_ids == ("centre", "stash:A", "stash:B", "stash:C")
    assert default_layout("flip", ["A", "B"]).zone_ids == ("middle", "area:A", "area:B")
    # PH-1.1: seat i partners seat i + P/2; the meld area is named after the team's first partner.
    assert default_layout("pennies-from-heaven", ["A", "B", "C", "D", "E", "F"]).zone_ids == (
        "draw", "discard", "melds:A", "melds:B", "melds:C")
    assert set(GAMES) == {"seven-pennies", "sevens", "pennywise", "flip", "pennies-from-heaven"}


def test_seats_run_clockwise_from_the_bottom_edge() -> None:
    # G-1: "left" is the next seat clockwise seen from above; player 1 sits at the bottom edge.
    layout = default_layout("pennywise", 4)
    centres = {z.id: z.centroid() for z in layout.zones}
    p1, p2, p3, p4 = (centres[f"stash:P{i}"] for i in range(1, 5))
    assert p1[1] > 240 and p2[1] > 240 and p1[0] > p2[0]  # bottom edge, right to left
    assert p3[1] < 240 and p4[1] < 240 and p3[0] < p4[0]  # then the top edge, left to right


def test_names_and_aliases() -> None:
    assert game_key("Seven Pennies") == "seven-pennies"
    assert game_key("seven_pennies") == "seven-pennies"
    assert game_key("PFH") == "pennies-from-heaven"
    layout = default_layout("seven-pennies", 2).rename_players(["Jess", "Kevin"])
    assert layout.zone_ids == ("balcony", "theatre", "gathered:Jess", "gathered:Kevin")
    assert layout.zone("gathered:Jess").polygon == default_layout("seven-pennies", 2).zone("gathered:P1").polygon
    with pytest.raises(KeyError, match="no zone 'stash:Jess'"):
        layout.zone("stash:Jess")


@pytest.mark.parametrize(
    "game, players, message",
    [
        ("chess", 2, "no default table layout for game 'chess'; layouts exist for: seven-pennies"),
        ("flip", 3, "flip is laid out for exactly 2 players, not 3"),
        ("seven-pennies", 1, "seven-pennies is laid out for 2 to 8 players, not 1"),
        ("pennywise", 7, "2 to 6 players"),
        ("pennies-from-heaven", 5, "4 or 6"),
        ("seven-pennies", ["Ann", "Ann"], "player names must differ"),
        ("seven-pennies", ["Ann", "B:b"], "player name 'B:b' must be one word"),
        ("seven-pennies", True, "players must be a count or a list of names"),
    ],
)
def test_bad_layout_requests_are_named(game: str, players: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        default_layout(game, players)  # type: ignore[arg-type]


def test_rename_needs_one_name_per_seat() -> None:
    with pytest.raises(ValueError, match="this layout has 2 seats; got 3 names"):
        default_layout("flip", 2).rename_players(["A", "B", "C"])


# -- zones for detections ----------------------------------------------------------------------


def test_assign_zones_gives_each_object_its_zone_and_position() -> None:
    layout = default_layout("seven-pennies", ["Ann", "Bo"])
    # A camera looking straight down at 0.5 mm per pixel, the play area's corner at (40, 30).
    corners = [(40, 30), (40 + 1120, 30), (40 + 1120, 30 + 960), (40, 30 + 960)]
    calibration = calibrate_manual(corners, layout.table_size_mm, layout.zones)
    assert calibration.mm_per_px == pytest.approx(0.5)

    def at(x_mm: float, y_mm: float) -> tuple[float, float]:
        return 40 + x_mm * 2, 30 + y_mm * 2

    wanted = {"theatre": (280.0, 240.0), "balcony": (100.0, 50.0), "gathered:Ann": (400.0, 420.0),
              "gathered:Bo": (150.0, 420.0), None: (280.0, 113.0)}
    objects = tuple(
        Detection("penny", "heads", (int(at(*mm)[0]) - 19, int(at(*mm)[1]) - 19, 38, 38), 0.9, at(*mm))
        for mm in wanted.values()
    )
    observation = assign_zones(TableObservation(objects, (1280, 1100)), calibration)
    assert [obj.zone for obj in observation.objects] == list(wanted)
    for obj, mm in zip(observation.objects, wanted.values()):
        assert obj.position_mm is not None
        assert np.allclose(obj.position_mm, mm, atol=1e-6)
    # The input observation is left as it was.
    assert all(obj.zone is None and obj.position_mm is None for obj in objects)
    empty = TableObservation((), (10, 10))
    assert assign_zones(empty, calibration) is empty
