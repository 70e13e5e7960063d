"""FLIP (RULES.md §3): the rules that tests/referee/test_flip.py does not cite by ID, each pinned
by a test that cites it (issue 2: every behavioural rule ID is tested).

Dice 1-5 are the first player's (A) and 6-10 the second's (B) at every round start.
"""

from __future__ import annotations

from typing import Any

from referee import find_game
from referee.games.flip import FlipState

TAP_OUT_B = ["tap 6", "take nothing", "flip 7", "tap 7", "take nothing", "flip 8", "tap 8", "take nothing",
             "flip 9", "tap 9", "take nothing", "flip 10", "tap 10", "take nothing"]
"""A (to move) taps all five of B's dice while B only flips and takes nothing: A wins the round."""


def new_state(**options: Any) -> FlipState:
    """A fresh A-B game; options as ``fl__first_tie="alternate"``."""
    game = find_game("flip")(["A", "B"], {key.replace("__", "."): value for key, value in options.items()})
    state = game.new_state()
    assert isinstance(state, FlipState)
    return state


def play(state: FlipState, actions: list[str]) -> None:
    for action in actions:
        state.apply(action)


def test_fl_1_3_the_areas_and_one_middle_zone() -> None:
    """FL-1.3: each player's area and the middle ("the center of the table" is the same zone):
    tapped dice go to it and change comes back from it."""
    state = new_state()
    assert list(state.zones()) == ["middle", "area:A", "area:B"]
    play(state, ["roll 1 2 3 4 6 6 6 5 1 2", "tap 9"])  # A (16 < 20) taps B's die 9 (a 1)
    assert [m.target for m in state.forced_moves()] == ["middle"]
    assert [(i.ident, i.value) for i in state.zones()["middle"]] == [("9", 1)]
    play(state, ["take nothing", "tap 4"])  # B taps A's 4: the 1 in the middle is change
    state.apply("take 9")
    assert [m.source for m in state.forced_moves()] == ["middle"]
    assert 9 in state.dice_of(0) and state.middle() == (4,)


def test_a49_the_middle_is_empty_at_the_start_of_every_round() -> None:
    """A49: the middle is empty at the start of the game and of every round, whatever the last
    round left there (FL-3.1)."""
    state = new_state()
    assert state.middle() == () and state.zones()["middle"] == ()
    play(state, ["roll 1 1 1 1 1 6 6 6 6 6", *TAP_OUT_B])
    assert state.round() == 2 and state.scores() == {"A": 5, "B": 0}
    assert state.middle() == () and state.zones()["middle"] == ()
    assert state.dice_of(0) == (1, 2, 3, 4, 5) and state.dice_of(1) == (6, 7, 8, 9, 10)


def test_a56_every_round_starts_with_the_lower_total_of_its_own_roll() -> None:
    """A56: each round's first player is decided by that round's roll (FL-3.3), not by who
    started or won the round before, under every fl.first_tie reading."""
    for tie in ("reroll", "previous_round_loser", "alternate"):
        state = new_state(fl__first_tie=tie)
        play(state, ["roll 1 1 1 1 1 6 6 6 6 6", *TAP_OUT_B])  # A starts (5 < 30) and wins round 1
        state.apply("roll 6 6 6 6 6 1 1 1 1 1")  # round 2: B's total is lower
        assert state.current_player_name() == "B", tie
        state = new_state(fl__first_tie=tie)
        play(state, ["roll 1 1 1 1 1 6 6 6 6 6", *TAP_OUT_B])
        state.apply("roll 1 1 1 1 2 6 6 6 6 6")  # round 2: A lower again, although A won and started
        assert state.current_player_name() == "A", tie


def test_a57_dice_received_as_change_may_be_flipped_unless_locked() -> None:
    """A57: a die taken from the middle is the taker's own die: it may be flipped (and is then
    locked like any other until the taker taps)."""
    state = new_state()
    play(state, ["roll 1 2 3 4 6 6 6 5 1 2", "flip 1", "tap 5", "take nothing", "tap 8", "take nothing",
                 "flip 9", "tap 10", "take nothing", "tap 4", "take 10"])  # FL-T1: A takes B's die 10 (a 2)
    assert 10 in state.dice_of(0) and state.current_player_name() == "A"
    assert "flip 10" in [str(a) for a in state.legal_actions()]
    state.apply("flip 10")
    assert state.face(10) == 5 and state.locked(0) == (10,)
    state.apply("flip 6")  # B
    assert "flip 10" not in [str(a) for a in state.legal_actions()]
    state.apply("tap 6")  # A taps: A's locks clear
    state.apply("take nothing")
    state.apply("flip 7")  # B
    assert "flip 10" in [str(a) for a in state.legal_actions()]
