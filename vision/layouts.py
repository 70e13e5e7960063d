"""Default table layouts: the play area's size, its zones and its corner markers, per game.

A layout is what ``referee markers`` prints and what a calibration maps the camera onto.
Table millimetres: origin at the play area's top-left corner as printed, x right, y down.
Zones keep clear of the corner markers and of each other (10 mm gutters), so an object lies
in at most one zone.

Seats: player 1 sits at the bottom edge of the sheet. Per-player zones run around the table
clockwise seen from above ("left" in RULES.md G-1): along the bottom edge from right to left,
then along the top edge from left to right.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from vision.markers import MarkerSpec
from vision.zones import Zone, check_zones, zone_of

GAP_MM = 10.0
"""Gutter between neighbouring zones."""
EDGE_MM = 8.0
"""Gap between the play area's edge and a zone (the same as the markers' margin)."""

GAMES = ("seven-pennies", "sevens", "pennywise", "flip", "pennies-from-heaven")
"""Games with a default layout (names as the rules core registers them)."""
_ALIASES = {
    "sp": "seven-pennies",
    "sevenpennies": "seven-pennies",
    "seven-pennies-tko": "seven-pennies",
    "seven-pennies-dice": "seven-pennies",
    "tko": "seven-pennies",
    "sv": "sevens",
    "pw": "pennywise",
    "fl": "flip",
    "ph": "pennies-from-heaven",
    "pfh": "pennies-from-heaven",
    "canasta": "pennies-from-heaven",
}
_PLAYER_BOUNDS = {
    "seven-pennies": (2, 8),  # SP-1.1: two or more; eight is what one camera can watch
    "sevens": (2, 8),  # SV-1.2 [A58]; the dice are shared, so no per-player zone
    "pennywise": (2, 6),  # PW-1.1
    "flip": (2, 2),  # FL-1.1
    "pennies-from-heaven": (4, 6),  # PH-1.1: 4 or 6, in teams of two
}
_NAME = re.compile(r"^[A-Za-z0-9_.'-]+$")


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
        new = _check_names(names)
        if len(new) != len(self.players):
            raise ValueError(f"this layout has {len(self.players)} seats; got {len(new)} names")
        mapping = dict(zip(self.players, new))
        zones = []
        for zone in self.zones:
            kind, sep, owner = zone.id.partition(":")
            zone_id = f"{kind}:{mapping.get(owner, owner)}" if sep else zone.id
            zones.append(Zone(zone_id, zone.polygon))
        return Layout(self.game, new, self.table_size_mm, tuple(zones), self.markers)


def game_key(game: str) -> str:
    """The layout name for a game name or alias (``"Seven Pennies"`` -> ``"seven-pennies"``).

    :raises ValueError: for a game without a default layout, listing those with one.
    """
    key = re.sub(r"[\s_]+", "-", game.strip().lower())
    key = _ALIASES.get(key, _ALIASES.get(key.replace("-", ""), key))
    if key not in GAMES:
        raise ValueError(f"no default table layout for game {game!r}; layouts exist for: {', '.join(GAMES)}")
    return key


def _check_names(names: Sequence[str]) -> tuple[str, ...]:
    result = tuple(names)
    for name in result:
        if not isinstance(name, str) or not _NAME.match(name):
            raise ValueError(f"player name {name!r} must be one word of letters, digits, '_', '-', '.' or \"'\"")
    if len(set(result)) != len(result):
        raise ValueError(f"player names must differ: {', '.join(result)}")
    return result


def players_from_text(text: str) -> int | list[str]:
    """A command line's ``--players``: a count (``3``), or names in seating order (``Ann,Bo,Cy``)."""
    text = text.strip()
    return int(text) if text.isdigit() else [name.strip() for name in text.split(",") if name.strip()]


def default_layout(game: str, players: int | Sequence[str], markers: MarkerSpec | None = None) -> Layout:
    """The default zones of a game for a number of players (named ``P1``.. ``PN``) or for named players.

    >>> default_layout("seven-pennies", ["Ann", "Bo"]).zone_ids
    ('balcony', 'theatre', 'gathered:Ann', 'gathered:Bo')

    :raises ValueError: for an unknown game, a player count the game does not allow, or bad names.
    """
    key = game_key(game)
    if isinstance(players, int):
        if isinstance(players, bool):
            raise ValueError("players must be a count or a list of names")
        names = tuple(f"P{i + 1}" for i in range(players))
    else:
        names = _check_names(players)
    low, high = _PLAYER_BOUNDS[key]
    if not low <= len(names) <= high:
        allowed = f"exactly {low}" if low == high else f"{low} to {high}"
        if key == "pennies-from-heaven":
            allowed = "4 or 6"
        raise ValueError(f"{key} is laid out for {allowed} players, not {len(names)}")
    if key == "pennies-from-heaven" and len(names) % 2:
        raise ValueError(f"pennies-from-heaven is played in teams of two (PH-1.1): 4 or 6 players, not {len(names)}")
    spec = markers or MarkerSpec()
    builder = {
        "seven-pennies": _seven_pennies,
        "sevens": _sevens,
        "pennywise": _pennywise,
        "flip": _flip,
        "pennies-from-heaven": _pennies_from_heaven,
    }[key]
    size, zones = builder(names, spec)
    return Layout(key, names, size, tuple(zones), spec)


def _row(kind: str, owners: Sequence[str], x0: float, y0: float, x1: float, y1: float) -> list[Zone]:
    """Per-player zones side by side filling ``[x0, x1] x [y0, y1]``, with gutters between."""
    count = len(owners)
    if count == 0:
        return []
    width = (x1 - x0 - GAP_MM * (count - 1)) / count
    return [Zone.rect(f"{kind}:{owner}", x0 + i * (width + GAP_MM), y0, width, y1 - y0) for i, owner in enumerate(owners)]


def _around(names: Sequence[str]) -> tuple[list[str], list[str]]:
    """Split seats between the bottom edge (drawn left to right) and the top edge."""
    bottom_count = (len(names) + 1) // 2
    bottom = list(names[:bottom_count])[::-1]  # clockwise from above runs right to left along the bottom
    top = list(names[bottom_count:])
    return bottom, top


def _width_for(cells: int, cell_mm: float, reserved: float, least: float) -> float:
    return max(least, cells * cell_mm + (cells - 1) * GAP_MM + 2 * reserved)


def _notched(zone_id: str, x0: float, y0: float, x1: float, y1: float, notch: float, top: bool, bottom: bool) -> Zone:
    """A rectangle with square notches cut where the corner markers sit."""
    pts: list[tuple[float, float]] = []
    if top:
        pts += [(x0 + notch, y0), (x1 - notch, y0), (x1 - notch, y0 + notch), (x1, y0 + notch)]
    else:
        pts += [(x0, y0), (x1, y0)]
    if bottom:
        pts += [(x1, y1 - notch), (x1 - notch, y1 - notch), (x1 - notch, y1), (x0 + notch, y1), (x0 + notch, y1 - notch), (x0, y1 - notch)]
    else:
        pts += [(x1, y1), (x0, y1)]
    if top:
        pts += [(x0, y0 + notch), (x0 + notch, y0 + notch)]
    return Zone(zone_id, tuple(pts))


def _seven_pennies(names: Sequence[str], spec: MarkerSpec) -> tuple[tuple[float, float], list[Zone]]:
    # SP-1.3 and A18: the Balcony, the Theatre, and one Gathered zone per player in view.
    r = spec.reserved_mm()
    width = _width_for(len(names), 80.0, r, 560.0)
    height = 480.0
    band = 100.0
    balcony = Zone.rect("balcony", r, EDGE_MM, width - 2 * r, band)
    theatre_top = EDGE_MM + band + GAP_MM
    theatre_bottom = height - EDGE_MM - band - GAP_MM
    theatre = Zone.rect("theatre", EDGE_MM, theatre_top, width - 2 * EDGE_MM, theatre_bottom - theatre_top)
    gathered = _row("gathered", list(names)[::-1], r, height - EDGE_MM - band, width - r, height - EDGE_MM)
    return (width, height), [balcony, theatre, *sorted(gathered, key=lambda z: names.index(z.id[9:]))]


def _sevens(names: Sequence[str], spec: MarkerSpec) -> tuple[tuple[float, float], list[Zone]]:
    # SV-1.1: six shared dice; the Theatre is the rolling area, dice removed or kept go aside.
    r = spec.reserved_mm()
    width, height = 500.0, 400.0
    band = 80.0
    aside_top = height - EDGE_MM - band
    theatre = _notched("theatre", EDGE_MM, EDGE_MM, width - EDGE_MM, aside_top - GAP_MM, r - EDGE_MM, top=True, bottom=False)
    aside = Zone.rect("aside", r, aside_top, width - 2 * r, band)
    return (width, height), [theatre, aside]


def _pennywise(names: Sequence[str], spec: MarkerSpec) -> tuple[tuple[float, float], list[Zone]]:
    # PW-1.3: one stash per player and the centre.
    r = spec.reserved_mm()
    bottom, top = _around(names)
    width = _width_for(max(len(bottom), len(top)), 110.0, r, 600.0)
    height = 480.0
    band = 110.0
    zones = _row("stash", top, r, EDGE_MM, width - r, EDGE_MM + band)
    centre_top = EDGE_MM + band + GAP_MM
    centre_bottom = height - EDGE_MM - band - GAP_MM
    zones.append(Zone.rect("centre", EDGE_MM, centre_top, width - 2 * EDGE_MM, centre_bottom - centre_top))
    zones += _row("stash", bottom, r, height - EDGE_MM - band, width - r, height - EDGE_MM)
    return (width, height), _seat_order(zones, "stash", names)


def _flip(names: Sequence[str], spec: MarkerSpec) -> tuple[tuple[float, float], list[Zone]]:
    # FL-1.3: each player's area and the middle [A49].
    r = spec.reserved_mm()
    width, height = 500.0, 400.0
    band = 90.0
    first = Zone.rect(f"area:{names[0]}", r, height - EDGE_MM - band, width - 2 * r, band)
    second = Zone.rect(f"area:{names[1]}", r, EDGE_MM, width - 2 * r, band)
    middle_top = EDGE_MM + band + GAP_MM
    middle = Zone.rect("middle", EDGE_MM, middle_top, width - 2 * EDGE_MM, height - 2 * middle_top)
    return (width, height), [middle, first, second]


def _pennies_from_heaven(names: Sequence[str], spec: MarkerSpec) -> tuple[tuple[float, float], list[Zone]]:
    # PH-1.6 [A67]: the layout is free; kept simple: the Draw and Discard Piles in the middle and
    # one meld area per team, named after the team's first partner (seat i partners seat i + P/2).
    r = spec.reserved_mm()
    teams = list(names[: len(names) // 2])
    width, height = 900.0, 660.0
    band = 200.0
    zones = [Zone.rect(f"melds:{teams[0]}", r, height - EDGE_MM - band, width - 2 * r, band)]
    zones += _row("melds", teams[1:], r, EDGE_MM, width - r, EDGE_MM + band)
    pile_w, pile_h = 130.0, 170.0
    cy = height / 2.0
    zones.append(Zone.rect("draw", width / 2.0 - GAP_MM - pile_w, cy - pile_h / 2.0, pile_w, pile_h))
    zones.append(Zone.rect("discard", width / 2.0 + GAP_MM, cy - pile_h / 2.0, pile_w, pile_h))
    return (width, height), [z for z in zones if not z.id.startswith("melds")] + [z for z in zones if z.id.startswith("melds")]


def _seat_order(zones: list[Zone], kind: str, names: Sequence[str]) -> list[Zone]:
    """Shared zones first, then per-player zones in seating order."""
    shared = [z for z in zones if not z.id.startswith(kind + ":")]
    own = sorted((z for z in zones if z.id.startswith(kind + ":")), key=lambda z: names.index(z.id.partition(":")[2]))
    return shared + own


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
