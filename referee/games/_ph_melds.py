"""Melds and canastas of Pennies From Heaven (RULES.md PH-4, A74-A78).

A team's melds are a list of card lists, numbered from 1 in the order they were started
(completed canastas keep their number). ``place_groups`` puts down the groups of one meld action
on a copy of that list, checking every rule of PH-4 group by group, and reports which melds the
action completed (the "personally completed a canasta" of PH-8.2, A82).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from referee.actions import parse_int
from referee.errors import IllegalActionError, InvalidActionError
from referee.games._ph_cards import is_black_three, is_natural, is_red_three, is_wild, parse_card, rank_of

WILD = "wild"
"""The kind of a meld of wild cards only (A75)."""
CANASTA_SIZE = 7
"""PH-4.4: a meld of seven cards is a completed canasta, closed to further cards (A78)."""

CANASTA_VALUES = {"natural": 500, "unnatural": 300, "wild": 2500, "aces": 1500, "sevens": 1000}
"""PH-4.7: the value of each kind of canasta, scored at the end of each hand (A88)."""
CANASTA_KINDS = tuple(CANASTA_VALUES)
SPECIAL_KINDS = ("wild", "aces", "sevens")


@dataclass(frozen=True)
class Group:
    """One group of a meld action: a new meld (``target`` is ``None``) or cards added to meld
    number ``target`` of the player's team (``add 2 6C JK``)."""

    target: int | None
    cards: tuple[str, ...]

    def words(self) -> list[str]:
        """The text form: ``["7H", "7D", "7C"]`` or ``["add", "2", "6C", "JK"]``."""
        head = [] if self.target is None else ["add", str(self.target)]
        return head + list(self.cards)


def parse_group(words: Sequence[str]) -> Group:
    """Parse ``7H 7D 7C`` or ``add 2 6C JK``.

    :raises InvalidActionError: for an empty group, a bad meld number or a bad card.
    """
    if not words:
        raise InvalidActionError("a meld group needs cards, e.g. 7H 7D 7C or add 1 2S")
    if words[0].lower() == "add":
        if len(words) < 3:
            raise InvalidActionError("an add group is written add <meld number> <card> ..., e.g. add 1 2S")
        return Group(parse_int(words[1], "the meld number", 1), tuple(parse_card(w) for w in words[2:]))
    return Group(None, tuple(parse_card(w) for w in words))


def parse_groups(words: Sequence[str]) -> tuple[Group, ...]:
    """Split words on ``+`` into groups: ``7H 7D 7C + add 1 2S``."""
    groups: list[list[str]] = [[]]
    for word in words:
        if word == "+":
            groups.append([])
        else:
            groups[-1].append(word)
    return tuple(parse_group(group) for group in groups)


def groups_words(groups: Sequence[Group]) -> list[str]:
    """The text form of several groups joined by ``+``."""
    words: list[str] = []
    for index, group in enumerate(groups):
        if index:
            words.append("+")
        words += group.words()
    return words


def meld_kind(cards: Sequence[str]) -> str:
    """The rank of a rank meld (``"7"``), or ``WILD`` for a meld of wild cards only."""
    for card in cards:
        if is_natural(card):
            return rank_of(card)
    return WILD


def count_wild(cards: Sequence[str]) -> int:
    """How many wild cards a meld holds."""
    return sum(1 for card in cards if is_wild(card))


def has_wild(cards: Sequence[str]) -> bool:
    """Whether a meld holds a wild card (a mixed or wild meld, PH-4.6)."""
    return any(is_wild(card) for card in cards)


def is_complete(cards: Sequence[str]) -> bool:
    """A meld of seven cards is a completed canasta (PH-4.4)."""
    return len(cards) >= CANASTA_SIZE


def canasta_kind(cards: Sequence[str], special_requires_natural: bool = True) -> str:
    """The kind of a completed canasta (PH-4.7, A77): natural, unnatural, wild, aces or sevens.

    >>> canasta_kind(["AH"] * 7), canasta_kind(["AH"] * 6 + ["JK"])
    ('aces', 'unnatural')
    >>> canasta_kind(["AH"] * 6 + ["JK"], special_requires_natural=False)
    'aces'
    """
    kind = meld_kind(cards)
    wild = count_wild(cards)
    if kind == WILD:
        return "wild"
    if kind in ("A", "7") and (wild == 0 or not special_requires_natural):
        return "aces" if kind == "A" else "sevens"
    return "natural" if wild == 0 else "unnatural"


def ratio_ok(cards: Sequence[str], ratio: str) -> bool:
    """PH-4.3 (A74): naturals >= wild cards + 1 (or exactly +1 under ``exactly_one_more``)."""
    wild = count_wild(cards)
    natural = len(cards) - wild
    if wild == 0:
        return True
    return natural == wild + 1 if ratio == "exactly_one_more" else natural >= wild + 1


def ratio_text(ratio: str) -> str:
    """How the natural-majority rule reads under ``ph.mixed_ratio``."""
    return "exactly one more natural than wild cards" if ratio == "exactly_one_more" else "at least one more natural than wild cards"


def _check_cards(cards: Sequence[str]) -> None:
    for card in cards:
        if is_black_three(card):
            raise IllegalActionError(f"{card}: black threes cannot be melded, only discarded", "PH-4.8")
        if is_red_three(card):
            raise IllegalActionError(f"{card}: red threes are laid out as bonus cards, never melded", "PH-4.8")


def place_group(melds: list[list[str]], group: Group, ratio: str) -> int:
    """Put one group down on ``melds`` (changed in place); returns the index of the meld it made
    or grew.

    :raises IllegalActionError: naming the rule of PH-4 the group breaks.
    """
    _check_cards(group.cards)
    if group.target is None:
        cards = list(group.cards)
        if len(cards) < 3:
            raise IllegalActionError(f"a new meld needs at least 3 cards, got {len(cards)}", "PH-4.2")
        if len(cards) > CANASTA_SIZE:
            raise IllegalActionError(f"a meld holds at most 7 cards, got {len(cards)}", "PH-4.4")
        ranks = {rank_of(card) for card in cards if is_natural(card)}
        if len(ranks) > 1:
            raise IllegalActionError(f"a meld holds naturals of one rank only, got {', '.join(sorted(ranks))}", "PH-4.1")
        kind = meld_kind(cards)
        if kind != WILD and not ratio_ok(cards, ratio):
            raise IllegalActionError(f"{' '.join(cards)}: a mixed meld needs {ratio_text(ratio)}", "PH-4.3")
        if kind != WILD:
            for number, meld in enumerate(melds, start=1):
                if meld_kind(meld) == kind and not is_complete(meld):
                    raise IllegalActionError(
                        f"your team already has an incomplete meld of {kind}s (meld {number}); add to it instead", "PH-4.5"
                    )
        if has_wild(cards):
            _check_one_wild_meld(melds, None)
        melds.append(cards)
        return len(melds) - 1
    index = group.target - 1
    if not 0 <= index < len(melds):
        raise IllegalActionError(f"your team has no meld {group.target} (it has {len(melds)})", "PH-4.1")
    meld = melds[index]
    if is_complete(meld):
        raise IllegalActionError(f"meld {group.target} is a completed canasta, closed to more cards", "PH-4.4")
    kind = meld_kind(meld)
    for card in group.cards:
        if is_natural(card) and (kind == WILD or rank_of(card) != kind):
            what = "a meld of wild cards" if kind == WILD else f"a meld of {kind}s"
            raise IllegalActionError(f"{card} cannot join meld {group.target}, {what}", "PH-4.1")
    grown = meld + list(group.cards)
    if len(grown) > CANASTA_SIZE:
        raise IllegalActionError(
            f"meld {group.target} has {len(meld)} cards; adding {len(group.cards)} would pass 7", "PH-4.4"
        )
    if kind != WILD and not ratio_ok(grown, ratio):
        raise IllegalActionError(f"meld {group.target} would hold {' '.join(grown)}: a mixed meld needs {ratio_text(ratio)}", "PH-4.3")
    if any(is_wild(card) for card in group.cards):
        _check_one_wild_meld(melds, index)
    melds[index] = grown
    return index


def _check_one_wild_meld(melds: Sequence[Sequence[str]], own: int | None) -> None:
    """PH-4.6 (A76): no *other* incomplete meld of the team may hold a wild card."""
    for number, meld in enumerate(melds, start=1):
        if number - 1 != own and has_wild(meld) and not is_complete(meld):
            raise IllegalActionError(
                f"your team already has an incomplete meld with wild cards (meld {number}); only one at a time", "PH-4.6"
            )


def incomplete_meld_of(melds: Sequence[Sequence[str]], rank: str) -> int | None:
    """The index of the team's incomplete meld of ``rank``, if any (PH-4.5 allows one)."""
    for index, meld in enumerate(melds):
        if meld_kind(meld) == rank and not is_complete(meld):
            return index
    return None


def has_canasta_of(melds: Sequence[Sequence[str]], rank: str) -> bool:
    """Whether the team has completed a canasta of ``rank`` (``WILD`` for a wild canasta), PH-11.1."""
    return any(is_complete(meld) and meld_kind(meld) == rank for meld in melds)


def canasta_kinds(melds: Sequence[Sequence[str]], special_requires_natural: bool) -> list[str]:
    """The kinds of the team's completed canastas, in meld order."""
    return [canasta_kind(meld, special_requires_natural) for meld in melds if is_complete(meld)]


def may_go_out_with(kinds: Sequence[str], special_counts_as_regular: bool) -> bool:
    """PH-9.1.2 (A84): a regular (natural or unnatural) canasta and a special one, two different
    canastas; with ``ph.special_counts_as_regular`` an aces or sevens canasta also counts as
    regular, so one alone is enough."""
    special = [kind for kind in kinds if kind in SPECIAL_KINDS]
    regular = [kind for kind in kinds if kind in ("natural", "unnatural")]
    if not special:
        return False
    if regular:
        return True
    return special_counts_as_regular and any(kind in ("aces", "sevens") for kind in special)
