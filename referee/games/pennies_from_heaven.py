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

This module registers the game and holds the state machine (whose turn, the legal actions,
applying them, scoring a hand). Its helpers: ``_ph_game`` (the game, its options and
partnerships), ``_ph_knowledge`` (the state's fields: what the referee has seen),
``_ph_checks`` (why an action is illegal), ``_ph_view`` (the tablet's words and view), and
``_ph_cards``, ``_ph_melds``, ``_ph_actions``, ``_ph_scoring``.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from fractions import Fraction
from typing import Any

from referee.actions import Action, Designate
from referee.core import CHANCE, TABLE, Outcome, Termination, register_game
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
from referee.games._ph_checks import PenniesChecks
from referee.games._ph_game import HAND_SIZE, PENNIES_SIZE, PenniesFromHeaven
from referee.games._ph_melds import is_complete, meld_kind
from referee.games._ph_scoring import TeamHand, opening_minimum, score_team
from referee.games._ph_view import PenniesObserver
from referee.table import Item, Move

__all__ = ["PenniesFromHeaven", "PenniesState"]

register_game(PenniesFromHeaven)


class PenniesState(PenniesChecks, PenniesObserver):
    """A game of Pennies From Heaven in play (see the module docstring for the steps): the state
    machine over what the referee knows (``PenniesKnowledge``), checked by ``PenniesChecks``
    and shown by ``PenniesObserver``."""

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

    def _take_from_hand(self, seat: int, cards: Iterable[str]) -> None:
        for card in cards:
            pc.remove(self._known[seat], card)
            self._counts[seat] -= 1

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

    def chance_outcomes(self) -> list[tuple[Action, Fraction]]:
        """The upcard's distribution over the unseen cards; other chance steps are only validated."""
        if self._phase_name != "upcard":
            return []
        unseen = self._unseen()
        total = pc.size(unseen)
        return [(Upcard(card), Fraction(unseen[card], total)) for card in pc.sort_cards(unseen)]


PenniesFromHeaven.state_class = PenniesState
