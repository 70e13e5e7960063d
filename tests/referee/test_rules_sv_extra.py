"""Sevens (RULES.md §4): the rules that tests/referee/test_sevens.py does not cite by ID, each
pinned by a test that cites it (issue 2: every behavioural rule ID is tested)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from referee import CHANCE, ConfigError, InvalidActionError, find_game
from referee.actions import Keep, Reroll, Roll
from referee.core import State
from referee.games.sevens import remove_sevens, roll_distribution


def new_state(players: str = "A,B", rounds: int = 1, **options: Any) -> State:
    """A Sevens game before the order roll."""
    opts = {"sv.rounds": rounds, **{key.replace("__", "."): value for key, value in options.items()}}
    return find_game("sevens")(players.split(","), opts).new_state()


def ordered(players: str, first: str, rounds: int = 1, **options: Any) -> State:
    """A state past the order roll (SV-2.2) in which ``first`` rolled 36 and everyone else 6."""
    state = new_state(players, rounds, **options)
    for name in players.split(","):
        state.apply("roll 6 6 6 6 6 6" if name == first else "roll 1 1 1 1 1 1")
    return state


def roller(state: State) -> str:
    """The player named at the start of the prompt ("C: roll the six dice ...")."""
    return state.prompt().split(":")[0]


def one_turn(state: State, kept: str) -> None:
    """A turn whose first roll leaves exactly ``kept`` (padded with 1-6 pairs), then Keep;
    ``""`` is a roll where every die is removed (turn score 0)."""
    faces = kept.split()
    state.apply(f"roll {kept}{' 1 6' * ((6 - len(faces)) // 2)}".replace("roll  ", "roll "))
    if faces:
        state.apply("keep")


def test_sv_1_2_a58_two_or_more_players_turns_go_left() -> None:
    """SV-1.2 / A58: P ≥ 2 with no maximum, and turns pass to the left (next seat) from the
    first player, wrapping round the table."""
    with pytest.raises(ConfigError, match="2 or more players, got 1"):
        new_state("A")
    nine = ordered(",".join("ABCDEFGHI"), "A")
    assert roller(nine) == "A"
    state = ordered("A,B,C,D", "C")
    seen = []
    for _ in range(4):
        seen.append(roller(state))
        one_turn(state, "2 2")
    assert seen == ["C", "D", "A", "B"]


def test_sv_2_3_play_goes_left_from_the_first_player_and_totals_start_at_0() -> None:
    """SV-2.3: all totals start at 0 (the order roll is not scored, A65) and play proceeds to the
    left from the first player."""
    state = new_state("A,B,C")
    state.apply("roll 1 1 2 2 3 3")  # A 12
    state.apply("roll 6 6 6 6 6 5")  # B 35
    state.apply("roll 6 6 5 5 4 4")  # C 30
    assert state.scores() == {"A": 0, "B": 0, "C": 0}
    order = []
    for _ in range(3):
        order.append(roller(state))
        one_turn(state, "3 3")
    assert order == ["B", "C", "A"] and state.scores() == {"A": 6, "B": 6, "C": 6}


def test_a59_order_roll_ties_roll_again_until_one_is_highest() -> None:
    """A59: only the players tied for the highest order-roll total roll again, as often as needed;
    a tie below the highest total does not matter."""
    state = new_state("A,B,C")
    state.apply("roll 1 1 1 1 1 1")  # A 6
    state.apply("roll 6 6 6 6 6 6")  # B 36
    state.apply("roll 6 6 6 6 6 6")  # C 36: B and C tie for the highest
    assert state.phase() == "order roll" and roller(state) == "B"
    state.apply("roll 2 2 2 2 2 2")  # B 12
    state.apply("roll 1 1 1 1 4 4")  # C 12: tied again
    assert state.phase() == "order roll" and roller(state) == "B"
    state.apply("roll 1 1 1 1 1 2")  # B 7
    assert roller(state) == "C"  # A never rolls again
    state.apply("roll 1 1 1 1 1 3")  # C 8: C starts
    assert state.phase() == "roll" and roller(state) == "C"
    low_tie = new_state("A,B,C")
    for faces in ("roll 6 6 6 6 6 6", "roll 2 2 2 2 2 2", "roll 2 2 2 2 2 2"):  # 36, 12, 12
        low_tie.apply(faces)
    assert low_tie.phase() == "roll" and roller(low_tie) == "A"


def test_sv_4_turn_state_machine() -> None:
    """SV-4: ROLL(k) is chance, REMOVE is forced, then DECIDE (KEEP or ROLL) while k < 3; the
    third roll's dice are kept by the referee; an empty Theatre ends the turn at once."""
    state = ordered("A,B", "A", rounds=2)
    assert state.current_player() == CHANCE and state.phase() == "roll"
    assert "first roll" in state.prompt()
    state.apply("roll 5 5 5 2 4 4")  # REMOVE 5-2: 5 5 4 4 left (18)
    assert state.phase() == "decide" and state.current_player_name() == "A"
    assert state.legal_actions() == [Keep(), Reroll()]
    state.apply("reroll")
    assert state.phase() == "roll" and "second roll" in state.prompt()
    assert {len(a.faces) for a in state.legal_actions() if isinstance(a, Roll)} == {4}
    state.apply("roll 1 1 2 2")
    assert state.phase() == "decide" and state.legal_actions() == [Keep(), Reroll()]
    state.apply("reroll")
    assert "third roll" in state.prompt()
    state.apply("roll 2 2 3 5")  # 2-5 removed; 2 3 kept by the referee (SV-4.5)
    assert state.scores()["A"] == sum(remove_sevens((2, 2, 3, 5)))
    assert [m.rule for m in state.forced_moves()] == ["SV-4.2", "SV-4.5"]
    assert roller(state) == "B" and state.phase() == "roll"
    state.apply("roll 1 6 1 6 3 4")  # everything removed: the turn is over with 0 (SV-4.3)
    assert state.scores()["B"] == 0 and state.round() == 2 and roller(state) == "A"


def test_sv_4_6_turn_scores_add_up_and_the_turn_passes_left() -> None:
    """SV-4.6: each turn score is added to the player's total, across rounds; the next player to
    the left then rolls."""
    state = ordered("A,B,C", "A", rounds=2)
    for kept, total in (("6 6", 12), ("4 4", 8), ("", 0), ("5 5 5 5", 32), ("3 3", 14), ("2 2", 4)):
        player = roller(state)
        one_turn(state, kept)
        assert state.scores()[player] == total
    assert state.scores() == {"A": 32, "B": 14, "C": 4} and state.is_terminal()


def test_sv_5_1_a63_a_round_is_one_turn_per_player_and_the_game_ends_after_round_r() -> None:
    """SV-5.1 / A63: a game round is one turn for every player from the first player; the game ends
    after round R (not after R turns)."""
    state = ordered("A,B,C", "B", rounds=3)
    rounds = []
    for turn in range(9):
        rounds.append((state.round(), roller(state)))
        assert not state.is_terminal()
        one_turn(state, ("6 6", "4 4", "2 2")[turn % 3])
    assert rounds == [(1, "B"), (1, "C"), (1, "A"), (2, "B"), (2, "C"), (2, "A"), (3, "B"), (3, "C"), (3, "A")]
    assert state.is_terminal() and state.winners() == ["B"] and state.scores() == {"A": 12, "B": 36, "C": 24}


def test_sv_6_1_dice_leave_in_pairs_so_later_rolls_are_even() -> None:
    """SV-6.1: removal takes dice in pairs, so the dice left have the parity of the dice rolled:
    0, 2, 4 or 6 after six dice, and every roll after the first involves an even number of dice."""
    for n in range(1, 7):
        for faces, _ in roll_distribution(n):
            assert len(remove_sevens(faces)) % 2 == n % 2
    assert {len(remove_sevens(faces)) for faces, _ in roll_distribution(6)} == {0, 2, 4, 6}
    rng = random.Random(61)
    state = ordered("A,B,C", "A", rounds=4)
    while not state.is_terminal():
        if state.current_player() == CHANCE:
            sizes = {len(action.faces) for action, _ in state.chance_outcomes() if isinstance(action, Roll)}
            assert len(sizes) == 1 and sizes.pop() in (2, 4, 6)
            state.apply(state.sample_chance(rng))
        else:
            state.apply(rng.choice(state.legal_actions()))


def test_sv_6_2_turn_scores_range_from_0_to_36() -> None:
    """SV-6.2: a turn scores 0 to 36: six 6s kept score 36, a roll of three sevens scores 0, and no
    seeded turn scores outside that range."""
    state = ordered("A,B", "A")
    state.apply("roll 6 6 6 6 6 6")
    assert state.expected_values()[Keep()] == 36.0
    state.apply("keep")
    assert state.scores()["A"] == 36
    state.apply("roll 2 5 2 5 3 4")
    assert state.scores()["B"] == 0
    rng = random.Random(62)
    for seed in range(30):
        game = ordered("A,B", "A")
        before = dict(game.scores())
        while game.round() == 1 and not game.is_terminal() and roller(game) == "A":
            if game.current_player() == CHANCE:
                game.apply(game.sample_chance(rng))
            else:
                game.apply(rng.choice(game.legal_actions()))
        assert 0 <= game.scores()["A"] - before["A"] <= 36, seed


def test_a60_every_pair_is_removed_by_the_referee_whatever_the_pairing() -> None:
    """A60: every pair summing to 7 is removed, not just one; when several pairings are possible
    (6-6-6-1-1) the dice left are the same; the removal is FORCED - there is no action to type."""
    state = ordered("A,B", "A")
    state.apply("roll 6 6 6 1 1 2")
    assert [i.value for i in state.zones()["theatre"]] == [2, 6]
    assert [sorted(int(str(i.value)) for i in m.items) for m in state.forced_moves()] == [[1, 1, 6, 6]]
    assert state.legal_actions() == [Keep(), Reroll()]
    with pytest.raises(InvalidActionError):
        state.apply("remove 1 6")
    other = ordered("A,B", "A")
    other.apply("roll 1 2 4 6 3 3")  # two pairs, 1-6 and 4-3, both removed (the seed's example)
    assert [i.value for i in other.zones()["theatre"]] == [2, 3]
