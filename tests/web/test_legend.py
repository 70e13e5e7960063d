"""The picture's legend names each object as the options do (FL-1.4 die ids, coin kinds)."""

from __future__ import annotations

from vision.types import Detection
from web.legend import legend


def die(value: int | None, x: float, zone: str, flags: tuple[str, ...] = ()) -> Detection:
    return Detection("d6", value, (int(x), 100, 40, 40), 0.95, center=(x + 20, 120), zone=zone, flags=flags)


def test_flip_dice_are_named_by_their_ids_and_locked_dice_marked() -> None:
    """FL-1.4: the referee tracks dice 1-10; the camera sees face and zone. Dice take the ids of
    their face in their area (lowest id leftmost); a locked die (FL-4.1) is marked so."""
    zones = {"area:B": [{"kind": "d6", "value": 6, "id": "9"}, {"kind": "d6", "value": 6, "id": "10"},
                        {"kind": "d6", "value": 2, "id": "7"}],
             "middle": []}
    objects = [die(6, 500, "area:B"), die(2, 300, "area:B"), die(6, 100, "area:B")]
    entries = legend(objects, zones, locked=["10"])
    assert [(e.mark, e.name, e.read) for e in entries] == [("10", "die 10", "6"), ("7", "die 7", "2"), ("9", "die 9", "6")]
    assert [e.state for e in entries] == ["locked", "", ""]
    assert entries[0].zone == "Area: B"


def test_a_die_whose_face_changed_since_the_read_still_gets_its_areas_id() -> None:
    zones = {"area:A": [{"kind": "d6", "value": 1, "id": "3"}]}
    assert legend([die(6, 100, "area:A")], zones)[0].name == "die 3"


def test_coins_are_numbered_and_named_by_kind_with_forced_and_unsure_marked() -> None:
    """SP-3.2: the pairs a forced move takes to the Balcony are marked; a coin on edge is unsure."""
    coins = [Detection("penny", "heads", (10, 10, 30, 30), 0.9, zone="theatre"),
             Detection("penny", "tails", (60, 10, 30, 30), 0.9, zone="theatre"),
             Detection("penny", None, (110, 10, 30, 30), 0.9, zone="theatre", flags=("on_edge",)),
             Detection("nickel", "tails", (160, 10, 30, 30), 0.9, zone="gathered:Kevin")]
    moves = [{"items": [{"kind": "penny", "value": "heads"}], "from": "theatre", "to": "balcony", "done": False}]
    entries = legend(coins, {"theatre": [{"kind": "penny", "value": "heads"}]}, moves)
    assert [(e.mark, e.name, e.read, e.state) for e in entries] == [
        ("1", "penny", "heads", "forced"), ("2", "penny", "tails", ""), ("3", "penny", "?", "unsure"),
        ("4", "nickel", "tails", "gathered")]
    done = [{**moves[0], "done": True}]
    assert legend(coins, {}, done)[0].state == ""
    doubtful = Detection("penny", "heads", (10, 10, 30, 30), 0.5, zone="theatre")
    assert legend([doubtful], {})[0].state == "unsure", "read, but not surely: asked about (SPD-3)"


def test_untracked_objects_are_numbered_in_reading_order() -> None:
    """Rows top to bottom, each left to right, whatever order the reader found them in."""
    def coin(x: float, y: float) -> Detection:
        return Detection("penny", "heads", (int(x) - 15, int(y) - 15, 30, 30), 0.9, center=(x, y), zone="balcony")

    objects = [coin(500, 410), coin(100, 400), coin(300, 100), coin(900, 395)]
    assert [e.mark for e in legend(objects, {})] == ["3", "2", "1", "4"]


def test_a_read_below_the_gate_shows_the_face_the_question_asks_about_marked_unsure() -> None:
    """An unsure read has no value (the referee does not rule on it) but names its best guess,
    the face the question "Are these read right: ...?" puts to the players."""
    unsure = Detection("d6", None, (10, 10, 40, 40), 0.4, zone="theatre", guess=5)
    unread = Detection("d6", None, (80, 10, 40, 40), 0.0, zone="theatre")
    entries = legend([unsure, unread], {})
    assert [(e.read, e.state) for e in entries] == [("5?", "unsure"), ("?", "unsure")]
