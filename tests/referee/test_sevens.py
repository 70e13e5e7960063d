"""Sevens (RULES.md §4): worked examples SV-T1..SV-T6, rules, the chance model, conformance."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest

from referee import CHANCE, ConfigError, IllegalActionError, find_game
from referee.actions import Keep, Reroll, Roll
from referee.games.sevens import keep_threshold, remove_sevens, roll_distribution, roll_value
from tests.referee.conformance import playout


def new_game(players: str = "A,B", **options: object):
    opts = {"sv.rounds": 1, **{k.replace("__", "."): v for k, v in options.items()}}
    return find_game("sevens")(players.split(","), opts)


def started(players: str = "A,B", order: list[str] | None = None, **options: object):
    """A state past the order roll, with the first player the first seat."""
    state = new_game(players, **options).new_state()
    for faces in order or ["roll 6 6 6 6 6 6"] + ["roll 1 1 1 1 1 1"] * (len(players.split(",")) - 1):
        state.apply(faces)
    return state


def test_sv_4_2_removal_table() -> None:
    """SV-4.2: the removal table of RULES.md."""
    assert remove_sevens([1, 2, 4, 6, 3, 3]) == (2, 3)
    assert remove_sevens([6, 6, 6, 1, 1, 2]) == (2, 6)
    assert remove_sevens([5, 5, 5, 2, 4, 4]) == (4, 4, 5, 5)
    assert remove_sevens([2, 2, 2, 5, 6, 6]) == (2, 2, 6, 6)
    assert remove_sevens([1, 6, 2, 5, 3, 4]) == ()
    assert remove_sevens([5, 5, 2, 2, 3, 4]) == ()


def test_sv_6_5_removal_order_never_matters() -> None:
    """§6.5: removing pairs one at a time in any order leaves the same dice."""
    for n in range(1, 6):
        for roll in itertools.product(range(1, 7), repeat=n):
            left = list(roll)
            while True:
                pair = next(((i, j) for i, j in itertools.combinations(range(len(left)), 2) if left[i] + left[j] == 7), None)
                if pair is None:
                    break
                left = [f for k, f in enumerate(left) if k not in pair]
            assert tuple(sorted(left)) == remove_sevens(roll)


def test_sv_t1_seed_example() -> None:
    """SV-T1: roll, re-roll, re-roll; the third roll's dice are kept by the referee (SV-4.5)."""
    state = started()
    state.apply("roll 1 2 4 6 3 3")
    assert state.zones()["theatre"] == tuple(state.zones()["theatre"])
    assert [i.value for i in state.zones()["theatre"]] == [2, 3]
    assert [str(m) for m in state.forced_moves()] == [
        "Move 1 die showing 1, 1 die showing 3, 1 die showing 4 and 1 die showing 6 from the Theatre to the side of the table (SV-4.2)"
    ]
    assert state.legal_actions() == [Keep(), Reroll()]
    state.apply("reroll")
    state.apply("roll 1 1")
    assert state.legal_actions() == [Keep(), Reroll()]
    state.apply("reroll")
    state.apply("roll 6 6")
    assert state.scores()["A"] == 12
    assert state.current_player_name() is None and state.current_player() == CHANCE
    assert state.prompt().startswith("B: roll the six dice")
    with pytest.raises(IllegalActionError):
        state.apply("keep")  # SV-4.5: the keep after the third roll is forced, never typed (0.25)


def test_sv_t2_all_removed_on_first_roll() -> None:
    """SV-T2 / SV-4.3: no dice left ends the turn with 0, no further roll."""
    state = started()
    state.apply("roll 1 6 2 5 3 4")
    assert state.scores()["A"] == 0
    assert state.prompt().startswith("B: roll the six dice")


def test_sv_t3_zero_on_third_roll() -> None:
    """SV-T3: two dice re-rolled on the third roll make a 7: zero points (A61)."""
    state = started()
    state.apply("roll 2 2 2 5 6 6")
    assert sum(i.value for i in state.zones()["theatre"]) == 16
    state.apply("reroll")
    state.apply("roll 4 4 4 3")
    assert [i.value for i in state.zones()["theatre"]] == [4, 4]
    state.apply("reroll")
    state.apply("roll 5 2")
    assert state.scores()["A"] == 0 and state.round() == 1


def test_sv_t4_several_pairings_one_outcome() -> None:
    """SV-T4: 6-6-6-1-1-2 leaves 6 and 2, sum 8, keep or roll."""
    state = started()
    state.apply("roll 6 6 6 1 1 2")
    assert [i.value for i in state.zones()["theatre"]] == [2, 6]
    assert state.legal_actions() == [Keep(), Reroll()]
    state.apply("keep")
    assert state.scores()["A"] == 8


def play_turn(state, kept: str) -> None:
    """One turn: the first roll leaves exactly ``kept`` (padded with 1-6 pairs), then keep.
    An empty ``kept`` is a roll where every die is removed (score 0)."""
    faces = kept.split()
    padding = " 1 6" * ((6 - len(faces)) // 2)
    state.apply(f"roll {kept}{padding}")
    if faces:
        state.apply("keep")


def test_sv_t5_tiebreak_rounds() -> None:
    """SV-T5 / SV-5.3: A and B tied after R=2 play extra rounds, C is out; B wins 50-38."""
    state = started("A,B,C", order=["roll 6 6 6 6 6 6", "roll 1 1 1 1 1 1", "roll 1 1 1 1 1 2"], sv__rounds=2)
    for kept in ("6 6 6 6", "6 6 6 6", "5 5 5 5", "3 3", "3 3", "2 3"):
        play_turn(state, kept)
    assert state.scores() == {"A": 30, "B": 30, "C": 25}
    assert not state.is_terminal() and state.round() == 3
    play_turn(state, "4 4")
    play_turn(state, "4 4")
    assert state.scores() == {"A": 38, "B": 38, "C": 25} and not state.is_terminal()
    play_turn(state, "")
    play_turn(state, "6 6")
    assert state.is_terminal() and state.winners() == ["B"]
    assert state.scores() == {"A": 38, "B": 50, "C": 25}


def test_sv_5_2_co_winners() -> None:
    """A64: with sv.tiebreak=co_winners the tied players share the win after round R."""
    state = started(sv__tiebreak="co_winners")
    play_turn(state, "4 4")
    play_turn(state, "4 4")
    assert state.is_terminal() and state.winners() == ["A", "B"]


def test_sv_t6_order_roll() -> None:
    """SV-T6 / SV-2.2: A 21, B 25, C 25 -> B and C roll again, 18 vs 20: C starts."""
    state = new_game("A,B,C").new_state()
    assert state.phase() == "order roll"
    state.apply("roll 6 5 4 3 2 1")  # A 21
    state.apply("roll 6 6 5 5 2 1")  # B 25
    state.apply("roll 6 6 5 4 3 1")  # C 25
    assert state.phase() == "order roll" and state.prompt().startswith("B:")
    state.apply("roll 6 5 3 2 1 1")  # B 18
    state.apply("roll 6 5 4 2 2 1")  # C 20
    assert state.phase() == "roll" and state.prompt().startswith("C: roll the six dice")
    state.apply("roll 1 6 2 5 3 4")
    assert state.prompt().startswith("A:")  # then the player to C's left


def test_a65_order_roll_removal() -> None:
    """A65: with sv.order_roll_removal the order totals are taken after removing sevens."""
    state = new_game(sv__order_roll_removal=True).new_state()
    state.apply("roll 1 6 2 5 3 4")  # 21 plain, 0 after removal
    state.apply("roll 1 1 1 1 1 2")  # 7
    assert state.prompt().startswith("B: roll the six dice")


def test_sv_4_4_reroll_all_and_partial_house_rule() -> None:
    """A62: re-rolling keeps nothing back unless sv.partial_reroll is on."""
    state = started()
    state.apply("roll 5 5 5 2 4 4")
    with pytest.raises(IllegalActionError, match="A62"):
        state.apply("reroll 5 5")
    house = started(sv__partial_reroll=True)
    house.apply("roll 5 5 5 2 4 4")
    assert Reroll((5, 5)) in house.legal_actions()
    house.apply("reroll 5 5")
    with pytest.raises(IllegalActionError, match="rolls 2 dice"):
        house.apply("roll 1 1 1")
    assert [i.value for i in house.zones()["theatre"]] == [4, 4]  # the held dice stay
    house.apply("roll 3 1")  # the 3 pairs with a held 4 (SV-4.2 over every die in play)
    assert [i.value for i in house.zones()["theatre"]] == [1, 4]


def test_illegal_rolls_name_the_rule() -> None:
    """SV-4.1 / SV-1.1: a roll must give one face 1..6 per die rolled."""
    state = started()
    with pytest.raises(IllegalActionError, match="6 dice"):
        state.apply("roll 1 2 3")
    with pytest.raises(IllegalActionError, match="1 to 6"):
        state.apply("roll 1 2 3 4 5 7")
    with pytest.raises(IllegalActionError, match="must roll first"):
        state.apply("keep")


def test_sv_2_1_rounds_required_and_options_checked() -> None:
    """SV-2.1: sv.rounds has no default; unknown keys and bad values name what is accepted."""
    with pytest.raises(ConfigError, match="sv.rounds is required"):
        find_game("sevens")(["A", "B"])
    with pytest.raises(ConfigError, match="sv.tiebreak.*extra_rounds, co_winners"):
        new_game(sv__tiebreak="coin_toss")
    with pytest.raises(ConfigError, match="has no option 'sv.round'"):
        find_game("sevens")(["A", "B"], {"sv.round": 2})
    with pytest.raises(ConfigError, match="2 or more players"):
        find_game("sevens")(["A"], {"sv.rounds": 1})


def test_sv_6_3_probabilities_after_six_dice() -> None:
    """SV-6.3: P(0, 2, 4, 6 dice left) after a roll of six, and two dice both removed 1/6."""
    left = {0: Fraction(0), 2: Fraction(0), 4: Fraction(0), 6: Fraction(0)}
    for faces, p in roll_distribution(6):
        left[len(remove_sevens(faces))] += p
    assert left == {0: Fraction(155, 3888), 2: Fraction(355, 864), 4: Fraction(571, 1296), 6: Fraction(845, 7776)}
    assert sum(p for faces, p in roll_distribution(2) if not remove_sevens(faces)) == Fraction(1, 6)


def test_sv_6_4_thresholds_and_expected_turn_score() -> None:
    """SV-6.4: keep thresholds after each roll, and the expected turn score 8609429897/725594112."""
    assert [keep_threshold(n, 1) for n in (2, 4, 6)] == [7, 10, 12]
    assert [keep_threshold(n, 2) for n in (2, 4, 6)] == [6, 10, 12]
    assert roll_value(6, 2) == Fraction(8609429897, 725594112)
    assert round(float(roll_value(2, 0)), 3) == 5.833 and round(float(roll_value(6, 1)), 3) == 11.726


def test_expected_values_offered_per_option() -> None:
    """SV-6.4: the tablet's hint compares keep's sum with the re-roll's expected value."""
    state = started()
    state.apply("roll 1 2 4 6 3 3")  # 2 3 left, sum 5 after the first roll
    values = state.expected_values()
    assert values[Keep()] == 5.0 and round(values[Reroll()], 3) == 6.343


def test_chance_outcomes_sum_to_one() -> None:
    state = started()
    outcomes = state.chance_outcomes()
    assert len(outcomes) == 462 and sum(p for _, p in outcomes) == 1
    assert all(isinstance(a, Roll) for a, _ in outcomes)


def probes(state):
    yield Keep()
    yield Reroll()
    yield Reroll((1,))
    yield Roll((1, 2))
    yield Roll((3,) * 6)
    yield Roll((7,) * 6)


@pytest.mark.parametrize(
    "players,options",
    [
        ("A,B", {"sv.rounds": 2}),
        ("A,B,C", {"sv.rounds": 3, "sv.tiebreak": "co_winners"}),
        ("A,B,C,D,E", {"sv.rounds": 1, "sv.order_roll_removal": True}),
        ("A,B", {"sv.rounds": 2, "sv.partial_reroll": True}),
    ],
)
def test_conformance(players: str, options: dict) -> None:
    """Seeded random playouts: invariants, undo, JSON, legal actions and probes (conformance)."""
    game = find_game("sevens")(players.split(","), options)
    for seed in range(4):
        final = playout(game, seed, max_actions=400, probes=probes, full_checks_every=3)
        assert final.is_terminal()


def test_game_names_accept_underscores_and_case() -> None:
    """``find_game`` takes "Seven_Pennies" for "seven-pennies"; an unknown name lists the games."""
    assert find_game("Seven_Pennies") is find_game("seven-pennies")
    with pytest.raises(ConfigError, match="the games are: flip, pennies-from-heaven"):
        find_game("chess")
