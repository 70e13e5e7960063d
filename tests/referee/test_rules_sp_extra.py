"""Seven Pennies (RULES.md §1): the rules that tests/referee/test_seven_pennies.py does not cite
by ID, each pinned by a test that cites it (issue 2: every behavioural rule ID is tested)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from referee import CHANCE, ConfigError, IllegalActionError, find_game
from referee.actions import Cancel, Gather, PennyThrow
from referee.games.seven_pennies import SevenPenniesGame, SevenPenniesState
from tests.referee.test_seven_pennies import held, new

DICE = {"spd.enabled": True}
TKO = {"spt.enabled": True}


def legal(state: SevenPenniesState) -> set[str]:
    return {str(action) for action in state.legal_actions()}


def moves(state: SevenPenniesState) -> list[str]:
    return [str(move) for move in state.forced_moves()]


# -- SP-3.5, SP-3.6 -----------------------------------------------------------------------------


def test_sp_3_5_gather_moves_every_penny_keeping_its_facing() -> None:
    """SP-3.5: GATHER moves all k pennies left in the Theatre into the player's Gathered zone,
    facing kept (g_i += k, f_i = F), and the turn passes to the left (SP-3.7)."""
    state = new(actions=["throw 5H 2T"])  # 2 pairs booth'd, 3H left, b = 4
    state.apply("gather")
    assert held(state) == {"Jess": "3H", "Kevin": 0} and state.theatre() == {} and state.balcony() == 4
    assert moves(state) == ["Move 3 heads from the Theatre to Jess's Gathered area (SP-3.5)"]
    assert [i.value for i in state.zones()["gathered:Jess"]] == ["heads"] * 3
    state.apply("throw 0H 4T")
    state.apply("gather")  # Kevin gathers 4T with no pair thrown: b = 0 ends the round (SP-4.1)
    assert state.round() == 2 and state.scores() == {"Jess": 3, "Kevin": 4}


def test_sp_3_5_gather_adds_to_a_matching_holding() -> None:
    """SP-3.5: a holder of heads who Gathers heads adds them (g_i ← g_i + k), facing unchanged."""
    state = new("A,B,C", "A", actions=["throw 5H 4T", "gather", "throw 2H 6T", "gather", "throw 2H 2T"])
    assert held(state) == {"A": "1H", "B": "4T", "C": 0} and state.balcony() == 4
    state.apply("throw 3H 1T")  # A: 1 pair, 2H left
    assert legal(state) == {"gather", "cancel"}
    state.apply("gather")
    assert held(state) == {"A": "3H", "B": "4T", "C": 0} and state.balcony() == 2


def test_sp_3_6_cancel_effect_then_end_of_turn() -> None:
    """SP-3.6: CANCEL sends the Theatre's pennies to the Balcony, applies the penalty, and goes to
    END_TURN - no further step in the turn, the next player to the left throws every penny."""
    state = new("A,B,C", "A", actions=["throw 5H 4T", "gather", "throw 2H 6T", "gather", "throw 2H 2T"])
    state.apply("throw 3H 1T")  # A: 1 pair, 2H left, b = 2; the tails holder B (4T) pays 2
    state.apply("cancel")
    assert moves(state) == [
        "Move 2 heads from the Theatre to the Balcony (SP-3.6.1)",
        "Move 2 tails from B's Gathered area to the Balcony (SP-3.6.5)",
    ]
    assert held(state) == {"A": "1H", "B": "2T", "C": 0} and state.balcony() == 6
    assert state.current_player() == CHANCE and state.prompt().startswith("B: throw the 6 pennies")


def test_sp_3_6_1_canceled_pennies_go_to_the_balcony_and_their_facing_is_noted() -> None:
    """SP-3.6.1: b ← b + k; the facing canceled (F) is what the penalty looks at: holders of the
    opposite facing F' pay, holders of F do not."""
    base = ["throw 5H 4T", "gather", "throw 2H 6T", "gather"]  # A 1H, B 4T, b = 4
    heads = new("A,B,C", "A", actions=[*base, "throw 1H 3T"])  # C: 1 pair, 2T left, b = 2
    heads.apply("cancel")  # tails canceled: the heads holder A pays, B (tails) does not
    assert heads.balcony() == 2 + 2 + 1 and held(heads) == {"A": 0, "B": "4T", "C": 0}
    tails = new("A,B,C", "A", actions=[*base, "throw 3H 1T"])  # C: 2H left
    tails.apply("cancel")  # heads canceled: the tails holder B pays 2, A (heads) does not
    assert tails.balcony() == 2 + 2 + 2 and held(tails) == {"A": "1H", "B": "2T", "C": 0}


TWO_TAILS_HOLDERS = ["throw 3H 6T", "gather",  # A: 3 pairs, 3T left -> A 3T, b = 6
                     "throw 2H 4T", "gather"]  # B: 2 pairs, 2T left -> B 2T, b = 4


@pytest.mark.parametrize("includes, expected", [(True, {"A": "1T", "B": "2T", "C": 0}),
                                                (False, {"A": "3T", "B": 0, "C": 0})])
def test_sp_3_6_2_candidates_hold_the_opposite_facing(includes: bool, expected: dict[str, Any]) -> None:
    """SP-3.6.2: the candidates are the holders of the opposite facing F'; the canceller is one of
    them by default (A9), and without the canceller the largest *other* holder pays instead."""
    state = new("A,B,C", "A", {"sp.penalty_includes_canceller": includes}, TWO_TAILS_HOLDERS)
    state.apply("throw 2H 2T")  # C: booth-out, b = 4
    state.apply("throw 3H 1T")  # A: 1 pair, 2H left; A holds tails, so must Cancel (A8)
    assert held(state) == {"A": "3T", "B": "2T", "C": 0} and legal(state) == {"cancel"}
    state.apply("cancel")  # F = heads, F' = tails: candidates A (3, the canceller) and B (2)
    assert held(state) == expected and state.balcony() == 6


def test_sp_3_6_2_holders_of_the_canceled_facing_are_never_candidates() -> None:
    """SP-3.6.2: only F' holders are candidates: a Cancel of tails never touches tails holders."""
    state = new("A,B,C", "A", actions=[*TWO_TAILS_HOLDERS, "throw 0H 4T"])
    assert held(state) == {"A": "3T", "B": "2T", "C": 0} and state.theatre() == {2: 4}
    state.apply("cancel")  # C cancels 4 tails: A and B hold tails, nobody holds heads (SP-3.6.3)
    assert held(state) == {"A": "3T", "B": "2T", "C": 0} and state.balcony() == 4
    assert [m.rule for m in state.forced_moves()] == ["SP-3.6.1"]


# -- SP-4 -----------------------------------------------------------------------------------------


def test_sp_4_1_round_ends_exactly_when_a_pairless_throw_is_gathered() -> None:
    """SP-4.1: over seeded random play, a round ends at END_TURN exactly when the throw formed no
    pair and the player chose GATHER; then all N pennies were in Gathered zones (SP-4.2 moves)."""
    rng = random.Random(41)
    for players in ("A,B", "A,B,C,D"):
        state = new(players)
        n = state.game.coin_count
        for _ in range(600):
            if state.is_terminal():
                break
            if state.current_player() == CHANCE:
                throw = state.sample_chance(rng)
                assert isinstance(throw, PennyThrow)
                pairless = min(throw.heads, throw.tails) == 0
                state.apply(throw)
                continue
            action = rng.choice(state.legal_actions())
            before = state.round()
            state.apply(action)
            ended = state.round() != before or state.is_terminal()
            assert ended == (pairless and isinstance(action, Gather)), (action, state.round())
            if ended:
                scored = [m for m in state.forced_moves() if m.rule == "SP-4.2"]
                assert sum(len(m.items) for m in scored) == n
                assert all(m.source.startswith("gathered:") and m.target == "balcony" for m in scored)


def test_sp_4_2_round_scoring_one_point_per_penny() -> None:
    """SP-4.2: at round end every player returns all Gathered pennies to the Balcony and scores one
    point each; the Balcony holds N again, holdings are cleared, exactly N points are scored."""
    state = new("A,B,C", "A", actions=["throw 5H 4T", "gather", "throw 6H 2T", "gather", "throw 0H 4T"])
    assert held(state) == {"A": "1H", "B": "4H", "C": 0} and state.balcony() == 0
    state.apply("gather")
    assert state.scores() == {"A": 1, "B": 4, "C": 4} and sum(state.scores().values()) == 9
    assert state.balcony() == 9 and held(state) == {"A": 0, "B": 0, "C": 0}
    assert [m.rule for m in state.forced_moves()] == ["SP-3.5", "SP-4.2", "SP-4.2", "SP-4.2"]
    assert [(m.source, len(m.items)) for m in state.forced_moves()[1:]] == [
        ("gathered:A", 1), ("gathered:B", 4), ("gathered:C", 4)]
    state.apply("throw 5H 4T")  # the next round carries the scores on
    state.apply("gather")
    assert state.scores() == {"A": 1, "B": 4, "C": 4}


# -- SP-6 -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6, 7, 8])
def test_sp_6_3_parity_odd_balcony_never_booths_out(players: int) -> None:
    """SP-6.3: h - t ≡ b (mod 2), so an odd throw always leaves pennies: every possible outcome of
    a round's first throw (N = 3 + 2P is odd) reaches DECIDE, never a booth-out."""
    names = ",".join(f"P{i}" for i in range(players))
    state = new(names)
    n = state.game.coin_count
    assert n % 2 == 1 and len(state.legal_actions()) == n + 1
    for throw in state.legal_actions():
        trial = state.copy()
        assert isinstance(trial, SevenPenniesState)
        trial.apply(throw)
        assert isinstance(throw, PennyThrow) and (throw.heads - throw.tails - n) % 2 == 0
        assert trial.phase() == "decide" and sum(trial.theatre().values()) == abs(throw.heads - throw.tails) >= 1


def test_sp_6_6_cancel_is_always_legal_so_a_round_can_cycle() -> None:
    """SP-6.6: a player may always CANCEL, so play can return to the same position forever (no
    turn limit, SP-5.3): two Cancels of pennies nobody can pay for restore the round's start."""
    state = new()
    start = (state.zones(), state.current_player(), state.prompt(), state.round())
    for _ in range(3):
        for thrower in ("Jess", "Kevin"):
            assert state.prompt().startswith(f"{thrower}: throw the 7 pennies")
            state.apply("throw 3H 4T")
            assert "cancel" in legal(state)
            state.apply("cancel")
        assert (state.zones(), state.current_player(), state.prompt(), state.round()) == start
    assert not state.is_terminal() and state.scores() == {"Jess": 0, "Kevin": 0}
    rng = random.Random(66)  # and Cancel is listed at every decision of a random playout
    play = new("A,B,C", "A", {"spd.enabled": False})
    for _ in range(400):
        if play.current_player() == CHANCE:
            play.apply(play.sample_chance(rng))
        elif play.phase() == "decide":
            assert Cancel() in play.legal_actions()
            play.apply(rng.choice(play.legal_actions()))
        else:
            play.apply(rng.choice(play.legal_actions()))
        if play.is_terminal():
            break


def test_a3_two_or_more_players_no_maximum() -> None:
    """A3: P ≥ 2 with no upper limit: one player is refused, twelve are accepted (N = 27, target 120)."""
    with pytest.raises(ConfigError, match="2 or more players, got 1"):
        find_game("seven-pennies")(["Solo"])
    state = new(",".join(f"P{i}" for i in range(12)), "P0")
    assert isinstance(state.game, SevenPenniesGame)
    assert state.game.coin_count == 27 and state.game.target == 120 and state.balcony() == 27
    state.apply("throw 14H 13T")
    state.apply("gather")
    assert state.prompt().startswith("P1: throw the 26 pennies")


# -- SPT ------------------------------------------------------------------------------------------


def test_spt_1_three_nickels_each_and_a_supply_for_gains() -> None:
    """SPT-1: every player starts with 3 nickels; gains come from a supply, so a player can hold
    more than 3."""
    state = new("A,B,C", "A", TKO)
    assert state.scores() == {"A": 3, "B": 3, "C": 3}
    state.apply("throw 9H 0T")
    state.apply("gather")  # a clean gather (SPT-3.3): +1 from the supply
    assert state.scores() == {"A": 4, "B": 3, "C": 3}
    assert [(m.source, m.target, m.rule) for m in state.forced_moves() if m.rule == "SPT-3.3"] == [
        ("supply", "nickels:A", "SPT-3.3")]
    plain = new("A,B,C", "A")
    assert plain.scores() == {"A": 0, "B": 0, "C": 0}  # no nickels without T.K.O.


def test_a20_booth_out_means_every_thrown_penny_paired() -> None:
    """A20: "all of your pennies Booth" is the throw (Theatre empty after the Booth), not the
    thrower's Gathered pennies: a holder whose throw leaves pennies loses nothing, and a holder
    whose throw pairs completely loses one nickel."""
    state = new("Jess,Kevin", "Jess", TKO, ["throw 3H 4T", "gather", "throw 5H 1T", "gather"])
    assert held(state) == {"Jess": "1T", "Kevin": "4H"} and state.balcony() == 2
    state.apply("throw 1H 1T")  # Jess: booth-out while she holds pennies
    assert state.scores() == {"Jess": 2, "Kevin": 3} and held(state)["Jess"] == "1T"
    assert [m.rule for m in state.forced_moves()] == ["SP-3.2", "SPT-3.1"]
    state.apply("throw 0H 2T")  # Kevin: nothing paired, his own heads are not "booth'd"
    assert state.scores() == {"Jess": 2, "Kevin": 3} and state.phase() == "decide"


# -- SPD ------------------------------------------------------------------------------------------


def test_spd_6_optional_rules_are_off_by_default() -> None:
    """SPD-6: both optional rules are off by default: a Gather passes the turn to the left, and a
    holder whose complement shows may still Gather or Cancel another number."""
    game = find_game("seven-pennies")(["A", "B"], DICE)
    assert game.options["spd.opt_forced_self_cancel"] is False and game.options["spd.opt_extra_turn"] is False
    state = new("A,B", "A", DICE, ["throw 3 3 1 6 2 5 6", "gather 3"])
    assert state.prompt().startswith("B: throw")  # no extra turn (SPD-6.2 off)
    state.apply("throw 1 1 6 2 5")  # B: pairs 1-6 and 2-5, Theatre [1]
    state.apply("cancel 1")  # complement 6: nobody pays, b = 5
    state.apply("throw 4 4 1 2 5")  # A holds 3s and 4s show: not forced (SPD-6.1 off)
    assert state.theatre() == {1: 1, 4: 2}
    assert legal(state) == {"cancel 1", "cancel 4"}


def test_a31_dice_cancel_nobody_can_pay_for_is_legal() -> None:
    """A31: a Cancel of a number whose complement nobody holds is legal and costs nobody anything;
    it is how a player who cannot Gather avoids hurting themselves."""
    state = new("A,B", "A", DICE, ["throw 3 3 1 6 2 5 6", "gather 3"])  # A 2x3, b = 5
    state.apply("throw 6 6 6 2 2")  # B: no pair, Theatre 2,2,6,6,6
    assert legal(state) == {"gather 2", "gather 6", "cancel 2", "cancel 6"}
    state.apply("cancel 6")  # complement 1: nobody holds 1s
    assert held(state) == {"A": "2x3", "B": 0} and state.balcony() == 5
    assert state.prompt().startswith("A: throw the 5 dice")
    state.apply("throw 5 5 1 1 2")  # A: pair 2-5, Theatre 1,1,5; A holds 3s: must Cancel (A8)
    assert legal(state) == {"cancel 1", "cancel 5"}
    state.apply("cancel 1")  # complement 6: nobody holds 6s, A keeps his 3s
    assert held(state) == {"A": "2x3", "B": 0} and state.balcony() == 5


def test_a32_forced_self_cancel_reading_a_and_odd_middle_value() -> None:
    """A32 reading (a): the optional rule forces the self-penalising Cancel only when the Theatre
    shows the complement of the thrower's number; otherwise Gather stays legal (readings (b), (c)
    rejected). For odd S, a holder of the middle value m facing an m must Cancel it."""
    opts = {**DICE, "spd.opt_forced_self_cancel": True}
    state = new("A,B", "A", opts, ["throw 3 3 1 6 2 5 6", "gather 3", "throw 1 1 6 2 5", "cancel 1"])
    assert held(state) == {"A": "2x3", "B": 0} and state.balcony() == 5
    state.apply("throw 3 3 6 6 2")  # A holds 3s, no 4 shows: Gather 3 stays legal
    assert legal(state) == {"gather 3", "cancel 2", "cancel 3", "cancel 6"}
    odd = new("A,B", "A", {**opts, "spd.faces": 5}, ["throw 3 3 3 1 5 2 2", "gather 3"])
    assert held(odd)["A"] == "1x3"  # d5: the middle value 3 pairs with itself (SPD-4)
    odd.apply("throw 3 1 1 1 1 2")  # B throws; B holds nothing: the rule is inactive
    assert "gather 3" in legal(odd)
    odd.apply("cancel 1")  # complement 5: nobody pays; b = 4 + the leftovers 2 and 3 = 6
    odd.apply("throw 3 1 1 1 2 2")  # A: no pair (1-5, 2-4, 3-3), a single 3 shows
    assert odd.theatre() == {1: 3, 2: 2, 3: 1}
    assert legal(odd) == {"cancel 3"}  # c(3) = 3: the forced Cancel takes precedence over Gather 3
    with pytest.raises(IllegalActionError, match="SPD-6.1"):
        odd.apply("gather 3")
    odd.apply("cancel 3")
    assert held(odd)["A"] == 0
