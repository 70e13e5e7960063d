"""The tablet's words and view of a game of Pennies From Heaven (OpenSpiel's observer split):
the prompt, each option's label, the pending step, the melds, and the card table with the
score sheet. It reads the state and changes nothing.
"""

from __future__ import annotations

from typing import Any

from referee.actions import Action, Designate
from referee.games import _ph_cards as pc
from referee.games._ph_actions import Add, Answer, Ask, Bury, Dealt, Discard, Draw, GoOut, TakePile
from referee.games._ph_game import HAND_SIZE, PENNIES_SIZE
from referee.games._ph_knowledge import PenniesKnowledge
from referee.games._ph_melds import canasta_kind, is_complete, meld_kind
from referee.games._ph_scoring import opening_minimum

SOURCE_WORDS = {
    "deal": "from the dealt hand",
    "draw": "from the cards just drawn",
    "pile": "replacing the red three at the bottom of the pile",
    "pennies": "from the Pennies just picked up",
}


class PenniesObserver(PenniesKnowledge):
    """What the tablet shows of a game of Pennies From Heaven in play."""

    def team_scores(self) -> dict[str, int]:
        """Each team's cumulative score, by team name."""
        return {self.game.team_name(team): score for team, score in enumerate(self._cumulative)}

    def score_sheet(self) -> list[dict[str, Any]]:
        """One entry per scored hand: the dealer, how it ended, and every line of each team."""
        return [dict(entry) for entry in self._sheet]

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
