"""Checking an action of Pennies From Heaven against the rules (PH-4 to PH-11) and against
the cards the referee has seen (G-6): each check raises the ``IllegalActionError`` that names
the rule, and the meld checks return the team's melds after the action.
"""

from __future__ import annotations

from collections.abc import Sequence

from referee.actions import Action, Designate
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
from referee.games._ph_knowledge import PenniesKnowledge
from referee.games._ph_melds import (
    WILD,
    Group,
    canasta_kinds,
    has_canasta_of,
    incomplete_meld_of,
    is_complete,
    may_go_out_with,
    place_group,
)
from referee.games._ph_scoring import opening_minimum

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


class PenniesChecks(PenniesKnowledge):
    """Why an action is illegal in a game of Pennies From Heaven, if it is."""

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
