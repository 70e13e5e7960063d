"""The words of Seven Pennies: the tablet's labels and the errors that cite the rules
(SP-3.1, SP-3.4, SP-3.6.4, SPD-1, SPD-3, SPD-5, SPD-6.1, A28, G-5).

A helper of :mod:`referee.games.seven_pennies`; it registers nothing, and it reads the game
only through the public view below (:class:`SevenPenniesTable`), so it imports nothing of it.
"""

from __future__ import annotations

from typing import Any, Protocol

from referee.actions import Action, Cancel, DiceThrow, Designate, Gather, Pay, PennyThrow
from referee.errors import IllegalActionError


class SevenPenniesRules(Protocol):
    """What the words need of the game (``SevenPenniesGame``)."""

    players: tuple[str, ...]
    options: dict[str, Any]
    dice: bool
    faces: int
    tko: bool
    extra_turn: bool
    choose_amount: bool
    kind: str
    throw_type: type[Action]

    def describe(self, value: int, count: int) -> str: ...
    def plural(self, value: int) -> str: ...
    def objects(self, count: int) -> str: ...
    def read_face(self, face: int) -> int: ...
    def player_index(self, name: str) -> int: ...


class SevenPenniesTable(Protocol):
    """What the words need of a game in play (``SevenPenniesState``'s public view)."""

    @property
    def game(self) -> SevenPenniesRules: ...
    def phase(self) -> str: ...
    def balcony(self) -> int: ...
    def theatre(self) -> dict[int, int]: ...
    def turn_seat(self) -> int: ...
    def pending_payment(self) -> tuple[int, int, tuple[int, ...]] | None: ...
    def held_counts(self) -> tuple[int, ...]: ...
    def held_values(self) -> tuple[int | None, ...]: ...
    def nickel_counts(self) -> tuple[int, ...]: ...
    def value_of(self, number: int | None) -> int: ...
    def cancel_payers(self, value: int) -> tuple[list[int], list[int]]: ...
    def forced_cancel(self) -> int | None: ...
    def to_throw(self) -> int: ...


def label_text(state: SevenPenniesTable, action: Action) -> str:
    """What ``action`` would do now, for the tablet (``State.label``)."""
    game = state.game
    name = game.players[state.turn_seat()]
    if isinstance(action, Designate):
        return f"{action.player} throws first"
    if isinstance(action, Pay):
        pending = state.pending_payment()
        assert pending is not None
        return payment_text(state, [game.player_index(action.player)], pending[1])
    if isinstance(action, Gather):
        value = state.value_of(action.number)
        k = state.theatre().get(value, 0)
        total = k + state.held_counts()[state.turn_seat()]
        text = f"Gather {game.describe(value, k)} ({name} then holds {game.describe(value, total)})"
        if state.balcony() == 0 and sum(state.theatre().values()) == k:
            text += "; the round ends"
            if game.tko:
                text += "; +1 nickel (SPT-3.3)"
        elif game.tko and game.options["spt.gain_rule"] == "any_gather":
            text += "; +1 nickel (SPT-3.3)"
        if game.extra_turn:
            text += f"; {name} takes another turn (SPD-6.2)"
        return text
    if isinstance(action, Cancel):
        value = state.value_of(action.number)
        k = action.count or state.theatre().get(value, 0)
        what = game.describe(value, k)
        if action.count is not None:
            what = f"{k} of the {game.describe(value, state.theatre().get(value, 0))}"
        payers, choice = state.cancel_payers(value)
        if choice:
            effect = "then name who pays: " + " or ".join(game.players[j] for j in choice)
        else:
            effect = payment_text(state, payers, k)
        return f"Cancel {what}: {effect}"
    return str(action)


def payment_text(state: SevenPenniesTable, payers: list[int], k: int) -> str:
    """``"Kevin returns 2 pennies to the Balcony"`` (with any T.K.O. nickel it costs)."""
    if not payers:
        return "nobody pays"
    parts = []
    for j in payers:
        paid = min(k, state.held_counts()[j])
        who = state.game.players[j]
        part = f"{who} returns {state.game.objects(paid)} to the Balcony"
        costs = j != state.turn_seat() or state.game.options["spt.self_cancel_costs"]
        if state.game.tko and paid == state.held_counts()[j] and costs and state.nickel_counts()[j]:
            part += " and loses a nickel (SPT-3.2)"
        parts.append(part)
    return "; ".join(parts)


def chance_error(state: SevenPenniesTable, action: Action) -> IllegalActionError | None:
    """Why a throw is not a possible read now (SP-3.1, SPD-1, SPD-3), or ``None``."""
    game = state.game
    count = state.to_throw()
    name = game.players[state.turn_seat()]
    if isinstance(action, Designate):
        return IllegalActionError("the first player has already been designated", "G-5")
    if not isinstance(action, (PennyThrow, DiceThrow)):
        return IllegalActionError(f"{name} must first throw the {game.objects(count)}; "
                                  f"{action.verb} is not possible now", "SP-3.1")
    if not isinstance(action, game.throw_type):
        return IllegalActionError(f"this game is played with {game.objects(2).split()[1]}: write {game.throw_type.usage}",
                                  "SPD-3" if game.dice else "SP-3.1")
    if isinstance(action, PennyThrow):
        if action.heads + action.tails != count:
            return IllegalActionError(f"{name} throws all {game.objects(count)} from the Balcony (A4); "
                                      f"{action} reads {action.heads + action.tails}", "SP-3.1")
        return None
    assert isinstance(action, DiceThrow)
    if len(action.faces) != count:
        return IllegalActionError(f"{name} throws all {game.objects(count)} (A4); {action} reads {len(action.faces)}",
                                  "SPD-3")
    for face in action.faces:
        value = game.read_face(face)
        if not 1 <= value <= game.faces:
            return IllegalActionError(f"a {game.kind} shows 1 to {game.faces}, not {face}", "SPD-1")
    return None


def decision_error(state: SevenPenniesTable, action: Action) -> IllegalActionError | None:
    """Why a decision is not among the legal options, citing the rule."""
    game = state.game
    name = game.players[state.turn_seat()]
    if isinstance(action, Designate):
        if state.phase() == "designate":
            return IllegalActionError(f"no player named {action.player!r}; the players are "
                                      f"{', '.join(game.players)}", "G-5")
        return IllegalActionError("the first player has already been designated", "G-5")
    if state.phase() == "designate":
        return IllegalActionError("the table must first designate the first player: designate NAME", "G-5")
    if state.phase() == "pay":
        pending = state.pending_payment()
        assert pending is not None
        rule = "SPD-5" if game.dice else "SP-3.6.4"
        choices = " or ".join(game.players[j] for j in pending[2])
        if isinstance(action, Pay):
            return IllegalActionError(f"{action.player} is not among the players who may pay: {choices}", rule)
        return IllegalActionError(f"{name} must first name who pays the penalty: pay {choices}", rule)
    if isinstance(action, Pay):
        return IllegalActionError("no payer is to be named now; Gather or Cancel first", "SP-3.6.4")
    if isinstance(action, (PennyThrow, DiceThrow)):
        return IllegalActionError(f"{name} must Gather or Cancel before the next throw", "SP-3.4")
    if isinstance(action, (Gather, Cancel)):
        return gather_cancel_error(state, action)
    return None


def gather_cancel_error(state: SevenPenniesTable, action: Gather | Cancel) -> IllegalActionError:
    """Why this Gather or Cancel is refused, citing SP-3.4 / SPD-5 / A28 / SPD-6.1."""
    game = state.game
    i = state.turn_seat()
    name = game.players[i]
    verb = "Gather" if isinstance(action, Gather) else "Cancel"
    values = list(state.theatre())
    held = state.held_values()[i]
    if not game.dice:
        if action.number is not None or (isinstance(action, Cancel) and action.count is not None):
            return IllegalActionError(f"{verb} takes all the pennies in the Theatre: write {verb.lower()}", "SP-3.4")
        assert held is not None
        return IllegalActionError(f"{name} holds {game.plural(held)} and cannot Gather {game.plural(values[0])}; "
                                  f"{name} must Cancel (A8)", "SP-3.4")
    shown = ", ".join(str(v) for v in values)
    if action.number is None:
        return IllegalActionError(f"name the number to {verb.lower()}: the Theatre shows {shown}", "SPD-5")
    if action.number not in values:
        return IllegalActionError(f"no die shows {action.number} in the Theatre; it shows {shown}", "SPD-5")
    forced = state.forced_cancel()
    if forced is not None:
        assert held is not None
        return IllegalActionError(f"{name} holds {game.plural(held)} and the Theatre shows {game.plural(forced)}: "
                                  f"{name} must cancel {forced}", "SPD-6.1")
    if isinstance(action, Gather):
        assert held is not None
        return IllegalActionError(f"{name} holds {game.plural(held)} and may Gather only {game.plural(held)}", "SPD-5")
    have = state.theatre().get(action.number, 0)
    if not game.choose_amount:
        return IllegalActionError(f"a Cancel moves every die showing {action.number} "
                                  f"(spd.cancel_amount = all): write cancel {action.number}", "A28")
    if action.count == have:
        return IllegalActionError(f"cancel {action.number} x{have} is every die showing {action.number}: "
                                  f"write cancel {action.number}", "A28")
    return IllegalActionError(f"{have} dice show {action.number}: cancel 1 to {have} of them", "A28")
