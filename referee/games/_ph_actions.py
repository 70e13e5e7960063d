"""The actions of Pennies From Heaven and their text forms (RULES.md §5).

Card words use the notation of ``_ph_cards`` (``QH``, ``10C``, ``2S``, ``JK``). Meld actions
hold groups separated by ``+``; a group is a new meld (``7H 7D 7C``) or cards added to one of
the team's melds by its number (``add 2 6C JK``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from referee.actions import Action, parse_int
from referee.errors import InvalidActionError
from referee.games._ph_cards import parse_card, parse_cards
from referee.games._ph_melds import Group, groups_words, parse_groups


def _yes_no(word: str, what: str) -> bool:
    text = word.lower()
    if text in ("yes", "y", "true"):
        return True
    if text in ("no", "n", "false"):
        return False
    raise InvalidActionError(f"{what} is yes or no, got {word!r}")


@dataclass(frozen=True)
class Dealt(Action):
    """The table confirms the deal and whether each dealer dealt perfectly (PH-2.4, A68):
    ``dealt yes no`` (the dealer did, the dealer's partner did not)."""

    dealer: bool
    partner: bool
    verb: ClassVar[str] = "dealt"
    usage: ClassVar[str] = "dealt <dealer perfect: yes|no> <partner perfect: yes|no>"

    def args(self) -> list[str]:
        return ["yes" if self.dealer else "no", "yes" if self.partner else "no"]

    @classmethod
    def parse_args(cls, args: list[str]) -> Dealt:
        if len(args) != 2:
            raise InvalidActionError(f"dealt is written {cls.usage}, e.g. dealt yes no")
        return cls(_yes_no(args[0], "the dealer's perfect deal"), _yes_no(args[1], "the partner's perfect deal"))


@dataclass(frozen=True)
class Upcard(Action):
    """CHANCE: the card turned up from the Draw Pile to start the Discard Pile (PH-2.6)."""

    card: str
    verb: ClassVar[str] = "upcard"
    usage: ClassVar[str] = "upcard <card>"

    def args(self) -> list[str]:
        return [self.card]

    @classmethod
    def parse_args(cls, args: list[str]) -> Upcard:
        if len(args) != 1:
            raise InvalidActionError(f"upcard is written {cls.usage}, e.g. upcard QH")
        return cls(parse_card(args[0]))


@dataclass(frozen=True)
class RedThrees(Action):
    """CHANCE: the red threes a player lays out from the cards just taken, replacements included
    (PH-6.1): ``red-threes 3H 3D`` or ``red-threes none``."""

    cards: tuple[str, ...] = ()
    verb: ClassVar[str] = "red-threes"
    usage: ClassVar[str] = "red-threes none | red-threes <card> ..."

    def args(self) -> list[str]:
        return list(self.cards) if self.cards else ["none"]

    @classmethod
    def parse_args(cls, args: list[str]) -> RedThrees:
        if not args:
            raise InvalidActionError(f"red-threes is written {cls.usage}")
        if len(args) == 1 and args[0].lower() == "none":
            return cls(())
        return cls(tuple(sorted(parse_cards(args))))


@dataclass(frozen=True)
class Draw(Action):
    """Draw two cards from the Draw Pile (PH-7.1); the camera does not see them."""

    verb: ClassVar[str] = "draw"
    usage: ClassVar[str] = "draw"


@dataclass(frozen=True)
class TakePile(Action):
    """Take the Discard Pile showing two natural cards of the top card's rank (PH-5.2), with the
    groups melded in the same action: ``take-pile 6H 6D + add 1 6C 6S`` (complete a 5- or 6-card
    meld first), ``take-pile KH KD + AH AS JK`` (more cards for the opening)."""

    pair: tuple[str, str]
    groups: tuple[Group, ...] = ()
    verb: ClassVar[str] = "take-pile"
    usage: ClassVar[str] = "take-pile <card> <card> [+ <meld group>] ..."

    def args(self) -> list[str]:
        return list(self.pair) + (["+", *groups_words(self.groups)] if self.groups else [])

    @classmethod
    def parse_args(cls, args: list[str]) -> TakePile:
        head = args[: args.index("+")] if "+" in args else args
        if len(head) != 2:
            raise InvalidActionError(f"take-pile names the two natural cards shown: {cls.usage}, e.g. take-pile QH QD")
        first, second = parse_cards(head)
        groups = parse_groups(args[len(head) + 1 :]) if "+" in args else ()
        return cls((first, second), groups)


@dataclass(frozen=True)
class Meld(Action):
    """Put down one or more melds (PH-4): ``meld 7H 7D 7C`` or, for an opening of several melds in
    one turn, ``meld 7H 7D 7C + AH AS JK``; a group ``add N ...`` adds to meld N."""

    groups: tuple[Group, ...]
    verb: ClassVar[str] = "meld"
    usage: ClassVar[str] = "meld <card> <card> <card> ... [+ <group>] ..."

    def args(self) -> list[str]:
        return groups_words(self.groups)

    @classmethod
    def parse_args(cls, args: list[str]) -> Meld:
        if not args:
            raise InvalidActionError(f"meld is written {cls.usage}, e.g. meld 7H 7D 7C")
        return cls(parse_groups(args))


@dataclass(frozen=True)
class Add(Action):
    """Add cards to meld number ``target`` of one's own team (PH-4.1): ``add 1 2S``."""

    target: int
    cards: tuple[str, ...]
    verb: ClassVar[str] = "add"
    usage: ClassVar[str] = "add <meld number> <card> ..."

    def args(self) -> list[str]:
        return [str(self.target), *self.cards]

    @classmethod
    def parse_args(cls, args: list[str]) -> Add:
        if len(args) < 2:
            raise InvalidActionError(f"add is written {cls.usage}, e.g. add 1 2S")
        return cls(parse_int(args[0], "the meld number", 1), parse_cards(args[1:]))


@dataclass(frozen=True)
class Bury(Action):
    """Bury cards face down after showing them (PH-11): ``bury 10H`` or ``bury 10H 10S``."""

    cards: tuple[str, ...]
    verb: ClassVar[str] = "bury"
    usage: ClassVar[str] = "bury <card> ..."

    def args(self) -> list[str]:
        return list(self.cards)

    @classmethod
    def parse_args(cls, args: list[str]) -> Bury:
        if not args:
            raise InvalidActionError(f"bury is written {cls.usage}, e.g. bury 10H")
        return cls(parse_cards(args))


@dataclass(frozen=True)
class Discard(Action):
    """Discard one card face up on the Discard Pile, ending the turn (PH-7.4)."""

    card: str
    verb: ClassVar[str] = "discard"
    usage: ClassVar[str] = "discard <card>"

    def args(self) -> list[str]:
        return [self.card]

    @classmethod
    def parse_args(cls, args: list[str]) -> Discard:
        if len(args) != 1:
            raise InvalidActionError(f"discard is written {cls.usage}, e.g. discard 3C")
        return cls(parse_card(args[0]))


@dataclass(frozen=True)
class GoOut(Action):
    """Go out (PH-9.3): ``go-out`` after melding every card, or ``go-out 3C`` discarding the last."""

    card: str | None = None
    verb: ClassVar[str] = "go-out"
    usage: ClassVar[str] = "go-out [card]"

    def args(self) -> list[str]:
        return [] if self.card is None else [self.card]

    @classmethod
    def parse_args(cls, args: list[str]) -> GoOut:
        if len(args) > 1:
            raise InvalidActionError(f"go-out is written {cls.usage}, e.g. go-out or go-out 3C")
        return cls(parse_card(args[0]) if args else None)


@dataclass(frozen=True)
class Ask(Action):
    """Ask the partner for permission to go out (PH-9.2)."""

    verb: ClassVar[str] = "ask"
    usage: ClassVar[str] = "ask"


@dataclass(frozen=True)
class Answer(Action):
    """The partner's binding answer to ``ask`` (PH-9.2): ``answer yes`` or ``answer no``."""

    yes: bool
    verb: ClassVar[str] = "answer"
    usage: ClassVar[str] = "answer yes|no"

    def args(self) -> list[str]:
        return ["yes" if self.yes else "no"]

    @classmethod
    def parse_args(cls, args: list[str]) -> Answer:
        if len(args) != 1:
            raise InvalidActionError(f"answer is written {cls.usage}")
        return cls(_yes_no(args[0], "the answer"))


@dataclass(frozen=True)
class Reveal(Action):
    """CHANCE at the end of a hand: a player's cards left in hand, shown for scoring (G-6, PH-10)."""

    player: str
    cards: tuple[str, ...]
    verb: ClassVar[str] = "reveal"
    usage: ClassVar[str] = "reveal <player> <card> ..."

    def args(self) -> list[str]:
        return [self.player, *self.cards]

    @classmethod
    def parse_args(cls, args: list[str]) -> Reveal:
        if len(args) < 2:
            raise InvalidActionError(f"{cls.verb} is written {cls.usage}, e.g. {cls.verb} Ann 9H 9S")
        return cls(args[0], tuple(parse_cards(args[1:])))


@dataclass(frozen=True)
class RevealPennies(Reveal):
    """CHANCE at the end of a hand: the 11 cards of a Pennies stack never picked up (PH-8.4)."""

    verb: ClassVar[str] = "reveal-pennies"
    usage: ClassVar[str] = "reveal-pennies <player> <card> x11"
