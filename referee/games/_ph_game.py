"""The game of Pennies From Heaven (RULES.md §5): its house rules (RULES §7.2), its action
types, and the seating of its partnerships (PH-1.1).

A helper of :mod:`referee.games.pennies_from_heaven`, which registers the game; this module
knows nothing of a game in play.
"""

from __future__ import annotations

from referee.actions import Action, Designate
from referee.core import Game
from referee.errors import ConfigError
from referee.games._ph_actions import (
    Add,
    Answer,
    Ask,
    Bury,
    Dealt,
    Discard,
    Draw,
    GoOut,
    Meld,
    RedThrees,
    Reveal,
    RevealPennies,
    TakePile,
    Upcard,
)
from referee.games._ph_scoring import ScoringRules
from referee.options import OptionSpec

HAND_SIZE = 15
PENNIES_SIZE = 11
"""PH-2.2: hand stacks of 15 cards, Pennies stacks of 11."""


def _bool(key: str, default: bool, rule: str, text: str) -> OptionSpec:
    return OptionSpec(key, default, kind="bool", rule=rule, help=text)


OPTIONS = (
    _bool("ph.dealer_bonus", True, "A68", "50 points to the dealing team for each dealer who deals perfectly"),
    _bool("ph.opening_counts_top_card", True, "A73", "the top card counts toward the opening when taking the pile"),
    OptionSpec("ph.mixed_ratio", "at_least_one_more", ("at_least_one_more", "exactly_one_more"), rule="A74",
               help="how many more naturals than wild cards a mixed meld needs"),
    _bool("ph.special_requires_natural", True, "A77", "a special aces or sevens canasta must be all natural"),
    _bool("ph.canasta_cards_count", True, "A79", "cards in canastas also score their card values"),
    OptionSpec("ph.red_threes_to_go_out", "all", ("all", "8"), rule="A80",
               help="how many red threes must be on the table before anyone goes out"),
    _bool("ph.all_red_threes_bonus", False, "A80", "a team with every red three scores all_red_threes_value"),
    OptionSpec("ph.all_red_threes_value", "auto", ("auto",), kind="int_or_choice", minimum=0, rule="A80",
               help="the all-red-threes score; auto is 1000 with 4 packs and 1500 with 6"),
    OptionSpec("ph.unpicked_red_three_penalty", "100", ("100", "200"), rule="A81",
               help="what each red three in a Pennies stack never picked up costs in total"),
    _bool("ph.special_counts_as_regular", False, "A84", "an aces or sevens canasta also counts as the regular one"),
    OptionSpec("ph.empty_hand_with_pennies_due", "go_out", ("go_out", "pick_up"), rule="A84",
               help="a player who could go out while a Pennies pick-up is due goes out, or picks up"),
    OptionSpec("ph.draw_exhaustion", "finish_turn", ("finish_turn", "immediate"), rule="A85",
               help="whether the player who takes the last card of the Draw Pile finishes the turn"),
    _bool("ph.bury_wilds", False, "A86", "wild cards may be buried once the team has a wild canasta"),
    OptionSpec("ph.win_tie", "co_winners", ("co_winners", "play_another_hand"), rule="A87",
               help="what happens when teams tie for the highest score at the end"),
    OptionSpec("ph.game_target", 25000, kind="int", minimum=1, rule="A87", help="the score that ends the game"),
)

ACTIONS: tuple[type[Action], ...] = (
    Designate, Dealt, Upcard, RedThrees, Draw, TakePile, Meld, Add, Bury, Ask, Answer, Discard, GoOut,
    Reveal, RevealPennies,
)


class PenniesFromHeaven(Game):
    """Pennies From Heaven: 4 or 6 players in partnerships, one 54-card pack per player."""

    name = "pennies-from-heaven"
    title = "Pennies From Heaven"
    min_players = 4
    max_players = 6
    option_specs = OPTIONS
    action_types = ACTIONS

    def _check_players(self) -> None:
        super()._check_players()
        if len(self.players) == 5:
            # A66: teams of two sitting opposite each other; five players cannot form them.
            raise ConfigError("Pennies From Heaven is played by 4 or 6 players in teams of two (A66), got 5")

    def team_of(self, seat: int) -> int:
        """PH-1.1: seat ``i`` partners seat ``i + P/2``."""
        return seat % (len(self.players) // 2)

    def partner_of(self, seat: int) -> int:
        """The seat opposite."""
        return (seat + len(self.players) // 2) % len(self.players)

    def team_members(self, team: int) -> tuple[int, int]:
        """The two seats of a team."""
        return team, team + len(self.players) // 2

    def team_name(self, team: int) -> str:
        """``"Ann+Cy"``: the team's members joined by ``+``."""
        first, second = self.team_members(team)
        return f"{self.players[first]}+{self.players[second]}"

    def red_threes_in_deck(self) -> int:
        """8 with four packs, 12 with six (PH-1.5)."""
        return 2 * len(self.players)

    def scoring_rules(self) -> ScoringRules:
        """The scoring options (A77, A79, A80, A81)."""
        value = self.options["ph.all_red_threes_value"]
        if value == "auto":
            value = 1000 if len(self.players) == 4 else 1500
        return ScoringRules(
            canasta_cards_count=self.options["ph.canasta_cards_count"],
            special_requires_natural=self.options["ph.special_requires_natural"],
            all_red_threes_bonus=self.options["ph.all_red_threes_bonus"],
            all_red_threes_value=int(value),
            total_red_threes=self.red_threes_in_deck(),
            unpicked_red_three_penalty=int(self.options["ph.unpicked_red_three_penalty"]),
        )
