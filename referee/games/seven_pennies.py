"""Seven Pennies (RULES.md §1): the base game, T.K.O. (SPT) and the dice variant (SPD).

Pennies are modelled as two-faced dice (SPD-5.3: heads 1, tails 2, a pair sums to 3), so one
state machine covers pennies and dice of any number of faces:

``designate`` (the table, G-5) -> ``throw`` (CHANCE, SP-3.1) -> Booth (FORCED, SP-3.2) ->
``decide`` (Gather or Cancel, SP-3.4) -> [``pay``: the canceller names the payer, A10/A30] ->
end of turn, round and game (CHECK and FORCED, SP-3.7, SP-4, SP-5, SPT-5).

Every FORCED step (the Booth, leftovers, penalties, round scoring, nickels, elimination) is
applied inside the action before it and recorded as a ``Move`` (RULES.md 0.25).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from referee.actions import Action, Cancel, DiceThrow, Designate, Gather, Pay, PennyThrow, parse_action
from referee.core import CHANCE, TABLE, Game, Outcome, State, Termination, register_game
from referee.errors import IllegalActionError
from referee.games._seven_pennies_chance import (
    HEADS,
    booth,
    complement,
    dice_multisets,
    dice_outcomes,
    multiset_count,
    penny_outcomes,
    sample_dice,
    sample_pennies,
)
from referee.games._seven_pennies_options import SEVEN_PENNIES_OPTIONS
from referee.games._seven_pennies_text import chance_error, decision_error, label_text
from referee.table import Item, Move, player_zone, sorted_items

START_NICKELS = 3
"""Nickels each player starts a T.K.O. game with (SPT-1)."""
LISTED_OUTCOMES_MAX = 1000
"""``legal_actions()`` at a dice throw lists the outcomes only up to this many multisets."""


class SevenPenniesGame(Game):
    """Seven Pennies for two or more players, with pennies or dice, optionally T.K.O.

    :raises ConfigError: for fewer than two players or a bad option.
    """

    name = "seven-pennies"
    title = "Seven Pennies"
    min_players = 2
    max_players = None
    option_specs = SEVEN_PENNIES_OPTIONS
    action_types = (Designate, PennyThrow, DiceThrow, Gather, Cancel, Pay)

    def __init__(self, players: Sequence[str], options: Mapping[str, Any] | None = None) -> None:
        super().__init__(players, options)
        opts = self.options
        count = len(self.players)
        self.dice: bool = bool(opts["spd.enabled"])
        """Whether the dice variant is played (SPD)."""
        self.faces: int = int(opts["spd.faces"]) if self.dice else 2
        """``S``: faces of a die; 2 for pennies (SPD-5.3)."""
        self.coin_count: int = 3 + 2 * count if opts["sp.coin_count"] == "3+2P" else int(opts["sp.coin_count"])
        """``N``: pennies or dice in play (SP-1.2, A2)."""
        self.target: int = 10 * count
        """Points that end the game (SP-1.5)."""
        self.tko: bool = bool(opts["spt.enabled"])
        """Whether T.K.O. is played (SPT)."""
        optional = self.dice or bool(opts["spd.optional_rules_for_pennies"])
        self.forced_self_cancel: bool = optional and bool(opts["spd.opt_forced_self_cancel"])
        """Whether SPD-6.1 applies (A32, A34)."""
        self.extra_turn: bool = optional and bool(opts["spd.opt_extra_turn"])
        """Whether SPD-6.2 applies (A33, A34)."""
        self.stay_in_theatre: bool = self.dice and opts["spd.leftovers"] == "stay_in_theatre"
        """Whether leftover dice stay in the Theatre (A29)."""
        self.choose_amount: bool = self.dice and opts["spd.cancel_amount"] == "choose"
        """Whether a dice Cancel may move fewer than all the dice of its number (A28)."""
        self.kind: str = f"d{self.faces}" if self.dice else "penny"
        """The ``Item.kind`` of the objects thrown."""
        self.throw_type: type[Action] = DiceThrow if self.dice else PennyThrow
        """The throw action this configuration reads."""

    def parse_action(self, text: str) -> Action:
        """Parse an action; ``throw`` reads dice faces or penny counts as configured.

        :raises InvalidActionError: for text that is no action of this game.
        """
        other = PennyThrow if self.dice else DiceThrow
        return parse_action(text, tuple(t for t in self.action_types if t is not other))

    def item(self, value: int | None) -> Item:
        """A penny or die showing ``value`` (``None``: lying in the Balcony, facing irrelevant)."""
        if value is None:
            return Item(self.kind)
        if self.dice:
            return Item(self.kind, value)
        return Item("penny", "heads" if value == HEADS else "tails")

    def describe(self, value: int, count: int) -> str:
        """``"3 heads"``, ``"2 dice showing 4"``."""
        return self.item(value).describe(count)

    def plural(self, value: int) -> str:
        """A value's plural name: ``heads``, ``tails``, ``4s``."""
        if self.dice:
            return f"{value}s"
        return "heads" if value == HEADS else "tails"

    def objects(self, count: int) -> str:
        """``"1 penny"``, ``"2 pennies"``, ``"1 die"``, ``"3 dice"``."""
        return self.item(None).describe(count)

    def read_face(self, face: int) -> int:
        """A die face as the rules read it: a printed 0 counts as ``spd.zero_face_as`` (A25)."""
        return int(self.options["spd.zero_face_as"]) if face == 0 else face


class SevenPenniesState(State):
    """A game of Seven Pennies in play (see the module docstring for the state machine)."""

    game: SevenPenniesGame

    def __init__(self, game: SevenPenniesGame) -> None:
        super().__init__(game)
        seats = len(game.players)
        self._step = "designate"
        self._round = 1
        self._turns = 0
        """Turns taken in this round (SP-2 ``turn_no`` - 1)."""
        self._cur = 0
        self._first = 0
        self._starter = 0
        self._balcony = game.coin_count
        self._theatre = [0] * game.faces
        """Counts per value (value - 1) lying in the Theatre."""
        self._held = [0] * seats
        self._held_value: list[int | None] = [None] * seats
        self._points = [0] * seats
        self._nickels = [START_NICKELS if game.tko else 0] * seats
        self._active = [True] * seats
        self._thrown = 0
        self._pairs = 0
        self._last_canceled: int | None = None
        self._pending: tuple[int, int, tuple[int, ...]] | None = None
        """While the canceller names a payer: (value canceled, k, the seats to choose from)."""
        self._over: tuple[str, tuple[str, ...]] | None = None

    # -- snapshots for undo --------------------------------------------------------------------

    def _snapshot(self) -> dict[str, Any]:
        # Every attribute is an int, a str, a tuple of immutable values (Moves, Items are frozen)
        # or a flat list of ints/None, so copying the lists is a full copy, many times cheaper
        # than the base class's deepcopy (conformance playouts snapshot thousands of times).
        return {k: list(v) if isinstance(v, list) else v for k, v in vars(self).items() if k not in ("game", "_history")}

    def _restore(self, snapshot: dict[str, Any]) -> None:
        vars(self).update({k: list(v) if isinstance(v, list) else v for k, v in snapshot.items()})

    # -- the turn --------------------------------------------------------------------------

    def _current_player(self) -> int:
        return {"designate": TABLE, "throw": CHANCE}.get(self._step, self._cur)

    def _phase(self) -> str:
        return self._step

    def round(self) -> int:
        """The round in play, from 1."""
        return self._round

    def outcome(self) -> Outcome | None:
        """How the game ended (SP-5, SPT-5), or ``None``."""
        if self._over is None:
            return None
        return Outcome(Termination(self._over[0]), self._over[1])

    def scores(self) -> dict[str, int]:
        """Points (SP-4.2), or nickels under T.K.O. (SPT-2)."""
        values = self._nickels if self.game.tko else self._points
        return dict(zip(self.game.players, values))

    def holdings(self) -> dict[str, tuple[int, int | None]]:
        """Each player's Gathered ``(count, value)`` (value 1 heads, 2 tails for pennies)."""
        return {name: (self._held[j], self._held_value[j]) for j, name in enumerate(self.game.players)}

    def balcony(self) -> int:
        """How many pennies or dice lie in the Balcony."""
        return self._balcony

    def theatre(self) -> dict[int, int]:
        """The Theatre as ``{value: count}`` for the values present."""
        return {v + 1: c for v, c in enumerate(self._theatre) if c}

    def active_players(self) -> list[str]:
        """The players still in the game (T.K.O. eliminates, SPT-5)."""
        return [name for j, name in enumerate(self.game.players) if self._active[j]]

    def warnings(self) -> list[str]:
        """Advice that changes no ruling: the ``sp.max_turns_per_round`` safeguard (SP-5.3, A17)."""
        limit = self.game.options["sp.max_turns_per_round"]
        if limit != "off" and not self.is_terminal() and self._turns >= int(limit):
            return [f"SP-5.3: this round has lasted {self._turns} turns (sp.max_turns_per_round = {limit}); "
                    "the rules set no limit, play goes on"]
        return []

    def invalid_throw_instruction(self) -> str:
        """What the table does after an invalid throw (G-3, A1, ``g.invalid_throw``)."""
        noun = "dice" if self.game.dice else "pennies"
        if self.game.options["g.invalid_throw"] == "rethrow_offending":
            return f"Throw again only the {noun} that left the Theatre or did not land flat (A1)"
        return f"Pick up all the {noun} of the throw and throw them all again (A1)"

    # -- legal actions ---------------------------------------------------------------------

    def _legal_actions(self) -> list[Action]:
        if self._step == "designate":
            return [Designate(name) for name in self.game.players]
        if self._step == "throw":
            count = self._to_throw()
            if self.game.dice and multiset_count(count, self.game.faces) > LISTED_OUTCOMES_MAX:
                return []
            if self.game.dice:
                return [DiceThrow(values) for values in dice_multisets(count, self.game.faces)]
            return [PennyThrow(h, count - h) for h in range(count + 1)]
        if self._step == "pay":
            assert self._pending is not None
            return [Pay(self.game.players[j]) for j in self._pending[2]]
        return self._decisions()

    def _decisions(self) -> list[Action]:
        """The DECIDE options of the current player (SP-3.4, SPD-5, SPD-6.1)."""
        i = self._cur
        forced = self._forced_cancel()
        values = [v for v in range(1, self.game.faces + 1) if self._theatre[v - 1]]
        actions: list[Action] = []
        if not self.game.dice:
            if forced is None and (self._held[i] == 0 or self._held_value[i] == values[0]):
                actions.append(Gather())
            actions.append(Cancel())
            return actions
        if forced is None:
            held = self._held_value[i]
            actions += [Gather(v) for v in values if self._held[i] == 0 or v == held]
        for v in [forced] if forced is not None else values:
            actions.append(Cancel(v))
            if self.game.choose_amount and forced is None:
                actions += [Cancel(v, c) for c in range(1, self._theatre[v - 1])]
        return actions

    def _forced_cancel(self) -> int | None:
        """The value SPD-6.1 forces the current player to cancel, or ``None`` (A32)."""
        i = self._cur
        value = self._held_value[i]
        if not self.game.forced_self_cancel or value is None:
            return None
        target = complement(value, self.game.faces)
        return target if self._theatre[target - 1] else None

    def chance_zones(self) -> tuple[str, ...]:
        """A throw takes the Balcony's pennies (or dice) into the Theatre (SP-3.1)."""
        return ("theatre", "balcony") if self._step == "throw" else ()

    def chance_from_table(self, observed: Mapping[str, Sequence[Item]]) -> Action:
        """The throw the camera saw: the faces of everything lying in the Theatre (SP-3.1, SPD-3).

        :raises IllegalActionError: when the Theatre does not hold every object thrown.
        """
        game = self.game
        theatre = list(observed.get("theatre", ()))
        expected = self._to_throw()
        if len(theatre) != expected or any(item.kind != game.kind for item in theatre):
            who = game.players[self._cur]
            kinds = {item.kind for item in theatre} - {game.kind}
            extra = f" and {', '.join(sorted(kinds))} do not belong to this game" if kinds else ""
            raise IllegalActionError(
                f"{who} throws {game.objects(expected)}, but {len(theatre)} lie in the Theatre{extra}", "SP-3.1"
            )
        if game.dice:
            return DiceThrow(tuple(sorted(int(item.value) for item in theatre if item.value is not None)))
        heads = sum(1 for item in theatre if item.value == "heads")
        return PennyThrow(heads, len(theatre) - heads)

    def _to_throw(self) -> int:
        """How many objects the next throw must show: the Balcony, plus the Theatre under A29 (b)."""
        return self._balcony + sum(self._theatre)

    # -- applying ----------------------------------------------------------------------------

    def _apply(self, action: Action) -> None:
        if isinstance(action, Designate):
            self._first = self._starter = self._cur = self.game.player_index(action.player)
            self._step = "throw"
        elif isinstance(action, (PennyThrow, DiceThrow)):
            self._apply_throw(action)
        elif isinstance(action, Gather):
            self._apply_gather(self._value_of(action.number))
        elif isinstance(action, Cancel):
            value = self._value_of(action.number)
            self._apply_cancel(value, action.count or self._theatre[value - 1])
        elif isinstance(action, Pay):
            assert self._pending is not None
            _, k, _ = self._pending
            self._pending = None
            self._finish_cancel([self.game.player_index(action.player)], k)
        else:  # pragma: no cover - why_illegal refuses every other type
            raise AssertionError(action)

    def _value_of(self, number: int | None) -> int:
        """The value a Gather or Cancel takes: the number named, or the pennies' one facing."""
        if number is not None:
            return number
        return next(v for v in range(1, self.game.faces + 1) if self._theatre[v - 1])

    def _apply_throw(self, action: PennyThrow | DiceThrow) -> None:
        """SP-3.1 THROW then SP-3.2 / SPD-4 BOOTH; a booth-out ends the turn (SP-3.3, SPT-3.1)."""
        counts = [0] * self.game.faces
        if isinstance(action, PennyThrow):
            counts = [action.heads, action.tails]
        else:
            for face in action.faces:
                counts[self.game.read_face(face) - 1] += 1
        self._thrown = sum(counts)
        left, removed, self._pairs = booth(counts)
        self._theatre = left
        self._balcony = sum(removed)
        if self._pairs:
            items = [self.game.item(v + 1) for v, c in enumerate(removed) for _ in range(c)]
            self._move(items, "theatre", "balcony", "SPD-4" if self.game.dice else "SP-3.2")
        if sum(left):
            self._step = "decide"
            return
        if self.game.tko:  # SP-3.3 booth-out: SPT-3.1 costs the thrower a nickel
            before = list(self._nickels)
            self._lose_nickel(self._cur, "SPT-3.1")
            if self._check_tko_end(before):
                return
        self._end_turn(extra=False)

    def _apply_gather(self, value: int) -> None:
        """SP-3.5 / SPD-5 GATHER: every penny or die of ``value`` to the player's Gathered zone."""
        i = self._cur
        k = self._theatre[value - 1]
        clean = self._pairs == 0 and k == self._thrown
        self._theatre[value - 1] = 0
        self._held[i] += k
        self._held_value[i] = value
        self._move([self.game.item(value)] * k, "theatre", self._gathered(i), "SPD-5" if self.game.dice else "SP-3.5")
        self._leftovers()
        gain = self.game.options["spt.gain_rule"] == "any_gather" or clean
        if self.game.tko and gain and self._active[i]:
            self._nickels[i] += 1
            self._move([Item("nickel")], "supply", player_zone("nickels", self.game.players[i]), "SPT-3.3")
        # SPD-6.2: a Gather is always chosen while Cancel is legal too, so it earns the extra turn.
        self._end_turn(extra=self.game.extra_turn)

    def _apply_cancel(self, value: int, k: int) -> None:
        """SP-3.6.1 / SPD-5 CANCEL: ``k`` objects of ``value`` to the Balcony, then the penalty."""
        i = self._cur
        payers, choice = self._cancel_payers(value)  # before the Theatre changes (SPD-6.1 looks at it)
        self._theatre[value - 1] -= k
        self._balcony += k
        self._last_canceled = value
        self._move([self.game.item(value)] * k, "theatre", "balcony", "SPD-5" if self.game.dice else "SP-3.6.1")
        if choice:
            self._pending = (value, k, tuple(choice))
            self._step = "pay"
            return
        self._finish_cancel(payers, k, canceller=i)

    def _cancel_payers(self, value: int) -> tuple[list[int], list[int]]:
        """Who pays for a Cancel of ``value``: ``(payers, [])``, or ``([], seats)`` when the
        canceller must name one of ``seats`` (SP-3.6.2-3.6.4, SPD-5, SPD-6.1)."""
        i = self._cur
        if self._forced_cancel() == value:  # SPD-6.1: the player designated is the canceller
            return [i], []
        opposite = complement(value, self.game.faces)
        opts = self.game.options
        if self.game.dice:
            self_ok = opts["spd.self_designation"] == "allowed"
        else:
            self_ok = bool(opts["sp.penalty_includes_canceller"])
        seats = len(self.game.players)
        order = [(i + step) % seats for step in range(1, seats + 1)]  # going left, canceller last
        holders = [
            j for j in order
            if self._active[j] and self._held[j] and self._held_value[j] == opposite and (j != i or self_ok)
        ]
        if len(holders) <= 1:
            return holders, []
        if self.game.dice:  # A30: the canceller designates exactly one eligible player
            return [], holders
        most = max(self._held[j] for j in holders)
        top = [j for j in holders if self._held[j] == most]
        if len(top) == 1:
            return top, []
        tie = opts["sp.penalty_tie"]  # A10
        if tie == "all_pay":
            return top, []
        if tie == "nearest_left":
            return top[:1], []
        if tie == "none":
            return [], []
        return [], top

    def _finish_cancel(self, payers: list[int], k: int, canceller: int | None = None) -> None:
        """SP-3.6.5 payment (capped, A11), SPT-3.2 nickels, SPD-5.1 leftovers, end of turn."""
        canceller = self._cur if canceller is None else canceller
        before = list(self._nickels)
        rule = "SPD-5" if self.game.dice else "SP-3.6.5"
        for j in payers:
            paid = min(k, self._held[j])
            value = self._held_value[j]
            self._held[j] -= paid
            self._balcony += paid
            self._move([self.game.item(value)] * paid, self._gathered(j), "balcony", rule)
            if self._held[j] == 0:
                self._held_value[j] = None
                if self.game.tko and (j != canceller or self.game.options["spt.self_cancel_costs"]):
                    self._lose_nickel(j, "SPT-3.2")
        if self.game.tko and self._check_tko_end(before):
            return
        self._leftovers()
        self._end_turn(extra=False)

    def _leftovers(self) -> None:
        """SPD-5.1: dice still in the Theatre go to the Balcony, unless they stay (A29)."""
        if self.game.stay_in_theatre or not sum(self._theatre):
            return
        items = [self.game.item(v + 1) for v, c in enumerate(self._theatre) for _ in range(c)]
        self._balcony += len(items)
        self._theatre = [0] * self.game.faces
        self._move(items, "theatre", "balcony", "SPD-5.1")

    def _lose_nickel(self, j: int, rule: str) -> None:
        """A T.K.O. nickel loss (never below 0, SPT-3.4) and elimination at 0 (SPT-5, A22, A23)."""
        if self._nickels[j] == 0:
            return
        self._nickels[j] -= 1
        name = self.game.players[j]
        self._move([Item("nickel")], player_zone("nickels", name), "supply", rule)
        if self._nickels[j] == 0 and self.game.options["spt.zero_nickels"] == "eliminate":
            self._active[j] = False
            if self._held[j]:
                value = self._held_value[j]
                self._move([self.game.item(value)] * self._held[j], self._gathered(j), "balcony", "SPT-5")
                self._balcony += self._held[j]
                self._held[j] = 0
                self._held_value[j] = None

    def _check_tko_end(self, before: list[int]) -> bool:
        """SPT-5: the game ends when exactly one player has nickels. If the last ones lose their
        last nickels together (several payers, gap), those who had nickels share the win."""
        left = [j for j, n in enumerate(self._nickels) if n >= 1]
        if len(left) > 1:
            return False
        winners = left or [j for j, n in enumerate(before) if n >= 1]
        self._finish(Termination.LAST_WITH_NICKELS, winners)
        return True

    def _end_turn(self, extra: bool) -> None:
        """SP-3.7 END_TURN: the round ends when the Balcony (and Theatre) are empty (A14, A35)."""
        self._turns += 1
        if self._balcony == 0 and not sum(self._theatre):
            self._end_round(extra)
        else:
            self._cur = self._cur if extra else self._next_active(self._cur)
            self._step = "throw"

    def _end_round(self, extra: bool) -> None:
        """SP-4.2 scoring (T.K.O.: no points, SPT-4), SP-5 end of game, SP-4.3 next starter."""
        game = self.game
        for j in range(len(game.players)):
            if self._held[j]:
                value = self._held_value[j]
                self._move([game.item(value)] * self._held[j], self._gathered(j), "balcony", "SP-4.2")
                if not game.tko:
                    self._points[j] += self._held[j]
                self._held[j] = 0
                self._held_value[j] = None
        self._balcony = game.coin_count
        if not game.tko:
            best = max(self._points)
            top = [j for j, p in enumerate(self._points) if p == best]
            if best >= game.target and (len(top) == 1 or game.options["sp.win_tie"] == "co_winners"):
                self._finish(Termination.TARGET_REACHED, top)
                return
        last = self._cur
        rule = game.options["sp.next_round_starter"]
        if extra and game.options["spd.extra_turn_across_rounds"]:
            starter = last  # SPD-6.2: the extra turn carries into the next round
        elif rule == "same_first_player":
            starter = self._first if self._active[self._first] else self._next_active(self._first)
        elif rule == "round_ender":
            starter = last
        elif rule == "left_of_previous_starter":
            starter = self._next_active(self._starter)
        else:
            starter = self._next_active(last)
        self._round += 1
        self._turns = 0
        self._starter = self._cur = starter
        self._step = "throw"

    def _finish(self, termination: Termination, seats: list[int]) -> None:
        self._over = (termination.value, tuple(self.game.players[j] for j in seats))
        self._step = "over"

    def _next_active(self, seat: int) -> int:
        """The next player to the left still in the game (G-1, SPT-5)."""
        seats = len(self.game.players)
        for step in range(1, seats + 1):
            j = (seat + step) % seats
            if self._active[j]:
                return j
        raise AssertionError("no active player")  # pragma: no cover - the game ends first

    def _gathered(self, j: int) -> str:
        return player_zone("gathered", self.game.players[j])

    def _move(self, items: Sequence[Item], source: str, target: str, rule: str) -> None:
        if items:
            self._moves += (Move(sorted_items(items), source, target, rule),)

    # -- what the table shows ----------------------------------------------------------------

    def zones(self) -> dict[str, tuple[Item, ...]]:
        """The Theatre, the Balcony, each player's Gathered zone (SP-1.3), then under T.K.O.
        each player's nickels."""
        game = self.game
        zones = {
            "theatre": sorted_items(game.item(v + 1) for v, c in enumerate(self._theatre) for _ in range(c)),
            "balcony": (game.item(None),) * self._balcony,
        }
        for j in range(len(game.players)):
            zones[self._gathered(j)] = (game.item(self._held_value[j]),) * self._held[j]
        if game.tko:
            # SPT-1: each player's nickels lie in front of them; gains come from and losses go
            # to the supply, which the camera does not watch (``supplied_kinds``).
            for j, name in enumerate(game.players):
                zones[player_zone("nickels", name)] = (Item("nickel"),) * self._nickels[j]
        return zones

    def supplied_kinds(self) -> frozenset[str]:
        """T.K.O.'s nickels come from and go back to the supply (SPT-3.3, SPT-3.1/3.2)."""
        return frozenset({"nickel"}) if self.game.tko else frozenset()

    def prompt(self) -> str:
        """What the table must do now, in one sentence."""
        game = self.game
        name = game.players[self._cur]
        if self._over is not None:
            winners = " and ".join(self._over[1])
            return f"Game over: {winners} {'wins' if len(self._over[1]) == 1 else 'share the win'} ({self._over[0]})"
        if self._step == "designate":
            return f"Table: designate the first player (G-5): {', '.join(game.players)}"
        if self._step == "throw":
            staying = sum(self._theatre)  # A29 stay_in_theatre: thrown again with the Balcony
            if not staying:
                text = f"{name}: throw the {game.objects(self._balcony)} from the Balcony into the Theatre"
            elif not self._balcony:
                text = f"{name}: throw the {game.objects(staying)} left in the Theatre again"
            else:
                text = (f"{name}: throw the {game.objects(self._balcony)} from the Balcony into the Theatre "
                        f"together with the {game.objects(staying)} left there")
        elif self._step == "pay":
            assert self._pending is not None
            value, k, seats = self._pending
            text = (f"{name}: name who pays the penalty for the {game.describe(value, k)} canceled: "
                    + " or ".join(game.players[j] for j in seats))
        else:
            left = ", ".join(game.describe(v, c) for v, c in self.theatre().items())
            forced = [a for a in self._decisions() if not isinstance(a, Gather)] == self._decisions()
            text = f"{name}: {'Cancel' if forced else 'Gather or Cancel'} ({left} in the Theatre)"
        warnings = self.warnings()
        return text + (f" [warning: {warnings[0]}]" if warnings else "")

    def label(self, action: Action) -> str:
        """What ``action`` would do now, for the tablet."""
        return label_text(self, action)

    # -- what the tablet's words read (``_seven_pennies_text.SevenPenniesTable``) ----------

    def turn_seat(self) -> int:
        """The seat whose turn it is (also while the table throws for that player)."""
        return self._cur

    def pending_payment(self) -> tuple[int, int, tuple[int, ...]] | None:
        """A Cancel waiting for its payer to be named: ``(value, count, seats that may pay)``."""
        return self._pending

    def held_counts(self) -> tuple[int, ...]:
        """How many pennies or dice each seat has Gathered."""
        return tuple(self._held)

    def held_values(self) -> tuple[int | None, ...]:
        """The value each seat has Gathered (``None``: nothing yet)."""
        return tuple(self._held_value)

    def nickel_counts(self) -> tuple[int, ...]:
        """The nickels each seat holds (T.K.O., SPT-2; 0 otherwise)."""
        return tuple(self._nickels)

    def value_of(self, number: int | None) -> int:
        """The value a Gather or Cancel naming ``number`` takes (the pennies' one facing if none)."""
        return self._value_of(number)

    def cancel_payers(self, value: int) -> tuple[list[int], list[int]]:
        """Who pays for a Cancel of ``value``: ``(payers, [])``, or ``([], seats)`` to choose from."""
        return self._cancel_payers(value)

    def forced_cancel(self) -> int | None:
        """The value SPD-6.1 forces the current player to cancel, or ``None``."""
        return self._forced_cancel()

    def to_throw(self) -> int:
        """How many objects the next throw must show."""
        return self._to_throw()

    def _chance_error(self, action: Action) -> IllegalActionError | None:
        return chance_error(self, action)

    def _decision_error(self, action: Action) -> IllegalActionError | None:
        return decision_error(self, action)

    # -- chance and invariants ---------------------------------------------------------------

    def chance_outcomes(self) -> list[tuple[Action, Fraction]]:
        """Every read of the pending throw with its exact probability (binomial for pennies,
        multinomial over multisets for dice)."""
        if self._step != "throw" or self.is_terminal():
            return []
        count = self._to_throw()
        if self.game.dice:
            return list(dice_outcomes(count, self.game.faces))
        return list(penny_outcomes(count))

    def sample_chance(self, rng: random.Random) -> Action:
        """A random read of the pending throw, in time linear in the objects thrown."""
        assert self._step == "throw" and not self.is_terminal(), "no throw is pending"
        if self.game.dice:
            return sample_dice(self._to_throw(), self.game.faces, rng)
        return sample_pennies(self._to_throw(), rng)

    def check_invariants(self) -> None:
        """SP-6.1 conservation, SP-6.2 one facing (one number) per player, the Booth's result
        (SP-3.2, SPD-4), T.K.O.'s nickels and eliminations (SPT-3.4, SPT-5)."""
        game = self.game
        total = self._balcony + sum(self._theatre) + sum(self._held)
        assert total == game.coin_count, f"SP-6.1: {total} objects in play, expected {game.coin_count}"
        for j, count in enumerate(self._held):
            value = self._held_value[j]
            assert (count == 0) == (value is None), f"SP-6.2: {game.players[j]} holds {count} with value {value}"
            assert value is None or 1 <= value <= game.faces
            assert self._nickels[j] >= 0, "SPT-3.4: nickels never go below 0"
            assert self._active[j] or count == 0, "SPT-5: an eliminated player holds nothing"
        if self._step in ("decide", "pay"):
            for v in range(1, game.faces // 2 + 1):
                opposite = complement(v, game.faces)
                assert not (self._theatre[v - 1] and self._theatre[opposite - 1]), "SP-3.2/SPD-4: a pair left"
            if game.faces % 2:
                assert self._theatre[game.faces // 2] <= 1, "SPD-4: a middle pair left"
        if self._step == "decide":
            assert sum(self._theatre), "SP-3.3: an empty Theatre ends the turn"
        if self._step == "throw":
            assert self._to_throw() >= 1, "SP-4.1: a throw always has something to throw"
            assert game.stay_in_theatre or not sum(self._theatre)
        assert (self._step == "pay") == (self._pending is not None)
        assert (self._step == "over") == (self._over is not None)


SevenPenniesGame.state_class = SevenPenniesState
register_game(SevenPenniesGame)
