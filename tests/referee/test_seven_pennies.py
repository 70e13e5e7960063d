"""Seven Pennies (RULES.md §1): the worked examples SP-T1 ... SP-T5 and one test per rule that
changes behaviour (SP, SPT, SPD), each citing its rule ID."""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Mapping
from fractions import Fraction
from itertools import product
from pathlib import Path
from typing import Any

import pytest

from referee import CHANCE, TABLE, ConfigError, IllegalActionError, Termination, find_game, state_from_json
from referee.actions import Cancel, DiceThrow, Gather, Pay, PennyThrow
from referee.games._seven_pennies_chance import booth, dice_outcomes, multiset_count, penny_outcomes
from referee.games.seven_pennies import SevenPenniesGame, SevenPenniesState
from web import cli

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "examples" / "scripts" / "seven-pennies-sp-t1.txt"


def new(players: str = "Jess,Kevin", first: str | None = None, options: Mapping[str, Any] | None = None,
        actions: Iterable[str] = ()) -> SevenPenniesState:
    """A game with ``first`` designated (G-5) and ``actions`` applied."""
    names = players.split(",")
    game = find_game("seven-pennies")(names, dict(options or {}))
    assert isinstance(game, SevenPenniesGame)
    state = game.new_state()
    assert isinstance(state, SevenPenniesState)
    state.apply(f"designate {first or names[0]}")
    for action in actions:
        state.apply(action)
    return state


def held(state: SevenPenniesState) -> dict[str, Any]:
    """Holdings as RULES.md writes them: ``1T``, ``4H``, ``2x3`` (dice), or ``0``."""
    result: dict[str, Any] = {}
    for name, (count, value) in state.holdings().items():
        if count == 0:
            result[name] = 0
        elif state.game.dice:
            result[name] = f"{count}x{value}"
        else:
            result[name] = f"{count}{'H' if value == 1 else 'T'}"
    return result


def legal(state: SevenPenniesState) -> set[str]:
    return {str(action) for action in state.legal_actions()}


def booth_pairs(state: SevenPenniesState) -> int:
    """Pairs the last throw sent to the Balcony, read from the forced move (SP-3.2)."""
    moves = [m for m in state.forced_moves() if m.rule in ("SP-3.2", "SPD-4")]
    return len(moves[0].items) // 2 if moves else 0


def with_points(state: SevenPenniesState, points: Mapping[str, int]) -> None:
    """Start from given scores (SP-T3 starts mid-game); the rules have no action for this."""
    for name, value in points.items():
        state._points[state.game.player_index(name)] = value


# -- SP-T1 --------------------------------------------------------------------------------------


def sp_t1_before_last_decision(options: Mapping[str, Any] | None = None) -> SevenPenniesState:
    state = new(first="Jess", options=options)
    assert state.current_player_name() is None and state.phase() == "throw"
    state.apply("throw 3H 4T")
    assert booth_pairs(state) == 3 and state.balcony() == 6 and state.theatre() == {2: 1}
    assert legal(state) == {"gather", "cancel"}
    state.apply("gather")
    assert held(state) == {"Jess": "1T", "Kevin": 0} and state.balcony() == 6
    assert state.current_player_name() is None and "Kevin: throw the 6 pennies" in state.prompt()
    state.apply("throw 5H 1T")
    assert booth_pairs(state) == 1 and state.balcony() == 2 and state.theatre() == {1: 4}
    assert legal(state) == {"gather", "cancel"}
    state.apply("gather")
    assert held(state) == {"Jess": "1T", "Kevin": "4H"} and state.balcony() == 2
    assert state.prompt().startswith("Jess: throw the 2 pennies")
    state.apply("throw 0H 2T")
    assert booth_pairs(state) == 0 and state.balcony() == 0 and state.theatre() == {2: 2}
    assert legal(state) == {"gather", "cancel"}
    return state


def test_sp_t1_gather_branch_ends_round_jess_3_kevin_4() -> None:
    """SP-T1, GATHER branch: the round ends, Jess 3, Kevin 4, all 7 in the Balcony, Kevin next."""
    state = sp_t1_before_last_decision()
    state.apply("gather")
    assert state.scores() == {"Jess": 3, "Kevin": 4}
    assert state.balcony() == 7 and state.round() == 2
    assert state.prompt().startswith("Kevin: throw the 7 pennies")
    assert [m.rule for m in state.forced_moves()] == ["SP-3.5", "SP-4.2", "SP-4.2"]
    assert state.winners() == [] and not state.is_terminal()


@pytest.mark.parametrize(
    "tie, includes", list(product(["all_pay", "canceller_chooses", "none", "nearest_left"], [True, False]))
)
def test_sp_t1_cancel_branch_kevin_returns_two(tie: str, includes: bool) -> None:
    """SP-T1, CANCEL branch: Kevin returns 2 of his 4 heads under every A9/A10 setting."""
    state = sp_t1_before_last_decision({"sp.penalty_tie": tie, "sp.penalty_includes_canceller": includes})
    labels = {o.action: o.label for o in state.options()}
    assert labels[Cancel()] == "Cancel 2 tails: Kevin returns 2 pennies to the Balcony"
    assert labels[Gather()] == "Gather 2 tails (Jess then holds 3 tails); the round ends"
    state.apply("cancel")
    assert held(state) == {"Jess": "1T", "Kevin": "2H"} and state.balcony() == 4
    assert state.prompt().startswith("Kevin: throw the 4 pennies")  # "Throwing the four pennies"
    assert [str(m) for m in state.forced_moves()] == [
        "Move 2 tails from the Theatre to the Balcony (SP-3.6.1)",
        "Move 2 heads from Kevin's Gathered area to the Balcony (SP-3.6.5)",
    ]


def test_sp_t1_script_through_the_cli(capsys: pytest.CaptureFixture[str]) -> None:
    """SP-T1 replayed by ``referee play ... --script`` ends round 1 with Jess 3, Kevin 4."""
    status = cli.main(["play", "seven-pennies", "--players", "Jess,Kevin", "--first", "Jess",
                       "--script", str(SCRIPT), "--json"])
    assert status == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert summary["game"] == "seven-pennies"
    assert summary["scores"] == {"Jess": 3, "Kevin": 4}
    assert summary["round"] == 2 and summary["terminal"] is False and summary["winners"] == []
    assert summary["log"] == ["designate Jess", "throw 3H 4T", "gather", "throw 5H 1T", "gather",
                              "throw 0H 2T", "gather"]


def test_a_script_that_is_not_text_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``referee play --script`` given a binary file says so and exits 2, with no traceback."""
    script = tmp_path / "photo.png"
    script.write_bytes(b"\x89PNG\r\n\x1a\n\x00\xff")
    status = cli.main(["play", "seven-pennies", "--players", "Jess,Kevin", "--script", str(script)])
    assert status == 2
    assert f"cannot read script {script}: not UTF-8 text" in capsys.readouterr().err


def test_sp_t1_undo_and_json_round_trip() -> None:
    """SP-T1: undo restores an equal state and the JSON form replays to an equal state."""
    state = sp_t1_before_last_decision()
    before = state.copy()
    state.apply("cancel")
    assert state_from_json(json.loads(json.dumps(state.to_json()))) == state
    assert str(state.undo()) == "cancel"
    assert state == before


# -- SP-T2 --------------------------------------------------------------------------------------

SP_T2_OPENING = ["throw 4H 5T", "gather", "throw 5H 3T", "gather", "throw 4H 2T", "gather", "throw 1H 3T"]


def sp_t2(options: Mapping[str, Any] | None = None) -> SevenPenniesState:
    state = new("A,B,C", "A", {"spt.enabled": True, **(options or {})}, SP_T2_OPENING[:2])
    assert held(state)["A"] == "1T" and state.balcony() == 8
    for action in SP_T2_OPENING[2:4]:
        state.apply(action)
    assert held(state)["B"] == "2H" and state.balcony() == 6
    for action in SP_T2_OPENING[4:6]:
        state.apply(action)
    assert held(state)["C"] == "2H" and state.balcony() == 4
    state.apply(SP_T2_OPENING[6])
    assert booth_pairs(state) == 1 and state.theatre() == {2: 2} and state.balcony() == 2
    assert legal(state) == {"gather", "cancel"}
    return state


def test_sp_t2_default_line() -> None:
    """SP-T2 (T.K.O.): all_pay tie, booth-out, forced self-penalising Cancel with cap, clean gather."""
    state = sp_t2()
    state.apply("cancel")  # heads holders B=2, C=2 tie: both pay and are canceled out (SPT-3.2)
    assert held(state) == {"A": "1T", "B": 0, "C": 0} and state.balcony() == 8
    assert state.scores() == {"A": 3, "B": 2, "C": 2}
    state.apply("throw 5H 3T")
    assert booth_pairs(state) == 3 and legal(state) == {"gather", "cancel"}
    state.apply("gather")
    assert held(state)["B"] == "2H" and state.balcony() == 6
    state.apply("throw 3H 3T")  # booth-out: C loses a nickel (SPT-3.1), A is next
    assert state.balcony() == 6 and state.scores()["C"] == 1 and state.current_player() == CHANCE
    assert state.prompt().startswith("A: throw the 6 pennies")
    state.apply("throw 5H 1T")  # A holds tails, 4 heads left: Cancel is forced (A8)
    assert legal(state) == {"cancel"}
    state.apply("cancel")  # A is the only tails holder: pays min(4, 1) = 1, no nickel lost
    assert held(state)["A"] == 0 and state.balcony() == 7 and state.scores()["A"] == 3
    state.apply("throw 7H 0T")
    assert legal(state) == {"gather", "cancel"}
    state.apply("gather")  # clean gather: +1 nickel (SPT-3.3) and the round ends
    assert state.scores() == {"A": 3, "B": 3, "C": 1}
    assert state.round() == 2 and state.prompt().startswith("C: throw the 9 pennies")


@pytest.mark.parametrize(
    "tie, expected",
    [
        ("canceller_chooses", ({"B": "2H", "C": 0}, 6, {"A": 3, "B": 3, "C": 2})),
        ("none", ({"B": "2H", "C": "2H"}, 4, {"A": 3, "B": 3, "C": 3})),
        ("nearest_left", ({"B": 0, "C": "2H"}, 6, {"A": 3, "B": 2, "C": 3})),
    ],
)
def test_sp_t2_tie_alternatives(tie: str, expected: tuple[dict[str, Any], int, dict[str, int]]) -> None:
    """SP-T2 alternatives of sp.penalty_tie (A10, SP-3.6.4)."""
    state = sp_t2({"sp.penalty_tie": tie})
    state.apply("cancel")
    if tie == "canceller_chooses":
        assert state.phase() == "pay" and state.current_player_name() == "A"
        assert legal(state) == {"pay B", "pay C"}
        assert "A: name who pays" in state.prompt()
        state.apply("pay C")
    holdings, balcony, nickels = expected
    assert {k: held(state)[k] for k in "BC"} == holdings
    assert state.balcony() == balcony and state.scores() == nickels


def test_sp_t2_self_penalty_without_canceller() -> None:
    """SP-T2 with sp.penalty_includes_canceller = false (A9): A keeps 1T, b = 6."""
    state = sp_t2({"sp.penalty_includes_canceller": False})
    for action in ["cancel", "throw 5H 3T", "gather", "throw 3H 3T", "throw 5H 1T", "cancel"]:
        state.apply(action)
    assert held(state)["A"] == "1T" and state.balcony() == 6


def test_sp_t2_without_tko_scores_points() -> None:
    """SP-T2 without T.K.O.: round scores A 0, B 9, C 0 (target 30)."""
    state = new("A,B,C", "A", {}, SP_T2_OPENING + ["cancel", "throw 5H 3T", "gather", "throw 3H 3T",
                                                  "throw 5H 1T", "cancel", "throw 7H 0T", "gather"])
    assert state.scores() == {"A": 0, "B": 9, "C": 0}
    assert state.game.target == 30 and state.round() == 2


# -- SP-T3 --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "before, after, over, winners",
    [
        ({"Jess": 17, "Kevin": 12}, {"Jess": 20, "Kevin": 16}, True, ["Jess"]),
        ({"Jess": 17, "Kevin": 16}, {"Jess": 20, "Kevin": 20}, True, ["Jess", "Kevin"]),
        ({"Jess": 10, "Kevin": 15}, {"Jess": 13, "Kevin": 19}, False, []),
    ],
)
def test_sp_t3_end_of_game(before: dict[str, int], after: dict[str, int], over: bool, winners: list[str]) -> None:
    """SP-T3 (SP-5.1, SP-5.2, A16 co_winners): the SP-T1 round from given scores."""
    state = sp_t1_before_last_decision()
    with_points(state, before)
    state.apply("gather")
    assert state.scores() == after and state.is_terminal() is over and state.winners() == winners
    if over:
        outcome = state.outcome()
        assert outcome is not None and outcome.termination is Termination.TARGET_REACHED
        assert state.legal_actions() == [] and state.prompt().startswith("Game over")


def test_sp_t3_play_on_after_a_tie() -> None:
    """SP-T3 with sp.win_tie = play_on (A16): a 20-20 tie plays another round, then Kevin leads."""
    state = sp_t1_before_last_decision({"sp.win_tie": "play_on"})
    with_points(state, {"Jess": 17, "Kevin": 16})
    state.apply("gather")
    assert state.scores() == {"Jess": 20, "Kevin": 20} and not state.is_terminal() and state.round() == 2
    state.apply("throw 7H 0T")
    state.apply("gather")
    assert state.scores() == {"Jess": 20, "Kevin": 27} and state.winners() == ["Kevin"]


# -- SP-T4 --------------------------------------------------------------------------------------

DICE = {"spd.enabled": True, "spd.faces": 6}


def sp_t4() -> SevenPenniesState:
    state = new("A,B", "A", DICE, ["throw 1 6 2 3 3 5 4"])
    assert state.theatre() == {3: 1} and state.balcony() == 6
    assert legal(state) == {"gather 3", "cancel 3"}
    state.apply("gather 3")
    assert held(state) == {"A": "1x3", "B": 0} and state.balcony() == 6
    state.apply("throw 4 4 5 5 1 6")
    assert state.theatre() == {4: 2, 5: 2} and state.balcony() == 2
    assert legal(state) == {"gather 4", "gather 5", "cancel 4", "cancel 5"}
    return state


def test_sp_t4_cancel_4_branch() -> None:
    """SP-T4, CANCEL 4: A (holder of 3 = 7 - 4) is designated automatically, leftovers to the Balcony."""
    state = sp_t4()
    assert state.label(Cancel(4)) == "Cancel 2 dice showing 4: A returns 1 die to the Balcony"
    state.apply("cancel 4")
    assert held(state) == {"A": 0, "B": 0} and state.balcony() == 7
    assert [m.rule for m in state.forced_moves()] == ["SPD-5", "SPD-5", "SPD-5.1"]


def test_sp_t4_gather_5_branch_and_round_end() -> None:
    """SP-T4, GATHER 5 then A's two branches; and the round end with dice (SPD-5.2)."""
    state = sp_t4()
    state.apply("gather 5")
    assert held(state) == {"A": "1x3", "B": "2x5"} and state.balcony() == 4
    state.apply("throw 2 2 3 6")
    assert legal(state) == {"gather 3", "cancel 2", "cancel 3", "cancel 6"}
    cancel = state.copy()
    cancel.apply("cancel 2")
    assert held(cancel) == {"A": "1x3", "B": 0} and cancel.balcony() == 6
    state.apply("gather 3")
    assert held(state) == {"A": "2x3", "B": "2x5"} and state.balcony() == 3
    # Round end: {A: 4x5, B: 2x2, b: 1}, A throws [5] and gathers: +5 and +2.
    end = new("A,B", "A", DICE, ["throw 5 5 5 5 1 6 3", "gather 5", "throw 2 2 4", "gather 2"])
    assert held(end) == {"A": "4x5", "B": "2x2"} and end.balcony() == 1
    end.apply("throw 5")
    assert legal(end) == {"gather 5", "cancel 5"}
    end.apply("gather 5")
    assert end.scores() == {"A": 5, "B": 2} and end.round() == 2 and end.balcony() == 7


# -- SP-T5 --------------------------------------------------------------------------------------


def test_sp_t5a_extra_turn() -> None:
    """SP-T5a (SPD-6.2): a Gather earns another turn; a Cancel passes to the left."""
    state = new("A,B", "A", {"spd.enabled": True, "spd.opt_extra_turn": True}, ["throw 3 3 1 6 2 5 6"])
    assert state.theatre() == {3: 2, 6: 1}
    assert legal(state) == {"gather 3", "gather 6", "cancel 3", "cancel 6"}
    assert state.label(Gather(3)).endswith("A takes another turn (SPD-6.2)")
    state.apply("gather 3")
    assert held(state)["A"] == "2x3" and state.balcony() == 5 and state.prompt().startswith("A: throw")
    state.apply("throw 4 6 6 1 2")
    assert state.theatre() == {2: 1, 4: 1, 6: 1}
    assert legal(state) == {"cancel 2", "cancel 4", "cancel 6"}
    state.apply("cancel 6")
    assert held(state)["A"] == "2x3" and state.balcony() == 5 and state.prompt().startswith("B: throw")


def test_sp_t5b_forced_self_cancel() -> None:
    """SP-T5b (SPD-6.1): forced only while the thrower holds dice whose complement shows."""
    opts = {"spd.enabled": True, "spd.opt_forced_self_cancel": True}
    state = new("A,B", "A", opts, ["throw 3 3 1 6 2 5 6", "gather 3"])
    assert held(state)["A"] == "2x3" and state.balcony() == 5
    state.apply("throw 4 6 6 1 2")
    assert legal(state) == {"gather 2", "gather 4", "gather 6", "cancel 2", "cancel 4", "cancel 6"}
    state.apply("cancel 4")
    assert held(state)["A"] == "1x3" and state.balcony() == 6
    state.apply("throw 4 4 1 2 5 5")
    assert state.theatre() == {1: 1, 4: 2, 5: 1}
    assert legal(state) == {"cancel 4"}
    with pytest.raises(IllegalActionError, match="SPD-6.1: A holds 3s and the Theatre shows 4s"):
        state.apply("cancel 1")
    state.apply("cancel 4")
    assert held(state)["A"] == 0 and state.balcony() == 7
    plain = new("A,B", "A", {"spd.enabled": True},
                ["throw 3 3 1 6 2 5 6", "gather 3", "throw 4 6 6 1 2", "cancel 4", "throw 4 4 1 2 5 5"])
    assert legal(plain) == {"cancel 1", "cancel 4", "cancel 5"}


# -- SP-1 .. SP-6 -------------------------------------------------------------------------------


@pytest.mark.parametrize("players, pennies", [(2, 7), (3, 9), (4, 11), (5, 13), (6, 15), (7, 17), (8, 19)])
def test_sp_1_2_penny_count_and_sp_1_5_target(players: int, pennies: int) -> None:
    """SP-1.2 (A2): N = 3 + 2P pennies, all in the Balcony at the start (SP-1.4); SP-1.5 target 10P."""
    names = ",".join(f"P{i}" for i in range(players))
    state = new(names)
    assert state.balcony() == pennies and len(state.zones()["balcony"]) == pennies
    assert state.game.target == 10 * players and state.scores() == {f"P{i}": 0 for i in range(players)}


def test_a2_coin_count_override_and_sp_1_1_players() -> None:
    """A2 sp.coin_count = <integer>; SP-1.1: at least two players; bad values are named."""
    assert new(options={"sp.coin_count": "5"}).balcony() == 5
    with pytest.raises(ConfigError, match="Seven Pennies is played by 2 or more players"):
        find_game("seven-pennies")(["Solo"])
    with pytest.raises(ConfigError, match="sp.penalty_tie"):
        find_game("seven-pennies")(["A", "B"], {"sp.penalty_tie": "coin_flip"})


def test_g_5_the_table_designates_the_first_player() -> None:
    """G-5: the first decision is the table's, and names a player at the table."""
    state = find_game("seven-pennies")(["Jess", "Kevin"]).new_state()
    assert state.current_player() == TABLE and state.phase() == "designate"
    assert {str(a) for a in state.legal_actions()} == {"designate Jess", "designate Kevin"}
    with pytest.raises(IllegalActionError, match="G-5: the table must first designate"):
        state.apply("throw 3H 4T")
    with pytest.raises(IllegalActionError, match="G-5: no player named 'Bob'"):
        state.apply("designate Bob")
    state.apply("designate Kevin")
    assert state.prompt() == "Kevin: throw the 7 pennies from the Balcony into the Theatre"
    with pytest.raises(IllegalActionError, match="G-5: the first player has already been designated"):
        state.apply("designate Jess")


def test_sp_3_1_a4_the_throw_accounts_for_every_balcony_penny() -> None:
    """SP-3.1 (A4): all b pennies are thrown; a read of another total is refused."""
    state = new()
    with pytest.raises(IllegalActionError, match=r"SP-3.1: Jess throws all 7 pennies from the Balcony \(A4\)"):
        state.apply("throw 3H 3T")
    with pytest.raises(IllegalActionError, match="SP-3.1: Jess must first throw"):
        state.apply("gather")
    with pytest.raises(IllegalActionError, match="this game is played with pennies"):
        state.apply(DiceThrow((1, 2, 3, 4, 5, 6, 1)))
    state.apply("throw 7T")  # one count may be left out of the text form
    assert state.theatre() == {2: 7}


@pytest.mark.parametrize(
    "heads, tails, pairs, left, balcony",
    [(5, 2, 2, {1: 3}, 4), (3, 4, 3, {2: 1}, 6), (2, 2, 2, {}, 4), (0, 2, 0, {2: 2}, 0),
     (7, 0, 0, {1: 7}, 0), (1, 5, 1, {2: 4}, 2)],
)
def test_sp_3_2_booth_table(heads: int, tails: int, pairs: int, left: dict[int, int], balcony: int) -> None:
    """SP-3.2 (A5): the Booth table - min(h, t) pairs go to the Balcony, one facing is left."""
    assert booth([heads, tails])[2] == pairs
    state = new(options={"sp.coin_count": heads + tails})
    state.apply(PennyThrow(heads, tails))
    assert booth_pairs(state) == pairs and state.theatre() == left and state.balcony() == balcony
    if pairs:
        assert str(state.forced_moves()[0]) == (
            f"Move {words(pairs, 'head')} and {words(pairs, 'tail')} from the Theatre to the Balcony (SP-3.2)")


def words(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def test_sp_3_3_booth_out_ends_the_turn() -> None:
    """SP-3.3: an empty Theatre after the Booth ends the turn; the next player throws."""
    state = new(options={"sp.coin_count": 4})
    state.apply("throw 2H 2T")
    assert state.phase() == "throw" and state.prompt().startswith("Kevin: throw the 4 pennies")


def test_sp_3_4_a8_cannot_gather_the_opposite_facing() -> None:
    """SP-3.4 (A8): a holder of tails cannot Gather heads and must Cancel; the error says why."""
    state = new(actions=["throw 3H 4T", "gather", "throw 3H 3T", "throw 1H 5T"])
    assert state.theatre() == {2: 4} and legal(state) == {"gather", "cancel"}  # Jess holds tails: may gather
    state = new(actions=["throw 3H 4T", "gather", "throw 3H 3T", "throw 5H 1T"])
    assert legal(state) == {"cancel"} and state.prompt().startswith("Jess: Cancel (4 heads")
    with pytest.raises(IllegalActionError, match=r"SP-3.4: Jess holds tails and cannot Gather heads; Jess must Cancel \(A8\)"):
        state.apply("gather")
    with pytest.raises(IllegalActionError, match="SP-3.4: Gather takes all the pennies"):
        state.apply("gather 4")
    with pytest.raises(IllegalActionError, match="SP-3.4: Jess must Gather or Cancel before the next throw"):
        state.apply("throw 3H 3T")
    with pytest.raises(IllegalActionError, match="SP-3.6.4: no payer is to be named now"):
        state.apply("pay Kevin")


def test_a6_a7_a12_empty_handed_gather_and_free_cancel() -> None:
    """A6: an empty-handed player may Gather either facing; A7: Cancel is also legal; A12: a
    Cancel nobody pays for just returns the pennies (SP-3.6.3)."""
    state = new(actions=["throw 5H 2T"])
    assert legal(state) == {"gather", "cancel"}
    assert state.label(Cancel()) == "Cancel 3 heads: nobody pays"
    state.apply("cancel")
    assert state.balcony() == 7 and held(state) == {"Jess": 0, "Kevin": 0}


def test_sp_3_6_4_nearest_left_counts_the_canceller_last() -> None:
    """SP-3.6.4 (A10 nearest_left, A9): the first tied holder going left, the canceller last."""
    line = ["throw 5H 3T", "gather", "throw 3H 3T", "throw 4H 2T", "gather", "throw 1H 3T"]
    for tie, includes, expected in [
        ("nearest_left", True, {"A": "2H", "B": 0, "C": 0}),
        ("all_pay", True, {"A": 0, "B": 0, "C": 0}),
        ("all_pay", False, {"A": "2H", "B": 0, "C": 0}),
    ]:
        options = {"sp.coin_count": 8, "sp.penalty_tie": tie, "sp.penalty_includes_canceller": includes}
        state = new("A,B,C", "A", options, line)
        assert held(state) == {"A": "2H", "B": 0, "C": "2H"} and legal(state) == {"cancel"}
        state.apply("cancel")
        assert held(state) == expected, (tie, includes)


def test_sp_3_6_4_canceller_chooses_with_a_wrong_name() -> None:
    """SP-3.6.4 (A10 canceller_chooses): only a tied top holder can be named."""
    state = sp_t2({"sp.penalty_tie": "canceller_chooses"})
    state.apply("cancel")
    with pytest.raises(IllegalActionError, match="SP-3.6.4: A is not among the players who may pay: B or C"):
        state.apply("pay A")
    with pytest.raises(IllegalActionError, match="SP-3.6.4: A must first name who pays the penalty"):
        state.apply("throw 4H 4T")
    assert {o.label for o in state.options()} == {
        "B returns 2 pennies to the Balcony and loses a nickel (SPT-3.2)",
        "C returns 2 pennies to the Balcony and loses a nickel (SPT-3.2)",
    }


def test_sp_3_6_5_a11_penalty_capped_and_only_the_largest_pays() -> None:
    """SP-3.6.5 (A11): only the largest opposite holder pays, at most what they hold."""
    state = new("A,B,C", "A", {}, ["throw 5H 4T", "gather", "throw 6H 2T", "gather", "throw 1H 3T"])
    assert held(state) == {"A": "1H", "B": "4H", "C": 0} and state.theatre() == {2: 2}
    assert state.label(Cancel()) == "Cancel 2 tails: B returns 2 pennies to the Balcony"
    state.apply("cancel")  # heads holders A (1) and B (4): only B, the largest, pays min(2, 4)
    assert held(state) == {"A": "1H", "B": "2H", "C": 0} and state.balcony() == 6
    state = new(actions=["throw 3H 4T", "gather", "throw 6H 0T"])
    state.apply("cancel")  # Kevin cancels 6 heads; Jess holds 1 tail: pays 1, the rest is void
    assert held(state) == {"Jess": 0, "Kevin": 0} and state.balcony() == 7


def test_sp_3_7_a14_round_ends_only_with_an_empty_balcony_at_end_of_turn() -> None:
    """SP-3.7, A13, A14, SP-6.4: a turn ends after Gather/Cancel; the round ends only when b = 0."""
    state = new(actions=["throw 7H 0T"])
    assert state.balcony() == 0 and state.round() == 1  # empty during the turn: not the end (A14)
    state.apply("cancel")
    assert state.round() == 1 and state.balcony() == 7
    state.apply("throw 0H 7T")
    state.apply("gather")
    assert state.round() == 2 and state.scores() == {"Jess": 0, "Kevin": 7}


@pytest.mark.parametrize(
    "rule, starter", [("left_of_last", "C"), ("same_first_player", "A"), ("round_ender", "B"),
                      ("left_of_previous_starter", "B")],
)
def test_sp_4_3_a15_next_round_starter(rule: str, starter: str) -> None:
    """SP-4.3 (A15): who starts round 2 after A started and B ended round 1."""
    state = new("A,B,C", "A", {"sp.next_round_starter": rule}, ["throw 4H 5T", "gather", "throw 8H 0T", "gather"])
    assert state.round() == 2 and state.prompt().startswith(f"{starter}: throw the 9 pennies")


def test_sp_4_3_left_of_previous_starter_differs_from_round_ender() -> None:
    """SP-4.3 (A15): Kevin started round 1 and ended it; left_of_previous_starter gives Jess."""
    for rule, starter in [("left_of_previous_starter", "Jess"), ("round_ender", "Kevin"),
                          ("left_of_last", "Jess"), ("same_first_player", "Kevin")]:
        state = new(first="Kevin", options={"sp.next_round_starter": rule}, actions=["throw 7H 0T", "gather"])
        assert state.prompt().startswith(f"{starter}: throw"), rule


def test_sp_5_3_a17_max_turns_only_warns() -> None:
    """SP-5.3 (A17): sp.max_turns_per_round warns and changes nothing else."""
    state = new(options={"sp.max_turns_per_round": 2}, actions=["throw 3H 4T", "cancel"])
    assert state.warnings() == []
    state.apply("throw 3H 4T")
    state.apply("cancel")
    assert state.warnings() and state.warnings()[0].startswith("SP-5.3: this round has lasted 2 turns")
    assert "[warning: SP-5.3" in state.prompt()
    plain = new(actions=["throw 3H 4T", "cancel", "throw 3H 4T", "cancel"])
    assert plain.warnings() == [] and plain.legal_actions() == state.legal_actions()


def test_sp_6_1_sp_6_2_invariants_catch_a_corrupt_state() -> None:
    """SP-6.1 conservation and SP-6.2 one facing per player are asserted."""
    state = new(actions=["throw 3H 4T", "gather"])
    state.check_invariants()
    state._balcony += 1
    with pytest.raises(AssertionError, match="SP-6.1"):
        state.check_invariants()
    state._balcony -= 1
    state._held_value[0] = None
    with pytest.raises(AssertionError, match="SP-6.2"):
        state.check_invariants()


def test_sp_6_5_each_round_hands_out_n_points() -> None:
    """SP-6.5 / §6.1.3: every round scores exactly N points (random playouts)."""
    rng = random.Random(7)
    for players in (2, 3, 5):
        state = new(",".join(f"P{i}" for i in range(players)))
        rounds_seen = 0
        while not state.is_terminal() and rounds_seen < 6:
            if state.current_player() == CHANCE:
                state.apply(state.sample_chance(rng))
            else:
                before = (state.round(), sum(state.scores().values()))
                actions = state.legal_actions()
                state.apply(Gather() if Gather() in actions else rng.choice(actions))
                if state.round() != before[0] or state.is_terminal():
                    assert sum(state.scores().values()) - before[1] == 3 + 2 * players
                    rounds_seen += 1
        assert state.is_terminal() or rounds_seen == 6


# -- SPT ----------------------------------------------------------------------------------------

TKO = {"spt.enabled": True}


def test_spt_3_2_a19_self_cancel_costs() -> None:
    """SPT-3.2 (A19): emptied by your own Cancel costs a nickel only with spt.self_cancel_costs."""
    line = ["throw 3H 4T", "gather", "throw 3H 3T", "throw 5H 1T"]  # Kevin booths out; Jess holds 1T
    state = new(options=TKO, actions=line)
    assert state.scores() == {"Jess": 3, "Kevin": 2}  # SPT-3.1
    state.apply("cancel")
    assert state.scores()["Jess"] == 3
    costly = new(options={**TKO, "spt.self_cancel_costs": True}, actions=line)
    assert costly.label(Cancel()) == "Cancel 4 heads: Jess returns 1 penny to the Balcony and loses a nickel (SPT-3.2)"
    costly.apply("cancel")
    assert costly.scores()["Jess"] == 2
    partial = new(options=TKO, actions=["throw 0H 7T", "cancel", "throw 1H 6T", "gather", "throw 2H 0T"])
    assert held(partial) == {"Jess": 0, "Kevin": "5T"}
    partial.apply("cancel")  # Kevin pays 2 of 5: a partial penalty costs nothing
    assert held(partial)["Kevin"] == "3T" and partial.scores() == {"Jess": 3, "Kevin": 3}


def test_spt_3_3_a21_gain_rule() -> None:
    """SPT-3.3 (A21): a nickel for gathering every penny thrown; any_gather pays for any Gather."""
    state = new(options=TKO, actions=["throw 3H 4T", "gather"])
    assert state.scores() == {"Jess": 3, "Kevin": 3}
    state = new(options={**TKO, "spt.gain_rule": "any_gather"}, actions=["throw 3H 4T"])
    assert state.label(Gather()).endswith("+1 nickel (SPT-3.3)")
    state.apply("gather")
    assert state.scores() == {"Jess": 4, "Kevin": 3}
    assert [str(m) for m in state.forced_moves()][-1] == "Move 1 nickel from the supply to Jess's nickels (SPT-3.3)"


def test_spt_3_1_spt_5_two_players_last_with_nickels_wins() -> None:
    """SPT-3.1 booth-outs cost a nickel; SPT-5: when only one player has nickels, they win."""
    state = new(options={**TKO, "sp.coin_count": 4})
    for _ in range(4):  # Jess, Kevin, Jess, Kevin booth out
        state.apply("throw 2H 2T")
    assert state.scores() == {"Jess": 1, "Kevin": 1} and not state.is_terminal()
    assert str(state.forced_moves()[-1]) == "Move 1 nickel from Kevin's nickels to the supply (SPT-3.1)"
    state.apply("throw 2H 2T")
    outcome = state.outcome()
    assert outcome is not None and outcome.termination is Termination.LAST_WITH_NICKELS
    assert state.winners() == ["Kevin"] and state.prompt().startswith("Game over: Kevin wins")


def test_spt_5_a22_a23_elimination_returns_pennies_and_skips_turns() -> None:
    """SPT-5 (A22 eliminate, A23): at 0 nickels A is out, A's Gathered pennies go to the Balcony
    at once, and turns skip A."""
    state = new("A,B,C", "A", TKO, ["throw 4H 5T", "gather"])  # A 1T, b 8
    for round_trip in range(3):
        for _ in range(2):  # B and C cancel 2 tails: no heads holder, no penalty (A12)
            state.apply("throw 3H 5T")
            state.apply("cancel")
        state.apply("throw 4H 4T")  # A booths out (SPT-3.1)
    assert state.scores() == {"A": 0, "B": 3, "C": 3} and state.active_players() == ["B", "C"]
    assert [str(m) for m in state.forced_moves()] == [
        "Move 4 heads and 4 tails from the Theatre to the Balcony (SP-3.2)",
        "Move 1 nickel from A's nickels to the supply (SPT-3.1)",
        "Move 1 tail from A's Gathered area to the Balcony (SPT-5)",
    ]
    assert state.balcony() == 9 and held(state) == {"A": 0, "B": 0, "C": 0}
    assert state.prompt().startswith("B: throw the 9 pennies")
    state.apply("throw 4H 5T")
    state.apply("cancel")
    assert state.prompt().startswith("C: throw")
    state.apply("throw 4H 5T")
    state.apply("cancel")
    assert state.prompt().startswith("B: throw")  # A is skipped
    assert not state.is_terminal()


def test_spt_5_a22_continue_and_spt_3_4_never_below_zero() -> None:
    """SPT-5 (A22 continue): A at 0 keeps playing, regains a nickel by SPT-3.3; SPT-3.4: a
    booth-out at 0 costs nothing."""
    state = new("A,B,C", "A", {**TKO, "spt.zero_nickels": "continue", "sp.coin_count": 4})
    for _ in range(3):
        state.apply("throw 2H 2T")  # A booths out
        for _ in range(2):
            state.apply("throw 3H 1T")  # 2 heads left; cancel: nobody holds tails
            state.apply("cancel")
    assert state.scores() == {"A": 0, "B": 3, "C": 3} and state.active_players() == ["A", "B", "C"]
    assert state.prompt().startswith("A: throw")
    state.apply("throw 2H 2T")
    assert state.scores()["A"] == 0 and state.forced_moves()[-1].rule == "SP-3.2"
    for _ in range(2):
        state.apply("throw 3H 1T")
        state.apply("cancel")
    state.apply("throw 4H 0T")
    state.apply("gather")  # clean gather: the round ends and A is back to 1 nickel
    assert state.scores() == {"A": 1, "B": 3, "C": 3} and state.round() == 2


@pytest.mark.parametrize("costs, winners", [(False, ["Jess"]), (True, ["Jess", "Kevin"])])
def test_spt_5_last_nickels_lost_together(costs: bool, winners: list[str]) -> None:
    """SPT-3.2, SPT-5 (gap): if the last players lose their last nickels on one all_pay Cancel,
    those who had nickels share the win."""
    state = new(options={**TKO, "sp.coin_count": 6, "spt.self_cancel_costs": costs})
    for _ in range(4):
        state.apply("throw 3H 3T")
    assert state.scores() == {"Jess": 1, "Kevin": 1}
    for action in ["throw 4H 2T", "gather", "throw 3H 1T", "gather", "throw 0H 2T"]:
        state.apply(action)
    assert held(state) == {"Jess": "2H", "Kevin": "2H"} and legal(state) == {"cancel"}
    state.apply("cancel")
    assert state.winners() == winners


def test_spt_6_tko_with_dice_clean_gather_needs_no_leftovers() -> None:
    """SPT-6 (A24): with dice the gain needs no pair and every die thrown gathered."""
    opts = {**TKO, **DICE}
    state = new("A,B", "A", opts, ["throw 1 6 2 3 3 5 4", "gather 3"])
    assert state.scores() == {"A": 3, "B": 3}  # a pair was formed: no gain
    end = new("A,B", "A", opts, ["throw 5 5 5 5 1 6 3", "gather 5", "throw 2 2 4", "gather 2"])
    assert end.scores() == {"A": 3, "B": 3}  # B left a 4 over: no gain
    end.apply("throw 5")
    end.apply("gather 5")
    assert end.scores() == {"A": 4, "B": 3} and end.round() == 2


# -- SPD ----------------------------------------------------------------------------------------


def test_spd_1_spd_3_a25_dice_throws_are_checked() -> None:
    """SPD-1, SPD-3 (A25): every die thrown, faces 1..S; a printed 0 reads as spd.zero_face_as."""
    state = new("A,B", "A", DICE)
    assert state.prompt() == "A: throw the 7 dice from the Balcony into the Theatre"
    assert state.zones()["balcony"][0].kind == "d6" and state.zones()["balcony"][0].value is None
    with pytest.raises(IllegalActionError, match=r"SPD-3: A throws all 7 dice \(A4\)"):
        state.apply("throw 1 2 3")
    with pytest.raises(IllegalActionError, match="SPD-1: a d6 shows 1 to 6, not 7"):
        state.apply("throw 1 2 3 4 5 6 7")
    with pytest.raises(IllegalActionError, match="SPD-1: a d6 shows 1 to 6, not 0"):
        state.apply("throw 0 2 3 4 5 6 1")
    with pytest.raises(IllegalActionError, match="this game is played with dice"):
        state.apply(PennyThrow(3, 4))
    d10 = new("A,B", "A", {"spd.enabled": True, "spd.faces": 10}, ["throw 0 0 0 2 2 4 4"])
    assert d10.theatre() == {2: 2, 4: 2, 10: 3}
    assert sorted(item.value for item in d10.zones()["theatre"] if isinstance(item.value, int)) == [2, 2, 4, 4, 10, 10, 10]


@pytest.mark.parametrize(
    "faces, throw, left",
    [(6, [1, 6, 6, 2, 3, 4, 4], {2: 1, 4: 1, 6: 1}), (8, [1, 8, 8, 8, 4, 5, 2, 2], {2: 2, 8: 2}),
     (5, [3, 3, 3, 1, 5, 2, 2], {2: 2, 3: 1})],
)
def test_spd_4_a26_booth_with_dice(faces: int, throw: list[int], left: dict[int, int]) -> None:
    """SPD-4 (A26, §6.2): pairs summing to S + 1 go; for odd S the middle value pairs with itself."""
    state = new("A,B", "A", {"spd.enabled": True, "spd.faces": faces, "sp.coin_count": len(throw)},
                ["throw " + " ".join(map(str, throw))])
    assert state.theatre() == left
    assert state.balcony() == len(throw) - sum(left.values())
    assert state.forced_moves()[0].rule == "SPD-4"


def test_spd_5_a27_gather_rules_and_errors() -> None:
    """SPD-5 (A27): an empty-handed player gathers any number, all its dice; a holder only theirs."""
    state = new("A,B", "A", DICE, ["throw 1 6 6 2 3 4 4"])
    assert legal(state) == {"gather 2", "gather 4", "gather 6", "cancel 2", "cancel 4", "cancel 6"}
    with pytest.raises(IllegalActionError, match="SPD-5: name the number to gather: the Theatre shows 2, 4, 6"):
        state.apply("gather")
    with pytest.raises(IllegalActionError, match="SPD-5: no die shows 5 in the Theatre; it shows 2, 4, 6"):
        state.apply("cancel 5")
    state.apply("gather 6")
    assert held(state)["A"] == "1x6" and state.balcony() == 6
    state.apply("throw 1 1 1 2 2 2")
    state.apply("gather 1")
    assert held(state)["B"] == "3x1" and state.balcony() == 3
    state.apply("throw 6 6 5")
    assert legal(state) == {"gather 6", "cancel 5", "cancel 6"}
    with pytest.raises(IllegalActionError, match="SPD-5: A holds 6s and may Gather only 6s"):
        state.apply("gather 5")
    state.apply("gather 6")  # A27: both dice showing 6
    assert held(state)["A"] == "3x6" and state.balcony() == 1


def test_spd_5_a30_designation() -> None:
    """SPD-5 (A30): the canceller designates one eligible holder of c(n); automatic when one."""
    line = ["throw 3 3 1 1 1 1 1 1 1", "gather 3", "throw 3 1 1 1 1 1 1", "gather 3", "throw 4 4 1 1 1 1"]
    state = new("A,B,C", "A", DICE, line)
    assert held(state) == {"A": "2x3", "B": "1x3", "C": 0}
    assert state.label(Cancel(4)) == "Cancel 2 dice showing 4: then name who pays: A or B"
    state.apply("cancel 4")
    assert state.phase() == "pay" and legal(state) == {"pay A", "pay B"}
    with pytest.raises(IllegalActionError, match="SPD-5: C is not among the players who may pay: A or B"):
        state.apply("pay C")
    assert state.label(Pay("B")) == "B returns 1 die to the Balcony"
    state.apply("pay B")
    assert held(state) == {"A": "2x3", "B": 0, "C": 0} and state.balcony() == 7


@pytest.mark.parametrize("designation, expected", [("allowed", 0), ("forbidden", "2x3")])
def test_spd_5_a30_self_designation(designation: str, expected: Any) -> None:
    """A30 spd.self_designation: the only eligible holder is the canceller."""
    state = new("A,B", "A", {**DICE, "spd.self_designation": designation},
                ["throw 3 3 1 1 1 1 1", "gather 3", "throw 1 1 1 1 1", "cancel 1", "throw 4 4 1 1 1"])
    assert held(state)["A"] == "2x3" and legal(state) == {"cancel 1", "cancel 4"}
    state.apply("cancel 4")
    assert held(state)["A"] == expected


def test_a28_cancel_amount_choose() -> None:
    """A28 spd.cancel_amount = choose: the canceller picks how many dice, which sets the penalty."""
    line = ["throw 3 3 1 1 1 1 1", "gather 3", "throw 1 1 1 1 1", "cancel 1", "throw 4 4 4 1 1"]
    plain = new("A,B", "A", DICE, line)
    assert legal(plain) == {"cancel 1", "cancel 4"}
    with pytest.raises(IllegalActionError, match=r"A28: a Cancel moves every die showing 4 \(spd.cancel_amount = all\)"):
        plain.apply("cancel 4 x1")
    state = new("A,B", "A", {**DICE, "spd.cancel_amount": "choose"}, line)
    assert legal(state) == {"cancel 1", "cancel 1 x1", "cancel 4", "cancel 4 x1", "cancel 4 x2"}
    assert state.label(Cancel(4, 1)) == "Cancel 1 of the 3 dice showing 4: A returns 1 die to the Balcony"
    with pytest.raises(IllegalActionError, match="A28: cancel 4 x3 is every die showing 4: write cancel 4"):
        state.apply("cancel 4 x3")
    state.apply("cancel 4 x1")
    assert held(state)["A"] == "1x3" and state.balcony() == 6


def test_spd_5_1_a29_leftovers() -> None:
    """SPD-5.1 (A29): leftovers go to the Balcony, or stay and are thrown again; with
    stay_in_theatre the round ends only when the Theatre is empty too (A35)."""
    line = ["throw 2 2 2 2 2 3 3", "gather 2"]
    to_balcony = new("A,B", "A", DICE, line)
    assert to_balcony.balcony() == 2 and to_balcony.theatre() == {}
    assert [m.rule for m in to_balcony.forced_moves()] == ["SPD-5", "SPD-5.1"]
    stay = new("A,B", "A", {**DICE, "spd.leftovers": "stay_in_theatre"}, line)
    assert stay.balcony() == 0 and stay.theatre() == {3: 2} and stay.round() == 1
    assert stay.prompt() == "B: throw the 2 dice left in the Theatre again"
    with pytest.raises(IllegalActionError, match="SPD-3: B throws all 2 dice"):
        stay.apply("throw 3")
    stay.apply("throw 3 3")
    assert stay.label(Gather(3)) == "Gather 2 dice showing 3 (B then holds 2 dice showing 3); the round ends"
    stay.apply("gather 3")
    assert stay.scores() == {"A": 5, "B": 2} and stay.round() == 2
    mixed = new("A,B", "A", {**DICE, "spd.leftovers": "stay_in_theatre"}, ["throw 3 3 6 1 2 2 2", "gather 2"])
    assert mixed.prompt() == "B: throw the 2 dice from the Balcony into the Theatre together with the 2 dice left there"
    assert mixed.theatre() == {3: 2} and mixed.balcony() == 2
    mixed.apply("throw 3 3 4 1")  # one 3-4 pair goes; 1 and 3 remain
    assert mixed.theatre() == {1: 1, 3: 1} and mixed.balcony() == 2


@pytest.mark.parametrize("across, starter", [(True, "A"), (False, "B")])
def test_spd_6_2_a33_extra_turn_across_rounds(across: bool, starter: str) -> None:
    """SPD-6.2 (A33): the extra turn of a round-ending Gather starts the next round, or not."""
    state = new("A,B", "A", {**DICE, "spd.opt_extra_turn": True, "spd.extra_turn_across_rounds": across},
                ["throw 2 2 2 2 2 2 2", "gather 2"])
    assert state.round() == 2 and state.prompt().startswith(f"{starter}: throw")


def test_spd_6_3_a34_optional_rules_for_pennies() -> None:
    """SPD-6.3 (A34): the optional rules apply to pennies only with spd.optional_rules_for_pennies."""
    extra = {"spd.opt_extra_turn": True}
    assert new(options=extra, actions=["throw 3H 4T", "gather"]).prompt().startswith("Kevin")
    assert new(options={**extra, "spd.optional_rules_for_pennies": True},
               actions=["throw 3H 4T", "gather"]).prompt().startswith("Jess: throw the 6")
    line = ["throw 4H 5T", "gather", "throw 1H 7T", "gather", "throw 1H 1T", "throw 2H 0T"]
    normal = new("A,B,C", "A", {"spd.opt_forced_self_cancel": True}, line)
    assert held(normal) == {"A": "1T", "B": "6T", "C": 0} and legal(normal) == {"cancel"}
    normal.apply("cancel")  # SP-3.6.4: the largest tails holder pays
    assert held(normal) == {"A": "1T", "B": "4T", "C": 0}
    forced = new("A,B,C", "A", {"spd.opt_forced_self_cancel": True, "spd.optional_rules_for_pennies": True}, line)
    assert forced.label(Cancel()) == "Cancel 2 heads: A returns 1 penny to the Balcony"
    forced.apply("cancel")  # SPD-6.1: the canceller is designated
    assert held(forced) == {"A": 0, "B": "6T", "C": 0}


def test_spd_4_odd_faces_middle_value_cancel() -> None:
    """SPD-4/SPD-5 with odd S (d5, target 6): the middle value 3 is its own complement."""
    state = new("A,B", "A", {"spd.enabled": True, "spd.faces": 5}, ["throw 3 3 3 1 5 2 2", "gather 3"])
    assert held(state)["A"] == "1x3" and state.balcony() == 6
    state.apply("throw 3 1 1 1 1 2")
    assert state.theatre() == {1: 4, 2: 1, 3: 1}
    state.apply("cancel 3")  # holders of c(3) = 3: A pays
    assert held(state)["A"] == 0 and state.balcony() == 7


# -- the chance model ---------------------------------------------------------------------------


def test_chance_pennies_binomial() -> None:
    """SP-3.1 chance model: a throw of b fair pennies is binomial; listed as the legal outcomes."""
    outcomes = dict(penny_outcomes(7))
    assert sum(outcomes.values()) == 1 and outcomes[PennyThrow(3, 4)] == Fraction(35, 128)
    state = new()
    assert dict(state.chance_outcomes()) == outcomes
    assert set(state.legal_actions()) == set(outcomes)


def test_chance_dice_multinomial_matches_brute_force() -> None:
    """SPD-3 chance model: multisets with multinomial probabilities, exact."""
    brute: dict[tuple[int, ...], Fraction] = {}
    for faces in product(range(1, 7), repeat=4):
        key = tuple(sorted(faces))
        brute[key] = brute.get(key, Fraction(0)) + Fraction(1, 6**4)
    exact = {action.faces: p for action, p in dice_outcomes(4, 6)}
    assert exact == brute and len(exact) == multiset_count(4, 6) == 126
    state = new("A,B", "A", DICE)
    assert len(state.legal_actions()) == multiset_count(7, 6) == 792
    assert sum(p for _, p in state.chance_outcomes()) == 1


def test_chance_sampling_stays_fast_for_many_dice() -> None:
    """sample_chance draws in linear time: 15 d8 have 170544 multisets, never enumerated."""
    names = ",".join(f"P{i}" for i in range(6))
    state = new(names, options={"spd.enabled": True, "spd.faces": 8})
    assert state.legal_actions() == []  # too many to list
    rng = random.Random(3)
    draws = [state.sample_chance(rng) for _ in range(2000)]
    assert all(isinstance(d, DiceThrow) and len(d.faces) == 15 for d in draws)
    mean = sum(sum(d.faces) for d in draws if isinstance(d, DiceThrow)) / (15 * len(draws))
    assert abs(mean - 4.5) < 0.05
    pennies = new(names)
    heads = sum(a.heads for a in (pennies.sample_chance(rng) for _ in range(2000)) if isinstance(a, PennyThrow))
    assert abs(heads / (15 * 2000) - 0.5) < 0.02


def test_zones_items_and_invalid_throw_option() -> None:
    """SP-1.3 zones: faced pennies in the Theatre and Gathered zones, unfaced in the Balcony; A1."""
    state = new(actions=["throw 3H 4T"])
    zones = state.zones()
    assert list(zones) == ["theatre", "balcony", "gathered:Jess", "gathered:Kevin"]
    assert [(i.kind, i.value) for i in zones["theatre"]] == [("penny", "tails")]
    assert {(i.kind, i.value) for i in zones["balcony"]} == {("penny", None)}
    state.apply("gather")
    assert [(i.kind, i.value) for i in state.zones()["gathered:Jess"]] == [("penny", "tails")]
    assert "throw them all again" in state.invalid_throw_instruction()
    other = new(options={"g.invalid_throw": "rethrow_offending"})
    assert other.invalid_throw_instruction().startswith("Throw again only the pennies")


def test_spt_4_no_points_and_no_target_under_tko() -> None:
    """SPT-4: rounds run as SP-3/SP-4 but score no points, and SP-5's target does not end the game."""
    line: list[str] = []
    for _ in range(5):  # Jess, Kevin, Jess, Kevin, Jess start the rounds (A15 left_of_last)
        line += ["throw 7H 0T", "gather"]  # the starter gathers all seven: the round ends
    tko = new(options=TKO, actions=line)
    assert not tko.is_terminal() and tko.round() == 6
    assert tko.scores() == {"Jess": 6, "Kevin": 5}  # nickels: 3 + one per clean gather (SPT-3.3)
    points = new(actions=line[:6])
    assert points.scores() == {"Jess": 14, "Kevin": 7} and not points.is_terminal()
    for action in line[6:]:
        points.apply(action)
    assert points.winners() == ["Jess"] and points.scores() == {"Jess": 21, "Kevin": 14}


def test_spd_5_3_pennies_are_two_faced_dice() -> None:
    """SPD-5.3: pennies play like dice with S = 2 (H = 1, T = 2): Booth, Gather and round end coincide."""
    pennies = new(actions=["throw 3H 4T", "gather", "throw 5H 1T", "gather", "throw 0H 2T"])
    dice = new(options={"spd.enabled": True, "spd.faces": 2},
               actions=["throw 1 1 1 2 2 2 2", "gather 2", "throw 1 1 1 1 1 2", "gather 1", "throw 2 2"])
    assert pennies.holdings() == dice.holdings() and pennies.balcony() == dice.balcony()
    assert pennies.theatre() == dice.theatre() == {2: 2}
    pennies.apply("gather")
    dice.apply("gather 2")
    assert pennies.scores() == dice.scores() == {"Jess": 3, "Kevin": 4}
