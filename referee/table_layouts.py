"""Each game's table as the rules lay it out: its zones, its seats and how many may play.

The rules name the zones a game's coins and dice lie in (the Theatre and the Balcony of Seven
Pennies, SP-1.3; a stash per player in Pennywise, PW-1.3); this module lays them out on a
printed play area, as plain rectangles and polygons in table millimetres, so that
``referee markers`` prints them and the camera's calibration maps frames onto them
(``vision.layouts`` turns them into zones it can test points against).

Table millimetres: origin at the play area's top-left corner as printed, x right, y down.
Zones keep clear of the corner markers and of each other (10 mm gutters), so an object lies
in at most one zone.

Seats: player 1 sits at the bottom edge of the sheet. Per-player zones run around the table
clockwise seen from above ("left" in RULES.md G-1): along the bottom edge from right to left,
then along the top edge from left to right.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

Point = tuple[float, float]
"""A point in table millimetres."""
Polygon = tuple[Point, ...]
"""A zone's outline in table millimetres, in drawing order."""
ZoneShape = tuple[str, Polygon]
"""A zone's id (``"theatre"``, ``"gathered:Ann"``) and its outline."""

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
ZONE_ROLES: dict[str, str] = {
    "theatre": "play",
    "centre": "play",
    "middle": "play",
    "balcony": "aside",
    "aside": "aside",
    "draw": "aside",
    "gathered": "seat",
    "stash": "seat",
    "area": "seat",
    "melds": "seat",
    "discard": "discard",
}
"""What each kind of zone (the part of its id before ``:``) is for: ``play`` (where throws
land), ``aside`` (kept out of play), ``seat`` (one player's or team's), ``discard``; a sheet or
overlay colours zones by it."""
_NAME = re.compile(r"^[A-Za-z0-9_.'-]+$")


def game_key(game: str) -> str:
    """The layout name for a game name or alias (``"Seven Pennies"`` -> ``"seven-pennies"``).

    :raises ValueError: for a game without a default layout, listing those with one.
    """
    key = re.sub(r"[\s_]+", "-", game.strip().lower())
    key = _ALIASES.get(key, _ALIASES.get(key.replace("-", ""), key))
    if key not in GAMES:
        raise ValueError(f"no default table layout for game {game!r}; layouts exist for: {', '.join(GAMES)}")
    return key


def zone_role(zone_id: str) -> str | None:
    """What a zone is for (:data:`ZONE_ROLES`), or ``None`` for a zone no game here names."""
    return ZONE_ROLES.get(zone_id.partition(":")[0])


def check_names(names: Sequence[str]) -> tuple[str, ...]:
    """Player names as a tuple, each one word and all different.

    :raises ValueError: naming the bad or repeated name.
    """
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


def seat_names(key: str, players: int | Sequence[str]) -> tuple[str, ...]:
    """The seats of game ``key`` (from :func:`game_key`) for a player count (``P1``.. ``PN``) or names.

    :raises ValueError: for a player count the game does not allow (SP-1.1, PH-1.1, ...) or bad names.
    """
    if isinstance(players, int):
        if isinstance(players, bool):
            raise ValueError("players must be a count or a list of names")
        names = tuple(f"P{i + 1}" for i in range(players))
    else:
        names = check_names(players)
    low, high = _PLAYER_BOUNDS[key]
    if not low <= len(names) <= high:
        allowed = f"exactly {low}" if low == high else f"{low} to {high}"
        if key == "pennies-from-heaven":
            allowed = "4 or 6"
        raise ValueError(f"{key} is laid out for {allowed} players, not {len(names)}")
    if key == "pennies-from-heaven" and len(names) % 2:
        raise ValueError(f"pennies-from-heaven is played in teams of two (PH-1.1): 4 or 6 players, not {len(names)}")
    return names


def table_zones(key: str, names: Sequence[str], reserved_mm: float) -> tuple[tuple[float, float], list[ZoneShape]]:
    """The play area's size and its zones, in drawing order, for game ``key`` and its seats.

    ``reserved_mm`` is how far in from each corner the markers and their quiet zone reach
    (``MarkerSpec.reserved_mm``): zones keep clear of them.
    """
    builders: dict[str, Callable[[Sequence[str], float], tuple[tuple[float, float], list[ZoneShape]]]] = {
        "seven-pennies": _seven_pennies,
        "sevens": _sevens,
        "pennywise": _pennywise,
        "flip": _flip,
        "pennies-from-heaven": _pennies_from_heaven,
    }
    return builders[key](names, reserved_mm)


def rect(zone_id: str, x: float, y: float, width: float, height: float) -> ZoneShape:
    """An axis-aligned rectangle with its top-left corner at ``(x, y)`` mm."""
    return zone_id, ((x, y), (x + width, y), (x + width, y + height), (x, y + height))


def _row(kind: str, owners: Sequence[str], x0: float, y0: float, x1: float, y1: float) -> list[ZoneShape]:
    """Per-player zones side by side filling ``[x0, x1] x [y0, y1]``, with gutters between."""
    count = len(owners)
    if count == 0:
        return []
    width = (x1 - x0 - GAP_MM * (count - 1)) / count
    return [rect(f"{kind}:{owner}", x0 + i * (width + GAP_MM), y0, width, y1 - y0) for i, owner in enumerate(owners)]


def _around(names: Sequence[str]) -> tuple[list[str], list[str]]:
    """Split seats between the bottom edge (drawn left to right) and the top edge."""
    bottom_count = (len(names) + 1) // 2
    bottom = list(names[:bottom_count])[::-1]  # clockwise from above runs right to left along the bottom
    top = list(names[bottom_count:])
    return bottom, top


def _width_for(cells: int, cell_mm: float, reserved: float, least: float) -> float:
    return max(least, cells * cell_mm + (cells - 1) * GAP_MM + 2 * reserved)


def _notched(zone_id: str, x0: float, y0: float, x1: float, y1: float, notch: float, top: bool, bottom: bool) -> ZoneShape:
    """A rectangle with square notches cut where the corner markers sit."""
    pts: list[Point] = []
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
    return zone_id, tuple(pts)


def _seven_pennies(names: Sequence[str], r: float) -> tuple[tuple[float, float], list[ZoneShape]]:
    # SP-1.3 and A18: the Balcony, the Theatre, and one Gathered zone per player in view.
    width = _width_for(len(names), 80.0, r, 560.0)
    height = 480.0
    band = 100.0
    balcony = rect("balcony", r, EDGE_MM, width - 2 * r, band)
    theatre_top = EDGE_MM + band + GAP_MM
    theatre_bottom = height - EDGE_MM - band - GAP_MM
    theatre = rect("theatre", EDGE_MM, theatre_top, width - 2 * EDGE_MM, theatre_bottom - theatre_top)
    gathered = _row("gathered", list(names)[::-1], r, height - EDGE_MM - band, width - r, height - EDGE_MM)
    return (width, height), [balcony, theatre, *sorted(gathered, key=lambda z: names.index(z[0][9:]))]


def _sevens(names: Sequence[str], r: float) -> tuple[tuple[float, float], list[ZoneShape]]:
    # SV-1.1: six shared dice; the Theatre is the rolling area, dice removed or kept go aside.
    width, height = 500.0, 400.0
    band = 80.0
    aside_top = height - EDGE_MM - band
    theatre = _notched("theatre", EDGE_MM, EDGE_MM, width - EDGE_MM, aside_top - GAP_MM, r - EDGE_MM, top=True, bottom=False)
    aside = rect("aside", r, aside_top, width - 2 * r, band)
    return (width, height), [theatre, aside]


def _pennywise(names: Sequence[str], r: float) -> tuple[tuple[float, float], list[ZoneShape]]:
    # PW-1.3: one stash per player and the centre.
    bottom, top = _around(names)
    width = _width_for(max(len(bottom), len(top)), 110.0, r, 600.0)
    height = 480.0
    band = 110.0
    zones = _row("stash", top, r, EDGE_MM, width - r, EDGE_MM + band)
    centre_top = EDGE_MM + band + GAP_MM
    centre_bottom = height - EDGE_MM - band - GAP_MM
    zones.append(rect("centre", EDGE_MM, centre_top, width - 2 * EDGE_MM, centre_bottom - centre_top))
    zones += _row("stash", bottom, r, height - EDGE_MM - band, width - r, height - EDGE_MM)
    return (width, height), _seat_order(zones, "stash", names)


def _flip(names: Sequence[str], r: float) -> tuple[tuple[float, float], list[ZoneShape]]:
    # FL-1.3: each player's area and the middle [A49].
    width, height = 500.0, 400.0
    band = 90.0
    first = rect(f"area:{names[0]}", r, height - EDGE_MM - band, width - 2 * r, band)
    second = rect(f"area:{names[1]}", r, EDGE_MM, width - 2 * r, band)
    middle_top = EDGE_MM + band + GAP_MM
    middle = rect("middle", EDGE_MM, middle_top, width - 2 * EDGE_MM, height - 2 * middle_top)
    return (width, height), [middle, first, second]


def _pennies_from_heaven(names: Sequence[str], r: float) -> tuple[tuple[float, float], list[ZoneShape]]:
    # PH-1.6 [A67]: the layout is free; kept simple: the Draw and Discard Piles in the middle and
    # one meld area per team, named after the team's first partner (seat i partners seat i + P/2).
    teams = list(names[: len(names) // 2])
    width, height = 900.0, 660.0
    band = 200.0
    zones = [rect(f"melds:{teams[0]}", r, height - EDGE_MM - band, width - 2 * r, band)]
    zones += _row("melds", teams[1:], r, EDGE_MM, width - r, EDGE_MM + band)
    pile_w, pile_h = 130.0, 170.0
    cy = height / 2.0
    zones.append(rect("draw", width / 2.0 - GAP_MM - pile_w, cy - pile_h / 2.0, pile_w, pile_h))
    zones.append(rect("discard", width / 2.0 + GAP_MM, cy - pile_h / 2.0, pile_w, pile_h))
    return (width, height), [z for z in zones if not z[0].startswith("melds")] + [z for z in zones if z[0].startswith("melds")]


def _seat_order(zones: list[ZoneShape], kind: str, names: Sequence[str]) -> list[ZoneShape]:
    """Shared zones first, then per-player zones in seating order."""
    shared = [z for z in zones if not z[0].startswith(kind + ":")]
    own = sorted((z for z in zones if z[0].startswith(kind + ":")), key=lambda z: names.index(z[0].partition(":")[2]))
    return shared + own
