"""One conformance test over every registered game (``referee.game_names()``), after OpenSpiel's
``games_sim_test`` and python-chess's perft: seeded, bounded random playouts that keep the
common contract after every action (invariants, G-2 conservation, a view and a prompt, winners
only at the end, RULES.md 0.25), undo to an equal state, text forms of actions that parse back
and ``repr``\\ s that rebuild them, JSON round-trips of the state, and copies independent of
their original. Per-game tests pin down the tricky positions; this one makes sure no game, and
no game registered later, is left out of the contract.
"""

from __future__ import annotations

import importlib
import json
import random

import pytest

from referee import CHANCE, Action, Game, State, find_game, game_names, state_from_json
from tests.referee.conformance import playout
from tests.referee.test_pennies_from_heaven_playouts import TableSim

PLAYERS = ("Ann", "Bo", "Cy", "Di", "Ed", "Flo")
SEEDS = (1, 2)
MAX_ACTIONS = 120
FULL_CHECKS_EVERY = 3
"""Every third action of a playout gets the full checks (each listed action applies and parses
back, undo, JSON): every action of a long FLIP playout would take most of a minute."""

OPTIONS_THE_TABLE_FIXES = {"sevens": {"sv.rounds": 2}}
"""Keys a game asks the table to fix before play (SV-2.1: the number of rounds); every other
key at its default."""

HIDDEN_INFORMATION = {"pennies-from-heaven"}
"""Games whose chance steps the referee cannot sample (the cards dealt are hidden, G-6): a
simulated real table plays them (``TableSim``), holding the cards and feeding the referee what
a camera would see, checking every card after every action (so fewer actions: ``SIM_STEPS``)."""
SIM_STEPS = 50


def new_game(name: str) -> Game:
    """``name`` at its smallest table (two players or the game's least), defaults elsewhere."""
    game_class = find_game(name)
    players = list(PLAYERS[: max(2, game_class.min_players)])
    return game_class(players, OPTIONS_THE_TABLE_FIXES.get(name, {}))


def played(name: str, seed: int) -> State:
    """A seeded random playout of ``name``, checking the contract as it goes."""
    if name in HIDDEN_INFORMATION:
        sim = TableSim(len(new_game(name).players), seed, json_every=FULL_CHECKS_EVERY)
        return sim.run(hands=1, max_steps=SIM_STEPS)
    return playout(new_game(name), seed, max_actions=MAX_ACTIONS, full_checks_every=FULL_CHECKS_EVERY)


def rebuilt(action: Action) -> object:
    """The action its ``repr`` rebuilds, in the namespace of the module that defines it."""
    module = importlib.import_module(type(action).__module__)
    return eval(repr(action), vars(module))  # the referee's own repr, not outside input


def next_move(state: State, rng: random.Random) -> Action | None:
    """A legal next action: a sampled outcome at a chance step, the first listed decision
    otherwise; ``None`` where the referee cannot sample the chance step (hidden cards)."""
    if state.current_player() != CHANCE:
        return state.legal_actions()[0]
    return state.sample_chance(rng) if state.chance_outcomes() else None


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", game_names())
def test_every_game_keeps_the_contract_through_random_playouts(name: str, seed: int) -> None:
    """A seeded playout of ``name`` keeps the contract after every action (``playout``, or the
    simulated table's checks); then the actions played, the returns, JSON, a copy and a full
    undo are checked on what it reached."""
    state = played(name, seed)
    game = state.game
    history = state.history()
    assert history, f"{name}: the playout made no move"

    # Text forms and reprs of every action played.
    for action in history:
        assert game.parse_action(str(action)) == action, f"{name}: {action} parses back"
        assert rebuilt(action) == action, f"{name}: {action!r} rebuilds the action"

    # Returns and winners name the game's players only.
    returns = state.returns()
    assert set(returns) == set(game.players) and all(isinstance(v, int) for v in returns.values())
    assert set(state.winners()) <= set(game.players)
    assert state.is_terminal() == bool(state.winners())

    # The state and the game round-trip through JSON.
    again = state_from_json(json.loads(json.dumps(state.to_json())))
    assert again == state and again.game == game and again.history() == history

    # Undo back to the middle of the game: a copy there is independent of its original.
    middle = len(history) // 2
    for action in reversed(history[middle:]):
        assert state.undo() == action
    frozen = json.dumps(state.to_json(), sort_keys=True)
    copy = state.copy()
    assert copy is not state and copy == state
    move = next_move(copy, random.Random(seed))
    if move is not None:
        copy.apply(move)
        assert copy != state
    assert json.dumps(state.to_json(), sort_keys=True) == frozen, f"{name}: a copy's move changed the original"

    # Undo, all the way back, restores the state the game began in.
    for action in reversed(history[:middle]):
        assert state.undo() == action
    assert state == game.new_state(), f"{name}: undoing every action restores the first state"
