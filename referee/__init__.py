"""The rules core: every coin-and-dice game of RULES.md as a pure state machine.

Standard library only; no I/O. Importing this package registers every game, so
``find_game("seven-pennies")`` works after ``import referee``.
"""

from referee.actions import Action
from referee.core import (
    CHANCE,
    TABLE,
    TERMINAL,
    Game,
    LegalOption,
    Outcome,
    State,
    Termination,
    find_game,
    game_names,
    register_game,
    state_from_json,
)
from referee.errors import ConfigError, IllegalActionError, InvalidActionError, RulesError
from referee.table import Item, Move
from referee import games as games  # noqa: F401  (registers every game)

__all__ = [
    "Action",
    "CHANCE",
    "TABLE",
    "TERMINAL",
    "ConfigError",
    "Game",
    "IllegalActionError",
    "InvalidActionError",
    "Item",
    "LegalOption",
    "Move",
    "Outcome",
    "RulesError",
    "State",
    "Termination",
    "find_game",
    "game_names",
    "register_game",
    "state_from_json",
]
