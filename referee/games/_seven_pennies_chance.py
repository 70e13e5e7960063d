"""The Booth and the chance model of Seven Pennies (RULES.md SP-3.2, SPD-4, §6.1-6.2).

Pennies are handled as two-faced dice (SPD-5.3): heads is 1, tails is 2, and a pair sums to 3.
Counts are lists indexed by value - 1. A helper of :mod:`referee.games.seven_pennies`; it
registers nothing.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from fractions import Fraction
from itertools import combinations_with_replacement
from math import comb, factorial

from referee.actions import DiceThrow, PennyThrow

HEADS = 1
"""Heads as a value of the two-faced model (SPD-5.3)."""
TAILS = 2
"""Tails as a value of the two-faced model (SPD-5.3)."""


def complement(value: int, faces: int) -> int:
    """The value a die showing ``value`` pairs with: ``c(v) = S + 1 - v`` (SPD-4; tails for heads)."""
    return faces + 1 - value


def booth(counts: Sequence[int]) -> tuple[list[int], list[int], int]:
    """Remove every pair that sums to ``S + 1`` (SP-3.2, SPD-4; unique by §6.1-6.2).

    Returns ``(left, removed, pairs)``: the counts left in the Theatre, the counts moved to the
    Balcony, and the number of pairs.

    >>> booth([3, 4])
    ([0, 1], [3, 3], 3)
    >>> booth([1, 0, 2, 2, 0, 0, 1])[2]  # d7: 1-7 pair and the two 4s (the middle value) pair
    2
    """
    faces = len(counts)
    left = list(counts)
    removed = [0] * faces
    pairs = 0
    for low in range(1, faces // 2 + 1):
        high = complement(low, faces)
        matched = min(left[low - 1], left[high - 1])
        left[low - 1] -= matched
        left[high - 1] -= matched
        removed[low - 1] += matched
        removed[high - 1] += matched
        pairs += matched
    if faces % 2:
        middle = (faces + 1) // 2
        matched = left[middle - 1] // 2
        left[middle - 1] -= 2 * matched
        removed[middle - 1] += 2 * matched
        pairs += matched
    return left, removed, pairs


def penny_outcomes(count: int) -> list[tuple[PennyThrow, Fraction]]:
    """Every read of a throw of ``count`` fair pennies with its binomial probability."""
    return [(PennyThrow(heads, count - heads), Fraction(comb(count, heads), 2**count)) for heads in range(count + 1)]


def dice_multisets(count: int, faces: int) -> Iterator[tuple[int, ...]]:
    """Every multiset of ``count`` faces of an ``S``-sided die, as a sorted tuple."""
    return combinations_with_replacement(range(1, faces + 1), count)


def multiset_count(count: int, faces: int) -> int:
    """How many different multisets a throw of ``count`` dice with ``faces`` faces can show."""
    return comb(count + faces - 1, faces - 1)


def multiset_probability(values: Sequence[int], faces: int) -> Fraction:
    """The probability that fair dice show exactly this multiset (multinomial)."""
    ways = factorial(len(values))
    for value in set(values):
        ways //= factorial(values.count(value))
    return Fraction(ways, faces ** len(values))


def dice_outcomes(count: int, faces: int) -> list[tuple[DiceThrow, Fraction]]:
    """Every multiset read of a throw of ``count`` fair dice with its probability."""
    return [(DiceThrow(values), multiset_probability(values, faces)) for values in dice_multisets(count, faces)]


def sample_pennies(count: int, rng: random.Random) -> PennyThrow:
    """A random throw of ``count`` fair pennies (simulation only), in O(count) time."""
    heads = bin(rng.getrandbits(count)).count("1") if count else 0
    return PennyThrow(heads, count - heads)


def sample_dice(count: int, faces: int, rng: random.Random) -> DiceThrow:
    """A random throw of ``count`` fair dice (simulation only), faces sorted."""
    return DiceThrow(tuple(sorted(rng.randint(1, faces) for _ in range(count))))
