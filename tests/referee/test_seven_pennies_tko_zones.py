"""T.K.O.'s nickels on the table (SPT-1, SPT-3): each player's nickels are a zone the camera
watches; gains come from and losses go to the supply, which it does not."""

from __future__ import annotations

from referee import find_game
from referee.table import Item


def test_each_player_starts_with_three_nickels_in_their_zone() -> None:
    state = find_game("seven-pennies")(["A", "B", "C"], {"spt.enabled": True}).new_state()
    zones = state.zones()
    for name in ("A", "B", "C"):
        assert zones[f"nickels:{name}"] == (Item("nickel"),) * 3  # SPT-1
    assert state.supplied_kinds() == frozenset({"nickel"})


def test_without_tko_there_are_no_nickel_zones() -> None:
    state = find_game("seven-pennies")(["A", "B"], {}).new_state()
    assert not [zone for zone in state.zones() if zone.startswith("nickels:")]
    assert state.supplied_kinds() == frozenset()


def test_a_booth_out_moves_a_nickel_to_the_supply() -> None:
    state = find_game("seven-pennies")(["A", "B", "C"], {"spt.enabled": True}).new_state()
    # SP-T2's script up to C's booth-out (fixtures/games/sp_t2_tko).
    for text in ("designate A", "throw 4H 5T", "gather", "throw 5H 3T", "gather", "throw 4H 2T", "gather",
                 "throw 1H 3T", "cancel", "throw 5H 3T", "gather"):
        state.apply(text)
    before = len(state.zones()["nickels:C"])
    assert before == state.scores()["C"] >= 1
    state.apply("throw 3H 3T")  # every penny paired: C is booted out and pays a nickel (SPT-3.1)
    assert state.zones()["nickels:C"] == (Item("nickel"),) * (before - 1)
    assert any(move.source == "nickels:C" and move.target == "supply" for move in state.forced_moves())
