"""FLIP (RULES.md §3): test cases FL-T1..FL-T3, the rules FL-1..FL-9, §6.4, conformance.

Dice ids: 1-5 are the first player's (A) and 6-10 the second's (B) at every round start, so the
``a1..a5`` of RULES.md are dice 1..5 and ``b1..b5`` dice 6..10.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterable

import pytest

from referee import CHANCE, ConfigError, IllegalActionError, InvalidActionError, Item, State, find_game
from referee.actions import Action, Roll
from referee.games.flip import FlipState, Flip, Take, Tap
from tests.referee.conformance import playout


def new_state(players: str = "A,B", **options: object) -> FlipState:
    """A fresh game; options as ``fl__first_tie="alternate"``."""
    game = find_game("flip")(players.split(","), {k.replace("__", "."): v for k, v in options.items()})
    state = game.new_state()
    assert isinstance(state, FlipState)
    return state


def play(state: State, *actions: str) -> None:
    for action in actions:
        state.apply(action)


def faces(state: FlipState, seat: int) -> list[int]:
    return [state.face(d) for d in state.dice_of(seat)]


def legal_texts(state: State) -> list[str]:
    return [str(a) for a in state.legal_actions()]


# -- FL-8: the test cases ---------------------------------------------------------------------


def test_fl_t1_flips_taps_locks_and_change() -> None:
    """FL-T1: the worked line of RULES.md FL-8, step by step."""
    state = new_state()
    state.apply("roll 1 2 3 4 6 6 6 5 1 2")
    assert state.current_player_name() == "A"  # 16 against 20: the lower total starts (FL-3.3)
    assert legal_texts(state) == [f"flip {d}" for d in range(1, 6)] + [f"tap {d}" for d in range(6, 11)]
    state.apply("flip 1")
    assert state.face(1) == 6 and state.locked(0) == (1,)
    state.apply("tap 5")
    assert state.middle() == (5,) and state.face(5) == 6
    assert legal_texts(state) == ["take nothing"] and state.current_player_name() == "A"
    assert state.locked(1) == ()
    state.apply("take nothing")
    assert legal_texts(state) == ["flip 2", "flip 3", "flip 4"] + [f"tap {d}" for d in range(6, 11)]  # die 1 locked
    state.apply("tap 8")
    assert [state.face(d) for d in state.middle()] == [6, 5]
    assert legal_texts(state) == ["take nothing"]  # 6 is not < 5
    assert state.locked(0) == ()  # A tapped: die 1 may be flipped again
    state.apply("take nothing")
    state.apply("flip 9")
    assert state.face(9) == 6 and state.locked(1) == (9,)
    state.apply("tap 10")
    assert sorted(state.face(d) for d in state.middle()) == [2, 5, 6]
    assert legal_texts(state) == ["take nothing"]
    state.apply("take nothing")
    assert legal_texts(state) == ["flip 6", "flip 7", "tap 1", "tap 2", "tap 3", "tap 4"]  # die 9 locked
    state.apply("tap 4")
    assert sorted(state.face(d) for d in state.middle()) == [2, 4, 5, 6]
    assert legal_texts(state) == ["take nothing", "take 10"]  # 2 < 4
    state.apply("take 10")
    assert state.dice_of(0) == (1, 2, 3, 10) and faces(state, 0) == [6, 2, 3, 2]
    assert state.locked(1) == ()
    assert legal_texts(state) == ["flip 1", "flip 2", "flip 3", "flip 10", "tap 6", "tap 7", "tap 9"]


FL_T2_SETUP = ["roll 6 5 4 4 1 4 6 6 5 2", "tap 7", "take nothing", "flip 6", "tap 8", "take nothing",
               "tap 3", "take nothing", "tap 9", "take nothing", "tap 4", "take nothing",
               "tap 10", "take nothing", "tap 5", "take nothing"]
"""A legal line to FL-T2's position: A holds [6, 5], B holds [3], the middle [6, 6, 5, 4, 4, 2, 1]."""


def fl_t2_state() -> FlipState:
    state = new_state()
    play(state, *FL_T2_SETUP)
    assert faces(state, 0) == [6, 5] and faces(state, 1) == [3]
    assert sorted(state.face(d) for d in state.middle()) == [1, 2, 4, 4, 5, 6, 6]
    assert state.current_player_name() == "A"
    state.apply("tap 6")
    return state


def test_fl_t2_end_of_round() -> None:
    """FL-T2 / FL-5 / A53: B's change options after A taps B's last die (a 3); taking nothing ends
    the round and A scores the 11 A holds."""
    state = fl_t2_state()
    assert [sorted(state.face(d) for d in a.dice) for a in state.legal_actions() if isinstance(a, Take)] == [[], [1], [2]]
    with pytest.raises(IllegalActionError, match="FL-4.2: B's change must sum to less than the tapped 3"):
        state.apply("take 5 10")  # {1, 2} sums to 3: not < 3
    assert state.label(Take()) == "Take nothing: B has no dice left, so A wins the round and scores 11 (FL-5)"
    state.apply("take nothing")
    assert state.scores() == {"A": 11, "B": 0} and not state.is_terminal()
    assert state.round() == 2 and state.current_player() == CHANCE
    assert state.prompt().startswith("A won round 1 and scored 11 (FL-5). Round 2: both players roll")
    # FL-3.1: every die goes home; the table is shown where each must go.
    assert state.dice_of(0) == (1, 2, 3, 4, 5) and state.dice_of(1) == (6, 7, 8, 9, 10) and state.middle() == ()
    assert state.locked(0) == state.locked(1) == ()
    moved = {(m.source, m.target): sorted(int(i.ident or 0) for i in m.items) for m in state.forced_moves()}
    assert moved == {("middle", "area:A"): [3, 4, 5], ("middle", "area:B"): [6, 7, 8, 9, 10]}


def test_fl_t2_change_keeps_b_in_the_round() -> None:
    """FL-T2 case 2 / FL-4.2.4: B takes the 2 and plays on."""
    state = fl_t2_state()
    assert state.label(Take((10,))) == "Take die 10 (showing 2): B then holds 1 die"
    state.apply("take 10")
    assert faces(state, 1) == [2] and state.current_player_name() == "B" and state.phase() == "turn"
    assert [str(m) for m in state.forced_moves()] == ["Move die 10 (a 2) from the middle to B's area (FL-4.2)"]


def win_round(state: FlipState, winner: int) -> None:
    """Play a rolled round out: the winner taps (a locked die first), the loser flips and takes nothing."""
    loser = 1 - winner
    while state.current_player() != CHANCE and not state.is_terminal():
        if state.phase() == "change":
            state.apply("take nothing")
        elif state.current_player() == winner:
            target = (state.locked(loser) or state.dice_of(loser))[0]
            state.apply(f"tap {target}")
        else:
            state.apply(f"flip {[d for d in state.dice_of(loser) if d not in state.locked(loser)][0]}")


def test_fl_t3_game_end() -> None:
    """FL-T3 / FL-6 / A55: A at 41, B at 30; A wins a round holding [6, 3]: 50 wins the game."""
    state = new_state()
    for roll, winner in (("6 6 6 6 6 1 1 1 1 1", 0), ("1 1 1 1 1 6 6 6 6 6", 1), ("1 2 2 3 3 6 6 6 6 6", 0)):
        state.apply(f"roll {roll}")
        win_round(state, winner)
    assert state.scores() == {"A": 41, "B": 30} and state.round() == 4
    play(state, "roll 6 3 1 1 1 6 6 6 6 6", "tap 6", "take nothing", "tap 3", "take nothing", "tap 7",
         "take nothing", "tap 4", "take nothing", "tap 8", "take nothing", "tap 5", "take nothing",
         "tap 9", "take nothing", "flip 10", "tap 10")
    assert faces(state, 0) == [6, 3] and state.dice_of(1) == ()
    state.apply("take nothing")
    assert state.scores() == {"A": 50, "B": 30}
    assert state.is_terminal() and state.winners() == ["A"] and state.legal_actions() == []
    state.check_invariants()
    assert state.outcome() is not None and state.outcome().termination.value == "target reached"
    assert state.prompt().endswith("Game over: A reached 50 (FL-6)")


# -- FL-1 to FL-3 ------------------------------------------------------------------------------


def test_fl_1_1_exactly_two_players() -> None:
    """FL-1.1: a two-player game."""
    for names in (["A"], ["A", "B", "C"]):
        with pytest.raises(ConfigError, match="FLIP is played by 2 players"):
            find_game("flip")(names)


def test_fl_1_4_dice_have_identities_in_zones() -> None:
    """FL-1.4 / FL-3.1: ten dice tracked by id; 1-5 are the first player's, 6-10 the second's."""
    state = new_state("Ann,Bo")
    assert state.zones() == {"middle": (), "area:Ann": tuple(Item("d6", None, str(d)) for d in (1, 2, 3, 4, 5)),
                             "area:Bo": tuple(Item("d6", None, str(d)) for d in (10, 6, 7, 8, 9))}
    state.apply("roll 1 2 3 4 5 6 1 2 3 4")
    assert Item("d6", 6, "6") in state.zones()["area:Bo"] and Item("d6", 5, "5") in state.zones()["area:Ann"]


def test_fl_3_2_a_roll_is_ten_faces() -> None:
    """FL-3.2 / FL-1.2: a roll gives every die's face, 1 to 6; nothing else happens before it."""
    state = new_state()
    assert state.current_player() == CHANCE and state.legal_actions() == []
    for bad, rule in (("roll 1 2 3 4 5 6 1 2 3", "FL-3.2"), ("roll 1 2 3 4 5 6 1 2 3 4 5", "FL-3.2"),
                      ("roll 1 2 3 4 5 6 1 2 3 7", "FL-1.2"), ("roll 0 2 3 4 5 6 1 2 3 4", "FL-1.2"),
                      ("flip 1", "FL-3.2"), ("take nothing", "FL-3.2")):
        with pytest.raises(IllegalActionError, match=rule):
            state.apply(bad)
    assert state.roll_probability() == pytest.approx(6.0**-10)
    sample = state.sample_chance(random.Random(1))
    assert isinstance(sample, Roll) and len(sample.faces) == 10 and state.why_illegal(sample) is None


def test_fl_3_3_lower_total_starts_and_fl_3_4_faces_stay() -> None:
    """FL-3.3 / FL-3.4 / A48: the lower total starts; the rolled faces are the starting dice."""
    state = new_state("Ann,Bo")
    state.apply("roll 6 6 6 6 6 1 1 1 1 2")
    assert state.current_player_name() == "Bo"
    assert faces(state, 0) == [6] * 5 and faces(state, 1) == [1, 1, 1, 1, 2]
    assert state.prompt().startswith("Bo rolled the lower total (6 to 30) and starts (FL-3.3)")


@pytest.mark.parametrize("rule", ["reroll", "previous_round_loser", "alternate"])
def test_a47_equal_totals(rule: str) -> None:
    """A47 / FL-3.3: equal totals reroll in round 1 under every reading; later the reading decides."""
    state = new_state(fl__first_tie=rule)
    state.apply("roll 1 2 3 4 5 5 4 3 2 1")
    assert state.current_player() == CHANCE and state.round() == 1
    assert state.prompt().startswith("Equal totals (15 each): both players roll again")
    state.apply("roll 6 6 6 6 6 1 1 1 1 1")  # B starts round 1 and loses it
    assert state.current_player_name() == "B"
    win_round(state, 0)
    assert state.scores() == {"A": 30, "B": 0} and state.round() == 2
    state.apply("roll 1 2 3 4 5 5 4 3 2 1")
    if rule == "reroll":
        assert state.current_player() == CHANCE
    else:
        # previous_round_loser: B lost round 1; alternate: A did not start round 1. Either way B/A:
        expected = "B" if rule == "previous_round_loser" else "A"
        assert state.current_player_name() == expected
        assert "(A47)" in state.prompt()


# -- FL-4: the turn ----------------------------------------------------------------------------


def test_fl_4_text_forms() -> None:
    """The text forms of FLIP's decisions parse back."""
    game = find_game("flip")(["A", "B"])
    assert game.parse_action("flip 3") == Flip(3) and str(Flip(3)) == "flip 3"
    assert game.parse_action("tap 7") == Tap(7) and str(Tap(7)) == "tap 7"
    assert game.parse_action("take 9 4") == Take((4, 9)) and str(Take((9, 4))) == "take 4 9"
    assert game.parse_action("take nothing") == Take() and str(Take()) == "take nothing"
    for bad in ("flip", "flip 1 2", "tap x", "take", "take 4 4", "flip 0"):
        with pytest.raises(InvalidActionError):
            game.parse_action(bad)


def test_fl_4_legal_options_and_refusals() -> None:
    """FL-4 / A54: exactly a flip of an own unlocked die or a tap of an opponent's die; no pass."""
    state = new_state("Ann,Bo")
    play(state, "roll 2 2 2 2 2 6 6 6 6 6", "flip 1")
    assert state.current_player_name() == "Bo"
    assert state.options()[0].label == "Flip die 6 (6 → 1)"
    assert state.label(Tap(1)) == "Tap Ann's die 1 (a 5): it goes to the middle"
    for bad, message in (("flip 1", "FL-4: Bo may flip only their own dice; die 1 is Ann's"),
                         ("tap 6", "FL-4: Bo may tap only Ann's dice; die 6 is Bo's"),
                         ("tap 11", "FL-1.4"), ("take nothing", "FL-4.2"),
                         ("roll 1 1 1 1 1 1 1 1 1 1", "FL-3.2")):
        with pytest.raises(IllegalActionError, match=message):
            state.apply(bad)
    play(state, "flip 6")
    with pytest.raises(IllegalActionError, match="FL-4.1: Ann flipped die 1 and may not flip it again"):
        state.apply("flip 1")


def test_fl_4_1_flip_faces_and_lock() -> None:
    """FL-4.1 / FL-1.2: a flip turns 1↔6, 2↔5, 3↔4 and locks the die for its flipper."""
    state = new_state()
    play(state, "roll 1 2 3 4 5 6 6 6 6 6")
    for die in range(1, 6):
        before = state.face(die)
        play(state, f"flip {die}")
        assert state.face(die) == 7 - before and die in state.locked(0)
        play(state, f"flip {die + 5}")


def test_a51_lock_disabled_allows_endless_flipping() -> None:
    """A51 / FL-7.2 / §6.4.3: without the lock the same die may be flipped back and forth, and the
    position repeats: a round need never end."""
    state = new_state(fl__lock_enabled="false")
    play(state, "roll 1 2 3 4 5 6 6 6 6 6")
    start = (state.zones(), state.current_player())
    for _ in range(3):
        play(state, "flip 1", "flip 6", "flip 1", "flip 6")
        assert (state.zones(), state.current_player()) == start
    assert state.locked(0) == state.locked(1) == ()


@pytest.mark.parametrize("on_leave", ["drop", "keep"])
def test_a51_lock_on_leave(on_leave: str) -> None:
    """A51 / A50: a locked die that leaves and comes back as change is unlocked under ``drop`` and
    still locked under ``keep``, until its player taps."""
    state = new_state(fl__lock_on_leave=on_leave)
    play(state, "roll 6 2 3 3 3 6 6 6 6 6", "flip 1", "tap 1", "take nothing")
    assert state.locked(0) == ((1,) if on_leave == "keep" else ())
    play(state, "flip 2", "tap 3")
    assert legal_texts(state) == ["take nothing", "take 1"]
    play(state, "take 1")
    assert state.face(1) == 1 and 1 in state.dice_of(0)
    flips = [a for a in legal_texts(state) if a.startswith("flip")]
    assert flips == (["flip 4", "flip 5"] if on_leave == "keep" else ["flip 1", "flip 4", "flip 5"])
    play(state, "tap 6", "take nothing", "flip 7")  # FL-4.2.3: A's tap clears A's locks
    assert "flip 1" in legal_texts(state) and state.locked(0) == ()


def test_fl_4_2_change_rules() -> None:
    """FL-4.2 / A52: change sums to less than the tapped die, never the tapped die itself, only
    from the middle; the tap moves the die to the middle and clears the tapper's locks."""
    state = new_state()
    play(state, "roll 1 2 3 4 6 6 6 5 1 2", "flip 2", "tap 5", "take nothing", "tap 9")
    assert [str(m) for m in state.forced_moves()] == ["Move die 9 (a 1) from B's area to the middle (FL-4.2)"]
    assert state.locked(0) == ()
    play(state, "take nothing", "tap 1")  # B taps A's 1: FL-7.3, a tapped 1 brings no change
    assert legal_texts(state) == ["take nothing"]
    play(state, "take nothing", "tap 10", "take 9")  # B's 2 is tapped; B takes the 1 back
    play(state, "tap 4")  # B taps A's 4: middle holds 6 (5), 1 (1), 2 (10), 4 (4)
    assert legal_texts(state) == ["take nothing", "take 1", "take 10", "take 1 10"]
    for bad, message in (("take 4", "A52: die 4 was just tapped"), ("take 6", "FL-4.2: die 6 is not in the middle"),
                         ("take 5", "less than the tapped 4"), ("take 12", "FL-1.4"), ("flip 2", "FL-4.2")):
        with pytest.raises(IllegalActionError, match=message):
            state.apply(bad)
    assert state.label(Take((1, 10))) == "Take dice 1 and 10 (showing 1 + 2): A then holds 4 dice"


def test_fl_6_target_option() -> None:
    """FL-6 / A55: the game ends when the round winner reaches ``fl.target`` or more."""
    state = new_state(fl__target="10")
    state.apply("roll 2 2 2 2 2 1 1 1 1 1")
    win_round(state, 0)
    assert state.is_terminal() and state.scores() == {"A": 10, "B": 0} and state.winners() == ["A"]


# -- FL-7 and §6.4 -------------------------------------------------------------------------------


def test_fl_7_every_round_ends_within_the_bounds() -> None:
    """FL-7.1 / FL-7.2 / FL-7.3 / §6.4: in random play the middle never changes face and grows
    lexicographically with each tap, a tapped 1 brings no change, and a round ends within 49 taps
    and 753 turns."""
    for seed in range(6):
        rng = random.Random(seed)
        state = new_state(fl__target="60")
        taps = turns = 0
        vector_at_tap: list[int] = []
        while not state.is_terminal():
            if state.current_player() == CHANCE:
                state.apply(state.sample_chance(rng))
                taps = turns = 0
                continue
            middle_before = {d: state.face(d) for d in state.middle()}
            action = rng.choice(state.legal_actions())
            if isinstance(action, Tap):
                vector_at_tap = middle_vector(state)
            state.apply(action)
            turns += isinstance(action, (Flip, Tap))
            if isinstance(action, Tap):
                taps += 1
                if state.face(action.die) == 1:
                    assert state.legal_actions() == [Take()]  # FL-7.3
            if isinstance(action, Take):
                assert all(state.face(d) == f for d, f in middle_before.items())  # FL-7.1: faces unchanged
                if state.phase() != "roll" and not state.is_terminal():
                    assert middle_vector(state) > vector_at_tap  # §6.4.1
            assert taps <= 49 and turns <= 753


def middle_vector(state: FlipState) -> list[int]:
    """The middle's face counts from 6 down to 1 (§6.4.1)."""
    middle = [state.face(d) for d in state.middle()]
    return [middle.count(v) for v in range(6, 0, -1)]


# -- conformance ---------------------------------------------------------------------------------


def probes(state: State) -> Iterable[Action]:
    """Near misses: every die flipped and tapped, ids out of range, changes one die off, bad rolls."""
    assert isinstance(state, FlipState)
    yield Roll((1,) * 9)
    yield Roll((1,) * 9 + (7,))
    yield Roll((3,) * 10)
    for die in range(0, 12):
        yield Flip(die)
        yield Tap(die)
    yield Take()
    middle = state.middle()
    for size in (1, 2):
        for combo in itertools.combinations(middle + (1, 6), size):
            if len(set(combo)) == size:
                yield Take(combo)
    for action in state.legal_actions():
        if isinstance(action, Take):
            for extra in middle:
                if extra not in action.dice:
                    yield Take(action.dice + (extra,))


CONFORMANCE = [
    {"fl.first_tie": tie, "fl.lock_on_leave": leave, "fl.target": 12}
    for tie in ("reroll", "previous_round_loser", "alternate") for leave in ("drop", "keep")
] + [{}, {"fl.lock_enabled": False}]


@pytest.mark.parametrize("options", CONFORMANCE, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
def test_conformance(options: dict[str, object]) -> None:
    """The common contract over the lock and first-tie options (a cap of 300 actions: without the
    lock a round may never end, FL-7.2)."""
    game = find_game("flip")(["A", "B"], options)
    for seed in range(2):
        state = playout(game, seed, max_actions=300, probes=probes, full_checks_every=5)
        assert state.is_terminal() or len(state.history()) == 300
