"""Starting a match on a table: the game checked, the match recorded, the first player designated.

Both the composition (``web.bootstrap.open_table``) and a running service (``TableService.new_match``)
start matches this one way.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from referee import find_game
from referee.actions import Designate
from referee.errors import ConfigError
from referee.options import parse_option_assignments
from web.store import Match, MatchStore


def create_match(store: MatchStore, game: str, players: list[str], options: Mapping[str, Any],
                 first: str | None = None, camera: str = "") -> Match:
    """Check the game, record a new match, and designate ``first`` where the game asks the table.

    :raises ConfigError: for an unknown game, bad players or options, or ``first`` in a game
        that decides its first player by the rules.
    """
    parsed = parse_option_assignments([f"{k}={v}" for k, v in options.items()]) if _all_text(options) else dict(options)
    game_obj = find_game(game)(players, parsed)
    if first is not None and Designate not in game_obj.action_types:
        raise ConfigError(f"{game_obj.title} decides its first player by the rules, not by choice")
    match_id = store.create(game_obj.name, list(game_obj.players), game_obj.to_json()["options"], camera)
    match = store.open(match_id)
    if first is not None:
        match.apply(Designate(first), "setup")  # the table's choice at set-up, not a player's decision
    return match


def _all_text(options: Mapping[str, Any]) -> bool:
    return all(isinstance(value, str) for value in options.values())

