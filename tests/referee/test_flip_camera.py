"""FLIP read from the camera (FL-1.4, FL-3.2): the round-start roll is read from the two players'
areas, and the referee gives the dice their ids by the convention of referee/games/flip.py
(ascending face within each area: the first player's dice 1-5, the second's 6-10)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pytest

from referee import IllegalActionError, Item, find_game
from referee.actions import Roll
from referee.games.flip import FlipState
from referee.reconcile import ChanceOutcome, Discrepancy, Seen, TableMatches, reconcile

# FL-T1 played on to the end of round 1 (the fixture game flip_fl_t1): A wins the round with 11.
FL_T1_ROLL = "roll 1 2 3 4 6 1 2 5 6 6"
ROUND_ONE = ["flip 1", "tap 5", "take nothing", "tap 8", "take nothing", "flip 6", "tap 7", "take nothing", "tap 4",
             "take 7", "tap 6", "take nothing", "flip 9", "tap 10", "take nothing", "tap 7", "take nothing", "tap 9",
             "take nothing"]


def new_state(players: str = "A,B") -> FlipState:
    state = find_game("flip")(players.split(",")).new_state()
    assert isinstance(state, FlipState)
    return state


def areas(first: Sequence[int | str | None], second: Sequence[int | str | None], names: str = "A,B",
          kind: str = "d6") -> dict[str, list[Item]]:
    """What the camera reads in the two areas: kinds and faces, never ids."""
    a, b = names.split(",")
    return {f"area:{a}": [Item(kind, v) for v in first], f"area:{b}": [Item("d6", v) for v in second]}


def seen(table: Mapping[str, Sequence[int]]) -> list[Seen]:
    out: list[Seen] = []
    for zone, faces in table.items():
        out += [Seen("d6", face, zone, ref=len(out) + i) for i, face in enumerate(faces)]
    return out


def round_two() -> FlipState:
    state = new_state()
    state.apply(FL_T1_ROLL)
    for action in ROUND_ONE:
        state.apply(action)
    assert state.round() == 2 and state.phase() == "roll" and state.scores() == {"A": 11, "B": 0}
    return state


def test_fl_3_2_the_roll_is_read_from_both_areas() -> None:
    state = new_state("Ann,Bo")
    assert state.chance_zones() == ("area:Ann", "area:Bo")
    state.apply("roll 1 2 3 4 5 6 1 2 3 4")
    assert state.chance_zones() == ()  # FL-4: no roll during the turns


def test_fl_1_4_ids_by_ascending_face_within_each_area() -> None:
    """The camera lists dice in any order; die 1 is the first player's lowest face, die 10 the second's highest."""
    state = new_state("Ann,Bo")
    action = state.chance_from_table(areas([4, 1, 6, 1, 3], [6, 2, 5, 6, 2], "Ann,Bo"))
    assert action == Roll((1, 1, 3, 4, 6, 2, 2, 5, 6, 6))
    state.apply(action)
    assert [state.face(d) for d in state.dice_of(0)] == [1, 1, 3, 4, 6]
    assert [state.face(d) for d in state.dice_of(1)] == [2, 2, 5, 6, 6]
    assert state.current_player() == 0  # FL-3.3: Ann's 15 is lower than Bo's 21


def test_fl_t1_roll_from_the_camera_gives_the_fixture_ids() -> None:
    """FL-T1's a1..a5 = 1 2 3 4 6 and b1..b5 = 6 6 5 1 2: b4, b5, b3, b1, b2 become dice 6..10."""
    state = new_state()
    assert str(state.chance_from_table(areas([6, 4, 3, 2, 1], [6, 6, 5, 1, 2]))) == FL_T1_ROLL


@pytest.mark.parametrize(("first", "second", "message", "rule"), [
    ([1, 2, 3, 4], [1, 2, 3, 4, 5], "A rolls five dice in A's area, but 4 lie there", "FL-3.2"),
    ([1, 2, 3, 4, 5, 6], [1, 2, 3, 4, 5], "A rolls five dice in A's area, but 6 lie there", "FL-3.2"),
    ([1, 2, 3, 4, 5], [], "A has rolled but B's area is empty: B rolls five dice there too", "FL-3.2"),
    ([1, 2, 3, 4, None], [1, 2, 3, 4, 5], "a die in A's area shows None, not a face 1 to 6", "FL-1.2"),
    ([1, 2, 3, 4, 7], [1, 2, 3, 4, 5], "a die in A's area shows 7, not a face 1 to 6", "FL-1.2"),
])
def test_fl_3_2_a_table_that_is_not_a_roll_is_named(first: list[int | None], second: list[int], message: str,
                                                       rule: str) -> None:
    with pytest.raises(IllegalActionError, match=message) as caught:
        new_state().chance_from_table(areas(first, second))
    assert caught.value.rule == rule


def test_fl_1_2_other_objects_in_an_area_are_named() -> None:
    with pytest.raises(IllegalActionError, match="A's area holds penny: FLIP is played with ten six-sided dice only"):
        new_state().chance_from_table(areas(["heads"] * 5, [1, 2, 3, 4, 5], kind="penny"))


def test_fl_3_2_waiting_before_the_first_roll() -> None:
    """Before the first roll no face is known: empty areas (dice in hand) wait; any dice are the roll."""
    state = new_state()
    assert state.chance_waiting(areas([], [])) is True
    assert state.chance_waiting(areas([1, 2, 3, 4, 5], [])) is False
    assert isinstance(reconcile(state, []), TableMatches)
    ruling = reconcile(state, seen({"area:A": [6, 4, 3, 2, 1], "area:B": [2, 1, 6, 5, 6]}))
    assert ruling == ChanceOutcome(Roll((1, 2, 3, 4, 6, 1, 2, 5, 6, 6)))


def test_fl_3_2_one_player_rolled_is_a_discrepancy_naming_the_other() -> None:
    ruling = reconcile(new_state(), seen({"area:A": [6, 4, 3, 2, 1]}))
    assert isinstance(ruling, Discrepancy) and ruling.rethrow
    assert "B's area is empty: B rolls five dice there too" in ruling.text()


def test_fl_3_1_later_rounds_wait_while_the_areas_show_the_old_faces() -> None:
    """Round 2: the dice are back with their owners showing what they showed; that is no roll."""
    state = round_two()
    old = {"area:A": [6, 2, 3, 4, 6], "area:B": [1, 2, 5, 6, 6]}
    assert state.chance_waiting({z: [Item("d6", f) for f in faces] for z, faces in old.items()}) is True
    assert state.chance_waiting(areas([6, 2, 3, 4, 6], [])) is True  # B picked up, A not yet rolled
    ruling = reconcile(state, seen(old))
    assert isinstance(ruling, TableMatches)
    assert [m.rule for m in ruling.confirmed] == ["FL-3.1", "FL-3.1"]
    # A rolled, B's dice unchanged: B is told to roll too.
    ruling = reconcile(state, seen({"area:A": [5, 5, 1, 1, 2], "area:B": [6, 5, 2, 1, 6]}))
    assert isinstance(ruling, Discrepancy)
    assert "B's dice still show 1 2 5 6 6 as before: B rolls too" in ruling.text()
    # Both rolled: the new roll, ids by ascending face again.
    ruling = reconcile(state, seen({"area:A": [5, 5, 1, 1, 2], "area:B": [3, 3, 4, 6, 1]}))
    assert ruling == ChanceOutcome(Roll((1, 1, 2, 5, 5, 1, 3, 3, 4, 6)))
    state.apply(ruling.action)
    assert state.current_player() == 0 and state.round() == 2  # FL-3.3 every round (A56): 14 < 17


def test_fl_3_1_dice_still_in_the_middle_are_moves_to_make_not_a_roll() -> None:
    state = round_two()
    ruling = reconcile(state, seen({"area:A": [6, 2, 3, 4, 6], "area:B": [], "middle": [1, 2, 5, 6, 6]}))
    assert isinstance(ruling, Discrepancy) and ruling.pending
    assert "to B's area (FL-3.1)" in ruling.text()


def test_fl_4_turns_are_checked_by_face_not_id() -> None:
    """After the roll the camera's table (faces per zone) matches the rules' dice with ids."""
    state = new_state()
    state.apply(FL_T1_ROLL)
    state.apply("flip 1")
    assert isinstance(reconcile(state, seen({"area:A": [6, 6, 4, 3, 2], "area:B": [6, 6, 5, 2, 1]})), TableMatches)
    ruling = reconcile(state, seen({"area:A": [1, 6, 4, 3, 2], "area:B": [6, 6, 5, 2, 1]}))
    assert isinstance(ruling, Discrepancy)  # die 1 was not turned over
