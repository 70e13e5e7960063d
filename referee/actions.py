"""Actions and their text forms.

Every action is a small frozen dataclass with a ``verb`` and a text form that parses back:
``parse_action("throw 3H 4T", PennyThrow, Gather) == PennyThrow(3, 4)`` and
``str(PennyThrow(3, 4)) == "throw 3H 4T"``. Games list the action classes they accept;
the same verb may mean different things in different games (pennies or dice thrown).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import ClassVar

from referee.errors import InvalidActionError


@dataclass(frozen=True)
class Action:
    """Base class of every action: a verb and its arguments."""

    verb: ClassVar[str] = ""
    usage: ClassVar[str] = ""
    """The text form, for help and error messages (``"throw <h>H <t>T"``)."""

    def __str__(self) -> str:
        return " ".join([self.verb, *self.args()])

    def args(self) -> list[str]:
        """The words after the verb in the text form."""
        return []

    @classmethod
    def parse_args(cls, args: list[str]) -> Action:
        """Build the action from the words after its verb.

        :raises InvalidActionError: when the words do not fit ``usage``.
        """
        if args:
            raise InvalidActionError(f"{cls.verb!r} takes no arguments, got {' '.join(args)!r}")
        return cls()


def parse_action(text: str, action_types: Iterable[type[Action]]) -> Action:
    """Parse ``text`` as one of ``action_types``, chosen by its first word.

    :raises InvalidActionError: for empty text, an unknown verb (listing the known ones) or bad
        arguments.
    """
    words = text.split()
    if not words:
        raise InvalidActionError("empty action")
    by_verb = {cls.verb: cls for cls in action_types}
    verb = words[0].lower()
    cls = by_verb.get(verb)
    if cls is None:
        known = ", ".join(sorted(by_verb))
        raise InvalidActionError(f"unknown action {words[0]!r}; this game's actions are: {known}")
    return cls.parse_args(words[1:])


def parse_int(word: str, what: str, minimum: int = 0) -> int:
    """Parse a non-negative integer, naming ``what`` it is in the error.

    :raises InvalidActionError: when ``word`` is not an integer at least ``minimum``.
    """
    if not re.fullmatch(r"\d+", word):
        raise InvalidActionError(f"{what} must be a whole number, got {word!r}")
    value = int(word)
    if value < minimum:
        raise InvalidActionError(f"{what} must be at least {minimum}, got {value}")
    return value


def parse_ints(words: Sequence[str], what: str, minimum: int = 0) -> tuple[int, ...]:
    """Parse every word as an integer (see :func:`parse_int`)."""
    return tuple(parse_int(word, what, minimum) for word in words)


@dataclass(frozen=True)
class PennyThrow(Action):
    """The camera's read of a penny throw: how many heads and tails lie in the Theatre."""

    heads: int
    tails: int
    verb: ClassVar[str] = "throw"
    usage: ClassVar[str] = "throw <h>H <t>T"

    def args(self) -> list[str]:
        return [f"{self.heads}H", f"{self.tails}T"]

    @classmethod
    def parse_args(cls, args: list[str]) -> PennyThrow:
        counts = {"H": 0, "T": 0}
        seen: set[str] = set()
        for word in args:
            match = re.fullmatch(r"(\d+)([HhTt])", word)
            if match is None:
                raise InvalidActionError(f"a penny throw is written {cls.usage}, e.g. throw 3H 4T; got {word!r}")
            face = match.group(2).upper()
            if face in seen:
                raise InvalidActionError(f"{face} is counted twice in {' '.join(args)!r}")
            seen.add(face)
            counts[face] = int(match.group(1))
        if not seen:
            raise InvalidActionError(f"a penny throw is written {cls.usage}, e.g. throw 3H 4T")
        return cls(counts["H"], counts["T"])


@dataclass(frozen=True)
class DiceThrow(Action):
    """The camera's read of a dice throw: the face up of every die, in any order."""

    faces: tuple[int, ...]
    verb: ClassVar[str] = "throw"
    usage: ClassVar[str] = "throw <face> <face> ..."

    def args(self) -> list[str]:
        return [str(face) for face in self.faces]

    @classmethod
    def parse_args(cls, args: list[str]) -> DiceThrow:
        if not args:
            raise InvalidActionError(f"a dice throw is written {cls.usage}, e.g. throw 1 6 6 2 3 4 4")
        return cls(parse_ints(args, "a die's face"))


@dataclass(frozen=True)
class Roll(Action):
    """A roll of dice read by the camera (Sevens, FLIP): the face up of every die."""

    faces: tuple[int, ...]
    verb: ClassVar[str] = "roll"
    usage: ClassVar[str] = "roll <face> <face> ..."

    def args(self) -> list[str]:
        return [str(face) for face in self.faces]

    @classmethod
    def parse_args(cls, args: list[str]) -> Roll:
        if not args:
            raise InvalidActionError(f"a roll is written {cls.usage}, e.g. roll 1 2 4 6 3 3")
        return cls(parse_ints(args, "a die's face"))


@dataclass(frozen=True)
class Gather(Action):
    """Gather what is left in the Theatre (``gather``), or the dice showing ``number``."""

    number: int | None = None
    verb: ClassVar[str] = "gather"
    usage: ClassVar[str] = "gather [number]"

    def args(self) -> list[str]:
        return [] if self.number is None else [str(self.number)]

    @classmethod
    def parse_args(cls, args: list[str]) -> Gather:
        if len(args) > 1:
            raise InvalidActionError(f"gather is written {cls.usage}, got {' '.join(args)!r}")
        return cls(parse_int(args[0], "the number to gather", 0) if args else None)


@dataclass(frozen=True)
class Cancel(Action):
    """Cancel what is left in the Theatre (``cancel``), or the dice showing ``number``.

    ``count`` is how many of them, where ``spd.cancel_amount = choose`` lets the canceller pick
    (``cancel 4 x2``); ``None`` means all of them.
    """

    number: int | None = None
    count: int | None = None
    verb: ClassVar[str] = "cancel"
    usage: ClassVar[str] = "cancel [number [xCOUNT]]"

    def args(self) -> list[str]:
        words = [] if self.number is None else [str(self.number)]
        if self.count is not None:
            words.append(f"x{self.count}")
        return words

    @classmethod
    def parse_args(cls, args: list[str]) -> Cancel:
        if len(args) > 2 or (len(args) == 2 and not args[1].lower().startswith("x")):
            raise InvalidActionError(f"cancel is written {cls.usage}, got {' '.join(args)!r}")
        number = parse_int(args[0], "the number to cancel", 0) if args else None
        count = parse_int(args[1][1:], "the count of dice to cancel", 1) if len(args) == 2 else None
        return cls(number, count)


@dataclass(frozen=True)
class PlayerChoice(Action):
    """Base of the actions that name one player."""

    player: str

    def args(self) -> list[str]:
        return [self.player]

    @classmethod
    def parse_args(cls, args: list[str]) -> PlayerChoice:
        if len(args) != 1:
            raise InvalidActionError(f"{cls.verb} names exactly one player: {cls.usage}")
        return cls(args[0])


@dataclass(frozen=True)
class Designate(PlayerChoice):
    """The table designates a player (the first player, G-5)."""

    verb: ClassVar[str] = "designate"
    usage: ClassVar[str] = "designate <player>"


@dataclass(frozen=True)
class Pay(PlayerChoice):
    """The canceller names the player who pays the penalty (A10 ``canceller_chooses``, A30)."""

    verb: ClassVar[str] = "pay"
    usage: ClassVar[str] = "pay <player>"


@dataclass(frozen=True)
class Keep(Action):
    """Keep the dice left as the turn score (Sevens)."""

    verb: ClassVar[str] = "keep"
    usage: ClassVar[str] = "keep"


@dataclass(frozen=True)
class Reroll(Action):
    """Roll the dice left again (Sevens); ``faces`` names the dice re-rolled under a partial re-roll."""

    faces: tuple[int, ...] = ()
    verb: ClassVar[str] = "reroll"
    usage: ClassVar[str] = "reroll [face ...]"

    def args(self) -> list[str]:
        return [str(face) for face in self.faces]

    @classmethod
    def parse_args(cls, args: list[str]) -> Reroll:
        return cls(parse_ints(args, "a die's face", 1))
