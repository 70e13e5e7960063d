"""Table layouts as vision uses them: the play area's size, its zones and its corner markers.

A layout is what ``referee markers`` prints and what a calibration maps the camera onto. The
games' own zones and seats are the rules' (``referee.table_layouts``); here they become
``vision.zones.Zone`` objects with the markers they are printed with, and a recorded frame's
label gives the table it was taken on (:func:`layout_from_label`).
Table millimetres: origin at the play area's top-left corner as printed, x right, y down.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from referee.table_layouts import EDGE_MM as EDGE_MM
from referee.table_layouts import GAMES as GAMES
from referee.table_layouts import GAP_MM as GAP_MM
from referee.table_layouts import check_names, seat_names, table_zones
from referee.table_layouts import game_key as game_key
from referee.table_layouts import players_from_text as players_from_text
from vision.markers import MarkerSpec
from vision.zones import Zone, check_zones, zone_of


@dataclass(frozen=True)
class Layout:
    """A table's play area: its size, its zones and where the corner markers lie."""

    game: str
    """The game the layout is for (a name from :data:`GAMES`, or anything for a custom table)."""
    players: tuple[str, ...]
    """Player names in seating order; per-player zones are named after them."""
    table_size_mm: tuple[float, float]
    """Width and height of the play area (the markers' outer rectangle), in mm."""
    zones: tuple[Zone, ...]
    """The zones, in drawing order."""
    markers: MarkerSpec = field(default_factory=MarkerSpec)
    """The corner markers."""

    def __post_init__(self) -> None:
        check_zones(self.zones)
        width, height = self.table_size_mm
        if width <= 0 or height <= 0:
            raise ValueError(f"table_size_mm must be positive, not {self.table_size_mm}")
        if 2 * self.markers.reserved_mm() > min(width, height):
            raise ValueError(f"a {width} x {height} mm table is too small for {self.markers.size_mm} mm markers")

    @property
    def zone_ids(self) -> tuple[str, ...]:
        """The zone ids in order."""
        return tuple(zone.id for zone in self.zones)

    def zone(self, zone_id: str) -> Zone:
        """The zone called ``zone_id``.

        :raises KeyError: naming the known zones.
        """
        for zone in self.zones:
            if zone.id == zone_id:
                return zone
        raise KeyError(f"no zone {zone_id!r}; the zones are {', '.join(self.zone_ids)}")

    def zone_of(self, point_mm: tuple[float, float]) -> str | None:
        """The zone holding a point in table mm, or ``None``."""
        return zone_of(self.zones, point_mm)

    def rename_players(self, names: Sequence[str]) -> Layout:
        """The same layout with per-player zones renamed seat by seat (``gathered:P1`` -> ``gathered:Kevin``).

        :raises ValueError: for a different number of names or a bad name.
        """
        new = check_names(names)
        if len(new) != len(self.players):
            raise ValueError(f"this layout has {len(self.players)} seats; got {len(new)} names")
        mapping = dict(zip(self.players, new))
        zones = []
        for zone in self.zones:
            kind, sep, owner = zone.id.partition(":")
            zone_id = f"{kind}:{mapping.get(owner, owner)}" if sep else zone.id
            zones.append(Zone(zone_id, zone.polygon))
        return Layout(self.game, new, self.table_size_mm, tuple(zones), self.markers)


def default_layout(game: str, players: int | Sequence[str], markers: MarkerSpec | None = None) -> Layout:
    """The default zones of a game for a number of players (named ``P1``.. ``PN``) or for named players.

    >>> default_layout("seven-pennies", ["Ann", "Bo"]).zone_ids
    ('balcony', 'theatre', 'gathered:Ann', 'gathered:Bo')

    :raises ValueError: for an unknown game, a player count the game does not allow, or bad names.
    """
    key = game_key(game)
    names = seat_names(key, players)
    spec = markers or MarkerSpec()
    size, shapes = table_zones(key, names, spec.reserved_mm())
    return Layout(key, names, size, tuple(Zone(zone_id, polygon) for zone_id, polygon in shapes), spec)


def layout_from_label(label: Mapping[str, Any], game: str = "", players: Sequence[str] = ()) -> Layout:
    """The layout a recorded frame was taken on, from its label's ``zones_mm`` and ``markers``.

    A recorded table (the fixtures' games, fixtures/README.md "Label format") need not be the
    default layout: the rendered one is 640 x 480 mm with its markers 12 mm in. The markers'
    corners in mm give their ids, size and margin, and with the bottom-right marker the table's
    size; the zones are taken as they are.

    :raises ValueError: naming what is missing or inconsistent (no markers, a marker that is
        not a square of the same size as the others, zones that overlap).
    """
    raw_markers = label.get("markers")
    if not isinstance(raw_markers, Mapping) or len(raw_markers) != 4:
        raise ValueError("the label has no 'markers' (four corner markers with their 'mm' corners)")
    corners: list[tuple[int, list[tuple[float, float]]]] = []
    for key, marker in raw_markers.items():
        mm = marker.get("mm") if isinstance(marker, Mapping) else None
        if not isinstance(mm, list) or len(mm) != 4:
            raise ValueError(f"marker {key!r} of the label has no 'mm' corners (four points)")
        corners.append((int(key), [(float(x), float(y)) for x, y in mm]))
    # Each marker's top-left corner (ArUco's first) places it at a corner of the table.
    by_position = sorted(corners, key=lambda item: item[1][0][0] + item[1][0][1])
    top_left, bottom_right = by_position[0], by_position[-1]
    rest = sorted(by_position[1:3], key=lambda item: item[1][0][1])
    top_right, bottom_left = rest[0], rest[1]
    size = top_left[1][1][0] - top_left[1][0][0]
    margin = top_left[1][0][0]
    for marker_id, points in corners:
        side = points[1][0] - points[0][0]
        if abs(side - size) > 0.5 or abs((points[2][1] - points[1][1]) - size) > 0.5:
            raise ValueError(f"marker {marker_id} of the label is not a {size:g} mm square like marker {top_left[0]}")
    width = bottom_right[1][2][0] + margin
    height = bottom_right[1][2][1] + margin
    spec = MarkerSpec(ids=(top_left[0], top_right[0], bottom_right[0], bottom_left[0]), size_mm=size, margin_mm=margin)
    raw_zones = label.get("zones_mm")
    if not isinstance(raw_zones, Mapping) or not raw_zones:
        raise ValueError("the label has no 'zones_mm' (zone outlines in table mm)")
    zones = tuple(Zone(str(zone_id), tuple((float(x), float(y)) for x, y in polygon)) for zone_id, polygon in raw_zones.items())
    owners = tuple(dict.fromkeys(zone.id.partition(":")[2] for zone in zones if ":" in zone.id))
    return Layout(game or "recorded", tuple(players) or owners, (width, height), zones, spec)
