"""Pennies From Heaven (RULES.md §5): the PH-13 test cases, scoring lines, and rule positions.

Positions are set up the way a chess test uses a FEN: a real deal is applied, then the table is
laid out directly (melds, the Discard Pile, and hands the referee knows fully, as after a reveal),
so a test can ask whether one action is legal in exactly the position of the rules text.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from referee import ConfigError, IllegalActionError, InvalidActionError, find_game, state_from_json
from referee.games import _ph_cards as pc
from referee.games._ph_melds import canasta_kind
from referee.games._ph_scoring import ScoringRules, TeamHand, opening_minimum, score_team
from referee.games.pennies_from_heaven import PenniesState
from web.play_cli import play_script

ROOT = Path(__file__).resolve().parents[2]
FOUR = ["N", "E", "S", "W"]
SIX = ["A", "B", "C", "D", "E", "F"]


def new_state(players: list[str] | None = None, **options: Any) -> PenniesState:
    state = find_game("pennies-from-heaven")(players or FOUR, options).new_state()
    assert isinstance(state, PenniesState)
    return state


def dealt(players: list[str] | None = None, upcard: str = "9C", **options: Any) -> PenniesState:
    """A fresh hand: the last player deals, the first acts; no red threes were dealt."""
    names = players or FOUR
    state = new_state(names, **options)
    state.apply(f"designate {names[-1]}")
    state.apply("dealt no no")
    state.apply(f"upcard {upcard}")
    for _ in names:
        state.apply("red-threes none")
    return state


def position(
    *,
    hand: list[str],
    seat: int = 0,
    melds: list[list[str]] | None = None,
    other_melds: list[list[str]] | None = None,
    pile: list[str] | None = None,
    phase: str = "play",
    opened: bool = True,
    cumulative: tuple[int, int] = (0, 0),
    red_threes: int = 0,
    picked: bool = False,
    **options: Any,
) -> PenniesState:
    """Seat ``seat`` (team 0 when seat is 0 or 2) to act with a hand the referee knows fully."""
    state = dealt(**options)
    state._turn = seat
    state._known[seat] = pc.multiset(hand)
    state._counts[seat] = len(hand)
    team = state.game.team_of(seat)
    state._melds[team] = [list(m) for m in melds or []]
    state._melds[1 - team] = [list(m) for m in other_melds or []]
    state._opened[team] = opened or bool(melds)
    state._cumulative = list(cumulative)
    if pile is not None:
        state._pile = list(pile)
    state._red_threes = [(["3H"] * 4 + ["3D"] * 4)[:red_threes], []]
    if picked:
        state._picked[seat] = True
        state._pennies[seat] = 0
    state._phase_name = phase
    state._history = []
    return state


def refused(state: PenniesState, action: str) -> IllegalActionError:
    error = state.why_illegal(state.game.parse_action(action))
    assert error is not None, f"{action} should be refused"
    before = state.copy()
    with pytest.raises(IllegalActionError):
        state.apply(action)
    assert state == before, "a refused action changes nothing"
    return error


def legal(state: PenniesState, action: str) -> None:
    error = state.why_illegal(state.game.parse_action(action))
    assert error is None, f"{action} refused: {error}"
    state.apply(action)


# -- PH-T1: scoring -----------------------------------------------------------------------

def ph_t1_teams() -> tuple[TeamHand, TeamHand]:
    ns = TeamHand(
        melds=[["KH"] * 7, ["JK"] * 4 + ["2C"] * 3, ["8H"] * 5 + ["2D", "2S"], ["5H", "5D", "5C", "JK"]],
        red_threes=3,
        went_out=True,
        dealer_successes=1,
        hands={"N": [], "S": ["QH", "4C", "3S"]},
    )
    ew = TeamHand(
        melds=[["7H"] * 7, ["AH", "AD", "AC"]],
        red_threes=5,
        hands={"E": ["KD", "2H", "JK"], "W": ["9H", "9D"]},
        pennies={"W": ["AH", "AS", "KC", "QD", "JC", "10H", "6S", "5S", "4D", "2C", "3C"]},
    )
    return ns, ew


def test_ph_t1_hand_scores() -> None:
    """PH-T1: N-S score 4220 and E-W 1280; cumulative 13120 and 4280; next minimums 120 and 50."""
    ns, ew = ph_t1_teams()
    ns_lines, ew_lines = score_team(ns, ScoringRules()), score_team(ew, ScoringRules())
    assert ns_lines["total"] == 4220
    assert ew_lines["total"] == 1280
    assert ns_lines["canastas"]["natural"] == {"count": 1, "points": 500}
    assert ns_lines["canastas"]["wild"] == {"count": 1, "points": 2500}
    assert ns_lines["canastas"]["unnatural"] == {"count": 1, "points": 300}
    assert ns_lines["melded_cards"] == {"cards": 25, "in_canastas": 70 + 260 + 90, "in_open_melds": 65, "points": 485}
    assert ns_lines["red_threes"] == {"count": 3, "points": 300}
    assert ns_lines["going_out"] == 200 and ns_lines["dealer_bonus"] == 50
    assert ns_lines["cards_in_hand"]["S"]["points"] == -115 and ns_lines["cards_in_hand"]["S"]["black_threes"] == 1
    assert ew_lines["canastas"]["sevens"] == {"count": 1, "points": 1000}
    assert ew_lines["cards_in_hand"]["E"]["points"] == -80 and ew_lines["cards_in_hand"]["W"]["points"] == -20
    assert ew_lines["pennies_not_picked_up"]["W"] == {
        "cards": pc.sort_cards(ew.pennies["W"]), "points": -215, "red_threes": 0,
    }
    assert ew_lines["penalties"] == -80 - 20 - 215
    assert (8900 + 4220, 3000 + 1280) == (13120, 4280)
    assert (opening_minimum(13120), opening_minimum(4280)) == (120, 50)


def test_ph_t1_without_canasta_card_values() -> None:
    """PH-T1 with ph.canasta_cards_count = false (A79): 3800 and 1245."""
    ns, ew = ph_t1_teams()
    rules = ScoringRules(canasta_cards_count=False)
    assert score_team(ns, rules)["total"] == 3800
    assert score_team(ew, rules)["total"] == 1245


def test_ph_t1_through_the_referee() -> None:
    """PH-T1 played out: N goes out with an empty hand, the others reveal, the sheet adds up."""
    state = position(
        hand=[],
        melds=[["KH", "KD", "KC", "KS", "KH", "KD", "KC"], ["JK"] * 4 + ["2C", "2D", "2H"],
               ["8H", "8D", "8C", "8S", "8H", "2S", "2D"], ["5H", "5D", "5C", "JK"]],
        other_melds=[["7H", "7D", "7C", "7S", "7H", "7D", "7C"], ["AH", "AD", "AC"]],
        cumulative=(8900, 3000),
        picked=True,
    )
    state._red_threes = [["3H", "3H", "3D"], ["3H", "3H", "3D", "3D", "3D"]]
    state._dealt_perfect = [True, False]
    state._dealer = 2  # S dealt (N+S), so the dealer bonus goes to N+S
    state._counts = [0, 3, 3, 2]
    state._known = [{}, {}, {}, {}]
    state._picked = [True, True, True, False]
    state._pennies = [0, 0, 0, 11]
    legal(state, "go-out")
    assert state.phase() == "reveal"
    legal(state, "reveal S QH 4C 3S")
    legal(state, "reveal E KD 2H JK")
    legal(state, "reveal W 9H 9D")
    legal(state, "reveal-pennies W AH AS KC QD JC 10H 6S 5S 4D 2C 3C")
    sheet = state.score_sheet()[0]
    assert sheet["went_out"] == "N" and sheet["ended_by"] == "going out"
    assert sheet["teams"]["N+S"]["total"] == 4220 and sheet["teams"]["N+S"]["cumulative"] == 13120
    assert sheet["teams"]["E+W"]["total"] == 1280 and sheet["teams"]["E+W"]["cumulative"] == 4280
    assert sheet["teams"]["N+S"]["next_opening_minimum"] == 120
    assert state.team_scores() == {"N+S": 13120, "E+W": 4280}
    assert state.phase() == "deal" and state.round() == 2 and state.view()["dealer"] == "W"


# -- PH-T2: taking the pile -------------------------------------------------------------

def test_ph_t2_five_sixes_on_the_table_need_four_in_hand() -> None:
    """PH-T2 (A72): with five 6s melded, complete them to 7 first, then meld {T,6,6}; the first
    canasta makes the Pennies pick-up due."""
    state = position(hand=["6H", "6D", "6C", "6S", "9D", "10S"], melds=[["6H", "6D", "6C", "6S", "6H"]],
                     pile=["KC", "4D", "6C"], phase="acquire")
    error = refused(state, "take-pile 6H 6D")
    assert error.rule == "PH-5.2" and "complete it to 7" in str(error)
    legal(state, "take-pile 6H 6D + add 1 6C 6S")
    melds = state.meld_table()["N+S"]
    assert melds[0]["canasta"] == "natural" and melds[1]["cards"] == ["6C", "6H", "6D"]
    assert state._pennies_due[0]
    assert state.view()["hand_counts"]["N"] == 2 + 2  # 9D 10S and the rest of the pile, KC 4D
    legal(state, "discard 9D")
    assert state.view()["awaiting"] == {"step": "red-threes", "player": "N", "source": "pennies", "fresh": 11, "owed": 0}
    assert state.view()["hand_counts"]["N"] == 3 + 11


def test_ph_t2_completing_with_a_joker() -> None:
    """PH-T2: five 6s, hand 6 6 6 Joker: add 6 and Joker (unnatural canasta), then {T,6,6}."""
    state = position(hand=["6H", "6D", "6C", "JK", "9D"], melds=[["6H", "6D", "6C", "6S", "6H"]],
                     pile=["KC", "6S"], phase="acquire")
    legal(state, "take-pile 6H 6D + add 1 6C JK")
    assert state.meld_table()["N+S"][0]["canasta"] == "unnatural"


def test_ph_t2_completing_with_a_joker_refused_beside_another_wild_meld() -> None:
    """PH-T2: the same, while another incomplete meld holds a wild card: illegal (PH-4.6)."""
    state = position(hand=["6H", "6D", "6C", "JK", "9D"],
                     melds=[["6H", "6D", "6C", "6S", "6H"], ["9H", "9S", "2C"]], pile=["KC", "6S"], phase="acquire")
    assert refused(state, "take-pile 6H 6D + add 1 6C JK").rule == "PH-4.6"


def test_ph_t2_four_on_the_table_take_t_and_two() -> None:
    """PH-T2: with four 6s melded, T and two 6s join them: a canasta."""
    state = position(hand=["6H", "6D", "9D", "10S"], melds=[["6H", "6D", "6C", "6S"]], pile=["KC", "6S"], phase="acquire")
    legal(state, "take-pile 6H 6D")
    assert state.meld_table()["N+S"][0]["canasta"] == "natural"
    assert state.view()["hand_counts"]["N"] == 3


@pytest.mark.parametrize("top", ["2H", "JK", "3C"])
def test_ph_t2_frozen_pile_means_draw_only(top: str) -> None:
    """PH-T2 / PH-5.1: a 2, a joker or a black three on top: draw only."""
    state = position(hand=["KH", "KD", "9D"], pile=["KC", top], phase="acquire")
    assert refused(state, "take-pile KH KD").rule == "PH-5.1"
    assert [str(a) for a in state.legal_actions()] == ["draw"]


def test_ph_t2_opening_at_9500_with_the_top_card() -> None:
    """PH-T2: not opened, 9500 (minimum 90): {T,K,K} 30 + {A,A,Joker} 90 = 120: legal."""
    state = position(hand=["KH", "KD", "AH", "AS", "JK", "5C"], pile=["4D", "9D", "KC"], phase="acquire",
                     opened=False, cumulative=(9500, 0))
    assert refused(state, "take-pile KH KD").rule == "PH-4.9"
    legal(state, "take-pile KH KD + AH AS JK")
    assert state.view()["opened"]["N+S"]


def test_ph_t2_opening_counts_the_top_card() -> None:
    """PH-T2: at 0 (minimum 50), {T,K,K} 30 + {5,5,5,5} 20 = 50: legal; without the top card
    (ph.opening_counts_top_card = false) 40: illegal."""
    hand = ["KH", "KD", "5H", "5D", "5C", "5S", "9D"]
    state = position(hand=hand, pile=["4D", "KC"], phase="acquire", opened=False)
    legal(state, "take-pile KH KD + 5H 5D 5C 5S")
    strict = position(hand=hand, pile=["4D", "KC"], phase="acquire", opened=False,
                      **{"ph.opening_counts_top_card": "false"})
    error = refused(strict, "take-pile KH KD + 5H 5D 5C 5S")
    assert error.rule == "PH-4.9" and "total 40" in str(error)


def test_pile_needs_two_naturals_of_the_top_rank() -> None:
    """PH-5.2, PH-5.4 (A72): one natural and a wild card do not take the pile."""
    state = position(hand=["KH", "JK", "9D"], pile=["4D", "KC"], phase="acquire")
    assert refused(state, "take-pile KH JK").rule == "PH-5.2"


def test_initial_red_three_goes_to_the_team_that_takes_the_pile() -> None:
    """PH-5.3, PH-6.4 (A70): a red upcard freezes the pile; once covered, whoever takes the pile
    lays it out and draws a replacement."""
    state = dealt(upcard="3H")
    assert state.view()["discard_top"] == "3H"
    assert [str(a) for a in state.legal_actions()] == ["draw"]
    legal(state, "draw")
    legal(state, "red-threes none")
    legal(state, "discard 9H")
    state._known[1] = pc.multiset(["9D", "9S", "KH", "KD", "KC"])
    legal(state, "take-pile 9D 9S + KH KD KC")  # the opening: 30 + 30
    assert state.view()["red_threes"]["N+S"] == [] and state.view()["red_threes"]["E+W"] == ["3H"]
    assert state.view()["awaiting"]["source"] == "pile" and state.view()["awaiting"]["owed"] == 1
    draw = state.view()["draw_count"]
    legal(state, "red-threes none")
    assert state.view()["draw_count"] == draw - 1 and state.phase() == "play"
    state.check_invariants()


# -- PH-T3: meld legality ----------------------------------------------------------------

@pytest.mark.parametrize("cards,ok", [("5H 5D 2C", True), ("5H 2C 2D", False)])
def test_ph_t3_natural_majority(cards: str, ok: bool) -> None:
    """PH-T3 / PH-4.3: 5 5 2 legal; 5 2 2 illegal."""
    state = position(hand=cards.split() + ["9D", "9S"])
    if ok:
        legal(state, f"meld {cards}")
    else:
        assert refused(state, f"meld {cards}").rule == "PH-4.3"


def test_ph_t3_queens_with_two_jokers() -> None:
    """PH-T3: Q Q Q Joker Joker legal; another joker illegal (3 v 3); Q then 2 makes an
    unnatural canasta worth 300."""
    state = position(hand=["QH", "QD", "QC", "JK", "JK", "JK", "QS", "2H", "9D", "9S"])
    legal(state, "meld QH QD QC JK JK")
    assert refused(state, "add 1 JK").rule == "PH-4.3"
    legal(state, "add 1 QS")
    legal(state, "add 1 2H")
    meld = state.meld_table()["N+S"][0]
    assert meld["canasta"] == "unnatural" and len(meld["cards"]) == 7
    assert refused(state, "add 1 QH").rule == "PH-4.4"


@pytest.mark.parametrize("cards,ok", [("2C 2D JK", False), ("9H 9D 2S", False), ("9H 9D 9C", True)])
def test_ph_t3_one_wild_meld_at_a_time(cards: str, ok: bool) -> None:
    """PH-T3 / PH-4.6 (A76): with an open mixed meld of 8s, no wild meld and no other mixed
    meld may start; a natural meld may."""
    state = position(hand=cards.split() + ["4D", "4S"], melds=[["8H", "8D", "2H"]])
    if ok:
        legal(state, f"meld {cards}")
    else:
        assert refused(state, f"meld {cards}").rule == "PH-4.6"


def test_ph_t3_new_meld_of_a_rank_after_its_canasta() -> None:
    """PH-T3 / PH-4.5: another K meld after a completed K canasta is legal; beside an open K meld it is not."""
    state = position(hand=["KH", "KD", "KC", "9D", "9S"], melds=[["KS"] * 7])
    legal(state, "meld KH KD KC")
    again = position(hand=["KH", "KD", "KC", "9D", "9S"], melds=[["KS", "KS", "KS"]])
    assert refused(again, "meld KH KD KC").rule == "PH-4.5"


def test_ph_t3_special_canastas() -> None:
    """PH-T3 / PH-4.7 (A77): 7 natural aces are special (1500); 6 aces and a joker unnatural (300),
    special with ph.special_requires_natural = false."""
    assert canasta_kind(["AH"] * 7) == "aces"
    assert canasta_kind(["AH"] * 6 + ["JK"]) == "unnatural"
    assert canasta_kind(["AH"] * 6 + ["JK"], special_requires_natural=False) == "aces"
    assert score_team(TeamHand(melds=[["AH"] * 7], red_threes=0), ScoringRules())["canasta_points"] == 1500
    assert score_team(TeamHand(melds=[["AH"] * 6 + ["JK"]], red_threes=0), ScoringRules())["canasta_points"] == 300
    loose = ScoringRules(special_requires_natural=False)
    assert score_team(TeamHand(melds=[["AH"] * 6 + ["JK"]], red_threes=0), loose)["canasta_points"] == 1500


def test_threes_are_never_melded_and_melds_stay_within_seven() -> None:
    """PH-4.8 (A89) and PH-4.4 (A78)."""
    state = position(hand=["3C", "3S", "3C", "8H", "8D", "8C", "8S", "8H", "8D", "8C", "8S", "9D"])
    assert refused(state, "meld 3C 3S 3C").rule == "PH-4.8"
    assert refused(state, "meld 8H 8D 8C 8S 8H 8D 8C 8S").rule == "PH-4.4"
    assert refused(state, "meld 8H 8D").rule == "PH-4.2"


def test_exactly_one_more_ratio() -> None:
    """A74 with ph.mixed_ratio = exactly_one_more: 5 5 5 2 is refused."""
    state = position(hand=["5H", "5D", "5C", "2C", "9D", "9S"], **{"ph.mixed_ratio": "exactly_one_more"})
    assert refused(state, "meld 5H 5D 5C 2C").rule == "PH-4.3"
    legal(state, "meld 5H 5D 2C")


def test_opening_minimum_is_met_in_one_action() -> None:
    """PH-4.9 (A73): separate small melds do not add up; one combined meld action does."""
    state = position(hand=["5H", "5D", "5C", "AH", "AD", "AC", "9D", "9S"], opened=False)
    assert refused(state, "meld 5H 5D 5C").rule == "PH-4.9"
    legal(state, "meld 5H 5D 5C + AH AD AC")  # 15 + 60 = 75 >= 50


# -- PH-T4: going out --------------------------------------------------------------------

GOING_OUT_MELDS = [["KH"] * 7, ["JK"] * 7]


def test_ph_t4_no_going_out_after_burying() -> None:
    """PH-T4: natural K and wild canastas, 8 red threes out, but the player buried this turn."""
    state = position(hand=["KD", "5C", "9D"], melds=GOING_OUT_MELDS, red_threes=8)
    legal(state, "bury KD")
    assert refused(state, "go-out 9D").rule == "PH-9.1.3"
    assert refused(state, "ask").rule == "PH-9.1.3"


def test_ph_t4_specials_alone_do_not_go_out() -> None:
    """PH-T4: aces and sevens special canastas only: no regular canasta, no going out (A84);
    with ph.special_counts_as_regular = true they do."""
    melds = [["AH"] * 7, ["7H"] * 7]
    state = position(hand=["9D"], melds=melds, red_threes=8)
    assert refused(state, "go-out 9D").rule == "PH-9.1.2"
    loose = position(hand=["9D"], melds=melds, red_threes=8, **{"ph.special_counts_as_regular": "true"})
    legal(loose, "go-out 9D")
    assert loose.phase() == "reveal"


def test_ph_t4_a_red_three_in_unpicked_pennies_stops_everyone() -> None:
    """PH-T4 / PH-9.1.1: one red three is still inside a Pennies stack (7 of 8 out)."""
    state = position(hand=["9D"], melds=GOING_OUT_MELDS, red_threes=7)
    error = refused(state, "go-out 9D")
    assert error.rule == "PH-9.1.1" and "7 of the 8" in str(error)


def test_ph_t4_two_black_threes_cannot_go_out() -> None:
    """PH-T4 / PH-9.3: black threes cannot be melded, so two of them cannot both leave the hand."""
    state = position(hand=["3C", "3S"], melds=GOING_OUT_MELDS, red_threes=8)
    assert refused(state, "go-out 3C").rule == "PH-9.3"
    assert refused(state, "add 1 3S").rule == "PH-4.8"


def test_going_out_by_discarding_the_last_card() -> None:
    """PH-9.3: meld all but one, then go out discarding it; PH-9.4: a plain discard of the last card
    is refused in favour of go-out."""
    state = position(hand=["KD", "9D"], melds=[["KH"] * 6, ["JK"] * 7], red_threes=8)
    legal(state, "add 1 KD")
    assert refused(state, "discard 9D").rule == "PH-9.4"
    legal(state, "go-out 9D")
    assert state.view()["discard_top"] == "9D" and state.phase() == "reveal"


def test_partner_answer_binds() -> None:
    """PH-9.2: after 'no' the player may not go out (nor meld down to one card); after 'yes' the
    player must go out."""
    melds = [["KH"] * 5, ["JK"] * 7]
    state = position(hand=["KD", "KC", "9D"], melds=melds, red_threes=8, picked=True)
    legal(state, "ask")
    assert state.current_player_name() == "S"
    legal(state, "answer no")
    error = refused(state, "add 1 KD KC")
    assert error.rule == "PH-7.3" and "PH-9.2" in str(error)
    legal(state, "add 1 KD")
    yes = position(hand=["KD", "KC", "9D"], melds=melds, red_threes=8, picked=True)
    legal(yes, "ask")
    legal(yes, "answer yes")
    assert refused(yes, "discard 9D").rule == "PH-9.2"
    legal(yes, "add 1 KD KC")
    legal(yes, "go-out 9D")


def test_hand_floor() -> None:
    """PH-7.3 (A83): a player who cannot go out keeps two cards after melding (one to discard)."""
    state = position(hand=["5H", "5D", "5C", "9D"])
    error = refused(state, "meld 5H 5D 5C")
    assert error.rule == "PH-7.3"


# -- PH-T5 and the Pennies ---------------------------------------------------------------

PH_T5_PENNIES = "3H 4C 5C 6C 7C 4D 8C 9C 10C AC AD"  # a red three + ten cards worth 95


@pytest.mark.parametrize("penalty,points", [("100", -195), ("200", -295)])
def test_ph_t5_unpicked_pennies_at_exhaustion(penalty: str, points: int) -> None:
    """PH-T5 / PH-8.4 (A81): the hand ends when the Draw Pile runs out; W's unpicked stack holds a
    red three and ten cards worth 95: W's team loses 195 (295 with penalty 200)."""
    state = position(hand=["9D", "9S", "10H"], **{"ph.unpicked_red_three_penalty": penalty})
    state._draw = 0
    legal(state, "discard 10H")
    assert state.phase() == "reveal" and state.prompt().startswith("Hand over")
    reserved = pc.multiset(PH_T5_PENNIES.split())
    for kind, name in state.view()["awaiting"]["waiting"]:
        if kind == "pennies" and name == "W":
            legal(state, f"reveal-pennies W {PH_T5_PENNIES}")
            continue
        seat = state.game.player_index(name)
        known = pc.expand(state._known[seat]) if kind == "hand" else []
        count = (state.view()["hand_counts"][name] if kind == "hand" else 11) - len(known)
        pool = [c for c in pc.expand(pc.minus(state._unseen(), reserved)) if not pc.is_red_three(c)]
        verb = "reveal" if kind == "hand" else "reveal-pennies"
        legal(state, f"{verb} {name} {' '.join(known + pool[:count])}")
    sheet = state.score_sheet()[0]
    assert sheet["ended_by"] == "Draw Pile exhausted"
    line = sheet["teams"]["E+W"]["pennies_not_picked_up"]["W"]
    assert line["points"] == points and line["red_threes"] == 1


def test_pennies_pick_up_with_a_red_three() -> None:
    """PH-8.2, PH-8.3, PH-6.1: complete a canasta, discard, pick up the Pennies, lay out a red three."""
    state = position(hand=["KD", "9D", "9S", "4C"], melds=[["KH"] * 6])
    legal(state, "add 1 KD")
    assert state._pennies_due[0]
    legal(state, "discard 4C")
    assert state.view()["pennies_picked_up"]["N"] and state.view()["hand_counts"]["N"] == 2 + 11
    draw = state.view()["draw_count"]
    legal(state, "red-threes 3D")
    assert state.view()["red_threes"]["N+S"] == ["3D"]
    assert state.view()["draw_count"] == draw - 1 and state.view()["hand_counts"]["N"] == 13
    assert state.phase() == "acquire" and state.current_player_name() == "E"


def test_no_pick_up_when_the_hand_ends_this_turn() -> None:
    """PH-8.3 (A84): going out completes a canasta but the Pennies are not picked up."""
    state = position(hand=["KD", "9D"], melds=[["KH"] * 6, ["JK"] * 7], red_threes=8)
    legal(state, "add 1 KD")
    legal(state, "go-out 9D")
    assert state.phase() == "reveal" and not state.view()["pennies_picked_up"]["N"]


# -- burying -----------------------------------------------------------------------------

def test_burying() -> None:
    """PH-11 (A86): only ranks with a completed canasta, never threes, wild cards only with
    ph.bury_wilds and a wild canasta."""
    state = position(hand=["10H", "9D", "2C", "3C", "5C", "6C"], melds=[["10S"] * 7])
    assert refused(state, "bury 9D").rule == "PH-11.1"
    assert refused(state, "bury 3C").rule == "PH-11.1"
    assert refused(state, "bury 2C").rule == "PH-11.1"
    legal(state, "bury 10H")
    assert state.view()["hand_counts"]["N"] == 5
    assert [i.value for i in state.zones()["buried:N+S"]] == ["10H"]
    wild = position(hand=["2C", "9D", "5C"], melds=[["JK"] * 7], **{"ph.bury_wilds": "true"})
    legal(wild, "bury 2C")


# -- the deal, red threes and hidden information -----------------------------------------

@pytest.mark.parametrize("players,draw", [(FOUR, 111), (SIX, 167)])
def test_deal_counts(players: list[str], draw: int) -> None:
    """PH-2.5, §6.6: the Draw Pile holds 28P - 1 cards after the upcard."""
    state = new_state(players)
    state.apply(f"designate {players[0]}")
    state.apply("dealt no no")
    state.apply("upcard QH")
    assert state.view()["draw_count"] == draw
    assert sum(len(items) for items in state.zones().values()) == 54 * len(players)
    assert state.view()["awaiting"]["player"] == players[1]  # PH-2.7: from the dealer's left
    state.check_invariants()


def test_dealt_red_threes_are_replaced() -> None:
    """PH-2.7, PH-6.1: laid out for the team with a replacement each; the hand stays at 15."""
    state = new_state()
    state.apply("designate W")
    state.apply("dealt yes yes")
    state.apply("upcard QH")
    state.apply("red-threes 3D 3H")
    assert state.view()["hand_counts"]["N"] == 15 and state.view()["draw_count"] == 109
    assert state.view()["red_threes"]["N+S"] == ["3D", "3H"]
    assert refused(state, "red-threes 5H").rule == "PH-6.1"


def test_dealer_bonus() -> None:
    """PH-2.4 (A68): 50 for each perfect dealer, to the dealing team; off with ph.dealer_bonus."""
    lines = score_team(TeamHand(melds=[], red_threes=0, dealer_successes=2), ScoringRules())
    assert lines["dealer_bonus"] == 100 and lines["total"] == 100
    state = new_state(**{"ph.dealer_bonus": "false"})
    state.apply("designate N")
    assert [str(a) for a in state.legal_actions()] == ["dealt no no"]
    assert refused(state, "dealt yes no").rule == "A68"


def test_hidden_information_is_checked() -> None:
    """G-6 (A91): a card every copy of which is seen cannot come from a hand; a hand of two
    cannot meld three; reveals must match counts, known cards and the unseen cards."""
    state = dealt()
    state.apply("draw")
    state.apply("red-threes none")
    state._melds[1] = [["9H"] * 4]
    state._opened[1] = True
    assert refused(state, "discard 9H").rule == "G-6"
    state._counts[0] = 2
    state._draw += 15
    assert refused(state, "meld KH KD KC").rule == "G-6"


def test_reveal_is_validated() -> None:
    """PH-10, G-6: a reveal names the right number of cards, includes the cards known to be in
    the hand, holds no red three, and uses only unseen cards."""
    state = position(hand=["9D", "9S", "10H"])
    state._counts[0] += 2  # two cards the referee has not seen
    state._draw = 0
    legal(state, "discard 10H")
    count = state.view()["hand_counts"]["E"]
    assert refused(state, "reveal E 4S").rule == "G-6"
    assert refused(state, "reveal E " + " ".join(["3H"] + ["4S"] * (count - 1))).rule == "PH-6.1"
    error = refused(state, "reveal N 4S 4S 4C 4C")
    assert error.rule == "G-6" and "9D 9S" in str(error)  # taken with the pile: must be in the hand
    assert refused(state, "reveal W 4S").rule == "G-6"
    legal(state, "reveal N 9D 9S 4C 4C")
    assert refused(state, "reveal-pennies N " + " ".join(["9C"] * 11)).rule == "G-6"


def test_draw_exhaustion_immediate() -> None:
    """A85 with ph.draw_exhaustion = immediate: drawing the last card ends the hand at once."""
    state = position(hand=["9D", "9S"], phase="acquire", **{"ph.draw_exhaustion": "immediate"})
    state._draw = 1
    legal(state, "draw")
    legal(state, "red-threes none")
    assert state.phase() == "reveal"
    finish = position(hand=["9D", "9S"], phase="acquire")
    finish._draw = 1
    legal(finish, "draw")
    legal(finish, "red-threes none")
    assert finish.phase() == "play"  # the turn is finished first


# -- end of the game ---------------------------------------------------------------------

@pytest.mark.parametrize("tie,over", [("co_winners", True), ("play_another_hand", False)])
def test_game_end_and_ties(tie: str, over: bool) -> None:
    """PH-12 (A87): a tie for the highest score at the target: co-winners, or another hand."""
    state = position(hand=["5C", "9D"], cumulative=(105, 105), picked=True,
                     **{"ph.game_target": "100", "ph.win_tie": tie})
    state._counts = [2, 1, 0, 0]
    state._known = [pc.multiset(["5C", "9D"]), {"5D": 1}, {}, {}]
    state._pennies = [0, 0, 0, 0]
    state._picked = [True] * 4
    state._draw = 0
    legal(state, "discard 9D")
    assert state.team_scores() == {"N+S": 100, "E+W": 100}
    assert state.is_terminal() == over
    if over:
        assert sorted(state.winners()) == ["E", "N", "S", "W"]
        assert state.legal_actions() == []
    else:
        assert state.phase() == "deal" and state.winners() == []


# -- options, notation, errors -----------------------------------------------------------

def test_every_ph_key_is_an_option() -> None:
    """§7.2: every ph.* key with its default."""
    specs = {spec.key: spec for spec in find_game("pennies-from-heaven").option_specs}
    assert set(specs) == {
        "ph.dealer_bonus", "ph.opening_counts_top_card", "ph.mixed_ratio", "ph.special_requires_natural",
        "ph.canasta_cards_count", "ph.red_threes_to_go_out", "ph.all_red_threes_bonus", "ph.all_red_threes_value",
        "ph.unpicked_red_three_penalty", "ph.special_counts_as_regular", "ph.empty_hand_with_pennies_due",
        "ph.draw_exhaustion", "ph.bury_wilds", "ph.win_tie", "ph.game_target",
    }
    assert specs["ph.game_target"].default == 25000
    with pytest.raises(ConfigError, match="ph.mixed_ratio"):
        new_state(**{"ph.mixed_ratio": "sometimes"})


def test_players_four_or_six() -> None:
    """A66: 4 or 6 players."""
    with pytest.raises(ConfigError, match="A66"):
        new_state(["A", "B", "C", "D", "E"])
    with pytest.raises(ConfigError):
        new_state(["A", "B", "C"])


@pytest.mark.parametrize("text", [
    "take-pile QH QD", "take-pile 6H 6D + add 1 6C JK + AH AS JK", "meld 7H 7D 7C", "meld 7H 7D 7C + KH KD KC",
    "add 1 2S", "discard 3C", "bury 10H", "go-out", "go-out 3C", "draw", "ask", "answer yes", "dealt yes no",
    "upcard 10C", "red-threes none", "red-threes 3D 3H", "reveal Ann 9H JK", "reveal-pennies Ann 9H",
])
def test_text_forms_parse_back(text: str) -> None:
    """Every action's text form parses back to the same action."""
    game = find_game("pennies-from-heaven")(FOUR)
    action = game.parse_action(text)
    assert str(action) == text and game.parse_action(str(action)) == action


@pytest.mark.parametrize("text", ["discard 1H", "meld 7H 7X", "add x 2S", "take-pile QH", "dealt maybe no", "go-out 3C 4C"])
def test_bad_text_is_refused(text: str) -> None:
    """Malformed actions name what is wrong."""
    with pytest.raises(InvalidActionError):
        find_game("pennies-from-heaven")(FOUR).parse_action(text)


def test_all_red_threes_bonus() -> None:
    """PH-6.2 (A80): optional 1000 for all eight; 1500 for all twelve with six packs."""
    rules = find_game("pennies-from-heaven")(FOUR, {"ph.all_red_threes_bonus": "true"}).scoring_rules()
    assert score_team(TeamHand(melds=[], red_threes=8), rules)["red_threes"]["points"] == 1000
    assert score_team(TeamHand(melds=[], red_threes=7), rules)["red_threes"]["points"] == 700
    six = find_game("pennies-from-heaven")(SIX, {"ph.all_red_threes_bonus": "true"}).scoring_rules()
    assert score_team(TeamHand(melds=[], red_threes=12), six)["red_threes"]["points"] == 1500


# -- the example scripts -----------------------------------------------------------------

@pytest.mark.parametrize("players,script,totals", [
    (FOUR, "pennies-from-heaven-4p.txt", {"N+S": 1765, "E+W": -160}),
    (SIX, "pennies-from-heaven-6p.txt", {"A+D": 3700, "B+E": -250, "C+F": -30}),
])
def test_example_scripts_referee_a_whole_hand(players: list[str], script: str, totals: dict[str, int]) -> None:
    """A whole hand from a script to the score sheet worked out by hand in the script's comments."""
    state = new_state(players)
    lines = (ROOT / "examples" / "scripts" / script).read_text(encoding="utf-8").splitlines()
    assert play_script(state, lines, quiet=True) == 0
    sheet = state.score_sheet()
    assert len(sheet) == 1 and sheet[0]["ended_by"] == "going out"
    assert {team: lines["total"] for team, lines in sheet[0]["teams"].items()} == totals
    assert state.team_scores() == totals
    again = state_from_json(json.loads(json.dumps(state.to_json())))
    assert again == state


def test_example_4p_score_sheet_lines() -> None:
    """The 4-player script's lines: canastas, melded cards, red threes, going out, dealer bonus,
    hands and unpicked Pennies."""
    state = new_state()
    lines = (ROOT / "examples" / "scripts" / "pennies-from-heaven-4p.txt").read_text(encoding="utf-8").splitlines()
    assert play_script(state, lines, quiet=True) == 0
    ns, ew = state.score_sheet()[0]["teams"]["N+S"], state.score_sheet()[0]["teams"]["E+W"]
    assert ns["canastas"]["natural"]["count"] == 1 and ns["canastas"]["sevens"]["count"] == 1
    assert ns["canasta_points"] == 1500 and ns["melded_cards"]["points"] == 190
    assert ns["red_threes"] == {"count": 4, "points": 400} and ns["going_out"] == 200
    assert ns["cards_in_hand"]["S"]["points"] == -370 and ns["pennies_not_picked_up"] == {
        "N": {"cards": pc.sort_cards("AH 10C JD 4S 6H 2D 8S 9S QC JK 5D".split()), "points": -155, "red_threes": 0}
    }
    assert ew["dealer_bonus"] == 50 and ew["penalties"] == -265 - 145 - 100 - 180
    assert ew["cards_in_hand"]["E"]["black_threes"] == 1


def test_cli_json_includes_the_score_sheet() -> None:
    """``referee play pennies-from-heaven --script FILE --json`` prints the score sheet."""
    result = subprocess.run(
        [sys.executable, "-m", "web.cli", "play", "pennies-from-heaven", "--players", "N,E,S,W",
         "--script", str(ROOT / "examples" / "scripts" / "pennies-from-heaven-4p.txt"), "--json"],
        capture_output=True, text=True, cwd=ROOT, check=False,
    )
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["score_sheet"][0]["teams"]["N+S"]["total"] == 1765
    assert summary["scores"] == {"N": 1765, "E": -160, "S": 1765, "W": -160}
