"""Cards of Pennies From Heaven (RULES.md PH-1): notation, classes, values and multisets.

A card is written as its rank and suit, ``QH``, ``10C``, ``2S``, ``AD``, or ``JK`` for a joker
(suits C, D, H, S; ranks 2-10, J, Q, K, A). Several packs are shuffled together, so identical
cards exist; collections of cards are multisets, kept as plain ``{card: count}`` dicts with no
zero entries (so equal collections compare equal after any sequence of changes).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from referee.errors import InvalidActionError

SUITS = ("C", "D", "H", "S")
RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
JOKER = "JK"
NATURAL_RANKS = ("4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
"""PH-1.3: the ranks that can be melded as naturals."""

ALL_CARDS = tuple(rank + suit for rank in RANKS for suit in SUITS) + (JOKER,)
RED_THREES = ("3D", "3H")
BLACK_THREES = ("3C", "3S")

Cards = dict[str, int]
"""A multiset of cards: ``{"QH": 2, "JK": 1}``; never holds zero or negative counts."""


def parse_card(word: str) -> str:
    """The canonical text of a card written ``QH``, ``10c``, ``jk`` (case does not matter).

    >>> parse_card("10c"), parse_card("Jk"), parse_card("ah")
    ('10C', 'JK', 'AH')

    :raises InvalidActionError: for anything that is no card, with the notation expected.
    """
    text = word.strip().upper()
    if text in ("JK", "JOKER"):
        return JOKER
    rank, suit = text[:-1], text[-1:]
    if rank == "T":
        rank = "10"
    if suit not in SUITS or rank not in RANKS:
        raise InvalidActionError(
            f"{word!r} is not a card; write rank then suit (C, D, H, S), e.g. QH, 10C, 2S, or JK for a joker"
        )
    return rank + suit


def parse_cards(words: Iterable[str]) -> tuple[str, ...]:
    """Parse every word as a card (see :func:`parse_card`)."""
    return tuple(parse_card(word) for word in words)


def rank_of(card: str) -> str:
    """``"10"`` for ``10C``, ``"JK"`` for a joker."""
    return JOKER if card == JOKER else card[:-1]


def is_wild(card: str) -> bool:
    """Every 2 and every joker is wild (PH-1.3)."""
    return card == JOKER or rank_of(card) == "2"


def is_red_three(card: str) -> bool:
    """3H and 3D (PH-1.3)."""
    return card in RED_THREES


def is_black_three(card: str) -> bool:
    """3C and 3S (PH-1.3)."""
    return card in BLACK_THREES


def is_natural(card: str) -> bool:
    """4 to A (PH-1.3): neither wild nor a three."""
    return rank_of(card) in NATURAL_RANKS


def card_value(card: str) -> int:
    """PH-1.4: joker 50; 2 and A 20; 8-K 10; 4-7 5; any 3 100.

    >>> [card_value(c) for c in ("JK", "2S", "AH", "10D", "7C", "3S")]
    [50, 20, 20, 10, 5, 100]
    """
    rank = rank_of(card)
    if rank == JOKER:
        return 50
    if rank in ("2", "A"):
        return 20
    if rank == "3":
        return 100
    if rank in ("4", "5", "6", "7"):
        return 5
    return 10


def cards_value(cards: Iterable[str]) -> int:
    """The sum of the card values."""
    return sum(card_value(card) for card in cards)


def card_sort_key(card: str) -> tuple[int, int]:
    """Order cards by rank (2 .. A, joker last), then suit."""
    if card == JOKER:
        return (len(RANKS), 0)
    return (RANKS.index(rank_of(card)), SUITS.index(card[-1]))


def sort_cards(cards: Iterable[str]) -> list[str]:
    """The cards in display order."""
    return sorted(cards, key=card_sort_key)


def deck(packs: int) -> Cards:
    """The multiset of ``packs`` 54-card packs (PH-1.2): each card ``packs`` times, jokers twice that."""
    cards = {card: packs for card in ALL_CARDS}
    cards[JOKER] = 2 * packs
    return cards


def multiset(cards: Iterable[str]) -> Cards:
    """The multiset of a sequence of cards."""
    result: Cards = {}
    for card in cards:
        result[card] = result.get(card, 0) + 1
    return result


def expand(cards: Mapping[str, int]) -> list[str]:
    """The cards of a multiset as a sorted list."""
    return sort_cards(card for card, count in cards.items() for _ in range(count))


def size(cards: Mapping[str, int]) -> int:
    """How many cards a multiset holds."""
    return sum(cards.values())


def add(cards: Cards, more: Iterable[str]) -> None:
    """Add cards to a multiset in place."""
    for card in more:
        cards[card] = cards.get(card, 0) + 1


def remove(cards: Cards, card: str) -> bool:
    """Remove one ``card`` from a multiset in place if it holds one; says whether it did."""
    count = cards.get(card, 0)
    if count <= 0:
        return False
    if count == 1:
        del cards[card]
    else:
        cards[card] = count - 1
    return True


def minus(left: Mapping[str, int], right: Mapping[str, int]) -> Cards:
    """``left - right`` with counts clipped at zero."""
    return {card: n - right.get(card, 0) for card, n in left.items() if n - right.get(card, 0) > 0}


def describe(cards: Iterable[str]) -> str:
    """``"7H 7D 2S"`` or ``"nothing"``."""
    words = list(cards)
    return " ".join(words) if words else "nothing"
