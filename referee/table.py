"""The physical table as the rules see it: objects, zones, and moves between zones.

Zone ids are plain strings: ``theatre``, ``balcony``, ``centre``, ``middle``, and per-player
zones written ``<kind>:<player>`` (``gathered:Kevin``, ``stash:Ann``, ``area:Bo``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

ZONE_TITLES = {
    "theatre": "the Theatre",
    "balcony": "the Balcony",
    "centre": "the centre",
    "middle": "the middle",
    "draw": "the Draw Pile",
    "discard": "the Discard Pile",
    "supply": "the supply",
    "aside": "the side of the table",
}
PLAYER_ZONE_TITLES = {
    "gathered": "{}'s Gathered area",
    "stash": "{}'s stash",
    "area": "{}'s area",
    "hand": "{}'s hand",
    "melds": "{}'s melds",
    "pennies": "{}'s Pennies",
    "nickels": "{}'s nickels",
}


def player_zone(kind: str, player: str) -> str:
    """The id of a per-player zone, e.g. ``player_zone("gathered", "Kevin") == "gathered:Kevin"``."""
    return f"{kind}:{player}"


def zone_title(zone: str) -> str:
    """A zone's name as a player reads it: ``"gathered:Kevin"`` -> ``"Kevin's Gathered area"``."""
    kind, sep, owner = zone.partition(":")
    if sep and kind in PLAYER_ZONE_TITLES:
        return PLAYER_ZONE_TITLES[kind].format(owner)
    return ZONE_TITLES.get(zone, zone)


FACE_WORDS = {"heads": ("head", "heads"), "tails": ("tail", "tails")}
COIN_WORDS = {
    "penny": ("penny", "pennies"),
    "nickel": ("nickel", "nickels"),
    "dime": ("dime", "dimes"),
    "quarter": ("quarter", "quarters"),
    "card": ("card", "cards"),
}


@dataclass(frozen=True, order=True)
class Item:
    """One physical object as the rules care about it: its kind and, where it matters, its face.

    ``kind`` is ``penny``, ``nickel``, ``dime``, ``quarter``, ``d6``, ``d8`` (any ``dS``),
    ``token:<value>`` for non-U.S. Pennywise tokens, or ``card``. ``value`` is ``"heads"`` or
    ``"tails"`` for a coin whose facing matters, the face up (an ``int``) for a die, a card's
    text form, or ``None`` where the rules do not care (pennies waiting in the Balcony).
    ``ident`` names one particular object where the rules track identity (FLIP's dice).
    """

    kind: str
    value: str | int | None = None
    ident: str | None = None

    def describe(self, count: int = 1) -> str:
        """``Item("penny", "heads").describe(2) == "2 heads"``."""
        if self.ident is not None and self.kind.startswith("d") and self.kind[1:].isdigit():
            # A tracked die (FLIP) is named by its id: "die 5 (a 6)".
            shown = f" (a {self.value})" if self.value is not None else ""
            return f"die {self.ident}{shown}" if count == 1 else f"{count} × die {self.ident}{shown}"
        if self.kind == "penny" and self.value in FACE_WORDS:
            word = FACE_WORDS[str(self.value)][count != 1]
        elif self.kind.startswith("d") and self.kind[1:].isdigit():
            word = "die" if count == 1 else "dice"
            if self.value is not None:
                word += f" showing {self.value}"
        elif self.kind.startswith("token:"):
            word = f"{self.kind[6:]}¢ token" + ("" if count == 1 else "s")
        else:
            singular, plural = COIN_WORDS.get(self.kind, (self.kind, self.kind + "s"))
            word = singular if count == 1 else plural
            if self.value is not None:
                word += f" {self.value}"
        if self.ident is not None:
            word += f" {self.ident}"
        return f"{count} {word}"


def describe_items(items: Iterable[Item]) -> str:
    """``"2 heads and 2 tails"``: a multiset of items in words, in a stable order."""
    counts = Counter(items)
    parts = [item.describe(counts[item]) for item in sorted(counts, key=_item_key)]
    if not parts:
        return "nothing"
    if len(parts) == 1:
        return parts[0]
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def _item_key(item: Item) -> tuple[str, str, str]:
    return (item.kind, str(item.value), str(item.ident))


@dataclass(frozen=True)
class Move:
    """A physical instruction: these objects go from one zone to another, because of a rule."""

    items: tuple[Item, ...]
    source: str
    target: str
    rule: str = ""

    def __str__(self) -> str:
        text = f"Move {describe_items(self.items)} from {zone_title(self.source)} to {zone_title(self.target)}"
        return f"{text} ({self.rule})" if self.rule else text

    def to_json(self) -> dict[str, object]:
        """A JSON-friendly form for the dashboard and the match log."""
        return {
            "items": [item_to_json(item) for item in self.items],
            "from": self.source,
            "to": self.target,
            "rule": self.rule,
            "text": str(self),
        }


def item_to_json(item: Item) -> dict[str, object]:
    """``{"kind": ..., "value": ...}`` (with ``"id"`` where the object is tracked)."""
    data: dict[str, object] = {"kind": item.kind, "value": item.value}
    if item.ident is not None:
        data["id"] = item.ident
    return data


def sorted_items(items: Iterable[Item]) -> tuple[Item, ...]:
    """Items in the canonical order used for zone contents."""
    return tuple(sorted(items, key=_item_key))
