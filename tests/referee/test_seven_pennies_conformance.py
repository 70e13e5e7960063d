"""Seeded conformance playouts of Seven Pennies over many option sets (tests/referee/conformance.py):
invariants SP-6.1/SP-6.2 after every action, undo, JSON round-trips, every listed action
applies, and near-miss probes apply exactly when they are listed."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from referee import CHANCE, Action, State, find_game
from referee.actions import Cancel, DiceThrow, Designate, Gather, Pay, PennyThrow
from referee.games.seven_pennies import SevenPenniesState
from tests.referee.conformance import playout

DICE = {"spd.enabled": True}
TKO = {"spt.enabled": True}

OPTION_SETS: list[tuple[int, dict[str, Any]]] = [
    # defaults, P = 2..6
    (2, {}), (3, {}), (4, {}), (5, {}), (6, {}),
    # each non-default value of each key
    (3, {"g.invalid_throw": "rethrow_offending"}),
    (2, {"sp.coin_count": 5}), (3, {"sp.coin_count": 8}),
    (3, {"sp.penalty_includes_canceller": False}),
    (3, {"sp.penalty_tie": "canceller_chooses"}), (4, {"sp.penalty_tie": "none"}),
    (4, {"sp.penalty_tie": "nearest_left"}),
    (3, {"sp.next_round_starter": "same_first_player"}), (3, {"sp.next_round_starter": "round_ender"}),
    (3, {"sp.next_round_starter": "left_of_previous_starter"}),
    (2, {"sp.win_tie": "play_on"}), (2, {"sp.max_turns_per_round": 4}),
    (2, TKO), (3, TKO), (4, {**TKO, "spt.self_cancel_costs": True}),
    (3, {**TKO, "spt.gain_rule": "any_gather"}), (3, {**TKO, "spt.zero_nickels": "continue"}),
    (2, DICE), (3, {**DICE, "spd.faces": 8}), (2, {**DICE, "spd.faces": 5}), (3, {**DICE, "spd.faces": 2}),
    (2, {**DICE, "spd.faces": 10, "spd.zero_face_as": 10}), (2, {**DICE, "spd.faces": 7, "spd.zero_face_as": 7}),
    (3, {**DICE, "spd.cancel_amount": "choose"}), (3, {**DICE, "spd.leftovers": "stay_in_theatre"}),
    (3, {**DICE, "spd.self_designation": "forbidden"}), (3, {**DICE, "spd.opt_forced_self_cancel": True}),
    (3, {**DICE, "spd.opt_extra_turn": True}),
    (2, {**DICE, "spd.opt_extra_turn": True, "spd.extra_turn_across_rounds": False}),
    (3, {"spd.optional_rules_for_pennies": True, "spd.opt_forced_self_cancel": True, "spd.opt_extra_turn": True}),
    # combinations
    (4, {**TKO, **DICE, "spd.faces": 8}),
    (3, {**TKO, **DICE, "spd.faces": 5, "spd.cancel_amount": "choose", "spd.leftovers": "stay_in_theatre",
         "spd.opt_forced_self_cancel": True, "spd.opt_extra_turn": True}),
    (5, {**TKO, "sp.penalty_tie": "canceller_chooses", "spt.self_cancel_costs": True}),
    (6, {**DICE, "spd.faces": 6, "spd.self_designation": "forbidden", "spd.cancel_amount": "choose"}),
    (4, {**TKO, **DICE, "spt.zero_nickels": "continue", "spd.opt_extra_turn": True,
         "spd.extra_turn_across_rounds": False, "sp.next_round_starter": "round_ender"}),
]


def probes(state: State) -> Iterator[Action]:
    """Near misses around the legal actions: wrong numbers, wrong names, wrong throw totals."""
    assert isinstance(state, SevenPenniesState)
    game = state.game
    names = [*game.players, "Nobody"]
    yield from (Pay(name) for name in names)
    yield Designate(game.players[0])
    yield Designate("Nobody")
    if state.current_player() == CHANCE:
        count = len(state.zones()["balcony"]) + len(state.zones()["theatre"])
        if game.dice:
            yield DiceThrow(tuple([1] * count))
            yield DiceThrow(tuple([game.faces] * (count + 1)))
            yield DiceThrow(tuple([2] * max(count - 1, 1)))
            yield DiceThrow(tuple([0] + [1] * (count - 1)))
            yield DiceThrow(tuple([game.faces + 1] + [1] * (count - 1)))
            yield PennyThrow(count, 0)
        else:
            for heads in (0, count // 2, count):
                yield PennyThrow(heads, count - heads)
                yield PennyThrow(heads, count - heads + 1)
                if count - heads:
                    yield PennyThrow(heads, count - heads - 1)
            yield DiceThrow(tuple([1] * count))
        yield Gather()
        yield Cancel()
        return
    yield Gather()
    yield Cancel()
    yield PennyThrow(1, 1)
    for number in range(0, game.faces + 2):
        yield Gather(number)
        yield Cancel(number)
        for count in (0, 1, 2, 3):
            yield Cancel(number, count)


def playout_ids() -> Iterator[Any]:
    for players, options in OPTION_SETS:
        label = f"P{players}-" + ("-".join(f"{k}={v}" for k, v in options.items()) or "defaults")
        yield pytest.param(players, options, id=label)


@pytest.mark.parametrize("players, options", list(playout_ids()))
def test_conformance_playouts(players: int, options: dict[str, Any]) -> None:
    """Seeded random playouts (SP-6.1, SP-6.2 and the common contract) for one option set."""
    game = find_game("seven-pennies")([f"P{i}" for i in range(players)], options)
    for seed in range(2):
        playout(game, seed=seed, max_actions=160, probes=probes, full_checks_every=4)


def test_conformance_games_reach_their_end() -> None:
    """Long playouts end with a winner: by points (SP-5) and by nickels (SPT-5)."""
    ended = set()
    for players, options in [(2, {}), (3, {}), (2, TKO), (3, {**TKO, **DICE}), (2, {**DICE, "spd.faces": 8})]:
        game = find_game("seven-pennies")([f"P{i}" for i in range(players)], options)
        state = playout(game, seed=11, max_actions=3000, full_checks_every=500)
        assert state.is_terminal(), options
        outcome = state.outcome()
        assert outcome is not None
        ended.add(outcome.termination.value)
    assert ended == {"target reached", "last player with nickels"}
