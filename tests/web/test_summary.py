"""The round summary: each player's score at the end of the last round (SP-T1's first round)."""

from __future__ import annotations

from referee import find_game
from web.summary import round_summary

SP_T1_ROUND_1 = ["designate Jess", "throw 3H 4T", "gather", "throw 5H 1T", "gather", "throw 0H 2T", "gather"]


def test_no_summary_in_the_first_round() -> None:
    state = find_game("seven-pennies")(["Jess", "Kevin"], {}).new_state()
    assert round_summary(state) is None
    for action in SP_T1_ROUND_1[:-1]:
        state.apply(action)
        assert round_summary(state) is None


def test_sp_t1_round_one_ends_jess_3_kevin_4_and_the_state_is_untouched() -> None:
    """SP-T1: the last gather ends round 1 at Jess 3, Kevin 4; Kevin throws next (A15)."""
    state = find_game("seven-pennies")(["Jess", "Kevin"], {}).new_state()
    for action in SP_T1_ROUND_1:
        state.apply(action)
    before = state.copy()
    assert round_summary(state) == {"round": 1, "scores": {"Jess": 3, "Kevin": 4}, "just_ended": True}
    assert state == before
    state.apply("throw 4H 3T")
    summary = round_summary(state)
    assert summary is not None and summary["round"] == 1 and summary["just_ended"] is False
