"""Pennywise (RULES.md §2, PW): put one coin in the centre, take back change, last with coins wins.

One turn is one combined action, ``put 10 take 5 1 1`` (PW-4.1 PUT and PW-4.2 CHANGE together),
so the legal actions of a turn are every pair (coin put in, change taken back) the active change
rule allows (PW-4.3). There is no chance step (PW-6.2). Before the first turn the table names
the first player with ``designate NAME`` (G-5, A40).

Coins are values in cents; a coinage is the multiset of values each player starts with (PW-1.2).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from referee.actions import Action, Designate, parse_int
from referee.core import TABLE, Game, Outcome, State, Termination, register_game
from referee.errors import ConfigError, IllegalActionError, InvalidActionError
from referee.options import OptionSpec
from referee.table import Item, Move, player_zone, sorted_items

COINAGES: dict[str, tuple[int, ...]] = {
    "Original": (1, 1, 1, 1, 5, 5, 5, 10, 10, 25),
    "Coprimes": (1, 1, 1, 1, 4, 4, 4, 7, 7, 13),
    "Darlene": (1, 1, 1, 3, 3, 3, 10, 10, 20),
    "Nodimes": (1, 1, 1, 1, 5, 5, 5, 25),
    "Sugar": (1, 1, 2, 2, 5, 5, 10),
    "Taylor": (1, 1, 1, 5, 5, 10),
}
"""The six named starting stashes of PW-1.2, in cents."""

US_COINS: dict[int, str] = {1: "penny", 5: "nickel", 10: "dime", 25: "quarter"}
"""Values played with real U.S. coins; every other value is a token (A45)."""

_COIN_NAMES = {"penny": ("a penny", "pennies"), "nickel": ("a nickel", "nickels"),
               "dime": ("a dime", "dimes"), "quarter": ("a quarter", "quarters")}

_RULE_WORDS = {
    "original": "change worth less than the coin",
    "k1": "lower coins worth at most the coin",
    "k2": "lower coins",
}


def parse_coinage(text: str) -> str | tuple[int, ...]:
    """A ``pw.coinage`` value: a coinage name (any case) or a custom list ``1,1,5,5,10``.

    :raises ValueError: for an unknown name, a value that is not a positive whole number, or no coins.
    """
    text = text.strip()
    for name in COINAGES:
        if text.lower() == name.lower():
            return name
    words = [w for w in re.split(r"[,\s]+", text) if w]
    if re.search(r"[A-Za-z]", text) and not re.search(r"\d", text):
        raise ValueError(f"no coinage is called {text!r}; the coinages are {', '.join(COINAGES)}, or custom values like 1,1,5,5,10")
    if not words or not all(re.fullmatch(r"\d+", w) for w in words):
        raise ValueError("a custom coinage lists coin values in cents, e.g. 1,1,5,5,10")
    values = tuple(sorted(int(w) for w in words))
    if values[0] < 1:
        raise ValueError("coin values must be at least 1 cent")
    return values


def parse_token_map(text: str) -> dict[str, int]:
    """A ``pw.token_map`` value: ``red=3,blue=20`` (token type to value in cents); empty for none.

    :raises ValueError: for an item without ``=``, a bad token name, a repeated one, or a bad value.
    """
    mapping: dict[str, int] = {}
    for pair in (p.strip() for p in text.split(",")):
        if not pair:
            continue
        name, sep, value = (part.strip() for part in pair.partition("="))
        if not sep or not re.fullmatch(r"[A-Za-z0-9_\-]+", name):
            raise ValueError(f"{pair!r} must be written TOKEN=CENTS, e.g. red=3")
        if name in mapping:
            raise ValueError(f"token {name!r} is given twice")
        if not re.fullmatch(r"\d+", value) or int(value) < 1:
            raise ValueError(f"token {name!r} needs a value of at least 1 cent, got {value!r}")
        mapping[name] = int(value)
    return mapping


def coin_kind(value: int) -> str:
    """The ``Item.kind`` of a coin worth ``value`` cents: ``penny`` ... ``quarter``, else ``token:<value>``."""
    return US_COINS.get(value, f"token:{value}")


def coin_words(value: int, count: int = 1) -> str:
    """``coin_words(10) == "a dime"``, ``coin_words(1, 2) == "2 pennies"``, ``coin_words(4) == "a 4¢ token"``."""
    kind = US_COINS.get(value)
    if kind is None:
        return f"a {value}¢ token" if count == 1 else f"{count} {value}¢ tokens"
    single, plural = _COIN_NAMES[kind]
    return single if count == 1 else f"{count} {plural}"


def coins_words(values: tuple[int, ...]) -> str:
    """``coins_words((5, 1, 1)) == "a nickel and 2 pennies"`` (highest value first); ``"nothing"`` if empty."""
    if not values:
        return "nothing"
    parts = [coin_words(v, values.count(v)) for v in sorted(set(values), reverse=True)]
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


@dataclass(frozen=True)
class Put(Action):
    """One Pennywise turn: put ``coin`` in the centre (PW-4.1), take ``change`` back (PW-4.2).

    ``change`` is kept sorted from the highest value down, so each multiset has one form:
    ``Put(10, (1, 5, 1)) == Put(10, (5, 1, 1))``, written ``put 10 take 5 1 1``; an empty change is
    written ``put 10`` (``put 10 take nothing`` parses to the same action).
    """

    coin: int
    change: tuple[int, ...] = ()
    verb: ClassVar[str] = "put"
    usage: ClassVar[str] = "put <cents> [take <cents> ... | take nothing]"

    def __post_init__(self) -> None:
        object.__setattr__(self, "change", tuple(sorted(self.change, reverse=True)))

    def args(self) -> list[str]:
        words = [str(self.coin)]
        if self.change:
            words += ["take", *(str(v) for v in self.change)]
        return words

    @classmethod
    def parse_args(cls, args: list[str]) -> Put:
        if not args:
            raise InvalidActionError(f"put is written {cls.usage}, e.g. put 10 take 5 1 1")
        coin = parse_int(args[0], "the coin put in (cents)", 1)
        rest = args[1:]
        if not rest:
            return cls(coin)
        if rest[0].lower() != "take":
            raise InvalidActionError(f"after the coin write 'take' and the change, e.g. put 10 take 5 1 1; got {rest[0]!r}")
        taken = rest[1:]
        if [w.lower() for w in taken] == ["nothing"]:
            return cls(coin)
        if not taken:
            raise InvalidActionError("'take' needs the coins taken back (cents), or 'take nothing'")
        return cls(coin, tuple(parse_int(w, "a coin taken back (cents)", 1) for w in taken))


def _coinage_option() -> OptionSpec:
    return OptionSpec(
        "pw.coinage", "Original", tuple(COINAGES), kind="custom", rule="PW-1.2", parse=parse_coinage,
        help="The stash each player starts with: a named coinage, or custom values in cents like 1,1,5,5,10.",
    )


@register_game
class PennywiseGame(Game):
    """Pennywise for 2 to 6 players (``pw.players_max`` raises the limit, A46).

    :raises ConfigError: for a wrong player count, a bad option, or a token worth no coin of the coinage.
    """

    name = "pennywise"
    title = "Pennywise"
    min_players = 2
    max_players = 6
    option_specs = (
        _coinage_option(),
        OptionSpec("pw.token_map", {}, kind="custom", rule="A45", parse=parse_token_map,
                   help="Which physical token stands for which value, e.g. red=3,blue=20, for values that are not U.S. coins."),
        OptionSpec("pw.change_rule", "original", ("original", "k1", "k2"), rule="PW-4.3",
                   help="Change worth less than the coin (original), lower coins worth at most the coin (k1), or lower coins of any value (k2)."),
        OptionSpec("pw.k2_reading", "any_lower", ("any_lower", "original_or_all_lower", "all_lower_or_nothing"), rule="A43",
                   help="Under k2: any lower coins, an original change or all lower coins, or all lower coins or nothing."),
        OptionSpec("pw.end", "last_survivor", ("last_survivor", "first_knockout_most_value"), rule="A41",
                   help="Play until one player has coins, or stop at the first knock-out and let the richest win."),
        OptionSpec("pw.next_game_first", "alternate", ("alternate", "table_choice"), rule="A40",
                   help="In a series, the next game starts with the player left of this game's first player, or the table chooses."),
        OptionSpec("pw.players_max", 6, kind="int", minimum=2, rule="A46",
                   help="The most players the referee accepts (the seed says six)."),
    )
    action_types = (Designate, Put)

    def __init__(self, players: Sequence[str], options: Mapping[str, Any] | None = None) -> None:
        super().__init__(players, options)
        coinage = self.options["pw.coinage"]
        self.stash: tuple[int, ...] = COINAGES[coinage] if isinstance(coinage, str) else tuple(coinage)
        """Every player's starting coins, in cents, lowest first (PW-1.2)."""
        self.denominations: tuple[int, ...] = tuple(sorted(set(self.stash)))
        """The distinct coin values, lowest first; stash and centre counts follow this order."""
        self.stash_counts: tuple[int, ...] = tuple(self.stash.count(d) for d in self.denominations)
        """How many coins of each denomination a player starts with."""

    def _player_bounds(self) -> tuple[int, int | None]:
        return self.min_players, int(self.options["pw.players_max"])

    def _check_options(self) -> None:
        coinage = self.options["pw.coinage"]
        values = set(COINAGES[coinage] if isinstance(coinage, str) else coinage)
        for token, value in self.options["pw.token_map"].items():
            if value not in values:
                raise ConfigError(
                    f"option pw.token_map: token {token!r} is worth {value}¢, which is no coin of the coinage "
                    f"({', '.join(str(v) for v in sorted(values))}) (A45)"
                )

    @property
    def coinage_name(self) -> str:
        """The coinage's name, or ``custom`` with its values."""
        coinage = self.options["pw.coinage"]
        return coinage if isinstance(coinage, str) else "custom " + ",".join(str(v) for v in coinage)

    def stash_value(self) -> int:
        """The value of one starting stash in cents (64 for Original)."""
        return sum(self.stash)

    def token_value(self, token: str) -> int:
        """The value in cents of a physical token type named in ``pw.token_map`` (A45).

        :raises InvalidActionError: for a token type the map does not name.
        """
        mapping: dict[str, int] = self.options["pw.token_map"]
        if token not in mapping:
            known = ", ".join(sorted(mapping)) or "none"
            raise InvalidActionError(f"token {token!r} is not in pw.token_map; the tokens are: {known}")
        return mapping[token]

    def item(self, value: int) -> Item:
        """The table object of a coin worth ``value`` (``Item("dime")``, ``Item("token:4")``)."""
        return Item(coin_kind(value))

    def first_of_next_game(self, first: str) -> str | None:
        """Who starts the next game of a series after a game ``first`` started (A40).

        ``alternate``: the next player to the left of ``first``; ``table_choice``: ``None`` (the
        table designates again).
        """
        if self.options["pw.next_game_first"] == "table_choice":
            return None
        return self.players[(self.player_index(first) + 1) % len(self.players)]


class PennywiseState(State):
    """A Pennywise game in play.

    Stashes and the centre are counts per denomination (``game.denominations`` order), kept in
    tuples so a shallow copy is independent (``successor`` relies on it).
    """

    game: PennywiseGame

    def __init__(self, game: PennywiseGame) -> None:
        super().__init__(game)
        self._stashes: tuple[tuple[int, ...], ...] = tuple(game.stash_counts for _ in game.players)
        self._centre: tuple[int, ...] = tuple(0 for _ in game.denominations)
        self._seat = -1  # the player to move; -1 until the table designates one (G-5)
        self._first = -1
        self._turns = 0
        self._last: tuple[int, Put] | None = None  # the last turn (seat, action): its moves
        self._result: Outcome | None = None  # set by the END check (PW-4.6) after each turn

    # -- facts -------------------------------------------------------------------------------

    def value_of(self, seat: int) -> int:
        """The value in cents player ``seat`` holds."""
        return sum(n * d for n, d in zip(self._stashes[seat], self.game.denominations))

    def coins_of(self, seat: int) -> tuple[int, ...]:
        """Player ``seat``'s coins as values, highest first."""
        return _expand(self._stashes[seat], self.game.denominations)

    def centre_coins(self) -> tuple[int, ...]:
        """The centre's coins as values, highest first."""
        return _expand(self._centre, self.game.denominations)

    def turns_played(self) -> int:
        """How many turns (coins put in) have been played."""
        return self._turns

    def is_eliminated(self, seat: int) -> bool:
        """Whether player ``seat`` holds no coins (out for the rest of the game, PW-4.5)."""
        return not any(self._stashes[seat])

    def first_player(self) -> str | None:
        """The player the table designated to start, or ``None`` before that."""
        return self.game.players[self._first] if self._first >= 0 else None

    def next_game_first(self) -> str | None:
        """Who starts the next game of a series under ``pw.next_game_first`` (A40)."""
        first = self.first_player()
        return None if first is None else self.game.first_of_next_game(first)

    def position(self) -> tuple[tuple[tuple[int, ...], ...], int]:
        """A canonical key of everything that decides the rest of the game: the stashes (the
        centre is what they lack, PW-3) and the seat to move (-1 before designation or at the end)."""
        return self._stashes, (-1 if self.is_terminal() else self._seat)

    def successor(self, action: Put) -> PennywiseState:
        """The state after a legal ``action``, without history or checks: for searches over
        positions (the benchmark of §6.3). Use ``apply`` for play."""
        child = object.__new__(PennywiseState)
        vars(child).update(vars(self))  # every field is immutable, so sharing them is safe
        child._history = []
        child._apply(action)
        return child

    # -- the state machine ---------------------------------------------------------------------

    def _current_player(self) -> int:
        return TABLE if self._seat < 0 else self._seat

    def _phase(self) -> str:
        return "designate" if self._seat < 0 else "turn"

    def _legal_actions(self) -> list[Action]:
        if self._seat < 0:
            return [Designate(name) for name in self.game.players]
        denoms = self.game.denominations
        actions: list[Action] = []
        for index, count in enumerate(self._stashes[self._seat]):
            if count:
                actions += [Put(denoms[index], _expand(change, denoms)) for change in self._changes(index)]
        return actions

    def _changes(self, index: int) -> Iterator[tuple[int, ...]]:
        """Every legal change (counts per lower denomination) after putting in ``denominations[index]``,
        ordered by value; the coin just put in is never among them (PW-4.3)."""
        denoms = self.game.denominations
        coin = denoms[index]
        centre = self._centre[:index]  # only lower denominations can ever be taken (PW-4.3)
        valued = sorted(
            (sum(n * d for n, d in zip(combo, denoms)), combo[::-1])
            for combo in itertools.product(*(range(n + 1) for n in centre))
        )
        for value, reverse in valued:
            combo = reverse[::-1]
            if self._change_allowed(coin, value, combo == centre, not value):
                yield combo

    def _change_allowed(self, coin: int, value: int, all_lower: bool, empty: bool) -> bool:
        """PW-4.3 for a change of lower coins worth ``value``; ``all_lower``: it is every lower coin."""
        rule = self.game.options["pw.change_rule"]
        if rule == "original":
            return value < coin
        if rule == "k1":
            return value <= coin
        reading = self.game.options["pw.k2_reading"]
        if reading == "any_lower":
            return True
        if reading == "original_or_all_lower":
            return value < coin or all_lower
        return empty or all_lower

    def _apply(self, action: Action) -> None:
        game = self.game
        if isinstance(action, Designate):
            self._seat = self._first = game.player_index(action.player)
            self._last = None
            return
        assert isinstance(action, Put)
        seat, denoms = self._seat, game.denominations
        index = denoms.index(action.coin)
        taken = [action.change.count(d) for d in denoms]
        stash = list(self._stashes[seat])
        centre = list(self._centre)
        stash[index] -= 1
        centre[index] += 1
        for j, n in enumerate(taken):
            stash[j] += n
            centre[j] -= n
        self._stashes = self._stashes[:seat] + (tuple(stash),) + self._stashes[seat + 1:]
        self._centre = tuple(centre)
        self._turns += 1
        self._last = (seat, action)
        self._result = self._end_check()
        if self._result is None:
            # PW-4.6: the turn passes left, skipping eliminated players (A40).
            nxt = (seat + 1) % len(game.players)
            while self.is_eliminated(nxt):
                nxt = (nxt + 1) % len(game.players)
            self._seat = nxt

    # -- legality with reasons -------------------------------------------------------------------

    def why_illegal(self, action: Action) -> IllegalActionError | None:
        """As ``State.why_illegal``; a turn is checked directly, without listing every change."""
        if isinstance(action, Put) and self._seat >= 0 and not self.is_terminal():
            return self._put_error(action)
        return super().why_illegal(action)

    def _put_error(self, action: Put) -> IllegalActionError | None:
        game = self.game
        denoms = game.denominations
        name = game.players[self._seat]
        listed = ", ".join(str(d) for d in denoms)
        for value in (action.coin, *action.change):
            if value not in denoms:
                return IllegalActionError(f"there is no {value}¢ coin in the {game.coinage_name} coinage ({listed})", "PW-1.2")
        index = denoms.index(action.coin)
        if not self._stashes[self._seat][index]:
            return IllegalActionError(f"{name} holds no {coin_words(action.coin)[2:]} to put in", "PW-4.1")
        coin, change = action.coin, action.change
        value = sum(change)
        if coin == denoms[0] and change:
            return IllegalActionError(f"after putting in {coin_words(coin)} nothing can be taken back", "PW-4.4")
        rule = game.options["pw.change_rule"]
        if any(v >= coin for v in change):
            if rule == "original":
                return IllegalActionError(
                    f"change must be worth less than the {coin}¢ put in; the change asked for ({coins_words(change)}) is worth {value}¢", "PW-4.3")
            return IllegalActionError(
                f"under {rule} change must be coins of a lower denomination than the {coin}¢ put in "
                f"(the coin just put in can never be taken back)", "PW-4.3")
        centre = self._centre
        for j, d in enumerate(denoms[:index]):
            wanted = change.count(d)
            if wanted > centre[j]:
                return IllegalActionError(
                    f"the centre holds {coin_words(d, centre[j]) if centre[j] else 'no ' + coin_words(d, 2)[2:]}, "
                    f"so {coin_words(d, wanted)} cannot be taken back", "PW-4.2")
        counts = tuple(change.count(d) for d in denoms[:index])
        if self._change_allowed(coin, value, counts == centre[:index], not change):
            return None
        if rule == "original":
            return IllegalActionError(
                f"change must be worth less than the {coin}¢ put in; the change asked for ({coins_words(change)}) is worth {value}¢", "PW-4.3")
        if rule == "k1":
            return IllegalActionError(
                f"under k1 change may be worth at most the {coin}¢ put in; the change asked for ({coins_words(change)}) is worth {value}¢", "PW-4.3")
        reading = game.options["pw.k2_reading"]
        if reading == "original_or_all_lower":
            return IllegalActionError(
                f"under k2 ({reading}) change is worth less than the {coin}¢ put in, or is every lower coin "
                f"in the centre; {coins_words(change)} is neither", "A43")
        return IllegalActionError(
            f"under k2 ({reading}) change is nothing or every lower coin in the centre; "
            f"{coins_words(change)} is neither", "A43")

    def _decision_error(self, action: Action) -> IllegalActionError | None:
        if isinstance(action, Designate):
            if self._seat >= 0:
                return IllegalActionError(f"{self.game.players[self._first]} was already designated to start", "G-5")
            return IllegalActionError(
                f"no player named {action.player!r}; the players are {', '.join(self.game.players)}", "G-5")
        if isinstance(action, Put) and self._seat < 0:
            return IllegalActionError("the table must designate the first player before the first turn", "G-5")
        return None

    # -- what the table shows --------------------------------------------------------------------

    def label(self, action: Action) -> str:
        """``"Put in a dime, take back a nickel and 2 pennies (Ann then holds 57¢)"``."""
        if isinstance(action, Designate):
            return f"{action.player} goes first (G-5)"
        assert isinstance(action, Put)
        after = self.value_of(self._seat) - action.coin + sum(action.change)
        name = self.game.players[self._seat]
        taken = f"take back {coins_words(action.change)}" if action.change else "take nothing back"
        return f"Put in {coin_words(action.coin)}, {taken} ({name} then holds {after}¢)"

    def zones(self) -> dict[str, tuple[Item, ...]]:
        """``centre`` and ``stash:<name>`` for every player, one item per coin."""
        game = self.game
        zones = {"centre": sorted_items(game.item(v) for v in self.centre_coins())}
        for seat, name in enumerate(game.players):
            zones[player_zone("stash", name)] = sorted_items(game.item(v) for v in self.coins_of(seat))
        return zones

    def prompt(self) -> str:
        """What the table must do now."""
        result = self.outcome()
        if result is not None:
            return f"Game over ({result.termination.value}): {' and '.join(result.winners)} won"
        if self._seat < 0:
            return "The table designates the first player (G-5)"
        rule = self.game.options["pw.change_rule"]
        words = _RULE_WORDS[rule] + (f", {self.game.options['pw.k2_reading']}" if rule == "k2" else "")
        return (f"{self.game.players[self._seat]}: put one coin in the centre and take back any change "
                f"({rule}: {words}) (PW-4.1, PW-4.2)")

    def round(self) -> int:
        """Pennywise is one round."""
        return 1

    def scores(self) -> dict[str, int]:
        """Cents held by each player."""
        return {name: self.value_of(seat) for seat, name in enumerate(self.game.players)}

    def forced_moves(self) -> tuple[Move, ...]:
        """The coins of the last turn: the coin put in (PW-4.1) and the change (PW-4.2)."""
        if self._last is None:
            return ()
        seat, action = self._last
        game = self.game
        stash_zone = player_zone("stash", game.players[seat])
        moves = [Move((game.item(action.coin),), stash_zone, "centre", "PW-4.1")]
        if action.change:
            moves.append(Move(sorted_items(game.item(v) for v in action.change), "centre", stash_zone, "PW-4.2"))
        return tuple(moves)

    def outcome(self) -> Outcome | None:
        """Last player with coins (PW-5.1), or the richest at the first knock-out (PW-5.2)."""
        return self._result

    def _end_check(self) -> Outcome | None:
        """PW-4.6 END: the game is over when at most one player holds coins, or under
        ``first_knockout_most_value`` at the first elimination (PW-5.2)."""
        alive = [seat for seat in range(len(self.game.players)) if not self.is_eliminated(seat)]
        if self.game.options["pw.end"] == "first_knockout_most_value":
            if len(alive) == len(self.game.players):
                return None
            best = max(self.value_of(seat) for seat in alive)
            winners = tuple(self.game.players[s] for s in alive if self.value_of(s) == best)
            return Outcome(Termination.MOST_VALUE, winners)
        if len(alive) > 1:
            return None
        return Outcome(Termination.LAST_WITH_COINS, tuple(self.game.players[s] for s in alive))

    def check_invariants(self) -> None:
        """PW-3: for each denomination, players' coins plus the centre's make ``P ×`` the stash count."""
        players = len(self.game.players)
        for j, start in enumerate(self.game.stash_counts):
            held = sum(stash[j] for stash in self._stashes)
            assert all(stash[j] >= 0 for stash in self._stashes) and self._centre[j] >= 0, "no negative counts"
            assert held + self._centre[j] == players * start, f"PW-3: {self.game.denominations[j]}¢ coins not conserved"
        if not self.is_terminal() and self._seat >= 0:
            assert not self.is_eliminated(self._seat), "PW-4.6: an eliminated player never moves"


PennywiseGame.state_class = PennywiseState


def _expand(counts: tuple[int, ...], denoms: tuple[int, ...]) -> tuple[int, ...]:
    """Counts per denomination as values, highest first."""
    return tuple(d for d, n in sorted(zip(denoms, counts), reverse=True) for _ in range(n))


@dataclass(frozen=True)
class Solution:
    """The result of searching every line of a 2-player game from its start (RULES.md §6.3.3)."""

    longest: int
    """The most turns any game can last."""
    first_player_wins: bool | None
    """With 2 players, whether the player who moves first can force a win (PW-7.4 says no);
    ``None`` for more players."""
    positions: int
    """How many distinct positions were searched."""


def solve(game: PennywiseGame) -> Solution:
    """The longest game and the perfect-play result, by memoised search over the engine's own
    positions: each position's moves are ``legal_actions()`` and its successors ``successor()``.

    The position graph has no cycles (PW-7.1), so plain depth-first memoisation is exact. The
    win/loss result is the two-player one: the mover who runs out of coins loses.
    """
    start = game.new_state()
    start.apply(Designate(game.players[0]))
    assert isinstance(start, PennywiseState)
    longest: dict[Any, int] = {}
    wins: dict[Any, bool] = {}
    # Iterative post-order DFS: games run to hundreds of turns, deeper than is safe to recurse.
    stack: list[tuple[PennywiseState, list[PennywiseState] | None]] = [(start, None)]
    while stack:
        state, children = stack.pop()
        key = state.position()
        if key in longest:
            continue
        if children is None:
            kids = [state.successor(a) for a in state.legal_actions() if isinstance(a, Put)]
            stack.append((state, kids))
            stack.extend((kid, None) for kid in kids if not kid.is_terminal() and kid.position() not in longest)
            continue
        best, win = 0, False
        for kid in children:
            if kid.is_terminal():
                # The game ends with the mover eliminated (only the mover's coins change, PW-5.1).
                best = max(best, 1)
            else:
                kid_key = kid.position()
                best = max(best, 1 + longest[kid_key])
                win = win or not wins[kid_key]
        longest[key] = best
        wins[key] = win
    key = start.position()
    return Solution(longest[key], wins[key] if len(game.players) == 2 else None, len(longest))
