"""FLIP (RULES.md §3, FL): two players flip and tap dice; the last with dice wins the round.

The referee tracks every die by identity (FL-1.4). The dice are numbered ``1`` to ``10``: at the
start of every round dice 1-5 are the first player's (the first name at the table) and dice
6-10 the second player's (FL-3.1). A round starts with a CHANCE roll of all ten dice, written
``roll F1 F2 ... F10`` with the faces of dice 1..10 in order (FL-3.2). Then each turn is a
decision ``flip ID`` or ``tap ID`` (FL-4), and after a tap the tapped player decides the change
``take ID ...`` or ``take nothing`` (FL-4.2). The roll has 6^10 outcomes, too many to list:
``legal_actions()`` is empty at the roll and ``sample_chance`` draws one for simulations.

Reading the roll from the camera (``chance_zones``, ``chance_waiting``, ``chance_from_table``).
The camera sees a die's face and zone, never its id, so the referee gives the ids when it reads
the round-start roll, by this convention:

- each player rolls their five dice in their own area (``area:<name>``); both areas must hold
  exactly five six-sided dice when the table settles after the roll;
- within each area the dice are numbered by ascending face: the first player's area gives dice
  1-5, the second's dice 6-10. A roll of 4 1 6 1 3 (first player) and 2 2 5 6 6 (second) is
  ``roll 1 1 3 4 6 2 2 5 6 6``: die 1 and die 2 are the first player's two 1s, die 10 a 6;
- dice of equal face in one area are interchangeable at the roll (no die has a history yet), so
  which of them gets the lower id is not defined: the table is always checked by face and zone
  only (``referee.reconcile`` ignores ids), and a later flip or tap names a die by its id on the
  tablet, which shows each id's face;
- the roll is read from the first settled table on which a player has rolled: before the very
  first roll of a match the faces are unknown, so the players hold their dice until they roll
  (dice already lying in the areas would be read as the roll); in later rounds (and after an
  equal-totals re-roll) an area still showing exactly the faces it held is taken as not yet
  rolled. Both players roll before the table settles; if only one has, the referee names who
  still has to roll (with a 5-dice roll that repeats the old faces, the roll is entered on the
  tablet instead).

``fixtures/games/flip_fl_t1`` is FL-T1 played this way (its README names the FL-T1 die of each id).
"""
from __future__ import annotations

import itertools
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import ClassVar

from referee.actions import Action, Roll, parse_int
from referee.core import CHANCE, Game, Outcome, State, Termination, register_game
from referee.errors import IllegalActionError, InvalidActionError
from referee.options import INVALID_THROW, OptionSpec
from referee.table import Item, Move, player_zone, sorted_items

DICE = 10
"""Ten dice, five per player (FL-1.2)."""
MIDDLE = 2
"""Where a die lies when it is in the middle (seats are 0 and 1)."""
FACES = 6


@dataclass(frozen=True)
class Flip(Action):
    """Turn one of your own dice over, 1↔6, 2↔5, 3↔4 (FL-4.1): ``flip 3``."""

    die: int
    verb: ClassVar[str] = "flip"
    usage: ClassVar[str] = "flip <die>"

    def args(self) -> list[str]:
        return [str(self.die)]

    @classmethod
    def parse_args(cls, args: list[str]) -> Flip:
        if len(args) != 1:
            raise InvalidActionError(f"flip names one die: {cls.usage}, e.g. flip 3")
        return cls(parse_int(args[0], "the die to flip", 1))


@dataclass(frozen=True)
class Tap(Action):
    """Tap one of the opponent's dice: it goes to the middle (FL-4.2): ``tap 7``."""

    die: int
    verb: ClassVar[str] = "tap"
    usage: ClassVar[str] = "tap <die>"

    def args(self) -> list[str]:
        return [str(self.die)]

    @classmethod
    def parse_args(cls, args: list[str]) -> Tap:
        if len(args) != 1:
            raise InvalidActionError(f"tap names one die: {cls.usage}, e.g. tap 7")
        return cls(parse_int(args[0], "the die to tap", 1))


@dataclass(frozen=True)
class Take(Action):
    """The tapped player's change from the middle (FL-4.2.2): ``take 4 9`` or ``take nothing``.

    ``dice`` is kept sorted, so ``Take((9, 4)) == Take((4, 9))``.
    """

    dice: tuple[int, ...] = ()
    verb: ClassVar[str] = "take"
    usage: ClassVar[str] = "take <die> ... | take nothing"

    def __post_init__(self) -> None:
        object.__setattr__(self, "dice", tuple(sorted(self.dice)))

    def args(self) -> list[str]:
        return [str(d) for d in self.dice] if self.dice else ["nothing"]

    @classmethod
    def parse_args(cls, args: list[str]) -> Take:
        if [a.lower() for a in args] == ["nothing"]:
            return cls()
        if not args:
            raise InvalidActionError(f"take is written {cls.usage}, e.g. take 4 9")
        dice = tuple(parse_int(a, "a die to take", 1) for a in args)
        if len(set(dice)) != len(dice):
            raise InvalidActionError(f"a die is named twice in {' '.join(args)!r}")
        return cls(dice)


@register_game
class FlipGame(Game):
    """FLIP for exactly two players; dice 1-5 start each round with the first player, 6-10 with the second.

    :raises ConfigError: for a player count other than 2 or a bad option.
    """

    name = "flip"
    title = "FLIP"
    min_players = 2
    max_players = 2
    option_specs = (
        INVALID_THROW,
        OptionSpec("fl.first_tie", "reroll", ("reroll", "previous_round_loser", "alternate"), rule="A47",
                   help="On equal roll totals both reroll, the previous round's loser starts, or the player who did not start the previous round starts."),
        OptionSpec("fl.lock_enabled", True, kind="bool", rule="A51",
                   help="A flipped die may not be flipped again until its owner taps (turning this off is not the rules)."),
        OptionSpec("fl.lock_on_leave", "drop", ("drop", "keep"), rule="A51",
                   help="A locked die that leaves its player loses the lock (drop), or stays locked if it comes back before that player taps (keep)."),
        OptionSpec("fl.target", 50, kind="int", minimum=1, rule="A55",
                   help="The score that wins the game when reached or passed at the end of a round."),
    )
    action_types = (Roll, Flip, Tap, Take)

    @staticmethod
    def owner_at_start(die: int) -> int:
        """The seat that holds ``die`` at the start of every round: 0 for dice 1-5, 1 for 6-10."""
        return 0 if die <= DICE // 2 else 1


class FlipState(State):
    """A FLIP game in play. Dice ``1..10`` are stored at index ``id - 1``."""

    game: FlipGame

    def __init__(self, game: FlipGame) -> None:
        super().__init__(game)
        self._where: tuple[int, ...] = tuple(FlipGame.owner_at_start(d) for d in range(1, DICE + 1))
        self._faces: tuple[int, ...] = (0,) * DICE  # 0: not rolled yet
        self._locks: tuple[tuple[int, ...], tuple[int, ...]] = ((), ())
        self._scores: tuple[int, int] = (0, 0)
        self._round = 1
        self._phase_name = "roll"
        self._seat = -1
        self._tapped = 0  # the die just tapped, during the change decision
        self._starters: tuple[int, ...] = ()  # who started each round played so far
        self._round_winners: tuple[int, ...] = ()
        self._winner = -1
        self._note = ""  # what the last CHECK decided, for the prompt

    # -- facts -----------------------------------------------------------------------------

    def face(self, die: int) -> int:
        """The face up of ``die`` (0 before the first roll)."""
        return self._faces[die - 1]

    def dice_of(self, seat: int) -> tuple[int, ...]:
        """The ids of the dice player ``seat`` holds."""
        return tuple(d for d in range(1, DICE + 1) if self._where[d - 1] == seat)

    def middle(self) -> tuple[int, ...]:
        """The ids of the dice in the middle."""
        return tuple(d for d in range(1, DICE + 1) if self._where[d - 1] == MIDDLE)

    def locked(self, seat: int) -> tuple[int, ...]:
        """The dice player ``seat`` may not flip until they tap (FL-4.1, A51)."""
        return self._locks[seat]

    def holder(self, die: int) -> str:
        """Who holds ``die``: a player's name, or ``middle``."""
        where = self._where[die - 1]
        return "middle" if where == MIDDLE else self.game.players[where]

    # -- the state machine -------------------------------------------------------------------

    def _current_player(self) -> int:
        return CHANCE if self._phase_name == "roll" else self._seat

    def _phase(self) -> str:
        return self._phase_name

    def _legal_actions(self) -> list[Action]:
        if self._phase_name == "roll":
            return []  # 6^10 outcomes: see chance_outcomes and sample_chance
        if self._phase_name == "change":
            return [Take(combo) for combo in self._change_sets()]
        me, other = self._seat, 1 - self._seat
        flips: list[Action] = [Flip(d) for d in self.dice_of(me) if d not in self._locks[me]]
        return flips + [Tap(d) for d in self.dice_of(other)]

    def _change_sets(self) -> list[tuple[int, ...]]:
        """FL-4.2.2: every set of middle dice, other than the tapped one, whose faces sum to less
        than the tapped die's face; the empty set first (always legal, A52)."""
        limit = self.face(self._tapped)
        pool = [d for d in self.middle() if d != self._tapped and self.face(d) < limit]
        sets: list[tuple[int, ...]] = []
        for size in range(len(pool) + 1):
            combos = [c for c in itertools.combinations(pool, size) if sum(self.face(d) for d in c) < limit]
            if not combos:
                break
            sets += combos
        return sets

    def _apply(self, action: Action) -> None:
        if isinstance(action, Roll):
            self._apply_roll(action)
        elif isinstance(action, Flip):
            self._apply_flip(action)
        elif isinstance(action, Tap):
            self._apply_tap(action)
        else:
            assert isinstance(action, Take)
            self._apply_take(action)

    def _apply_roll(self, action: Roll) -> None:
        self._faces = tuple(action.faces)
        totals = [sum(self.face(d) for d in self.dice_of(seat)) for seat in (0, 1)]
        names = self.game.players
        if totals[0] != totals[1]:
            # FL-3.3: the lower total goes first; FL-3.4: the faces rolled are the start.
            starter = 0 if totals[0] < totals[1] else 1
            self._note = f"{names[starter]} rolled the lower total ({totals[starter]} to {totals[1 - starter]}) and starts (FL-3.3)"
        else:
            rule = self.game.options["fl.first_tie"]
            if rule == "reroll" or self._round == 1:
                # A47: both roll again (the other readings fall back to this in round 1).
                self._note = f"Equal totals ({totals[0]} each): both players roll again (FL-3.3, A47)"
                return
            if rule == "previous_round_loser":
                starter = 1 - self._round_winners[-1]
                self._note = f"Equal totals ({totals[0]} each): {names[starter]}, who lost the last round, starts (A47)"
            else:
                starter = 1 - self._starters[-1]
                self._note = f"Equal totals ({totals[0]} each): {names[starter]}, who did not start the last round, starts (A47)"
        self._starters += (starter,)
        self._seat = starter
        self._phase_name = "turn"

    def _apply_flip(self, action: Flip) -> None:
        me = self._seat
        index = action.die - 1
        # FL-4.1: opposite faces sum to 7.
        self._faces = self._faces[:index] + (7 - self._faces[index],) + self._faces[index + 1:]
        if self.game.options["fl.lock_enabled"]:
            self._set_locks(me, tuple(sorted({*self._locks[me], action.die})))
        self._note = ""
        self._seat = 1 - me

    def _apply_tap(self, action: Tap) -> None:
        me, other = self._seat, 1 - self._seat
        die = action.die
        self._where = self._where[: die - 1] + (MIDDLE,) + self._where[die:]
        if self.game.options["fl.lock_on_leave"] == "drop":
            # A51: a die that leaves a player loses that player's lock.
            self._set_locks(other, tuple(d for d in self._locks[other] if d != die))
        self._set_locks(me, ())  # FL-4.2.3: tapping clears the tapper's locks
        self._moves = (Move((self._item(die),), player_zone("area", self.game.players[other]), "middle", "FL-4.2"),)
        self._tapped = die
        self._phase_name = "change"
        self._note = ""
        self._seat = other

    def _apply_take(self, action: Take) -> None:
        taker = self._seat
        names = self.game.players
        if action.dice:
            where = list(self._where)
            for die in action.dice:
                where[die - 1] = taker
            self._where = tuple(where)
            self._moves = (Move(sorted_items(self._item(d) for d in action.dice), "middle",
                                player_zone("area", names[taker]), "FL-4.2"),)
        self._tapped = 0
        if self.dice_of(taker):
            self._phase_name = "turn"  # FL-4.2.4: the tapped player moves next
            return
        # FL-5: the tapper is the last player with dice; they score the faces they hold.
        winner = 1 - taker
        points = sum(self.face(d) for d in self.dice_of(winner))
        scores = list(self._scores)
        scores[winner] += points
        self._scores = (scores[0], scores[1])
        self._round_winners += (winner,)
        self._note = f"{names[winner]} won round {self._round} and scored {points} (FL-5)"
        if self._scores[winner] >= self.game.options["fl.target"]:
            self._winner = winner  # FL-6: the target reached or passed ends the game (A55)
            self._phase_name = "over"
            return
        # FL-3.1: every die goes back to its owner, the middle empties, locks are cleared.
        self._moves += self._return_moves()
        self._where = tuple(FlipGame.owner_at_start(d) for d in range(1, DICE + 1))
        self._locks = ((), ())
        self._round += 1
        self._phase_name = "roll"
        self._seat = -1

    def _return_moves(self) -> tuple[Move, ...]:
        names = self.game.players
        groups: dict[tuple[str, str], list[Item]] = {}
        for die in range(1, DICE + 1):
            owner = FlipGame.owner_at_start(die)
            where = self._where[die - 1]
            if where != owner:
                source = "middle" if where == MIDDLE else player_zone("area", names[where])
                groups.setdefault((source, player_zone("area", names[owner])), []).append(self._item(die))
        return tuple(Move(sorted_items(items), source, target, "FL-3.1") for (source, target), items in groups.items())

    def _set_locks(self, seat: int, locks: tuple[int, ...]) -> None:
        pair = list(self._locks)
        pair[seat] = locks
        self._locks = (pair[0], pair[1])

    def _item(self, die: int) -> Item:
        face = self.face(die)
        return Item("d6", face if face else None, str(die))

    # -- chance ------------------------------------------------------------------------------

    def chance_outcomes(self) -> list[tuple[Action, Fraction]]:
        """Empty: the roll's 6^10 equally likely outcomes are too many to list (each has
        probability ``roll_probability()``); see ``sample_chance``."""
        return []

    def roll_probability(self) -> Fraction:
        """The probability of any one roll of the ten dice (1 / 6^10)."""
        return Fraction(1, FACES**DICE)

    def sample_chance(self, rng: random.Random) -> Action:
        """A uniformly random roll of the ten dice, drawn with the caller's ``rng`` (simulation only)."""
        assert self.current_player() == CHANCE, "no roll is pending"
        return Roll(tuple(rng.randint(1, FACES) for _ in range(DICE)))

    def chance_zones(self) -> tuple[str, ...]:
        """The two players' areas while the round-start roll is pending (FL-3.2); else none."""
        if self._phase_name != "roll":
            return ()
        return tuple(player_zone("area", name) for name in self.game.players)

    def chance_waiting(self, observed: Mapping[str, Sequence[Item]]) -> bool | None:
        """True while neither player has rolled: each area is empty (the dice in hand) or, once
        faces are known (later rounds, a re-roll), shows exactly the faces its dice had."""
        return not any(self._rolled(seat, observed) for seat in (0, 1))

    def _rolled(self, seat: int, observed: Mapping[str, Sequence[Item]]) -> bool:
        """Whether player ``seat``'s area shows dice that can be a new roll."""
        seen = observed.get(player_zone("area", self.game.players[seat]), ())
        if not seen:
            return False  # the dice are still in the player's hand
        if not any(self._faces):
            return True  # the first roll of the match: faces never seen, any dice are the roll
        before = sorted(self.face(d) for d in self.dice_of(seat))
        now = [item.value for item in seen]
        # An unreadable face (None) counts as changed: chance_from_table then says what is wrong.
        return not all(isinstance(v, int) for v in now) or sorted(int(v) for v in now if isinstance(v, int)) != before

    def chance_from_table(self, observed: Mapping[str, Sequence[Item]]) -> Action:
        """The roll the camera saw (FL-3.2): five d6 in each player's area, ids by ascending face.

        Dice 1-5 are the faces in the first player's area from lowest to highest, dice 6-10 those
        in the second player's (see the module docstring for the convention).

        :raises IllegalActionError: when an area does not hold exactly five readable six-sided
            dice, or one player has not rolled yet, naming the player and what lies there.
        """
        names = self.game.players
        rolled = [self._rolled(seat, observed) for seat in (0, 1)]
        faces: list[int] = []
        for seat, name in enumerate(names):
            seen = list(observed.get(player_zone("area", name), ()))
            others = sorted({item.kind for item in seen if item.kind != "d6"})
            if others:
                raise IllegalActionError(
                    f"{name}'s area holds {', '.join(others)}: FLIP is played with ten six-sided dice only", "FL-1.2")
            if not rolled[seat] and rolled[1 - seat]:
                if not seen:
                    raise IllegalActionError(f"{names[1 - seat]} has rolled but {name}'s area is empty: "
                                             f"{name} rolls five dice there too", "FL-3.2")
                shown = " ".join(str(f) for f in sorted(self.face(d) for d in self.dice_of(seat)))
                raise IllegalActionError(
                    f"{names[1 - seat]} has rolled but {name}'s dice still show {shown} as before: {name} rolls too "
                    f"(if {name} rolled exactly that, enter the roll on the tablet)", "FL-3.2")
            if len(seen) != DICE // 2:
                raise IllegalActionError(f"{name} rolls five dice in {name}'s area, but {len(seen)} lie there", "FL-3.2")
            values = [item.value for item in seen]
            if not all(isinstance(v, int) and 1 <= v <= FACES for v in values):
                bad = next(v for v in values if not (isinstance(v, int) and 1 <= v <= FACES))
                raise IllegalActionError(f"a die in {name}'s area shows {bad!r}, not a face 1 to 6", "FL-1.2")
            faces += sorted(int(v) for v in values if isinstance(v, int))
        return Roll(tuple(faces))

    def _chance_error(self, action: Action) -> IllegalActionError | None:
        if not isinstance(action, Roll):
            return IllegalActionError(f"both players must roll their dice before anyone may {action.verb}", "FL-3.2")
        if len(action.faces) != DICE:
            return IllegalActionError(
                f"a roll gives the faces of all ten dice (1-5 {self.game.players[0]}'s, 6-10 "
                f"{self.game.players[1]}'s), got {len(action.faces)}", "FL-3.2")
        bad = [f for f in action.faces if not 1 <= f <= FACES]
        if bad:
            return IllegalActionError(f"a die shows 1 to 6, got {bad[0]}", "FL-1.2")
        return None

    def _decision_error(self, action: Action) -> IllegalActionError | None:
        names = self.game.players
        me, other = self._seat, 1 - self._seat
        if isinstance(action, Roll):
            return IllegalActionError("the dice are rolled only at the start of a round", "FL-3.2")
        die = action.die if isinstance(action, (Flip, Tap)) else 0
        if isinstance(action, (Flip, Tap)) and not 1 <= die <= DICE:
            return IllegalActionError(f"the dice are numbered 1 to 10, got {die}", "FL-1.4")
        if self._phase_name == "change":
            if not isinstance(action, Take):
                return IllegalActionError(
                    f"{names[me]} must first take change for the tapped die {self._tapped} (or take nothing)", "FL-4.2")
            return self._take_error(action)
        if isinstance(action, Take):
            return IllegalActionError("change is taken only by a player whose die was just tapped", "FL-4.2")
        if isinstance(action, Flip):
            if self._where[die - 1] != me:
                return IllegalActionError(f"{names[me]} may flip only their own dice; die {die} is {self._holder_words(die)}", "FL-4")
            return IllegalActionError(
                f"{names[me]} flipped die {die} and may not flip it again until after tapping one of "
                f"{names[other]}'s dice", "FL-4.1")
        assert isinstance(action, Tap)
        return IllegalActionError(f"{names[me]} may tap only {names[other]}'s dice; die {die} is {self._holder_words(die)}", "FL-4")

    def _take_error(self, action: Take) -> IllegalActionError:
        names = self.game.players
        limit = self.face(self._tapped)
        for die in action.dice:
            if not 1 <= die <= DICE:
                return IllegalActionError(f"the dice are numbered 1 to 10, got {die}", "FL-1.4")
            if die == self._tapped:
                return IllegalActionError(f"die {die} was just tapped and cannot be taken back", "A52")
            if self._where[die - 1] != MIDDLE:
                return IllegalActionError(f"die {die} is not in the middle (it is {self._holder_words(die)})", "FL-4.2")
        total = sum(self.face(d) for d in action.dice)
        return IllegalActionError(
            f"{names[self._seat]}'s change must sum to less than the tapped {limit}; dice "
            f"{', '.join(str(d) for d in action.dice)} sum to {total}", "FL-4.2")

    def _holder_words(self, die: int) -> str:
        where = self._where[die - 1]
        return "in the middle" if where == MIDDLE else f"{self.game.players[where]}'s"

    # -- what the table shows ----------------------------------------------------------------

    def label(self, action: Action) -> str:
        """``"Flip die 3 (2 → 5)"``, ``"Tap Bo's die 7 (a 4): it goes to the middle"``, ``"Take dice 4 and 9 ..."``."""
        names = self.game.players
        if isinstance(action, Flip):
            face = self.face(action.die)
            return f"Flip die {action.die} ({face} → {7 - face})"
        if isinstance(action, Tap):
            other = 1 - self._seat
            return f"Tap {names[other]}'s die {action.die} (a {self.face(action.die)}): it goes to the middle"
        assert isinstance(action, Take)
        me = self._seat
        held = len(self.dice_of(me))
        if not action.dice:
            if held:
                return f"Take nothing: {names[me]} keeps {_dice_words(held)}"
            other = 1 - me
            points = sum(self.face(d) for d in self.dice_of(other))
            return f"Take nothing: {names[me]} has no dice left, so {names[other]} wins the round and scores {points} (FL-5)"
        ids = [str(d) for d in action.dice]
        faces = [str(self.face(d)) for d in action.dice]
        which = "die " + ids[0] if len(ids) == 1 else "dice " + ", ".join(ids[:-1]) + " and " + ids[-1]
        return f"Take {which} (showing {' + '.join(faces)}): {names[me]} then holds {_dice_words(held + len(ids))}"

    def zones(self) -> dict[str, tuple[Item, ...]]:
        """``middle`` and ``area:<name>``, each die an ``Item("d6", face, ident=id)``."""
        zones = {"middle": sorted_items(self._item(d) for d in self.middle())}
        for seat, name in enumerate(self.game.players):
            zones[player_zone("area", name)] = sorted_items(self._item(d) for d in self.dice_of(seat))
        return zones

    def prompt(self) -> str:
        """What the table must do now."""
        names = self.game.players
        note = f"{self._note}. " if self._note else ""
        if self._winner >= 0:
            return f"{note}Game over: {names[self._winner]} reached {self._scores[self._winner]} (FL-6)"
        if self._phase_name == "roll":
            return (f"{note}Round {self._round}: both players roll their five dice (FL-3.2); enter the faces of "
                    f"dice 1-5 ({names[0]}'s) then 6-10 ({names[1]}'s)")
        me = self._seat
        if self._phase_name == "change":
            return (f"{names[me]}: die {self._tapped} (a {self.face(self._tapped)}) went to the middle; take change "
                    f"summing to less than {self.face(self._tapped)}, or nothing (FL-4.2)")
        return f"{note}{names[me]}: flip one of your dice or tap one of {names[1 - me]}'s (FL-4)"

    def round(self) -> int:
        """The round in play, from 1."""
        return self._round

    def scores(self) -> dict[str, int]:
        """Each player's points (FL-5)."""
        return dict(zip(self.game.players, self._scores))

    def outcome(self) -> Outcome | None:
        """The first to reach the target wins (FL-6); only one player scores per round, so no ties."""
        if self._winner < 0:
            return None
        return Outcome(Termination.TARGET_REACHED, (self.game.players[self._winner],))

    def check_invariants(self) -> None:
        """Ten dice, each in one place; faces 1-6 once rolled; both players hold dice while one
        must move; locks only on dice a player holds under ``drop`` (A51)."""
        assert len(self._where) == DICE and all(w in (0, 1, MIDDLE) for w in self._where)
        if any(self._faces):
            assert all(1 <= f <= FACES for f in self._faces), "FL-1.2: faces 1 to 6"
        else:
            assert self._phase_name == "roll" and self._round == 1, "the dice are rolled before play"
        if self._phase_name == "turn" and self._winner < 0:
            assert self.dice_of(0) and self.dice_of(1), "FL-4: both players hold dice during a turn"
        if self._phase_name == "change":
            assert self._where[self._tapped - 1] == MIDDLE, "FL-4.2: the tapped die is in the middle"
        if self.game.options["fl.lock_on_leave"] == "drop":
            for seat in (0, 1):
                assert all(self._where[d - 1] == seat for d in self._locks[seat]), "A51: locks only on held dice"
        if not self.game.options["fl.lock_enabled"]:
            assert self._locks == ((), ()), "no locks when the lock is off"
        target = self.game.options["fl.target"]
        assert sum(s >= target for s in self._scores) == (1 if self._winner >= 0 else 0), "FL-6"


FlipGame.state_class = FlipState


def _dice_words(count: int) -> str:
    return "1 die" if count == 1 else f"{count} dice"
