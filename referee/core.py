"""The shared shape of every game: an immutable ``Game`` and a mutable ``State`` it makes.

Follows OpenSpiel's Game/State split and python-chess's push/pop: ``State.apply`` checks the
action against the rules, applies it (with every FORCED step that follows it, RULES.md 0.25) and
pushes a snapshot, so ``undo`` restores an equal state. Chance is a player: a throw or a roll
is an action of ``CHANCE`` whose outcome the camera supplies; the referee never draws random
numbers for play (``sample_chance`` exists for simulations and tests, with the caller's rng).
"""

from __future__ import annotations

import copy
import enum
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar, TypeVar

from referee.actions import Action, parse_action
from referee.errors import ConfigError, IllegalActionError, InvalidActionError
from referee.options import OptionSpec, option_to_json, resolve_options
from referee.table import Item, Move, describe_items, item_to_json

CHANCE = -1
"""``current_player()`` while the table must throw or roll: the camera supplies the outcome."""
TABLE = -2
"""``current_player()`` while the table as a whole decides (designating the first player, G-5)."""
TERMINAL = -4
"""``current_player()`` once the game is over."""

PLAYER_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.'")


class Termination(enum.Enum):
    """Why a game ended."""

    TARGET_REACHED = "target reached"
    LAST_WITH_NICKELS = "last player with nickels"
    LAST_WITH_COINS = "last player with coins"
    ROUNDS_PLAYED = "all rounds played"
    MOST_VALUE = "most value at the first knock-out"


@dataclass(frozen=True)
class Outcome:
    """How a finished game ended and who won (several names for a shared win)."""

    termination: Termination
    winners: tuple[str, ...]


@dataclass(frozen=True)
class LegalOption:
    """One legal action with the tablet's label for it ("Cancel 3 tails: ...")."""

    action: Action
    label: str

    def to_json(self) -> dict[str, str]:
        """``{"action": "cancel", "label": "..."}``."""
        return {"action": str(self.action), "label": self.label}


G = TypeVar("G", bound="Game")

_GAMES: dict[str, type[Game]] = {}


def register_game(cls: type[G]) -> type[G]:
    """Class decorator: make a game findable by its ``name`` (OpenSpiel's ``register_game``)."""
    known = _GAMES.get(cls.name)
    # The same class may be imported twice (e.g. by doctest under another module name).
    assert cls.name and (known is None or known.__qualname__ == cls.__qualname__), f"game name {cls.name!r} missing or taken"
    _GAMES[cls.name] = cls
    return cls


def find_game(name: str) -> type[Game]:
    """The game class registered under ``name``.

    :raises ValueError: (a ``ConfigError``) for an unknown name, listing the known ones.
    """
    try:
        return _GAMES[name.strip().lower().replace("_", "-").replace(" ", "-")]
    except KeyError:
        raise ConfigError(f"unknown game {name!r}; the games are: {', '.join(sorted(_GAMES))}") from None


def game_names() -> list[str]:
    """The registered game names, sorted."""
    return sorted(_GAMES)


class Game:
    """The rules of one game with its players and options; immutable once made.

    Subclasses set ``name``, ``title``, ``option_specs``, ``action_types``, the player bounds
    and ``state_class``, and may check options across keys in ``_check_options``.

    :raises ConfigError: for a wrong player count, bad player names, or bad options.
    """

    name: ClassVar[str] = ""
    title: ClassVar[str] = ""
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int | None] = None
    option_specs: ClassVar[tuple[OptionSpec, ...]] = ()
    action_types: ClassVar[tuple[type[Action], ...]] = ()
    state_class: ClassVar[type[State]]

    def __init__(self, players: Sequence[str], options: Mapping[str, Any] | None = None) -> None:
        self.players: tuple[str, ...] = tuple(players)
        self.options: dict[str, Any] = resolve_options(self.option_specs, options, self.name)
        self._check_players()
        self._check_options()

    def _player_bounds(self) -> tuple[int, int | None]:
        """The accepted player count; games whose bounds depend on options override this."""
        return self.min_players, self.max_players

    def _check_players(self) -> None:
        low, high = self._player_bounds()
        count = len(self.players)
        if count < low or (high is not None and count > high):
            accepted = f"{low} or more" if high is None else (f"{low}" if low == high else f"{low} to {high}")
            raise ConfigError(f"{self.title} is played by {accepted} players, got {count}")
        for player in self.players:
            if not player or not set(player) <= PLAYER_NAME_CHARS:
                raise ConfigError(
                    f"player name {player!r} must be one word of letters, digits, '_', '-', '.' or \"'\""
                )
        if len(set(self.players)) != count:
            raise ConfigError(f"player names must differ: {', '.join(self.players)}")

    def _check_options(self) -> None:
        """Cross-key checks of ``self.options``; raise ``ConfigError`` naming the key."""

    def new_state(self) -> State:
        """A fresh state at the start of the game."""
        return self.state_class(self)

    def parse_action(self, text: str) -> Action:
        """Parse an action of this game from its text form.

        :raises InvalidActionError: for text that is no action of this game.
        """
        return parse_action(text, self.action_types)

    def player_index(self, name: str) -> int:
        """The seat of the player called ``name``.

        :raises InvalidActionError: for a name not at this table, listing the players.
        """
        try:
            return self.players.index(name)
        except ValueError:
            raise InvalidActionError(f"no player named {name!r}; the players are {', '.join(self.players)}") from None

    def to_json(self) -> dict[str, Any]:
        """``{"game", "players", "options"}``: enough to make an equal game."""
        return {
            "game": self.name,
            "players": list(self.players),
            "options": {key: option_to_json(value) for key, value in self.options.items()},
        }

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Game) and self.to_json() == other.to_json()

    def __hash__(self) -> int:
        return hash((self.name, self.players))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({list(self.players)!r}, {self.options!r})"


class State:
    """The state of one game in play. Games implement the underscore hooks.

    Everything a subclass stores in its own attributes is part of the snapshot that ``undo``
    restores and that equality compares, so keep it in plain values (ints, strings, tuples,
    lists, dicts, frozen dataclasses).
    """

    def __init__(self, game: Game) -> None:
        self.game = game
        self._history: list[tuple[Action, dict[str, Any]]] = []
        self._moves: tuple[Move, ...] = ()

    # -- the turn ------------------------------------------------------------------------

    def current_player(self) -> int:
        """The seat to act, or ``CHANCE``, ``TABLE`` or ``TERMINAL``."""
        if self.is_terminal():
            return TERMINAL
        return self._current_player()

    def current_player_name(self) -> str | None:
        """The name of the player to act, or ``None`` when chance or the table acts."""
        seat = self.current_player()
        return self.game.players[seat] if seat >= 0 else None

    def phase(self) -> str:
        """The step of the state machine the game is in (``throw``, ``decide``, ``over``, ...)."""
        return "over" if self.is_terminal() else self._phase()

    def legal_actions(self) -> list[Action]:
        """Exactly the actions the rules allow now: a decision's options, or at a chance step
        every possible outcome where that list is small (see ``chance_outcomes``)."""
        if self.is_terminal():
            return []
        return self._legal_actions()

    def options(self) -> list[LegalOption]:
        """The legal actions of a decision, each with its label for the tablet."""
        if self.current_player() == CHANCE:
            return []
        return [LegalOption(action, self.label(action)) for action in self.legal_actions()]

    def label(self, action: Action) -> str:
        """A short sentence stating what ``action`` would do now."""
        return str(action)

    def why_illegal(self, action: Action) -> IllegalActionError | None:
        """The error ``apply(action)`` would raise, or ``None`` when it is legal."""
        if self.is_terminal():
            return IllegalActionError("the game is over", "")
        if type(action) not in self.game.action_types:
            return IllegalActionError(f"{action.verb!r} is not an action of {self.game.title}")
        if self.current_player() == CHANCE:
            return self._chance_error(action)
        if action in self.legal_actions():
            return None
        return self._decision_error(action) or IllegalActionError(
            f"{action} is not legal now; legal: {', '.join(str(a) for a in self.legal_actions())}"
        )

    def apply(self, action: Action | str) -> None:
        """Apply a legal action and every FORCED step that follows it.

        :raises InvalidActionError: for text that does not parse.
        :raises IllegalActionError: for an action the rules forbid now, citing the rule.
        """
        if isinstance(action, str):
            action = self.game.parse_action(action)
        error = self.why_illegal(action)
        if error is not None:
            raise error
        snapshot = self._snapshot()
        try:
            self._moves = ()
            self._apply(action)
        except BaseException:
            self._restore(snapshot)
            raise
        self._history.append((action, snapshot))

    def undo(self) -> Action:
        """Take back the last action, restoring the state before it; returns that action.

        :raises IllegalActionError: when nothing has been played.
        """
        if not self._history:
            raise IllegalActionError("there is nothing to undo")
        action, snapshot = self._history.pop()
        history = self._history
        self._restore(snapshot)
        self._history = history
        return action

    def history(self) -> list[Action]:
        """The actions applied so far, oldest first."""
        return [action for action, _ in self._history]

    # -- what the table shows ------------------------------------------------------------

    def forced_moves(self) -> tuple[Move, ...]:
        """The physical moves the table must carry out now, the effect of the last action."""
        return self._moves

    def zones(self) -> dict[str, tuple[Item, ...]]:
        """What each zone of the table should hold now, in canonical order."""
        raise NotImplementedError

    def prompt(self) -> str:
        """What the table must do now, in one sentence ("Kevin: throw the 6 pennies ...")."""
        raise NotImplementedError

    def round(self) -> int:
        """The round (or hand) in play, from 1."""
        raise NotImplementedError

    def scores(self) -> dict[str, int]:
        """Each player's score (points, or nickels under T.K.O.)."""
        raise NotImplementedError

    def is_terminal(self) -> bool:
        """Whether the game is over."""
        return self.outcome() is not None

    def outcome(self) -> Outcome | None:
        """How the game ended, or ``None`` while it goes on."""
        raise NotImplementedError

    def winners(self) -> list[str]:
        """The winners' names; empty before the end (RULES.md 0.25)."""
        result = self.outcome()
        return list(result.winners) if result else []

    def returns(self) -> dict[str, int]:
        """OpenSpiel's name for the final scores."""
        return self.scores()

    def check_invariants(self) -> None:
        """Assert the game's invariants (conservation, one facing per player, ...)."""

    # -- chance --------------------------------------------------------------------------

    def chance_outcomes(self) -> list[tuple[Action, Fraction]]:
        """Each possible outcome of the pending throw or roll with its exact probability."""
        return []

    def sample_chance(self, rng: random.Random) -> Action:
        """Draw an outcome of the pending chance step with the caller's ``rng`` (simulation only)."""
        outcomes = self.chance_outcomes()
        assert outcomes, "no chance step is pending"
        actions = [action for action, _ in outcomes]
        weights = [float(weight) for _, weight in outcomes]
        chosen: Action = rng.choices(actions, weights=weights)[0]
        return chosen

    def invalid_throw_instruction(self) -> str:
        """What the table does after an invalid throw (G-3, A1, ``g.invalid_throw``)."""
        if self.game.options.get("g.invalid_throw") == "rethrow_offending":
            return "Throw again only what left the play area or did not land flat (A1)"
        return "Pick up everything thrown and throw it all again (A1)"

    def supplied_kinds(self) -> frozenset[str]:
        """Kinds of object that come from and go back to a supply off the watched table (T.K.O.'s
        nickels): the count of these on the table may change; every other object is conserved (G-2).
        """
        return frozenset()

    def chance_zones(self) -> tuple[str, ...]:
        """The zones a pending throw or roll changes (the Theatre and where the dice came from).

        Reconciliation compares every other zone with ``zones()`` and reads the outcome from these.
        """
        return ()

    def chance_waiting(self, observed: Mapping[str, Sequence[Item]]) -> bool | None:
        """Whether the camera's read of the ``chance_zones`` shows the throw or roll not yet made.

        ``None`` (the default): reconciliation decides by comparing the read with ``zones()``. A
        game overrides this where that comparison cannot tell: FLIP's dice are rolled where they
        lie, with faces the rules do not know before the first roll.
        """
        return None

    def chance_from_table(self, observed: Mapping[str, Sequence[Item]]) -> Action:
        """The chance action the camera's read of the ``chance_zones`` stands for.

        :raises IllegalActionError: when the table cannot be the outcome of this throw (too few
            objects in the Theatre, some left behind), saying what is wrong.
        """
        raise IllegalActionError(f"{self.game.title} reads this step from the tablet, not the camera")

    def expected_values(self) -> dict[Action, float]:
        """The expected value of each legal option under the game's chance model, where it has one."""
        return {}

    # -- copies, equality and JSON -------------------------------------------------------

    def copy(self) -> State:
        """An independent copy, history included."""
        clone = copy.copy(self)
        clone._restore(self._snapshot())
        clone._history = list(self._history)
        return clone

    def _snapshot(self) -> dict[str, Any]:
        return copy.deepcopy({k: v for k, v in vars(self).items() if k not in ("game", "_history")})

    def _restore(self, snapshot: dict[str, Any]) -> None:
        vars(self).update(copy.deepcopy(snapshot))

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, State)
            and type(self) is type(other)
            and self.game == other.game
            and self._snapshot() == other._snapshot()
            and self.history() == other.history()
        )

    def __hash__(self) -> int:
        return hash((self.game.name, len(self._history)))

    def view(self) -> dict[str, Any]:
        """The state as the tablet shows it (JSON-friendly)."""
        seat = self.current_player()
        actor = self.game.players[seat] if seat >= 0 else {CHANCE: "chance", TABLE: "table"}.get(seat)
        return {
            "game": self.game.name,
            "round": self.round(),
            "phase": self.phase(),
            "to_act": actor,
            "prompt": self.prompt(),
            "scores": self.scores(),
            "terminal": self.is_terminal(),
            "winners": self.winners(),
            "options": [option.to_json() for option in self.options()],
            "forced_moves": [move.to_json() for move in self.forced_moves()],
            "zones": {zone: [item_to_json(i) for i in items] for zone, items in self.zones().items()},
        }

    def to_json(self) -> dict[str, Any]:
        """The game, the action log, and the view: ``state_from_json`` replays it to an equal state."""
        return {**self.game.to_json(), "log": [str(a) for a in self.history()], "view": self.view()}

    def __str__(self) -> str:
        lines = [f"{self.game.title}, round {self.round()}: {self.prompt()}"]
        lines += [f"  {zone}: {_count_text(items)}" for zone, items in self.zones().items()]
        lines.append("  scores: " + ", ".join(f"{k} {v}" for k, v in self.scores().items()))
        return "\n".join(lines)

    # -- hooks for each game -------------------------------------------------------------

    def _current_player(self) -> int:
        raise NotImplementedError

    def _phase(self) -> str:
        raise NotImplementedError

    def _legal_actions(self) -> list[Action]:
        raise NotImplementedError

    def _apply(self, action: Action) -> None:
        raise NotImplementedError

    def _chance_error(self, action: Action) -> IllegalActionError | None:
        """Why a chance outcome is impossible now (``None`` if it is a valid outcome)."""
        if action in self.legal_actions():
            return None
        return IllegalActionError(f"{action} is not a possible outcome now")

    def _decision_error(self, action: Action) -> IllegalActionError | None:
        """Why ``action`` is not among the legal options, citing the rule (``None``: generic)."""
        return None


def _count_text(items: Sequence[Item]) -> str:
    return describe_items(items) if items else "empty"


def state_from_json(data: Mapping[str, Any]) -> State:
    """Rebuild a state from ``State.to_json()`` by replaying its log.

    :raises ConfigError: for an unknown game or bad options.
    :raises IllegalActionError: if the log does not replay (a corrupt or edited file).
    """
    game = find_game(str(data["game"]))(list(data["players"]), dict(data.get("options", {})))
    state = game.new_state()
    for number, text in enumerate(data.get("log", []), start=1):
        try:
            state.apply(str(text))
        except (InvalidActionError, IllegalActionError) as exc:
            raise IllegalActionError(f"log entry {number} ({text!r}) does not replay: {exc}") from None
    return state
