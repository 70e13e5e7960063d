"""Pennywise (RULES.md §2): test cases PW-T1..PW-T5, the rules PW-1..PW-9, §6.3, conformance."""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Iterable

import pytest

from referee import CHANCE, TABLE, ConfigError, IllegalActionError, InvalidActionError, Item, State, find_game
from referee.actions import Action, Designate
from referee.core import state_from_json
from referee.games.pennywise import COINAGES, PennywiseGame, PennywiseState, Put, solve
from tests.referee.conformance import playout

RULES = {
    "original": {"pw.change_rule": "original"},
    "k1": {"pw.change_rule": "k1"},
    "k2/any_lower": {"pw.change_rule": "k2", "pw.k2_reading": "any_lower"},
    "k2/original_or_all_lower": {"pw.change_rule": "k2", "pw.k2_reading": "original_or_all_lower"},
    "k2/all_lower_or_nothing": {"pw.change_rule": "k2", "pw.k2_reading": "all_lower_or_nothing"},
}


def new_state(players: str = "A,B", first: str = "A", **options: object) -> PennywiseState:
    """A started game (the table designated ``first``); options as ``pw__change_rule="k1"``."""
    game = find_game("pennywise")(players.split(","), {k.replace("__", "."): v for k, v in options.items()})
    state = game.new_state()
    state.apply(f"designate {first}")
    assert isinstance(state, PennywiseState)
    return state


def play(state: State, *actions: str) -> None:
    for action in actions:
        state.apply(action)


def changes_for(state: State, coin: int) -> set[tuple[int, ...]]:
    """The legal changes listed for putting in ``coin`` (each a value-sorted multiset)."""
    return {a.change for a in state.legal_actions() if isinstance(a, Put) and a.coin == coin}


# -- PW-8: the test cases -----------------------------------------------------------------


PW_T1_ORIGINAL = {(), (1,), (1, 1), (1, 1, 1), (5,), (5, 1), (5, 1, 1), (5, 1, 1, 1)}
PW_T1 = {
    "original": PW_T1_ORIGINAL,
    "k1": PW_T1_ORIGINAL | {(5, 5)},
    "k2/any_lower": {(5,) * n + (1,) * p for n in range(3) for p in range(4)},
    "k2/original_or_all_lower": PW_T1_ORIGINAL | {(5, 5, 1, 1, 1)},
    "k2/all_lower_or_nothing": {(), (5, 5, 1, 1, 1)},
}


@pytest.mark.parametrize("rule", RULES)
def test_pw_t1_legal_change_sets(rule: str) -> None:
    """PW-T1: the centre holds 1,1,1,5,5 and the player puts in a 10."""
    state = new_state(**{k.replace(".", "__"): v for k, v in RULES[rule].items()})
    play(state, "put 1", "put 1", "put 1", "put 5", "put 5")
    assert state.centre_coins() == (5, 5, 1, 1, 1)
    assert state.current_player_name() == "B"
    assert changes_for(state, 10) == PW_T1[rule]
    assert len(changes_for(state, 10)) == {"original": 8, "k1": 9, "k2/any_lower": 12,
                                           "k2/original_or_all_lower": 9, "k2/all_lower_or_nothing": 2}[rule]
    for change in itertools.product(*(range(n + 1) for n in (3, 2))):
        action = Put(10, (1,) * change[0] + (5,) * change[1])
        error = state.why_illegal(action)
        assert (error is None) == (action.change in PW_T1[rule])
        if error is not None:
            assert error.rule in ("PW-4.3", "A43")


@pytest.mark.parametrize("rule", RULES)
def test_pw_t2_a_penny_brings_no_change(rule: str) -> None:
    """PW-T2 / PW-4.4 / A38: a penny put in: only {} under every rule, even with 5, 10 in the centre."""
    state = new_state(**{k.replace(".", "__"): v for k, v in RULES[rule].items()})
    play(state, "put 10", "put 5", "put 1 take nothing")
    assert state.centre_coins() == (10, 5, 1)
    assert changes_for(state, 1) == {()}
    for bad in ("put 1 take 5", "put 1 take 1", "put 1 take 10"):
        with pytest.raises(IllegalActionError) as info:
            state.apply(bad)
        assert info.value.rule in ("PW-4.4", "PW-4.3")


def test_pw_t3_opening_of_two_players() -> None:
    """PW-T3: Original coinage, 2 players, original rule: legal changes and holdings."""
    state = new_state()
    steps = [
        ("A", 1, {()}, "put 1", 63, (25, 10, 10, 5, 5, 5, 1, 1, 1), (1,)),
        ("B", 5, {(), (1,)}, "put 5 take 1", 60, (25, 10, 10, 5, 5, 1, 1, 1, 1, 1), (5,)),
        ("A", 10, {(), (5,)}, "put 10 take 5", 58, (25, 10, 5, 5, 5, 5, 1, 1, 1), (10,)),
        ("B", 25, {(), (10,)}, "put 25 take 10", 45, (10, 10, 10, 5, 5, 1, 1, 1, 1, 1), (25,)),
    ]
    for name, coin, legal, action, cents, coins, centre in steps:
        assert state.current_player_name() == name
        assert changes_for(state, coin) == legal
        state.apply(action)
        seat = state.game.players.index(name)
        assert state.value_of(seat) == cents and state.coins_of(seat) == coins
        assert state.centre_coins() == centre
        assert state.scores()[name] == cents


def test_pw_t4_elimination_and_turn_order() -> None:
    """PW-T4 / PW-4.5 / PW-4.6: C puts in its only penny and is out; A and B alternate; B puts in
    its last coin, takes nothing, and A wins."""
    state = new_state("A,B,C", pw__coinage="1,1,5")
    play(state, "put 1", "put 5 take 1", "put 5", "put 1", "put 1", "put 1", "put 5 take 1 1 1", "put 1")
    assert state.current_player_name() == "C" and state.coins_of(2) == (1,)
    state.apply("put 1")
    assert state.is_eliminated(2) and not state.is_terminal()
    assert state.current_player_name() == "A"
    state.apply("put 1")
    assert state.current_player_name() == "B" and state.coins_of(1) == (1,)
    state.apply("put 1")
    assert state.is_terminal() and state.winners() == ["A"]
    assert state.outcome() is not None and state.outcome().termination.value == "last player with coins"
    assert state.scores() == {"A": 2, "B": 0, "C": 0}


# The 127-turn line of RULES.md §6.3.4: B copies A; every fifth pair of turns both break a coin.
PW_T5_LINE = """
A1 B1 A1 B1 A1 B1 A1 B1 A5/1+1+1+1 B5/1+1+1+1 A1 B1 A1 B1 A1 B1 A1 B1 A5/1+1+1+1 B5/1+1+1+1
A1 B1 A1 B1 A1 B1 A1 B1 A5/1+1+1+1 B5/1+1+1+1 A1 B1 A1 B1 A1 B1 A1 B1 A10/1+1+1+1+5 B10/1+1+1+1+5
A1 B1 A1 B1 A1 B1 A1 B1 A5/1+1+1+1 B5/1+1+1+1 A1 B1 A1 B1 A1 B1 A1 B1 A10/1+1+1+1+5 B10/1+1+1+1+5
A1 B1 A1 B1 A1 B1 A1 B1 A5/1+1+1+1 B5/1+1+1+1 A1 B1 A1 B1 A1 B1 A1 B1 A25/1+1+1+1+10+10 B25/1+1+1+1+10+10
A1 B1 A1 B1 A1 B1 A1 B1 A10/1+1+1+1+5 B10/1+1+1+1+5 A1 B1 A1 B1 A1 B1 A1 B1 A5/1+1+1+1 B5/1+1+1+1
A1 B1 A1 B1 A1 B1 A1 B1 A10/1+1+1+1+5 B10/1+1+1+1+5 A1 B1 A1 B1 A1 B1 A1 B1 A5/1+1+1+1 B5/1+1+1+1
A1 B1 A1 B1 A1 B1 A1
"""


def pw_t5_actions() -> list[tuple[str, str]]:
    """The line as (player, action text): ``A5/1+1+1+1`` -> ``("A", "put 5 take 1 1 1 1")``."""
    actions = []
    for word in PW_T5_LINE.split():
        coin, _, change = word[1:].partition("/")
        actions.append((word[0], f"put {coin}" + (" take " + " ".join(change.split("+")) if change else "")))
    return actions


def test_pw_t5_the_127_turn_line() -> None:
    """PW-T5 / §6.3.4 / PW-7.3: the longest line is legal under the original rule; every turn costs
    the mover exactly 1¢; A is eliminated on turn 127 and B, holding a single penny, wins."""
    actions = pw_t5_actions()
    assert len(actions) == 127
    state = new_state()
    for turn, (name, text) in enumerate(actions, start=1):
        assert not state.is_terminal(), f"the game ended before turn {turn}"
        assert state.current_player_name() == name
        before = state.scores()[name]
        state.apply(text)
        assert state.scores()[name] == before - 1, f"turn {turn} ({text}) loses exactly 1¢"
    assert state.is_terminal() and state.turns_played() == 127
    assert state.winners() == ["B"] and state.coins_of(1) == (1,) and state.is_eliminated(0)
    assert state.scores() == {"A": 0, "B": 1}


# -- PW-1, PW-2: set-up ---------------------------------------------------------------------


def test_pw_1_1_two_to_six_players_and_a46_override() -> None:
    """PW-1.1 / A46: 2 to 6 players; ``pw.players_max`` raises the limit."""
    game = find_game("pennywise")
    for count in range(2, 7):
        game([f"P{i}" for i in range(count)])
    for count in (1, 7):
        with pytest.raises(ConfigError, match="2 to 6"):
            game([f"P{i}" for i in range(count)])
    assert len(game([f"P{i}" for i in range(8)], {"pw.players_max": "8"}).players) == 8
    with pytest.raises(ConfigError, match="pw.players_max"):
        game(["A", "B"], {"pw.players_max": "1"})


@pytest.mark.parametrize(("name", "coins", "value"), [
    ("Original", 10, 64), ("Coprimes", 10, 43), ("Darlene", 9, 52), ("Nodimes", 8, 44), ("Sugar", 7, 26), ("Taylor", 6, 23),
])
def test_pw_1_2_coinages(name: str, coins: int, value: int) -> None:
    """PW-1.2: every coinage's coin count and value; identical stashes; the centre starts empty (A36)."""
    state = new_state("A,B,C", pw__coinage=name.lower())
    assert state.game.options["pw.coinage"] == name
    assert len(state.game.stash) == coins and state.game.stash_value() == value
    assert state.scores() == {"A": value, "B": value, "C": value}
    assert state.zones()["centre"] == ()
    assert len(state.zones()["stash:B"]) == coins


def test_pw_1_2_custom_coinage_and_its_errors() -> None:
    """PW-1.2: a custom coinage is any multiset of positive values; bad ones name what is wrong."""
    state = new_state(pw__coinage="10, 5 5,1")
    assert state.game.stash == (1, 5, 5, 10) and state.game.coinage_name == "custom 1,5,5,10"
    game = find_game("pennywise")
    for bad in ("", "1,x", "0,1", "Pounds"):
        with pytest.raises(ConfigError, match="pw.coinage"):
            game(["A", "B"], {"pw.coinage": bad})
    again = state_from_json(json.loads(json.dumps(state.to_json())))
    assert again == state


def test_a45_token_map() -> None:
    """A45 / PW-1.2: values that are not U.S. coins are tokens; the map names each token's value."""
    state = new_state(pw__coinage="Darlene", pw__token_map="red=3,blue=20")
    game = state.game
    assert isinstance(game, PennywiseGame)
    assert game.token_value("red") == 3 and game.token_value("blue") == 20
    with pytest.raises(InvalidActionError, match="green"):
        game.token_value("green")
    assert set(state.zones()["stash:A"]) == {Item("penny"), Item("token:3"), Item("dime"), Item("token:20")}
    state.apply("put 3")
    assert state.label(Put(20, (3, 1))) == "Put in a 20¢ token, take back a 3¢ token and a penny (B then holds 36¢)"
    assert [str(m) for m in state.forced_moves()] == ["Move 1 3¢ token from A's stash to the centre (PW-4.1)"]
    with pytest.raises(ConfigError, match="red"):
        find_game("pennywise")(["A", "B"], {"pw.token_map": "red=3"})  # no 3¢ coin in Original
    for bad in ("red", "red=0", "red=3,red=4", "a b=3"):
        with pytest.raises(ConfigError, match="pw.token_map"):
            find_game("pennywise")(["A", "B"], {"pw.coinage": "Darlene", "pw.token_map": bad})
    again = state_from_json(json.loads(json.dumps(state.to_json())))
    assert again == state and again.game.options["pw.token_map"] == {"red": 3, "blue": 20}


def test_pw_2_g_5_the_table_designates_the_first_player() -> None:
    """PW-2 / G-5 / A40: the table designates the first player before any coin is put in."""
    state = find_game("pennywise")(["Ann", "Bo", "Cy"]).new_state()
    assert state.current_player() == TABLE and state.phase() == "designate"
    assert state.legal_actions() == [Designate("Ann"), Designate("Bo"), Designate("Cy")]
    assert state.options()[1].label == "Bo goes first (G-5)"
    with pytest.raises(IllegalActionError, match="G-5"):
        state.apply("put 1")
    with pytest.raises(IllegalActionError, match="Zed"):
        state.apply("designate Zed")
    state.apply("designate Bo")
    assert state.current_player_name() == "Bo"
    with pytest.raises(IllegalActionError, match="G-5"):
        state.apply("designate Cy")
    play(state, "put 1", "put 1")
    assert state.current_player_name() == "Ann"  # play passes to the left (G-1)


# -- PW-4: the turn -------------------------------------------------------------------------


def test_pw_4_action_text_forms() -> None:
    """The text forms of a turn parse back; ``take nothing`` is the empty change."""
    game = find_game("pennywise")(["A", "B"])
    assert game.parse_action("put 10 take 1 5 1") == Put(10, (5, 1, 1))
    assert str(Put(10, (1, 5, 1))) == "put 10 take 5 1 1"
    assert game.parse_action("put 10 take nothing") == Put(10) == game.parse_action("PUT 10")
    assert str(Put(10)) == "put 10"
    for bad in ("put", "put x", "put 10 take", "put 10 5", "put 0", "put 10 take 5 x"):
        with pytest.raises(InvalidActionError):
            game.parse_action(bad)


def test_pw_4_1_putting_in_is_compulsory_and_only_held_coins() -> None:
    """PW-4.1 / A37: one option per denomination held; no pass; a coin not held is refused."""
    state = new_state(pw__coinage="Taylor")
    assert {a.coin for a in state.legal_actions() if isinstance(a, Put)} == {1, 5, 10}
    play(state, "put 10", "put 1")
    assert {a.coin for a in state.legal_actions() if isinstance(a, Put)} == {1, 5}
    with pytest.raises(IllegalActionError, match="PW-4.1: A holds no dime"):
        state.apply("put 10")
    with pytest.raises(IllegalActionError, match="PW-1.2: there is no 25¢ coin"):
        state.apply("put 25")


def test_pw_4_2_change_comes_from_the_centre_any_players_coins() -> None:
    """PW-4.2 / A36 / A39: change is optional, from the centre only, and may be coins others put in."""
    state = new_state()
    play(state, "put 5")
    assert changes_for(state, 10) == {(), (5,)}  # A's nickel, taken by B
    state.apply("put 10 take 5")
    assert state.coins_of(1).count(5) == 4 and state.centre_coins() == (10,)
    with pytest.raises(IllegalActionError, match="PW-4.2: the centre holds no nickels"):
        state.apply("put 25 take 5")
    play(state, "put 5", "put 5")
    assert state.centre_coins() == (10, 5, 5)
    with pytest.raises(IllegalActionError, match="PW-4.2: the centre holds 2 nickels, so 3 nickels"):
        state.apply("put 25 take 5 5 5")
    assert [str(m) for m in state.forced_moves()] == ["Move 1 nickel from B's stash to the centre (PW-4.1)"]


def test_pw_4_3_the_coin_just_put_in_never_comes_back() -> None:
    """PW-4.3: under every rule the coin put in cannot be taken back, nor one of its denomination."""
    for rule in RULES.values():
        state = new_state(**{k.replace(".", "__"): v for k, v in rule.items()})
        play(state, "put 10", "put 1")
        with pytest.raises(IllegalActionError, match="PW-4.3"):
            state.apply("put 10 take 10")


def test_pw_4_3_rule_messages() -> None:
    """PW-4.3 / A42 / A43: each rule refuses with a reason naming it."""
    cases = {
        "original": ("put 10 take 5 5", "PW-4.3: change must be worth less than the 10¢"),
        "k1": ("put 10 take 5 5 1", "PW-4.3: under k1 change may be worth at most the 10¢"),
        "k2/original_or_all_lower": ("put 10 take 5 5 1", "A43: under k2 \\(original_or_all_lower\\)"),
        "k2/all_lower_or_nothing": ("put 10 take 1", "A43: under k2 \\(all_lower_or_nothing\\) change is nothing"),
    }
    for rule, (action, message) in cases.items():
        state = new_state(**{k.replace(".", "__"): v for k, v in RULES[rule].items()})
        play(state, "put 1", "put 1", "put 5", "put 5")
        assert state.centre_coins() == (5, 5, 1, 1)
        with pytest.raises(IllegalActionError, match=message):
            state.apply(action)
    # k2 any_lower lifts the value cap: 2 nickels and 2 pennies for a dime (A43 reading (a)).
    state = new_state(pw__change_rule="k2")
    play(state, "put 1", "put 1", "put 5", "put 5", "put 10 take 5 5 1 1")
    assert state.scores()["A"] == 64 - 1 - 5 - 10 + 12


def test_pw_4_labels() -> None:
    """PW-6.1: each option states its effect and what the mover then holds."""
    state = new_state(players="Ann,Bo", first="Ann")
    play(state, "put 5", "put 1", "put 1", "put 1")
    assert state.label(Put(10, (5, 1, 1))) == "Put in a dime, take back a nickel and 2 pennies (Ann then holds 55¢)"
    assert state.label(Put(1)) == "Put in a penny, take nothing back (Ann then holds 57¢)"
    assert state.prompt() == ("Ann: put one coin in the centre and take back any change "
                              "(original: change worth less than the coin) (PW-4.1, PW-4.2)")


def test_pw_5_2_first_knockout_most_value() -> None:
    """PW-5.2 / A41: the game ends at the first elimination and the richest wins; ties share."""
    state = new_state("A,B,C", pw__coinage="1,1,5", pw__end="first_knockout_most_value")
    play(state, "put 1", "put 5 take 1", "put 5", "put 1", "put 1", "put 1", "put 5 take 1 1 1", "put 1")
    assert not state.is_terminal()
    state.apply("put 1")  # C is out: the game ends though two players hold coins
    assert state.is_terminal() and state.scores() == {"A": 3, "B": 1, "C": 0}
    assert state.winners() == ["A"] and state.outcome() is not None
    assert state.outcome().termination.value == "most value at the first knock-out"
    tie = new_state("A,B,C", pw__coinage="1", pw__end="first_knockout_most_value")
    tie.apply("put 1")
    assert tie.winners() == ["B", "C"]


def test_a40_next_game_first() -> None:
    """A40: in a series the next game starts left of this game's first player, or the table chooses."""
    assert new_state("A,B,C", first="C").next_game_first() == "A"
    assert new_state("A,B,C", first="A").next_game_first() == "B"
    assert new_state("A,B,C", first="B", pw__next_game_first="table_choice").next_game_first() is None


def test_pw_6_2_no_chance_step() -> None:
    """PW-6.2: every step is a decision; there is nothing to throw."""
    state = new_state()
    while not state.is_terminal():
        assert state.current_player() != CHANCE
        assert state.chance_outcomes() == []
        state.apply(state.legal_actions()[-1])


# -- PW-7 and §6.3: results -----------------------------------------------------------------


def centre_vector(state: PennywiseState) -> tuple[int, ...]:
    """The centre's counts from the highest denomination down (§6.3.1)."""
    coins = state.centre_coins()
    return tuple(coins.count(d) for d in reversed(state.game.denominations))


@pytest.mark.parametrize("rule", RULES)
def test_pw_7_1_the_centre_grows_lexicographically(rule: str) -> None:
    """PW-7.1 / §6.3.1: every turn makes the centre's counts, highest denomination first, larger;
    under the original rule every turn costs the mover at least 1¢ (§6.3.2)."""
    for seed in range(3):
        rng = random.Random(seed)
        state = new_state("A,B,C", **{k.replace(".", "__"): v for k, v in RULES[rule].items()})
        while not state.is_terminal():
            before, seat, cents = centre_vector(state), state.current_player(), state.value_of(state.current_player())
            state.apply(rng.choice(state.legal_actions()))
            assert centre_vector(state) > before
            if rule == "original":
                assert state.value_of(seat) <= cents - 1


@pytest.mark.parametrize(("coinage", "expected"), [
    ("Taylor", (41, 43, 54, 53, 52)),
    ("Sugar", (51, 81, 159, 153, 150)),
])
def test_pw_7_2_longest_games_of_small_coinages(coinage: str, expected: tuple[int, ...]) -> None:
    """§6.3.3 table / PW-7.2 / PW-7.4: the longest 2-player games from the engine's own moves, and
    the second player wins with perfect play (the Original row is in benchmarks/pennywise_longest.py)."""
    for rule, longest in zip(RULES.values(), expected):
        result = solve(PennywiseGame(["A", "B"], {"pw.coinage": coinage, **rule}))
        assert result.longest == longest
        assert result.first_player_wins is False


def test_pw_7_2_original_coinage_original_rule() -> None:
    """PW-7.2 / PW-7.3 / PW-7.4: Original coinage, 2 players, original rule: at most 127 turns
    (= 2 × 64 − 1) and the second player wins (the Kisenwether figures are in the benchmark)."""
    result = solve(PennywiseGame(["A", "B"]))
    assert result.longest == 127 == 2 * 64 - 1
    assert result.first_player_wins is False


def test_pw_7_2_solver_agrees_with_brute_force() -> None:
    """§6.3.3 check: the memoised search equals plain enumeration of every game on a tiny coinage."""

    def longest(state: PennywiseState) -> int:
        return max((1 + (0 if kid.is_terminal() else longest(kid)) for kid in
                    (state.successor(a) for a in state.legal_actions() if isinstance(a, Put))), default=0)

    for rule in RULES.values():
        game = PennywiseGame(["A", "B"], {"pw.coinage": "1,1,5", **rule})
        start = game.new_state()
        start.apply("designate A")
        assert isinstance(start, PennywiseState)
        assert solve(game).longest == longest(start)


# -- conformance ----------------------------------------------------------------------------


def probes(state: State) -> Iterable[Action]:
    """Near misses around every listed turn: a coin more or less of change, another coin, a coin
    not in the coinage, the coin itself back, and a designation mid-game."""
    assert isinstance(state, PennywiseState)
    denoms = state.game.denominations
    legal = state.legal_actions()
    yield Designate(state.game.players[0])
    yield Put(max(denoms) + 1)
    for action in legal[:40]:
        if not isinstance(action, Put):
            continue
        yield Put(action.coin, action.change + (action.coin,))
        for d in denoms:
            yield Put(action.coin, action.change + (d,))
            yield Put(d, action.change)
        if action.change:
            yield Put(action.coin, action.change[1:])
            yield Put(action.coin, action.change[:-1] + (action.change[-1] + 1,))


CONFORMANCE = (
    [("Original", rule, 2, "last_survivor") for rule in RULES]
    + [(coinage, rule, 3, "last_survivor") for coinage in COINAGES if coinage != "Original" for rule in RULES]
    + [("1,2,2,7", rule, 4, "last_survivor") for rule in RULES]
    + [("Original", "original", players, end) for players in range(2, 7) for end in ("last_survivor", "first_knockout_most_value")]
    + [("Sugar", "k2/any_lower", 6, "first_knockout_most_value"), ("Taylor", "k1", 5, "last_survivor")]
)


@pytest.mark.parametrize(("coinage", "rule", "players", "end"), CONFORMANCE)
def test_conformance(coinage: str, rule: str, players: int, end: str) -> None:
    """The common contract (tests/referee/conformance.py) over coinages, rules, player counts and ends."""
    game = PennywiseGame([f"P{i}" for i in range(players)], {"pw.coinage": coinage, "pw.end": end, **RULES[rule]})
    for seed in range(2):
        state = playout(game, seed, max_actions=150, probes=probes, full_checks_every=3)
        assert state.is_terminal() or len(state.history()) == 150
