"""Seeded random playouts that check the common contract of every game (OpenSpiel's
games_sim_test): invariants after every action, undo to an equal state, JSON round-trips,
every listed legal action applies, and probe actions apply exactly when they are listed."""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterable

from referee import CHANCE, Action, Game, IllegalActionError, State, state_from_json

Probe = Callable[[State], Iterable[Action]]


def total_items(state: State) -> int:
    """How many objects lie in all zones together, leaving out those a supply gives and takes."""
    supplied = state.supplied_kinds()
    return sum(1 for items in state.zones().values() for item in items if item.kind not in supplied)


def check_state(state: State) -> None:
    """The checks made after every action of a playout."""
    state.check_invariants()
    view = state.view()
    json.dumps(view)
    assert isinstance(state.prompt(), str) and state.prompt()
    if state.is_terminal():
        assert state.winners(), "a finished game names its winners"
        assert state.legal_actions() == []
    else:
        assert state.winners() == [], "no winners before the end (RULES.md 0.25)"


def playout(
    game: Game,
    seed: int,
    max_actions: int = 2000,
    probes: Probe | None = None,
    full_checks_every: int = 1,
    conserve_items: bool = True,
) -> State:
    """Play random legal actions (random outcomes at chance steps) and check the contract.

    Returns the final state (terminal, or cut at ``max_actions``).
    """
    rng = random.Random(seed)
    state = game.new_state()
    items_at_start = total_items(state)
    for step in range(max_actions):
        check_state(state)
        if conserve_items:
            assert total_items(state) == items_at_start, "objects are never created or lost (G-2)"
        if state.is_terminal():
            break
        full = step % full_checks_every == 0
        if state.current_player() == CHANCE:
            action = state.sample_chance(rng)
        else:
            legal = state.legal_actions()
            assert legal, f"a decision with no legal option at {state.phase()}"
            assert len(set(legal)) == len(legal), "legal actions are listed once each"
            options = state.options()
            assert [o.action for o in options] == legal and all(o.label for o in options)
            if full:
                for candidate in legal:
                    assert state.why_illegal(candidate) is None, f"{candidate} listed but refused"
                    assert game.parse_action(str(candidate)) == candidate, "text form parses back"
            action = rng.choice(legal)
        if full and probes is not None:
            check_probes(state, probes)
        before = state.copy()
        state.apply(action)
        if full:
            after = state.copy()
            assert state.undo() == action
            assert state == before, f"undo of {action} restores an equal state"
            state.apply(action)
            assert state == after
            again = state_from_json(json.loads(json.dumps(state.to_json())))
            assert again == state, "JSON round-trips to an equal state"
    return state


def check_probes(state: State, probes: Probe) -> None:
    """Each probe applies exactly when it is legal, and a refused one changes nothing."""
    legal = set(state.legal_actions()) if state.current_player() != CHANCE else None
    for probe in probes(state):
        trial = state.copy()
        try:
            trial.apply(probe)
            applied = True
        except IllegalActionError:
            applied = False
            assert trial == state, f"a refused {probe} changed nothing"
        if legal is not None:
            assert applied == (probe in legal), f"{probe}: applied={applied}, listed={probe in legal}"
