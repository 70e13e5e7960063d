"""Hand scoring of Pennies From Heaven (RULES.md PH-10.2, PH-6.2, PH-8.4, PH-4.9).

``score_team`` turns what one team has at the end of a hand into the lines of the score sheet:
canastas by kind, the card values of melded cards, red threes, the going-out bonus, the dealer
bonus, and the penalties for the cards left in hand and for Pennies stacks never picked up.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from referee.games._ph_cards import cards_value, is_black_three, is_red_three, sort_cards
from referee.games._ph_melds import CANASTA_KINDS, CANASTA_VALUES, canasta_kind, is_complete

GOING_OUT_BONUS = 200
"""PH-10.2: "200 bonus points if they had gone out"."""
DEALER_BONUS = 50
"""PH-2.4: 50 for each dealer who dealt their stacks perfectly."""
RED_THREE_VALUE = 100
"""PH-6.2: each red three on the table."""


def opening_minimum(cumulative: int) -> int:
    """PH-4.9 (A73): the opening minimum for a team's cumulative score at the start of the hand.

    >>> [opening_minimum(s) for s in (-500, 8999, 9000, 12000, 14999, 15000)]
    [50, 50, 90, 120, 120, 150]
    """
    if cumulative >= 15000:
        return 150
    if cumulative >= 12000:
        return 120
    if cumulative >= 9000:
        return 90
    return 50


@dataclass(frozen=True)
class ScoringRules:
    """The options of §7.2 that change hand scoring."""

    canasta_cards_count: bool = True
    """A79: cards inside canastas also score their card values."""
    special_requires_natural: bool = True
    """A77: a mixed aces or sevens canasta is unnatural."""
    all_red_threes_bonus: bool = False
    """A80: a team holding every red three scores ``all_red_threes_value`` instead of 100 each."""
    all_red_threes_value: int = 1000
    total_red_threes: int = 8
    """How many red threes the deck set holds (8 or 12)."""
    unpicked_red_three_penalty: int = 100
    """A81: what each red three in an unpicked Pennies stack costs in total."""


@dataclass(frozen=True)
class TeamHand:
    """What one team has at the end of a hand."""

    melds: Sequence[Sequence[str]]
    red_threes: int
    went_out: bool = False
    dealer_successes: int = 0
    hands: Mapping[str, Sequence[str]] = field(default_factory=dict)
    """Each member's cards left in hand (revealed at the end, PH-10)."""
    pennies: Mapping[str, Sequence[str]] = field(default_factory=dict)
    """The members' Pennies stacks never picked up (PH-8.4)."""


def score_team(team: TeamHand, rules: ScoringRules) -> dict[str, Any]:
    """The score-sheet lines of one team for one hand, and their ``total`` (PH-10.2).

    Every line is JSON-friendly; negative lines are written as negative points.
    """
    canastas = {kind: {"count": 0, "points": 0} for kind in CANASTA_KINDS}
    in_canastas = in_open = 0
    cards_melded = 0
    for meld in team.melds:
        cards_melded += len(meld)
        if is_complete(meld):
            kind = canasta_kind(meld, rules.special_requires_natural)
            canastas[kind]["count"] += 1
            canastas[kind]["points"] += CANASTA_VALUES[kind]
            in_canastas += cards_value(meld)
        else:
            in_open += cards_value(meld)
    canasta_points = sum(line["points"] for line in canastas.values())
    counted_in_canastas = in_canastas if rules.canasta_cards_count else 0
    if rules.all_red_threes_bonus and team.red_threes == rules.total_red_threes:
        red_three_points = rules.all_red_threes_value
    else:
        red_three_points = RED_THREE_VALUE * team.red_threes
    going_out = GOING_OUT_BONUS if team.went_out else 0
    dealer = DEALER_BONUS * team.dealer_successes
    hands: dict[str, dict[str, Any]] = {
        name: {
            "cards": sort_cards(cards),
            "points": -cards_value(cards),
            "black_threes": sum(1 for card in cards if is_black_three(card)),
        }
        for name, cards in team.hands.items()
    }
    pennies: dict[str, dict[str, Any]] = {}
    for name, cards in team.pennies.items():
        threes = sum(1 for card in cards if is_red_three(card))
        extra = (rules.unpicked_red_three_penalty - RED_THREE_VALUE) * threes
        pennies[name] = {"cards": sort_cards(cards), "points": -cards_value(cards) - extra, "red_threes": threes}
    hand_points = sum(int(line["points"]) for line in hands.values())
    pennies_points = sum(int(line["points"]) for line in pennies.values())
    total = (
        canasta_points + counted_in_canastas + in_open + red_three_points + going_out + dealer + hand_points + pennies_points
    )
    return {
        "canastas": canastas,
        "canasta_points": canasta_points,
        "melded_cards": {
            "cards": cards_melded,
            "in_canastas": counted_in_canastas,
            "in_open_melds": in_open,
            "points": counted_in_canastas + in_open,
        },
        "red_threes": {"count": team.red_threes, "points": red_three_points},
        "going_out": going_out,
        "dealer_bonus": dealer,
        "cards_in_hand": hands,
        "pennies_not_picked_up": pennies,
        "penalties": hand_points + pennies_points,
        "total": total,
    }
