"""Sevens (RULES.md §4, seed 004): roll six dice, remove every pair summing to 7, keep or re-roll.

Zones: ``theatre`` holds the dice in play after removal; ``aside`` holds every other die
(removed pairs, and all six between turns). The order roll (SV-2.2) and every roll of a turn
are CHANCE actions written ``roll 1 2 4 6 3 3``; the player's decisions are ``keep`` and
``reroll`` (``reroll 5 5`` re-rolls only those dice under the house rule ``sv.partial_reroll``).
The removal of pairs and the keep forced after the third roll are applied by the referee.
"""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from fractions import Fraction
from functools import lru_cache

from referee.actions import Action, Keep, Reroll, Roll
from referee.core import CHANCE, Game, Outcome, State, Termination, register_game
from referee.errors import ConfigError, IllegalActionError
from referee.options import INVALID_THROW, OptionSpec
from referee.table import Item, Move

DICE = 6
MAX_ROLLS = 3
PAIRS = ((1, 6), (2, 5), (3, 4))


def remove_sevens(faces: list[int] | tuple[int, ...]) -> tuple[int, ...]:
    """The dice left once every pair summing to 7 is removed (SV-4.2; unique by §6.5).

    >>> remove_sevens([1, 2, 4, 6, 3, 3])
    (2, 3)
    """
    counts = Counter(faces)
    left: list[int] = []
    for low, high in PAIRS:
        k = min(counts[low], counts[high])
        left += [low] * (counts[low] - k) + [high] * (counts[high] - k)
    return tuple(sorted(left))


@lru_cache(maxsize=None)
def roll_distribution(n: int) -> tuple[tuple[tuple[int, ...], Fraction], ...]:
    """Every multiset of faces ``n`` fair dice can show, sorted, with its exact probability."""
    total = 6**n
    result = []
    for faces in itertools.combinations_with_replacement(range(1, 7), n):
        ways = math.factorial(n)
        for count in Counter(faces).values():
            ways //= math.factorial(count)
        result.append((faces, Fraction(ways, total)))
    return tuple(result)


@lru_cache(maxsize=None)
def roll_value(n: int, rolls_after: int) -> Fraction:
    """Expected turn score of rolling ``n`` dice now with ``rolls_after`` rolls left after this
    one, then playing to maximise the expected score (SV-6.4; ``roll_value(6, 2)`` is a turn)."""
    value = Fraction(0)
    for faces, probability in roll_distribution(n):
        left = remove_sevens(faces)
        if left and rolls_after > 0:
            value += probability * max(Fraction(sum(left)), roll_value(len(left), rolls_after - 1))
        else:
            value += probability * sum(left)
    return value


def keep_threshold(dice_left: int, roll_number: int) -> int:
    """The smallest sum worth keeping after roll ``roll_number`` with ``dice_left`` dice (SV-6.4)."""
    return math.ceil(roll_value(dice_left, MAX_ROLLS - roll_number - 1))


@register_game
class Sevens(Game):
    """Sevens: a shared set of six dice, a fixed number of rounds, highest total wins."""

    name = "sevens"
    title = "Sevens"
    min_players = 2
    option_specs = (
        INVALID_THROW,
        OptionSpec("sv.rounds", None, kind="int", minimum=1, rule="SV-2.1",
                   help="How many rounds the table plays; there is no default, the table decides before play."),
        OptionSpec("sv.partial_reroll", False, kind="bool", rule="A62",
                   help="House rule: a player may re-roll only some of the dice left."),
        OptionSpec("sv.tiebreak", "extra_rounds", ("extra_rounds", "co_winners"), rule="A64",
                   help="Players tied for the highest total play extra rounds, or share the win."),
        OptionSpec("sv.order_roll_removal", False, kind="bool", rule="A65",
                   help="Remove pairs summing to 7 before comparing the order-roll totals."),
    )
    action_types = (Roll, Keep, Reroll)

    def _check_options(self) -> None:
        if self.options["sv.rounds"] is None:
            raise ConfigError("option sv.rounds is required (SV-2.1): the table fixes the number of rounds "
                              "before play, e.g. --option sv.rounds=3")


class SevensState(State):
    """A game of Sevens in play."""

    def __init__(self, game: Game) -> None:
        super().__init__(game)
        count = len(game.players)
        self.totals = [0] * count
        self.order_rollers: list[int] = list(range(count))
        self.order_totals: dict[int, int] = {}
        self.first: int | None = None
        self.round_no = 1
        self.to_play: list[int] = []
        self.roll_no = 0
        self.dice: tuple[int, ...] = ()
        """Faces of the dice left in the Theatre after removal."""
        self.held: tuple[int, ...] = ()
        """Under a partial re-roll, the faces not re-rolled."""
        self.to_roll = 0
        self.tiebreak: list[int] = []
        self.turn_scores: list[int | None] = [None] * count
        self.result: tuple[str, tuple[str, ...]] | None = None

    # -- the turn ------------------------------------------------------------------------

    def _current_player(self) -> int:
        if self.first is None or self.to_roll > 0:
            return CHANCE
        return self.to_play[0]

    def _phase(self) -> str:
        if self.first is None:
            return "order roll"
        return "roll" if self.to_roll > 0 else "decide"

    def roller(self) -> int:
        """The seat of the player rolling or deciding now."""
        return self.order_rollers[0] if self.first is None else self.to_play[0]

    def _legal_actions(self) -> list[Action]:
        if self.to_roll > 0 or self.first is None:
            return [Roll(faces) for faces, _ in roll_distribution(self._dice_to_roll())]
        actions: list[Action] = [Keep(), Reroll()]
        if self.game.options["sv.partial_reroll"]:
            subsets = {tuple(sorted(c)) for r in range(1, len(self.dice)) for c in itertools.combinations(self.dice, r)}
            actions += [Reroll(faces) for faces in sorted(subsets)]
        return actions

    def _dice_to_roll(self) -> int:
        return DICE if self.first is None else self.to_roll

    def chance_outcomes(self) -> list[tuple[Action, Fraction]]:
        if self.is_terminal() or self.current_player() != CHANCE:
            return []
        return [(Roll(faces), p) for faces, p in roll_distribution(self._dice_to_roll())]

    def chance_zones(self) -> tuple[str, ...]:
        return ("theatre", "aside") if self.current_player() == CHANCE else ()

    def chance_from_table(self, observed: Mapping[str, Sequence[Item]]) -> Action:
        """The dice rolled are those in the Theatre, less any held back under a partial re-roll."""
        faces = [int(item.value) for item in observed.get("theatre", ()) if item.value is not None]
        for face in self.held:
            if face not in faces:
                raise IllegalActionError(f"the held die showing {face} is no longer in the Theatre", "A62")
            faces.remove(face)
        expected = self._dice_to_roll()
        if len(faces) != expected:
            who = self.game.players[self.roller()]
            raise IllegalActionError(f"{who} rolls {expected} dice, but {len(faces)} lie in the Theatre", "SV-4.1")
        return Roll(tuple(sorted(faces)))

    def sample_chance(self, rng: random.Random) -> Action:
        return Roll(tuple(sorted(rng.randint(1, 6) for _ in range(self._dice_to_roll()))))

    def _chance_error(self, action: Action) -> IllegalActionError | None:
        who = self.game.players[self.roller()]
        if not isinstance(action, Roll):
            return IllegalActionError(f"{who} must roll first; enter the faces rolled, e.g. roll 1 2 4 6 3 3", "SV-4.1")
        expected = self._dice_to_roll()
        if len(action.faces) != expected:
            rule = "SV-2.2" if self.first is None else ("SV-4.1" if self.roll_no == 0 else "SV-4.4")
            return IllegalActionError(f"{who} rolls {expected} dice, but {len(action.faces)} faces were given", rule)
        if any(not 1 <= face <= 6 for face in action.faces):
            return IllegalActionError(f"a six-sided die shows 1 to 6, got {' '.join(map(str, action.faces))}", "SV-1.1")
        return None

    def _decision_error(self, action: Action) -> IllegalActionError | None:
        if isinstance(action, Roll):
            return IllegalActionError(f"{self.game.players[self.roller()]} must keep or re-roll before rolling", "SV-4.4")
        if isinstance(action, Reroll) and action.faces:
            if not self.game.options["sv.partial_reroll"]:
                return IllegalActionError("all the dice left are re-rolled; partial re-rolls are a house rule (sv.partial_reroll)", "A62")
            return IllegalActionError(f"re-roll a part of the dice left ({' '.join(map(str, self.dice))}), not {' '.join(map(str, action.faces))}", "A62")
        return None

    def _apply(self, action: Action) -> None:
        if isinstance(action, Roll):
            if self.first is None:
                self._order_roll(action.faces)
            else:
                self._roll(action.faces)
        elif isinstance(action, Keep):
            self._end_turn(sum(self.dice), "SV-4.4")
        elif isinstance(action, Reroll):
            rolled = action.faces or self.dice
            held = list(self.dice)
            for face in rolled:
                held.remove(face)
            self.held = tuple(held)
            self.dice = ()
            self.to_roll = len(rolled)

    def _order_roll(self, faces: tuple[int, ...]) -> None:
        """SV-2.2: each player rolls all six dice; ties for the highest roll again (A59)."""
        seat = self.order_rollers.pop(0)
        counted = remove_sevens(faces) if self.game.options["sv.order_roll_removal"] else faces
        self.order_totals[seat] = sum(counted)
        self._moves = (Move(tuple(Item("d6", face) for face in sorted(faces)), "theatre", "aside", "SV-2.2"),)
        if self.order_rollers:
            return
        best = max(self.order_totals.values())
        tied = [s for s, total in sorted(self.order_totals.items()) if total == best]
        if len(tied) > 1:
            self.order_rollers = tied
            self.order_totals = {}
            return
        self.first = tied[0]
        self._start_round()

    def _start_round(self) -> None:
        players = self.tiebreak or range(len(self.game.players))
        first = self.first
        assert first is not None
        count = len(self.game.players)
        # SV-5.3: tie-break rounds keep the game's order of play, from the first player.
        self.to_play = sorted(players, key=lambda seat: (seat - first) % count)
        self.turn_scores = [None] * count
        self._start_turn()

    def _start_turn(self) -> None:
        self.roll_no = 0
        self.dice = ()
        self.held = ()
        self.to_roll = DICE

    def _roll(self, faces: tuple[int, ...]) -> None:
        self.roll_no += 1
        self.to_roll = 0
        in_play = tuple(sorted(self.held + faces))
        self.held = ()
        self.dice = remove_sevens(in_play)
        removed = list(in_play)
        for face in self.dice:
            removed.remove(face)
        if removed:
            self._moves = (Move(tuple(Item("d6", f) for f in removed), "theatre", "aside", "SV-4.2"),)
        if not self.dice:
            self._end_turn(0, "SV-4.3")
        elif self.roll_no == MAX_ROLLS:
            self._end_turn(sum(self.dice), "SV-4.5")

    def _end_turn(self, score: int, rule: str) -> None:
        """SV-4.6: add the turn score, clear the Theatre, pass to the left (or end the round)."""
        seat = self.to_play.pop(0)
        self.totals[seat] += score
        self.turn_scores[seat] = score
        if self.dice:
            self._moves += (Move(tuple(Item("d6", f) for f in self.dice), "theatre", "aside", rule),)
        self.dice = ()
        if self.to_play:
            self._start_turn()
            return
        self._end_round()

    def _end_round(self) -> None:
        """SV-5: after round R (or a tie-break round) the game ends unless the top is tied."""
        self.to_roll = 0
        rounds = self.game.options["sv.rounds"]
        if self.round_no < rounds:
            self.round_no += 1
            self._start_round()
            return
        contenders = self.tiebreak or list(range(len(self.game.players)))
        best = max(self.totals[s] for s in contenders)
        top = [s for s in contenders if self.totals[s] == best]
        names = tuple(self.game.players[s] for s in top)
        if len(top) == 1 or self.game.options["sv.tiebreak"] == "co_winners":
            self.result = ("rounds", names)
            return
        self.tiebreak = top
        self.round_no += 1
        self._start_round()

    # -- what the table shows ------------------------------------------------------------

    def outcome(self) -> Outcome | None:
        if self.result is None:
            return None
        return Outcome(Termination.ROUNDS_PLAYED, self.result[1])

    def round(self) -> int:
        return self.round_no

    def scores(self) -> dict[str, int]:
        return dict(zip(self.game.players, self.totals))

    def zones(self) -> dict[str, tuple[Item, ...]]:
        theatre = tuple(Item("d6", face) for face in self.dice + self.held)
        return {"theatre": theatre, "aside": tuple(Item("d6") for _ in range(DICE - len(theatre)))}

    def prompt(self) -> str:
        if self.is_terminal():
            return f"Game over: {' and '.join(self.winners())} won"
        who = self.game.players[self.roller()]
        if self.first is None:
            return f"{who}: roll all six dice to decide who goes first"
        if self.to_roll:
            extra = f", keeping {' '.join(map(str, self.held))}" if self.held else ""
            ordinal = ("first", "second", "third")[self.roll_no]
            return f"{who}: roll {self._dice_word(self.to_roll)} ({ordinal} roll{extra})"
        return f"{who}: keep {sum(self.dice)} or re-roll {self._dice_word(len(self.dice))}"

    @staticmethod
    def _dice_word(count: int) -> str:
        return "the die" if count == 1 else f"the {('two', 'three', 'four', 'five', 'six')[count - 2]} dice"

    def label(self, action: Action) -> str:
        who = self.game.players[self.roller()]
        if isinstance(action, Keep):
            return f"Keep {sum(self.dice)}: {who} scores {sum(self.dice)} (total {self.totals[self.roller()] + sum(self.dice)})"
        if isinstance(action, Reroll):
            faces = action.faces or self.dice
            last = " (last roll: the result is kept)" if self.roll_no == MAX_ROLLS - 1 else ""
            return f"Re-roll {' '.join(map(str, faces))}{last}"
        return str(action)

    def expected_values(self) -> dict[Action, float]:
        """Keep is worth its sum; a re-roll is worth the best expected score from there (SV-6.4)."""
        if self.is_terminal() or self.current_player() == CHANCE:
            return {}
        rolls_after = MAX_ROLLS - self.roll_no - 1
        values: dict[Action, float] = {Keep(): float(sum(self.dice))}
        values[Reroll()] = float(roll_value(len(self.dice), rolls_after))
        return values

    def check_invariants(self) -> None:
        assert len(self.dice) + len(self.held) <= DICE
        assert remove_sevens(self.dice) == self.dice, "no two dice left sum to 7 (SV-4.2)"
        assert len(self.dice) % 2 == 0 or self.held, "dice leave in pairs (SV-6.1)"
        assert all(0 <= t for t in self.totals)


Sevens.state_class = SevensState
