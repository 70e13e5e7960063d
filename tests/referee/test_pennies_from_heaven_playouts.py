"""Seeded random playouts of Pennies From Heaven against a simulated real table.

The referee sees only what a camera would (G-6), so a random playout needs a table that knows
the hidden cards: ``TableSim`` shuffles real packs with a seeded rng, deals, holds every hand,
Pennies stack and the Draw Pile, picks random actions a real player could make, and feeds the
referee only what becomes visible. After every action it checks that every card is accounted for
exactly once (216 or 324), that the referee's counts match the real table, that undo restores an
equal state, and (every few actions) that the JSON log replays to an equal state.
"""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from referee import CHANCE, find_game, state_from_json
from referee.actions import Action, Designate
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
from referee.games._ph_melds import Group
from referee.games.pennies_from_heaven import PenniesState
from tests.referee.conformance import check_state

NAMES = ("Ann", "Bo", "Cy", "Di", "Ed", "Flo")


class TableSim:
    """A real table: the true cards, a random policy, and a referee fed what is visible."""

    def __init__(self, players: int, seed: int, options: dict[str, object] | None = None, json_every: int = 15) -> None:
        self.game = find_game("pennies-from-heaven")(list(NAMES[:players]), options or {})
        self.state = self.game.new_state()
        assert isinstance(self.state, PenniesState)
        self.rng = random.Random(seed)
        self.players = players
        self.hands: list[list[str]] = [[] for _ in range(players)]
        self.pennies: list[list[str]] = [[] for _ in range(players)]
        self.draw: list[str] = []
        self.json_every = json_every
        self.steps = 0
        self.log: list[str] = []
        self.stats: Counter[str] = Counter()

    # -- feeding the referee -------------------------------------------------------------

    def feed(self, action: Action) -> None:
        """Apply an action the real table made, checking the contract around it."""
        state = self.state
        error = state.why_illegal(action)
        assert error is None, f"the referee refused a real action {action}: {error}"
        assert self.game.parse_action(str(action)) == action, f"{action} parses back"
        before = state.copy()
        state.apply(action)
        self.log.append(str(action))
        self.stats[action.verb] += 1
        after = state.copy()
        assert state.undo() == action
        assert state == before, f"undo of {action} restores an equal state"
        state.apply(action)
        assert state == after
        self.steps += 1
        if self.steps % 20 == 0:
            self.check_listed_options()
        if self.steps % self.json_every == 0:
            again = state_from_json(json.loads(json.dumps(state.to_json())))
            assert again == state, "JSON round-trips to an equal state"

    def check_listed_options(self) -> None:
        """Every listed legal action parses back, has a label, and applies (on a copy)."""
        state = self.state
        legal = state.legal_actions()
        assert len(set(legal)) == len(legal), "legal actions are listed once each"
        if state.current_player() != CHANCE:
            assert [o.action for o in state.options()] == legal and all(o.label for o in state.options())
        for action in legal:
            assert self.game.parse_action(str(action)) == action, f"{action} parses back"
        if legal:
            trial = state.copy()
            trial.apply(self.rng.choice(legal))
            trial.check_invariants()

    def check(self) -> None:
        """Conservation, the common contract, and the referee's counts against the real table."""
        state = self.state
        check_state(state)
        total = sum(len(items) for items in state.zones().values())
        assert total == 54 * self.players, f"{total} cards accounted for, not {54 * self.players}"
        if state.phase() in ("designate", "deal") or state.is_terminal():
            return
        view = state.view()
        assert view["draw_count"] == len(self.draw), "Draw Pile count"
        for seat, name in enumerate(self.game.players):
            if state.phase() != "deal":
                assert view["hand_counts"][name] == len(self.hands[seat]), f"{name}'s hand count"
            known = Counter(item.value for item in state.zones()[f"hand:{name}"] if item.value is not None)
            assert not known - Counter(self.hands[seat]), f"{name}'s known cards are really in the hand"

    # -- the physical table ---------------------------------------------------------------

    def deal(self) -> None:
        cards = pc.expand(pc.deck(self.players))
        self.rng.shuffle(cards)
        dealer = self.game.player_index(self.state.view()["dealer"])
        self.hands = [[] for _ in range(self.players)]
        self.pennies = [[] for _ in range(self.players)]
        for k in range(1, self.players + 1):
            seat = (dealer + k) % self.players
            self.hands[seat] = [cards.pop() for _ in range(15)]
        for k in range(1, self.players + 1):
            seat = (dealer + k) % self.players
            self.pennies[seat] = [cards.pop() for _ in range(11)]
        self.draw = cards
        self.feed(Dealt(self.rng.random() < 0.5, self.rng.random() < 0.5))

    def lay_out_red_threes(self) -> None:
        """PH-6.1 at the real table: lay out every red three in the hand, replace, repeat."""
        awaiting = self.state.view()["awaiting"]
        seat = self.game.player_index(awaiting["player"])
        hand = self.hands[seat]
        laid = [card for card in hand if pc.is_red_three(card)]
        for card in laid:
            hand.remove(card)
        owed = awaiting["owed"] + len(laid)
        while owed > 0 and self.draw:
            card = self.draw.pop()
            owed -= 1
            if pc.is_red_three(card):
                laid.append(card)
                owed += 1
            else:
                hand.append(card)
        self.feed(RedThrees(tuple(sorted(laid))))

    def reveal(self) -> None:
        kind, name = self.state.view()["awaiting"]["waiting"][0]
        seat = self.game.player_index(name)
        if kind == "hand":
            self.feed(Reveal(name, tuple(pc.sort_cards(self.hands[seat]))))
        else:
            self.feed(RevealPennies(name, tuple(pc.sort_cards(self.pennies[seat]))))

    # -- a random player ------------------------------------------------------------------

    def team_melds(self, seat: int) -> list[dict[str, object]]:
        return self.state.meld_table()[self.game.team_name(self.game.team_of(seat))]

    def opened(self, seat: int) -> bool:
        return bool(self.state.view()["opened"][self.game.team_name(self.game.team_of(seat))])

    def natural_groups(self, hand: list[str], skip: set[str]) -> list[Group]:
        by_rank: dict[str, list[str]] = {}
        for card in hand:
            if pc.is_natural(card) and pc.rank_of(card) not in skip:
                by_rank.setdefault(pc.rank_of(card), []).append(card)
        return [Group(None, tuple(cards[:7])) for cards in by_rank.values() if len(cards) >= 3]

    def acquire(self, seat: int) -> None:
        pile = [item.value for item in self.state.zones()["discard"]]
        hand = self.hands[seat]
        top = pile[-1] if pile else None
        if top is not None and pc.is_natural(top) and self.rng.random() < 0.85:
            rank = pc.rank_of(top)
            naturals = [card for card in hand if pc.is_natural(card) and pc.rank_of(card) == rank]
            if len(naturals) >= 2:
                pair = (naturals[0], naturals[1])
                rest = list(hand)
                rest.remove(pair[0])
                rest.remove(pair[1])
                groups: list[Group] = []
                for meld in self.team_melds(seat):
                    if meld["kind"] == rank and meld["canasta"] is None and len(meld["cards"]) in (5, 6):
                        need = 7 - len(meld["cards"])
                        fill = [c for c in rest if pc.is_natural(c) and pc.rank_of(c) == rank][:need]
                        fill += [c for c in rest if pc.is_wild(c)][: need - len(fill)]
                        for card in fill:
                            rest.remove(card)
                        groups.append(Group(int(meld["number"]), tuple(fill)))
                if not self.opened(seat):
                    for group in self.natural_groups(rest, {rank}):
                        groups.append(group)
                action = TakePile(pair, tuple(groups))
                if self.state.why_illegal(action) is None:
                    self.take_pile(seat, action, pile)
                    return
        self.feed(Draw())
        for _ in range(min(2, len(self.draw))):
            hand.append(self.draw.pop())

    def take_pile(self, seat: int, action: TakePile, pile: list[str]) -> None:
        hand = self.hands[seat]
        for card in list(action.pair) + [c for g in action.groups for c in g.cards]:
            hand.remove(card)
        rest = pile[:-1]
        if rest and pc.is_red_three(rest[0]):
            rest = rest[1:]  # the initial red three goes to the team (PH-5.3)
        hand += rest
        self.feed(action)
        self.stats["pile cards taken"] += len(rest) + 1

    def meld_candidates(self, seat: int) -> list[Action]:
        hand = self.hands[seat]
        melds = self.team_melds(seat)
        wilds = [card for card in hand if pc.is_wild(card)]
        if not self.opened(seat):
            groups = self.natural_groups(hand, set())
            self.rng.shuffle(groups)
            candidates: list[Action] = []
            if groups:
                candidates.append(Meld(tuple(groups)))
                if wilds:
                    pairs = [c for c in hand if pc.is_natural(c) and sum(pc.rank_of(x) == pc.rank_of(c) for x in hand) == 2]
                    if pairs:
                        rank = pc.rank_of(pairs[0])
                        mixed = Group(None, tuple([c for c in hand if pc.is_natural(c) and pc.rank_of(c) == rank] + wilds[:1]))
                        candidates.append(Meld(tuple(groups) + (mixed,)))
            return candidates
        open_ranks = {m["kind"] for m in melds if m["canasta"] is None}
        candidates = [Meld((group,)) for group in self.natural_groups(hand, open_ranks)]
        for meld in melds:
            if meld["canasta"] is not None:
                buriable = [c for c in hand if pc.is_natural(c) and pc.rank_of(c) == meld["kind"]]
                if buriable and self.rng.random() < 0.4:
                    candidates.append(Bury((buriable[0],)))
                continue
            room = 7 - len(meld["cards"])
            same = [c for c in hand if pc.is_natural(c) and pc.rank_of(c) == meld["kind"]]
            if same:
                candidates.append(Add(int(meld["number"]), tuple(same[:room])))
            if wilds:
                candidates.append(Add(int(meld["number"]), (wilds[0],)))
        if len(wilds) >= 3:
            candidates.append(Meld((Group(None, tuple(wilds[:3])),)))
        return candidates

    def go_out_plan(self, seat: int) -> list[Action] | None:
        """Actions that go out from here, tried on a copy of the referee."""
        hand = self.hands[seat]
        if len(hand) == 0:
            return [GoOut()] if self.state.why_illegal(GoOut()) is None else None
        if len(hand) == 1:
            return [GoOut(hand[0])] if self.state.why_illegal(GoOut(hand[0])) is None else None
        if len(hand) != 2:
            return None
        for index, card in enumerate(hand):
            other = hand[1 - index]
            for meld in self.team_melds(seat):
                add = Add(int(meld["number"]), (card,))
                if self.state.why_illegal(add) is None:
                    trial = self.state.copy()
                    trial.apply(add)
                    if trial.why_illegal(GoOut(other)) is None:
                        return [add, GoOut(other)]
        return None

    def play(self, seat: int) -> None:
        hand = self.hands[seat]
        for _ in range(6):
            candidates = self.meld_candidates(seat)
            self.rng.shuffle(candidates)
            legal = [a for a in candidates if self.state.why_illegal(a) is None]
            if not legal or self.rng.random() < 0.15:
                break
            action = legal[0]
            for card in action.cards if isinstance(action, (Add, Bury)) else [c for g in action.groups for c in g.cards]:  # type: ignore[attr-defined]
                hand.remove(card)
            self.feed(action)
            if self.state.phase() != "play":
                return
        plan = self.go_out_plan(seat)
        if plan is not None and self.state.view()["awaiting"]["step"] == "play":
            if len(hand) >= 2 and self.state.why_illegal(Ask()) is None and self.rng.random() < 0.5:
                self.feed(Ask())
                self.feed(Answer(self.rng.random() < 0.7))
                if self.state._asked == "no":
                    plan = None
            if plan is not None:
                for action in plan:
                    for card in action.cards if isinstance(action, Add) else ([action.card] if action.card else []):  # type: ignore[attr-defined]
                        hand.remove(card)
                    self.feed(action)
                return
        choices = sorted(hand, key=lambda c: (pc.is_wild(c), self.rng.random()))
        for card in choices:
            if self.state.why_illegal(Discard(card)) is None:
                hand.remove(card)
                self.feed(Discard(card))
                break
        else:
            raise AssertionError(f"no legal discard from {hand}: {self.state.why_illegal(Discard(hand[0]))}")
        awaiting = self.state.view()["awaiting"]
        if awaiting["step"] == "red-threes" and awaiting["source"] == "pennies":
            hand += self.pennies[seat]
            self.pennies[seat] = []
            self.stats["pennies picked up"] += 1

    def run(self, hands: int = 1, max_steps: int = 5000) -> PenniesState:
        """Play ``hands`` whole hands (or to the end of the game)."""
        state = self.state
        self.check()
        while not state.is_terminal() and self.steps < max_steps:
            if state.round() > hands:
                break
            phase = state.phase()
            if phase == "designate":
                self.feed(Designate(self.rng.choice(self.game.players)))
            elif phase == "deal":
                if state.round() > hands:
                    break
                self.deal()
            elif phase == "upcard":
                card = self.draw.pop()
                self.feed(Upcard(card))
            elif phase == "red-threes":
                self.lay_out_red_threes()
            elif phase == "reveal":
                self.reveal()
            elif phase == "answer":
                self.feed(Answer(self.rng.random() < 0.5))
            else:
                seat = state.current_player()
                assert seat != CHANCE and seat >= 0
                if phase == "acquire":
                    self.acquire(seat)
                else:
                    self.play(seat)
            self.check()
        again = state_from_json(json.loads(json.dumps(state.to_json())))
        assert again == state
        return state


def _scored_hands(state: PenniesState) -> int:
    return len(state.score_sheet())


@pytest.mark.parametrize("players,seed", [(4, 1), (4, 2), (6, 3)])
def test_whole_hand_playout_conserves_cards_and_round_trips(players: int, seed: int) -> None:
    """PH-1.2 / G-6: a whole hand of random legal play; every card accounted for after every
    action (216 or 324), undo restores an equal state, JSON round-trips."""
    sim = TableSim(players, seed)
    state = sim.run(hands=1)
    assert _scored_hands(state) == 1, "the hand was played to its score"
    sheet = state.score_sheet()[0]
    assert set(sheet["teams"]) == {state.game.team_name(t) for t in range(players // 2)}
    for lines in sheet["teams"].values():
        assert lines["total"] == (
            lines["canasta_points"] + lines["melded_cards"]["points"] + lines["red_threes"]["points"]
            + lines["going_out"] + lines["dealer_bonus"] + lines["penalties"]
        )
    assert sim.stats["draw"] > 10 and sim.stats["discard"] > 10


def test_playouts_reach_pile_takes_canastas_and_pennies() -> None:
    """The random table really exercises taking the pile, canastas and the Pennies pick-up."""
    totals: Counter[str] = Counter()
    canastas = 0
    for seed in (11, 12):
        sim = TableSim(4, seed, json_every=60)
        state = sim.run(hands=1)
        totals += sim.stats
        canastas += sum(
            line["count"] for team in state.score_sheet()[0]["teams"].values() for line in team["canastas"].values()
        )
    assert totals["take-pile"] > 0, totals
    assert canastas > 0
    assert totals["pennies picked up"] > 0, totals


def test_short_game_to_a_low_target_ends_with_winners() -> None:
    """PH-12: with ph.game_target low, the game ends after a hand and names the winning team."""
    sim = TableSim(4, 5, {"ph.game_target": 1}, json_every=80)
    state = sim.run(hands=4)
    if state.is_terminal():
        best = max(state.team_scores().values())
        assert best >= 1
        winners = set(state.winners())
        assert {state.scores()[name] for name in winners} == {best}
        assert state.legal_actions() == []
    else:
        assert all(score < 1 for score in state.team_scores().values())
