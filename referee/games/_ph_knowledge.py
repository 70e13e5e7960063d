"""What the referee knows of a game of Pennies From Heaven in play (G-6, A91): every card on
the table, and for each hand how many cards it holds and which of them are known; so what
cards are still unseen, and whether a hand can hold the cards a player plays.

The state's fields and the reads over them, shared by the checks
(:mod:`referee.games._ph_checks`), the tablet's words (:mod:`referee.games._ph_view`) and
the state machine (:mod:`referee.games.pennies_from_heaven`).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

from referee.core import Game, State
from referee.errors import IllegalActionError
from referee.games import _ph_cards as pc
from referee.games._ph_game import PenniesFromHeaven
from referee.table import Item


class PenniesKnowledge(State):
    """The cards of a game of Pennies From Heaven as the referee has seen them."""

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

    def _red_threes_out(self) -> int:
        return sum(len(cards) for cards in self._red_threes)

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
