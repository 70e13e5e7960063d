"""Pennies From Heaven (RULES.md §5, seed 003): the Vagts house version of Canasta.

Hidden information as at a real table (G-6, A91): the referee sees only what is shown. It knows
every card on the table (melds, the Discard Pile, red threes, buried cards shown before burying)
and, for each hand, how many cards it holds and which of them are known (the cards of a Discard
Pile it took). Every card a player plays must be one the hand can hold: a known card of it, or
one of the cards not yet seen anywhere. Full hands are revealed only for scoring.

The steps of a hand, with their text forms::

    dealt yes no            TABLE: the deal, and which dealer dealt perfectly (PH-2.4)
    upcard QH               CHANCE: the first card of the Discard Pile (PH-2.6)
    red-threes 3H | none    CHANCE: red threes laid out by one player, after the deal (seat order
                            from the dealer's left), a draw, a taken pile or a Pennies pick-up
    draw | take-pile QH QD  the player acquires (PH-7.1, PH-5)
    meld ... | add N ... | bury ... | ask     the meld stage (PH-7.2, PH-11, PH-9.2)
    answer yes|no           the partner answers ``ask``
    discard 3C | go-out [3C]                  end of the turn (PH-7.4, PH-9)
    reveal NAME ... | reveal-pennies NAME ... CHANCE at the end of the hand (PH-10)

The first dealer is designated by the table (``designate NAME``, A67); the deal passes left.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from fractions import Fraction
from typing import Any

from referee.actions import Action, Designate
from referee.core import CHANCE, TABLE, Game, Outcome, State, Termination, register_game
from referee.errors import IllegalActionError
from referee.games import _ph_cards as pc
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
from referee.games._ph_melds import (
    WILD,
    Group,
    canasta_kind,
    canasta_kinds,
    has_canasta_of,
    incomplete_meld_of,
    is_complete,
    may_go_out_with,
    meld_kind,
    place_group,
)
from referee.games._ph_scoring import ScoringRules, TeamHand, opening_minimum, score_team
from referee.options import OptionSpec
from referee.table import Item, Move

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

# The action types accepted in each phase of the state machine (PH-7).
PHASE_ACTIONS: dict[str, tuple[type[Action], ...]] = {
    "designate": (Designate,),
    "deal": (Dealt,),
    "upcard": (Upcard,),
    "red-threes": (RedThrees,),
    "acquire": (Draw, TakePile),
    "play": (Meld, Add, Bury, Ask, Discard, GoOut),
    "answer": (Answer,),
    "reveal": (Reveal, RevealPennies),
}
SOURCE_WORDS = {
    "deal": "from the dealt hand",
    "draw": "from the cards just drawn",
    "pile": "replacing the red three at the bottom of the pile",
    "pennies": "from the Pennies just picked up",
}


@register_game
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
            from referee.errors import ConfigError

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


class PenniesState(State):
    """A game of Pennies From Heaven in play (see the module docstring for the steps)."""

    game: PenniesFromHeaven

    def __init__(self, game: Game) -> None:
        super().__init__(game)
        assert isinstance(game, PenniesFromHeaven)
        players = len(game.players)
        self._deck: dict[str, int] = pc.deck(players)
        self._cumulative = [0] * (players // 2)
        self._hand_no = 0
        self._dealer: int | None = None
        self._phase_name = "designate"
        self._sheet: list[dict[str, Any]] = []
        self._winners: list[str] = []
        self._reset_hand()

    def _reset_hand(self) -> None:
        """Gather every card back into the shuffled packs (the ``supply``) before a deal."""
        players = len(self.game.players)
        teams = players // 2
        self._supply = pc.size(self._deck)
        self._draw = 0
        self._pile: list[str] = []
        self._pile_red_three = False
        self._counts = [0] * players
        self._known: list[dict[str, int]] = [{} for _ in range(players)]
        self._pennies = [0] * players
        self._pennies_shown: list[list[str]] = [[] for _ in range(players)]
        self._picked = [False] * players
        self._pennies_due = [False] * players
        self._melds: list[list[list[str]]] = [[] for _ in range(teams)]
        self._red_threes: list[list[str]] = [[] for _ in range(teams)]
        self._buried: list[list[str]] = [[] for _ in range(teams)]
        self._opened = [False] * teams
        self._dealt_perfect = [False, False]
        self._turn = 0
        self._buried_this_turn = False
        self._asked = ""
        self._threes: dict[str, Any] = {}
        self._deal_queue: list[int] = []
        self._went_out: int | None = None
        self._to_reveal: list[list[Any]] = []

    # -- the turn ------------------------------------------------------------------------

    def _current_player(self) -> int:
        phase = self._phase_name
        if phase in ("designate", "deal"):
            return TABLE
        if phase in ("upcard", "red-threes", "reveal"):
            return CHANCE
        if phase == "answer":
            return self.game.partner_of(self._turn)
        return self._turn

    def _phase(self) -> str:
        return self._phase_name

    def round(self) -> int:
        """The hand in play, from 1 (0 before the first deal)."""
        return self._hand_no

    def outcome(self) -> Outcome | None:
        """The winners once a team reached ``ph.game_target`` (PH-12)."""
        if self._phase_name != "over":
            return None
        return Outcome(Termination.TARGET_REACHED, tuple(self._winners))

    def scores(self) -> dict[str, int]:
        """Each player's team's cumulative score."""
        return {name: self._cumulative[self.game.team_of(seat)] for seat, name in enumerate(self.game.players)}

    def team_scores(self) -> dict[str, int]:
        """Each team's cumulative score, by team name."""
        return {self.game.team_name(team): score for team, score in enumerate(self._cumulative)}

    def score_sheet(self) -> list[dict[str, Any]]:
        """One entry per scored hand: the dealer, how it ended, and every line of each team."""
        return [dict(entry) for entry in self._sheet]

    def why_illegal(self, action: Action) -> IllegalActionError | None:
        """The error ``apply(action)`` would raise, checked against what the referee has seen."""
        if self.is_terminal():
            return IllegalActionError("the game is over", "PH-12")
        if type(action) not in self.game.action_types:
            return IllegalActionError(f"{action.verb!r} is not an action of {self.game.title}")
        try:
            self._check(action)
        except IllegalActionError as error:
            return error
        return None

    def _legal_actions(self) -> list[Action]:
        candidates: list[Action] = []
        phase = self._phase_name
        players = self.game.players
        if phase == "designate":
            candidates = [Designate(name) for name in players]
        elif phase == "deal":
            if self.game.options["ph.dealer_bonus"]:
                candidates = [Dealt(a, b) for a in (True, False) for b in (True, False)]
            else:
                candidates = [Dealt(False, False)]
        elif phase == "upcard":
            candidates = [Upcard(card) for card in pc.expand({c: 1 for c in self._unseen()})]
        elif phase == "red-threes":
            unseen = self._unseen()
            candidates = [
                RedThrees(tuple(sorted(["3D"] * d + ["3H"] * h)))
                for d in range(unseen.get("3D", 0) + 1)
                for h in range(unseen.get("3H", 0) + 1)
            ]
        elif phase == "acquire":
            candidates = [Draw()] + self._take_pile_candidates()
        elif phase == "play":
            candidates = self._play_candidates()
        elif phase == "answer":
            candidates = [Answer(True), Answer(False)]
        # Reveals are not listed: every hand the unseen cards could make is far too many.
        return [action for action in candidates if self.why_illegal(action) is None]

    def _take_pile_candidates(self) -> list[Action]:
        if not self._pile or not pc.is_natural(self._pile[-1]):
            return []
        rank = pc.rank_of(self._pile[-1])
        cards = [card for card in self._possible_cards(self._turn) if pc.rank_of(card) == rank]
        return [TakePile((a, b)) for a, b in itertools.combinations_with_replacement(cards, 2)]

    def _play_candidates(self) -> list[Action]:
        seat = self._turn
        possible = [card for card in self._possible_cards(seat) if not pc.is_red_three(card)]
        candidates: list[Action] = [Ask()]
        candidates += [GoOut(None)] + [GoOut(card) for card in possible]
        candidates += [Discard(card) for card in possible]
        candidates += [Bury((card,)) for card in possible]
        melds = self._melds[self.game.team_of(seat)]
        for number, meld in enumerate(melds, start=1):
            if not is_complete(meld):
                candidates += [Add(number, (card,)) for card in possible if pc.is_wild(card) or pc.rank_of(card) == meld_kind(meld)]
        return candidates

    def label(self, action: Action) -> str:
        """A short sentence for the tablet."""
        name = self.current_player_name() or "the table"
        if isinstance(action, Designate):
            return f"{action.player} deals the first hand"
        if isinstance(action, Dealt):
            return f"dealer perfect: {'yes' if action.dealer else 'no'}; partner perfect: {'yes' if action.partner else 'no'}"
        if isinstance(action, Draw):
            return f"{name} draws {min(2, self._draw)} from the Draw Pile"
        if isinstance(action, TakePile):
            return f"{name} takes the Discard Pile with {' '.join(action.pair)}"
        if isinstance(action, Discard):
            return f"{name} discards {action.card}"
        if isinstance(action, GoOut):
            return f"{name} goes out" + (f", discarding {action.card}" if action.card else "")
        if isinstance(action, Add):
            return f"{name} adds {' '.join(action.cards)} to meld {action.target}"
        if isinstance(action, Bury):
            return f"{name} buries {' '.join(action.cards)}"
        if isinstance(action, Ask):
            return f"{name} asks {self.game.players[self.game.partner_of(self._turn)]} for permission to go out"
        if isinstance(action, Answer):
            return f"{name} answers {'yes' if action.yes else 'no'}"
        return str(action)

    # -- what the referee knows ----------------------------------------------------------

    def _visible(self) -> dict[str, int]:
        """Every card the referee has seen and knows the place of."""
        seen = pc.multiset(self._pile)
        for team_melds in self._melds:
            for meld in team_melds:
                pc.add(seen, meld)
        for cards in itertools.chain(self._red_threes, self._buried, self._pennies_shown):
            pc.add(seen, cards)
        for known in self._known:
            for card, count in known.items():
                seen[card] = seen.get(card, 0) + count
        return seen

    def _unseen(self) -> dict[str, int]:
        """The cards nobody has shown: in the packs, the Draw Pile, Pennies stacks or unknown
        parts of hands."""
        return pc.minus(self._deck, self._visible())

    def _hidden_in_hand(self, seat: int) -> int:
        return self._counts[seat] - pc.size(self._known[seat])

    def _possible_cards(self, seat: int) -> list[str]:
        """The distinct cards the hand at ``seat`` may hold."""
        cards = set(self._known[seat])
        if self._hidden_in_hand(seat) > 0:
            cards |= set(self._unseen())
        return pc.sort_cards(cards)

    def _hand_error(self, seat: int, cards: Sequence[str], unseen: dict[str, int] | None = None) -> None:
        """G-6: ``cards`` must be able to come from the hand at ``seat``.

        :raises IllegalActionError: when the hand holds too few cards, or a card cannot be in it.
        """
        name = self.game.players[seat]
        if len(cards) > self._counts[seat]:
            raise IllegalActionError(f"{name} holds {self._counts[seat]} cards and cannot play {len(cards)}", "G-6")
        extra = pc.minus(pc.multiset(cards), self._known[seat])
        hidden = self._hidden_in_hand(seat)
        if pc.size(extra) > hidden:
            raise IllegalActionError(
                f"{name}'s hand holds only {hidden} cards the referee has not seen; "
                f"{pc.describe(pc.expand(extra))} cannot all be among them",
                "G-6",
            )
        unseen = self._unseen() if unseen is None else unseen
        for card, count in extra.items():
            if unseen.get(card, 0) < count:
                where = "in play" if unseen.get(card, 0) == 0 else f"unseen but {count} are played"
                raise IllegalActionError(
                    f"{card} cannot be in {name}'s hand: the {self._deck[card]} in the packs are all {where}", "G-6"
                )

    def _take_from_hand(self, seat: int, cards: Iterable[str]) -> None:
        for card in cards:
            pc.remove(self._known[seat], card)
            self._counts[seat] -= 1

    def _red_threes_out(self) -> int:
        return sum(len(cards) for cards in self._red_threes)

    def _go_out_error(self, seat: int, melds: Sequence[Sequence[str]] | None = None, extra_threes: int = 0) -> IllegalActionError | None:
        """Why the player at ``seat`` may not go out now (PH-9.1, PH-9.2), or ``None``."""
        team = self.game.team_of(seat)
        needed = self.game.red_threes_in_deck() if self.game.options["ph.red_threes_to_go_out"] == "all" else 8
        out = self._red_threes_out() + extra_threes
        if out < needed:
            return IllegalActionError(f"only {out} of the {needed} red threes are on the table", "PH-9.1.1")
        kinds = canasta_kinds(self._melds[team] if melds is None else melds, self.game.options["ph.special_requires_natural"])
        if not may_go_out_with(kinds, self.game.options["ph.special_counts_as_regular"]):
            have = ", ".join(kinds) or "none"
            return IllegalActionError(
                f"going out needs a natural or unnatural canasta and a special one (the team's canastas: {have})", "PH-9.1.2"
            )
        if self._buried_this_turn:
            return IllegalActionError("you buried a card this turn and may not go out", "PH-9.1.3")
        if self._asked == "no":
            return IllegalActionError("your partner answered no: you may not go out this turn", "PH-9.2")
        return None

    def _empty_hand_error(self, seat: int, left: int, melds: Sequence[Sequence[str]], completes: bool, extra_threes: int = 0) -> None:
        """PH-7.3 (A83): the hand floor after an action of the meld stage leaving ``left`` cards.

        :raises IllegalActionError: when the player could not finish the turn legally.
        """
        if left >= 2:
            return
        due = (self._pennies_due[seat] or completes) and not self._picked[seat]
        go_out = self._go_out_error(seat, melds, extra_threes)
        if go_out is None and due and self.game.options["ph.empty_hand_with_pennies_due"] == "pick_up":
            go_out = IllegalActionError("your Pennies pick-up is due, which comes before going out", "A84")
        if left == 1 and (go_out is None or due):
            return
        if left == 0 and go_out is None:
            return
        keep = "one card to discard" if left == 0 else "a card after discarding"
        raise IllegalActionError(
            f"this would leave {left} card{'s' if left != 1 else ''}; you must keep {keep} unless you go out ({go_out})", "PH-7.3"
        )

    # -- checking an action --------------------------------------------------------------

    def _check(self, action: Action) -> None:
        """Raise ``IllegalActionError`` for an action the rules or the visible cards forbid."""
        phase = self._phase_name
        if not isinstance(action, PHASE_ACTIONS.get(phase, ())):
            raise IllegalActionError(f"{action.verb} is not possible now: {self.prompt()}", "PH-7")
        if isinstance(action, Designate):
            self.game.player_index(action.player)
        elif isinstance(action, Dealt):
            if (action.dealer or action.partner) and not self.game.options["ph.dealer_bonus"]:
                raise IllegalActionError("the dealer bonus is off (ph.dealer_bonus = false): enter dealt no no", "A68")
        elif isinstance(action, Upcard):
            if self._unseen().get(action.card, 0) <= 0:
                raise IllegalActionError(f"{action.card} cannot be the upcard: every {action.card} is already seen", "G-6")
        elif isinstance(action, RedThrees):
            self._check_red_threes(action)
        elif isinstance(action, Draw):
            if self._draw <= 0:
                raise IllegalActionError("the Draw Pile is empty", "PH-7.1")
        elif isinstance(action, TakePile):
            self._plan_take_pile(action)
        elif isinstance(action, (Meld, Add)):
            self._plan_meld(self._groups(action))
        elif isinstance(action, Bury):
            self._check_bury(action)
        elif isinstance(action, Ask):
            self._check_ask()
        elif isinstance(action, Discard):
            self._check_discard(action)
        elif isinstance(action, GoOut):
            self._check_go_out(action)
        elif isinstance(action, Reveal):
            self._check_reveal(action)

    @staticmethod
    def _groups(action: Meld | Add) -> tuple[Group, ...]:
        return action.groups if isinstance(action, Meld) else (Group(action.target, action.cards),)

    def _check_red_threes(self, action: RedThrees) -> None:
        for card in action.cards:
            if not pc.is_red_three(card):
                raise IllegalActionError(f"{card} is not a red three (3H or 3D)", "PH-6.1")
        unseen = self._unseen()
        for card, count in pc.multiset(action.cards).items():
            if unseen.get(card, 0) < count:
                raise IllegalActionError(f"there are not {count} {card} left unseen", "G-6")
        fresh, owed = self._threes["fresh"], self._threes["owed"]
        found = len(action.cards)
        possible = fresh + min(owed + found, self._draw)
        if found > possible:
            raise IllegalActionError(
                f"at most {possible} red threes can be among the {possible} cards taken and replacements drawn", "PH-6.1"
            )

    def _plan_meld(self, groups: Sequence[Group]) -> tuple[list[list[str]], bool]:
        """Check a meld action of the current player; return the team's melds after it and
        whether it completed a canasta (PH-8.2)."""
        seat = self._turn
        team = self.game.team_of(seat)
        melds = [list(meld) for meld in self._melds[team]]
        before = [is_complete(meld) for meld in melds]
        touched = [place_group(melds, group, self.game.options["ph.mixed_ratio"]) for group in groups]
        cards = [card for group in groups for card in group.cards]
        self._hand_error(seat, cards)
        if not self._opened[team]:
            self._check_opening(team, pc.cards_value(cards))
        completes = any(is_complete(melds[i]) and (i >= len(before) or not before[i]) for i in touched)
        self._empty_hand_error(seat, self._counts[seat] - len(cards), melds, completes)
        return melds, completes

    def _check_opening(self, team: int, value: int) -> None:
        """PH-4.9 (A73): the opening minimum, from card values only."""
        minimum = opening_minimum(self._cumulative[team])
        if value < minimum:
            raise IllegalActionError(
                f"your team has not opened this hand: the melds put down in one action must total {minimum} "
                f"in card values (score {self._cumulative[team]}), these total {value}",
                "PH-4.9",
            )

    def _plan_take_pile(self, action: TakePile) -> tuple[list[list[str]], bool]:
        """PH-5.2: check taking the pile; return the team's melds after it and whether a canasta
        was completed."""
        seat = self._turn
        team = self.game.team_of(seat)
        if not self._pile:
            raise IllegalActionError("the Discard Pile is empty", "PH-5.2")
        top = self._pile[-1]
        if not pc.is_natural(top):
            what = "wild card" if pc.is_wild(top) else "black three" if pc.is_black_three(top) else "red three"
            raise IllegalActionError(f"the Discard Pile is frozen: its top card {top} is a {what}; you must draw", "PH-5.1")
        rank = pc.rank_of(top)
        for card in action.pair:
            if not (pc.is_natural(card) and pc.rank_of(card) == rank):
                raise IllegalActionError(
                    f"to take the pile topped by {top} you show two natural {rank}s from your hand, not {card} "
                    "(no other way takes it, PH-5.4)",
                    "PH-5.2",
                )
        ratio = self.game.options["ph.mixed_ratio"]
        melds = [list(meld) for meld in self._melds[team]]
        before = [is_complete(meld) for meld in melds]
        groups = list(action.groups)
        touched: list[int] = []
        open_index = incomplete_meld_of(melds, rank)
        size = len(melds[open_index]) if open_index is not None else 0
        pile_meld = (top, *action.pair)
        if size in (5, 6):
            assert open_index is not None
            first = groups[0] if groups else None
            if first is None or first.target != open_index + 1 or size + len(first.cards) != 7:
                raise IllegalActionError(
                    f"your meld {open_index + 1} of {rank}s has {size} cards: complete it to 7 from your hand first, "
                    f"e.g. take-pile {' '.join(action.pair)} + add {open_index + 1} <{7 - size} cards>",
                    "PH-5.2",
                )
            touched.append(place_group(melds, groups.pop(0), ratio))
            touched.append(place_group(melds, Group(None, pile_meld), ratio))
        elif size in (3, 4):
            assert open_index is not None
            touched.append(place_group(melds, Group(open_index + 1, pile_meld), ratio))
        else:
            touched.append(place_group(melds, Group(None, pile_meld), ratio))
        for group in groups:
            touched.append(place_group(melds, group, ratio))
        from_hand = list(action.pair) + [card for group in action.groups for card in group.cards]
        self._hand_error(seat, from_hand)
        if not self._opened[team]:
            value = pc.cards_value(from_hand)
            if self.game.options["ph.opening_counts_top_card"]:
                value += pc.card_value(top)
            self._check_opening(team, value)
        completes = any(is_complete(melds[i]) and (i >= len(before) or not before[i]) for i in touched)
        rest = len(self._pile) - 1 - (1 if self._pile_red_three else 0)
        replacement = 1 if self._pile_red_three and self._draw > 0 else 0
        left = self._counts[seat] - len(from_hand) + rest + replacement
        self._empty_hand_error(seat, left, melds, completes, 1 if self._pile_red_three else 0)
        return melds, completes

    def _check_bury(self, action: Bury) -> None:
        seat = self._turn
        melds = self._melds[self.game.team_of(seat)]
        if self._asked == "yes":
            raise IllegalActionError("your partner said yes: you must go out, and burying forbids it", "PH-9.1.3")
        for card in action.cards:
            if pc.rank_of(card) == "3":
                raise IllegalActionError(f"{card}: threes can never be buried", "PH-11.1")
            if pc.is_wild(card):
                if not self.game.options["ph.bury_wilds"]:
                    raise IllegalActionError(f"{card}: wild cards cannot be buried (ph.bury_wilds = false)", "PH-11.1")
                if not has_canasta_of(melds, WILD):
                    raise IllegalActionError(f"{card}: burying a wild card needs a completed wild canasta", "PH-11.1")
            elif not has_canasta_of(melds, pc.rank_of(card)):
                raise IllegalActionError(
                    f"{card}: your team has no completed canasta of {pc.rank_of(card)}s to bury it under", "PH-11.1"
                )
        self._hand_error(seat, action.cards)
        left = self._counts[seat] - len(action.cards)
        due = self._pennies_due[seat] and not self._picked[seat]
        if left == 0 or (left == 1 and not due):
            raise IllegalActionError(
                f"burying would leave {left} card{'s' if left != 1 else ''}, and you may not go out in a turn you bury",
                "PH-7.3",
            )

    def _check_ask(self) -> None:
        if self._asked:
            raise IllegalActionError("you have already asked this turn", "PH-9.2")
        if self._counts[self._turn] < 2:
            raise IllegalActionError("ask before melding down to your last card", "PH-9.2")
        # The canastas may still be completed this turn, before going out; the red threes and a
        # burial this turn already settle that the player cannot go out.
        error = self._go_out_error(self._turn)
        if error is not None and error.rule in ("PH-9.1.1", "PH-9.1.3"):
            raise IllegalActionError(f"you may not go out this turn, so there is nothing to ask: {error}", error.rule)

    def _check_discard(self, action: Discard) -> None:
        seat = self._turn
        self._hand_error(seat, (action.card,))
        if self._asked == "yes":
            raise IllegalActionError("your partner answered yes: you must go out (go-out)", "PH-9.2")
        if self._counts[seat] > 1:
            return
        due = self._pennies_due[seat] and not self._picked[seat]
        go_out = self._go_out_error(seat)
        pick_up_first = due and self.game.options["ph.empty_hand_with_pennies_due"] == "pick_up"
        if go_out is None and not pick_up_first:
            raise IllegalActionError(f"discarding your last card goes out: enter go-out {action.card}", "PH-9.4")
        if not due:
            raise IllegalActionError(
                f"you may not discard your last card: you cannot go out ({go_out}) and no Pennies pick-up is due", "PH-7.3"
            )

    def _check_go_out(self, action: GoOut) -> None:
        seat = self._turn
        count = self._counts[seat]
        error = self._go_out_error(seat)
        if error is not None:
            raise error
        if action.card is None and count != 0:
            raise IllegalActionError(
                f"you hold {count} cards: meld them all, or all but one and enter go-out <card>", "PH-9.3"
            )
        if action.card is not None:
            if count != 1:
                raise IllegalActionError(
                    f"you hold {count} cards: going out discards only the last one, meld the others first", "PH-9.3"
                )
            self._hand_error(seat, (action.card,))
        if self._pennies_due[seat] and not self._picked[seat] and self.game.options["ph.empty_hand_with_pennies_due"] == "pick_up":
            raise IllegalActionError("your Pennies pick-up is due, which comes before going out", "A84")

    def _check_reveal(self, action: Reveal) -> None:
        seat = self.game.player_index(action.player)
        kind = "pennies" if isinstance(action, RevealPennies) else "hand"
        if [kind, seat] not in self._to_reveal:
            waiting = ", ".join(f"{k} of {self.game.players[s]}" for k, s in self._to_reveal)
            raise IllegalActionError(f"no {kind} of {action.player} is waiting to be revealed; waiting: {waiting}", "PH-10")
        expected = self._counts[seat] if kind == "hand" else self._pennies[seat]
        if len(action.cards) != expected:
            raise IllegalActionError(f"{action.player}'s {kind} holds {expected} cards, {len(action.cards)} revealed", "G-6")
        shown = pc.multiset(action.cards)
        known = self._known[seat] if kind == "hand" else {}
        missing = pc.minus(known, shown)
        if missing:
            raise IllegalActionError(
                f"{action.player}'s hand must hold {pc.describe(pc.expand(missing))}, which the referee saw go into it", "G-6"
            )
        if kind == "hand":
            threes = [card for card in action.cards if pc.is_red_three(card)]
            if threes:
                raise IllegalActionError(f"{threes[0]}: a red three is laid out at once and never stays in a hand", "PH-6.1")
        unseen = self._unseen()
        for card, count in pc.minus(shown, known).items():
            if unseen.get(card, 0) < count:
                raise IllegalActionError(f"{card}: not {count} of them are unseen, so the reveal is wrong", "G-6")

    # -- applying ------------------------------------------------------------------------

    def _apply(self, action: Action) -> None:
        if isinstance(action, Designate):
            self._dealer = self.game.player_index(action.player)
            self._start_hand()
        elif isinstance(action, Dealt):
            self._deal(action)
        elif isinstance(action, Upcard):
            self._upcard(action.card)
        elif isinstance(action, RedThrees):
            self._lay_out_red_threes(action.cards)
        elif isinstance(action, Draw):
            taken = min(2, self._draw)
            self._draw -= taken
            self._counts[self._turn] += taken
            self._moves = (Move((Item("card"),) * taken, "draw", self._hand_zone(self._turn), "PH-7.1"),)
            self._await_threes(self._turn, taken, 0, "draw")
        elif isinstance(action, TakePile):
            self._take_pile(action)
        elif isinstance(action, (Meld, Add)):
            melds, completes = self._plan_meld(self._groups(action))
            self._put_down(melds, completes, [card for group in self._groups(action) for card in group.cards])
        elif isinstance(action, Bury):
            team = self.game.team_of(self._turn)
            self._take_from_hand(self._turn, action.cards)
            self._buried[team] += list(action.cards)
            self._buried_this_turn = True
            items = tuple(Item("card", card) for card in action.cards)
            self._moves = (Move(items, self._hand_zone(self._turn), f"buried:{self.game.team_name(team)}", "PH-11.2"),)
        elif isinstance(action, Ask):
            self._asked = "asked"
            self._phase_name = "answer"
        elif isinstance(action, Answer):
            self._asked = "yes" if action.yes else "no"
            self._phase_name = "play"
        elif isinstance(action, Discard):
            self._discard(action.card)
            self._end_turn()
        elif isinstance(action, GoOut):
            if action.card is not None:
                self._discard(action.card)
            self._went_out = self._turn
            self._end_hand()
        elif isinstance(action, Reveal):
            self._reveal(action)

    def _hand_zone(self, seat: int) -> str:
        return f"hand:{self.game.players[seat]}"

    def _start_hand(self) -> None:
        self._reset_hand()
        self._hand_no += 1
        self._phase_name = "deal"

    def _deal(self, action: Dealt) -> None:
        """PH-2.2 to PH-2.5: 15-card hands, 11-card Pennies, the rest is the Draw Pile."""
        players = len(self.game.players)
        self._dealt_perfect = [action.dealer, action.partner]
        self._counts = [HAND_SIZE] * players
        self._pennies = [PENNIES_SIZE] * players
        self._draw = self._supply - (HAND_SIZE + PENNIES_SIZE) * players
        self._supply = 0
        hidden = Item("card")
        moves = [Move((hidden,) * HAND_SIZE, "supply", self._hand_zone(s), "PH-2.2") for s in range(players)]
        moves += [Move((hidden,) * PENNIES_SIZE, "supply", f"pennies:{self.game.players[s]}", "PH-2.2") for s in range(players)]
        moves.append(Move((hidden,) * self._draw, "supply", "draw", "PH-2.5"))
        self._moves = tuple(moves)
        self._phase_name = "upcard"

    def _upcard(self, card: str) -> None:
        """PH-2.6, A70: the upcard starts the Discard Pile; then red threes in seat order (PH-2.7)."""
        assert self._dealer is not None
        self._draw -= 1
        self._pile = [card]
        self._pile_red_three = pc.is_red_three(card)
        self._moves = (Move((Item("card", card),), "draw", "discard", "PH-2.6"),)
        players = len(self.game.players)
        self._deal_queue = [(self._dealer + k) % players for k in range(1, players + 1)]
        self._await_threes(self._deal_queue.pop(0), HAND_SIZE, 0, "deal")

    def _await_threes(self, seat: int, fresh: int, owed: int, source: str) -> None:
        self._threes = {"seat": seat, "fresh": fresh, "owed": owed, "source": source}
        self._phase_name = "red-threes"

    def _lay_out_red_threes(self, cards: Sequence[str]) -> None:
        """PH-6.1: lay the red threes out for the team and draw a replacement for each (and for
        the one owed for a pile's bottom red three), while the Draw Pile lasts."""
        seat, source = self._threes["seat"], self._threes["source"]
        team = self.game.team_of(seat)
        self._red_threes[team] += list(cards)
        self._counts[seat] -= len(cards)
        drawn = min(self._threes["owed"] + len(cards), self._draw)
        self._draw -= drawn
        self._counts[seat] += drawn
        moves = []
        if cards:
            area = f"red-threes:{self.game.team_name(team)}"
            moves.append(Move(tuple(Item("card", c) for c in cards), self._hand_zone(seat), area, "PH-6.1"))
        if drawn:
            moves.append(Move((Item("card"),) * drawn, "draw", self._hand_zone(seat), "PH-6.1"))
        self._moves = tuple(moves)
        self._threes = {}
        immediate = self.game.options["ph.draw_exhaustion"] == "immediate"
        if source == "deal":
            if self._deal_queue:
                self._await_threes(self._deal_queue.pop(0), HAND_SIZE, 0, "deal")
            else:
                assert self._dealer is not None
                self._start_turn((self._dealer + 1) % len(self.game.players))
        elif source in ("draw", "pile"):
            if immediate and self._draw == 0:
                self._end_hand()  # A85: the hand ends as soon as the last card is drawn
            else:
                self._phase_name = "play"
        else:
            self._next_turn_or_end()

    def _start_turn(self, seat: int) -> None:
        self._turn = seat
        self._buried_this_turn = False
        self._asked = ""
        self._phase_name = "acquire"

    def _take_pile(self, action: TakePile) -> None:
        """PH-5.3: the melds, then the rest of the pile into the hand, then the bottom red three."""
        seat = self._turn
        team = self.game.team_of(seat)
        melds, completes = self._plan_take_pile(action)
        from_hand = list(action.pair) + [card for group in action.groups for card in group.cards]
        rest = self._pile[:-1]
        self._pile = []
        self._put_down(melds, completes, from_hand)
        moves = list(self._moves)
        bottom_three = self._pile_red_three
        self._pile_red_three = False
        if bottom_three:
            three, rest = rest[0], rest[1:]
            self._red_threes[team].append(three)
            moves.append(Move((Item("card", three),), "discard", f"red-threes:{self.game.team_name(team)}", "PH-5.3"))
        pc.add(self._known[seat], rest)
        self._counts[seat] += len(rest)
        moves.append(Move(tuple(Item("card", c) for c in rest), "discard", self._hand_zone(seat), "PH-5.3"))
        self._moves = tuple(moves)
        if bottom_three and self._draw > 0:
            self._await_threes(seat, 0, 1, "pile")  # PH-6.1: a replacement for the bottom red three
        else:
            self._phase_name = "play"

    def _put_down(self, melds: list[list[str]], completes: bool, cards: Sequence[str]) -> None:
        seat = self._turn
        team = self.game.team_of(seat)
        self._take_from_hand(seat, cards)
        self._melds[team] = melds
        self._opened[team] = True
        if completes and not self._picked[seat]:
            self._pennies_due[seat] = True  # PH-8.2: picked up after this turn's discard
        self._moves = (Move(tuple(Item("card", c) for c in cards), self._hand_zone(seat), f"melds:{self.game.team_name(team)}", "PH-4"),)

    def _discard(self, card: str) -> None:
        self._take_from_hand(self._turn, (card,))
        self._pile.append(card)
        self._moves = (Move((Item("card", card),), self._hand_zone(self._turn), "discard", "PH-7.4"),)

    def _end_turn(self) -> None:
        """PH-7.5: the Pennies pick-up if due (not when the hand ends this turn), then the next turn."""
        seat = self._turn
        if self._draw > 0 and self._pennies_due[seat] and not self._picked[seat]:
            name = self.game.players[seat]
            self._counts[seat] += self._pennies[seat]
            picked = self._pennies[seat]
            self._pennies[seat] = 0
            self._picked[seat] = True
            self._pennies_due[seat] = False
            self._moves += (Move((Item("card"),) * picked, f"pennies:{name}", self._hand_zone(seat), "PH-8.3"),)
            self._await_threes(seat, picked, 0, "pennies")
            return
        self._next_turn_or_end()

    def _next_turn_or_end(self) -> None:
        if self._draw == 0:
            self._end_hand()  # PH-10.1, A85: the Draw Pile ran out during this turn
        else:
            self._start_turn((self._turn + 1) % len(self.game.players))

    def _end_hand(self) -> None:
        """PH-10: reveal what the camera has not seen (hands, Pennies never picked up), then score."""
        self._to_reveal = []
        for seat in range(len(self.game.players)):
            if self._hidden_in_hand(seat) > 0:
                self._to_reveal.append(["hand", seat])
            if self._pennies[seat] > 0:
                self._to_reveal.append(["pennies", seat])
        self._phase_name = "reveal"
        if not self._to_reveal:
            self._score_hand()

    def _reveal(self, action: Reveal) -> None:
        seat = self.game.player_index(action.player)
        if isinstance(action, RevealPennies):
            self._to_reveal.remove(["pennies", seat])
            self._pennies_shown[seat] = pc.sort_cards(action.cards)
            self._pennies[seat] = 0
        else:
            self._to_reveal.remove(["hand", seat])
            self._known[seat] = pc.multiset(action.cards)
        if not self._to_reveal:
            self._score_hand()

    def _score_hand(self) -> None:
        """PH-10.2, PH-10.3 and PH-12: score each team, add to the cumulative scores, end the game
        or pass the deal left."""
        game = self.game
        rules = game.scoring_rules()
        assert self._dealer is not None
        dealing_team = game.team_of(self._dealer)
        entry: dict[str, Any] = {
            "hand": self._hand_no,
            "dealer": game.players[self._dealer],
            "went_out": game.players[self._went_out] if self._went_out is not None else None,
            "ended_by": "going out" if self._went_out is not None else "Draw Pile exhausted",
            "teams": {},
        }
        for team in range(len(self._cumulative)):
            members = game.team_members(team)
            successes = sum(self._dealt_perfect) if team == dealing_team and game.options["ph.dealer_bonus"] else 0
            lines = score_team(
                TeamHand(
                    melds=self._melds[team],
                    red_threes=len(self._red_threes[team]),
                    went_out=self._went_out in members,
                    dealer_successes=successes,
                    hands={game.players[s]: pc.expand(self._known[s]) for s in members},
                    pennies={game.players[s]: list(self._pennies_shown[s]) for s in members if not self._picked[s]},
                ),
                rules,
            )
            self._cumulative[team] += lines["total"]
            lines["cumulative"] = self._cumulative[team]
            lines["next_opening_minimum"] = opening_minimum(self._cumulative[team])
            entry["teams"][game.team_name(team)] = lines
        self._sheet.append(entry)
        target = game.options["ph.game_target"]
        best = max(self._cumulative)
        if best >= target:
            leaders = [team for team, score in enumerate(self._cumulative) if score == best]
            if len(leaders) == 1 or game.options["ph.win_tie"] == "co_winners":
                self._winners = [game.players[s] for team in leaders for s in game.team_members(team)]
                self._phase_name = "over"
                return
        self._dealer = (self._dealer + 1) % len(game.players)
        self._start_hand()

    # -- what the table shows ------------------------------------------------------------

    def zones(self) -> dict[str, tuple[Item, ...]]:
        """Every card of the packs, once: hidden cards as ``Item("card", None)``."""
        hidden = Item("card")
        zones: dict[str, tuple[Item, ...]] = {
            "supply": (hidden,) * self._supply,
            "draw": (hidden,) * self._draw,
            "discard": tuple(Item("card", card) for card in self._pile),
        }
        for seat, name in enumerate(self.game.players):
            known = tuple(Item("card", card) for card in pc.expand(self._known[seat]))
            zones[f"hand:{name}"] = known + (hidden,) * self._hidden_in_hand(seat)
        for seat, name in enumerate(self.game.players):
            shown = tuple(Item("card", card) for card in self._pennies_shown[seat])
            zones[f"pennies:{name}"] = shown + (hidden,) * self._pennies[seat]
        for team in range(len(self._cumulative)):
            name = self.game.team_name(team)
            zones[f"melds:{name}"] = tuple(Item("card", card, f"meld {n}") for n, meld in enumerate(self._melds[team], 1) for card in meld)
            zones[f"red-threes:{name}"] = tuple(Item("card", card) for card in self._red_threes[team])
            zones[f"buried:{name}"] = tuple(Item("card", card) for card in self._buried[team])
        return zones

    def check_invariants(self) -> None:
        """Every card accounted for exactly once (216 or 324), nothing seen twice (G-2, G-6)."""
        total = sum(len(items) for items in self.zones().values())
        assert total == pc.size(self._deck), f"{total} cards on the table, the packs hold {pc.size(self._deck)}"
        visible = self._visible()
        over = {card: n for card, n in visible.items() if n > self._deck.get(card, 0)}
        assert not over, f"more cards seen than the packs hold: {over}"
        hidden = self._supply + self._draw + sum(self._pennies) + sum(self._hidden_in_hand(s) for s in range(len(self._counts)))
        assert hidden == pc.size(self._unseen()), "hidden places hold exactly the unseen cards"
        assert all(count >= 0 for count in self._counts) and self._draw >= 0
        for meld_list in self._melds:
            assert all(3 <= len(meld) <= 7 for meld in meld_list), "melds hold 3 to 7 cards (PH-4.2, PH-4.4)"

    def prompt(self) -> str:
        """What the table must do now."""
        players = self.game.players
        phase = self._phase_name
        if phase == "over":
            return f"Game over after hand {self._hand_no}: {', '.join(self._winners)} win with {max(self._cumulative)}"
        if phase == "designate":
            return "The table: designate the first dealer (designate NAME, A67)"
        assert self._dealer is not None
        dealer = players[self._dealer]
        if phase == "deal":
            partner = players[self.game.partner_of(self._dealer)]
            return (
                f"Hand {self._hand_no}: {dealer} deals {HAND_SIZE}-card hands and {partner} deals {PENNIES_SIZE}-card "
                "Pennies; confirm each perfect deal: dealt yes|no yes|no (PH-2.4)"
            )
        if phase == "upcard":
            return "Turn up the top card of the Draw Pile: upcard CARD (PH-2.6)"
        if phase == "red-threes":
            name = players[self._threes["seat"]]
            return f"{name}: lay out every red three {SOURCE_WORDS[self._threes['source']]} and draw replacements: red-threes CARDS or red-threes none (PH-6.1)"
        name = players[self._turn]
        if phase == "acquire":
            top = self._pile[-1] if self._pile else None
            if top is None or not pc.is_natural(top):
                return f"{name}: draw (the Discard Pile is frozen, PH-5.1)"
            return f"{name}: draw, or take-pile with two natural {pc.rank_of(top)}s (top card {top}, {len(self._pile)} cards)"
        if phase == "play":
            return f"{name} ({self._counts[self._turn]} cards): meld, add, bury or ask, then discard CARD or go-out"
        if phase == "answer":
            return f"{players[self.game.partner_of(self._turn)]}: {name} asks to go out; answer yes|no (PH-9.2)"
        kind, seat = self._to_reveal[0]
        if kind == "hand":
            return f"Hand over: reveal {players[seat]}'s {self._counts[seat]} cards: reveal {players[seat]} CARDS (PH-10)"
        return f"Hand over: reveal {players[seat]}'s Pennies: reveal-pennies {players[seat]} CARDS (PH-8.4)"

    def chance_outcomes(self) -> list[tuple[Action, Fraction]]:
        """The upcard's distribution over the unseen cards; other chance steps are only validated."""
        if self._phase_name != "upcard":
            return []
        unseen = self._unseen()
        total = pc.size(unseen)
        return [(Upcard(card), Fraction(unseen[card], total)) for card in pc.sort_cards(unseen)]

    def awaiting(self) -> dict[str, Any]:
        """The pending step in machine form (for the tablet and simulators)."""
        players = self.game.players
        if self._phase_name == "red-threes":
            return {"step": "red-threes", "player": players[self._threes["seat"]], "source": self._threes["source"],
                    "fresh": self._threes["fresh"], "owed": self._threes["owed"]}
        if self._phase_name == "reveal":
            return {"step": "reveal", "waiting": [[kind, players[seat]] for kind, seat in self._to_reveal]}
        return {"step": self._phase_name}

    def meld_table(self) -> dict[str, list[dict[str, Any]]]:
        """Each team's melds by number, with size and canasta kind."""
        special = self.game.options["ph.special_requires_natural"]
        return {
            self.game.team_name(team): [
                {"number": n, "cards": list(meld), "kind": meld_kind(meld),
                 "canasta": canasta_kind(meld, special) if is_complete(meld) else None}
                for n, meld in enumerate(self._melds[team], 1)
            ]
            for team in range(len(self._melds))
        }

    def view(self) -> dict[str, Any]:
        """The common view plus the card table: melds, counts, the pile, and the score sheet."""
        data = super().view()
        players = self.game.players
        data.update({
            "teams": self.team_scores(),
            "dealer": players[self._dealer] if self._dealer is not None else None,
            "melds": self.meld_table(),
            "red_threes": {self.game.team_name(t): list(c) for t, c in enumerate(self._red_threes)},
            "hand_counts": {name: self._counts[s] for s, name in enumerate(players)},
            "pennies_picked_up": {name: self._picked[s] for s, name in enumerate(players)},
            "draw_count": self._draw,
            "discard_top": self._pile[-1] if self._pile else None,
            "discard_count": len(self._pile),
            "opened": {self.game.team_name(t): o for t, o in enumerate(self._opened)},
            "opening_minimum": {self.game.team_name(t): opening_minimum(s) for t, s in enumerate(self._cumulative)},
            "awaiting": self.awaiting(),
            "score_sheet": self.score_sheet(),
        })
        return data


PenniesFromHeaven.state_class = PenniesState
