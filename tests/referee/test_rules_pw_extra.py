"""Pennywise (RULES.md §2): the rules that tests/referee/test_pennywise.py does not cite by ID,
each pinned by a test that cites it (issue 2: every behavioural rule ID is tested)."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from referee import IllegalActionError, InvalidActionError, find_game
from referee.games.pennywise import PennywiseGame, PennywiseState, Put

READINGS: dict[str, dict[str, str]] = {
    "original": {"pw.change_rule": "original"},
    "k1": {"pw.change_rule": "k1"},
    "k2/any_lower": {"pw.change_rule": "k2", "pw.k2_reading": "any_lower"},
    "k2/original_or_all_lower": {"pw.change_rule": "k2", "pw.k2_reading": "original_or_all_lower"},
    "k2/all_lower_or_nothing": {"pw.change_rule": "k2", "pw.k2_reading": "all_lower_or_nothing"},
}


def new_state(players: str = "A,B", first: str = "A", options: dict[str, Any] | None = None) -> PennywiseState:
    """A Pennywise game in which the table designated ``first`` (G-5)."""
    state = find_game("pennywise")(players.split(","), options or {}).new_state()
    assert isinstance(state, PennywiseState)
    state.apply(f"designate {first}")
    return state


def changes(state: PennywiseState) -> dict[int, set[tuple[int, ...]]]:
    """The legal changes listed for each coin the player to move may put in."""
    result: dict[int, set[tuple[int, ...]]] = {}
    for action in state.legal_actions():
        assert isinstance(action, Put)
        result.setdefault(action.coin, set()).add(action.change)
    return result


def copied(state: PennywiseState) -> PennywiseState:
    """An independent copy, typed as a Pennywise state."""
    clone = state.copy()
    assert isinstance(clone, PennywiseState)
    return clone


def random_line(seed: int, players: str, options: dict[str, Any], turns: int) -> list[PennywiseState]:
    """The states of a seeded random game, one per turn (the last one may be terminal)."""
    rng = random.Random(seed)
    state = new_state(players, options=options)
    states = [copied(state)]
    for _ in range(turns):
        if state.is_terminal():
            break
        state.apply(rng.choice(state.legal_actions()))
        states.append(copied(state))
    return states


def test_pw_1_3_a_stash_per_player_and_an_empty_centre() -> None:
    """PW-1.3: one stash area per player and the centre, which starts empty (A36)."""
    state = new_state("Ann,Bo,Cy", "Ann")
    zones = state.zones()
    assert list(zones) == ["centre", "stash:Ann", "stash:Bo", "stash:Cy"]
    assert zones["centre"] == ()
    original = Counter({"penny": 4, "nickel": 3, "dime": 2, "quarter": 1})
    assert all(Counter(item.kind for item in zones[f"stash:{name}"]) == original for name in ("Ann", "Bo", "Cy"))
    state.apply("put 10")
    assert [item.kind for item in state.zones()["centre"]] == ["dime"]


@pytest.mark.parametrize("reading", READINGS)
def test_pw_3_every_denomination_is_conserved(reading: str) -> None:
    """PW-3: for each denomination, the players' coins plus the centre's make P × the stash count,
    after every turn of seeded random games; a state that breaks it is caught."""
    for seed, players in ((3, "A,B"), (4, "A,B,C,D")):
        for state in random_line(seed, players, READINGS[reading], 120):
            counts = Counter(state.centre_coins())
            for seat in range(len(state.game.players)):
                counts.update(state.coins_of(seat))
            assert counts == Counter({value: count * len(state.game.players) for value, count in
                                      Counter(state.game.stash).items()})
            state.check_invariants()
    broken = new_state()
    broken._centre = (1,) + broken._centre[1:]  # a penny from nowhere
    with pytest.raises(AssertionError, match="PW-3"):
        broken.check_invariants()


@pytest.mark.parametrize("players", ["A,B,C", "A,B,C,D,E,F"])
def test_pw_5_1_players_drop_out_one_at_a_time_and_the_last_with_coins_wins(players: str) -> None:
    """PW-5.1: only the mover's holding changes, so players drop out one at a time (never two on
    one turn) and the game ends with exactly one player holding coins, who is the winner."""
    names = players.split(",")
    for seed in range(4):
        states = random_line(seed, players, {}, 2000)
        last = states[-1]
        assert last.is_terminal()
        for before, after in zip(states, states[1:]):
            out_before = sum(before.is_eliminated(s) for s in range(len(names)))
            out_after = sum(after.is_eliminated(s) for s in range(len(names)))
            assert out_after - out_before in (0, 1)
        alive = [name for seat, name in enumerate(names) if not last.is_eliminated(seat)]
        assert len(alive) == 1 and last.winners() == alive
        assert last.scores()[alive[0]] == sum(last.game.stash) * len(names) - sum(last.centre_coins())


def test_a44_kisenwether_rules_replace_only_the_change() -> None:
    """A44: the Kisenwether rules replace the change part of rule 2 only: under k1 and k2 a turn
    still puts in exactly one coin; every original change stays legal under k1 and k2 any_lower
    (moot there), while k2's readings (b) and (c) decide whether original changes remain."""
    line = ["put 1", "put 5", "put 1", "put 5", "put 1"]  # A 1, B 5, A 1, B 5, A 1: centre 1 1 1 5 5
    states = {}
    for reading, options in READINGS.items():
        state = new_state(options=options)
        for action in line:
            state.apply(action)
        assert sorted(state.centre_coins()) == [1, 1, 1, 5, 5]
        with pytest.raises(InvalidActionError):
            state.apply("put")  # no turn without a coin put in
        with pytest.raises(IllegalActionError):
            state.apply("put 25 take 25")  # the coin just put in never comes back
        states[reading] = changes(state)[10]  # B puts in a dime
    original = states["original"]
    assert original < states["k1"] and original < states["k2/any_lower"]
    assert original < states["k2/original_or_all_lower"]  # reading (b): the original changes remain
    assert not original <= states["k2/all_lower_or_nothing"]  # reading (c): they are replaced
    assert states["k2/all_lower_or_nothing"] == {(), (5, 5, 1, 1, 1)}
    for seed in range(3):  # and in random positions, every original change is k1 and k2 legal
        for state in random_line(seed, "A,B", {}, 60):
            if state.is_terminal():
                break
            base = changes(state)
            for reading in ("k1", "k2/any_lower", "k2/original_or_all_lower"):
                alt = copied(state)  # the same position under another change rule
                game = find_game("pennywise")(list(state.game.players), READINGS[reading])
                assert isinstance(game, PennywiseGame)
                alt.game = game
                other = changes(alt)
                assert set(base) == set(other)  # the same coins may be put in
                assert all(base[coin] <= other[coin] for coin in base), (reading, state.centre_coins())
