"""General referee conventions (RULES.md §G) pinned across the games of §1-§4 (issue 2)."""

from __future__ import annotations

from referee import CHANCE, State, find_game
from referee.reconcile import Discrepancy, Seen, TableMatches, reconcile


def movers(state: State, actions: list[str]) -> list[str]:
    """The player named to act before each decision in ``actions`` (chance steps skipped)."""
    names = []
    for action in actions:
        if state.current_player() != CHANCE:
            name = state.current_player_name()
            assert name is not None
            names.append(name)
        state.apply(action)
    return names


def test_g_1_players_sit_in_registration_order_and_turns_go_left() -> None:
    """G-1: players are seated in the order registered and turns pass to the next seat (left),
    wrapping round, in Seven Pennies, Pennywise, Sevens and FLIP."""
    sp = find_game("seven-pennies")(["Cy", "Ann", "Bo"]).new_state()
    assert sp.game.players == ("Cy", "Ann", "Bo")
    sp.apply("designate Ann")
    line = ["throw 5H 4T", "cancel", "throw 5H 4T", "cancel", "throw 5H 4T", "cancel", "throw 5H 4T", "cancel"]
    assert movers(sp, line) == ["Ann", "Bo", "Cy", "Ann"]
    pw = find_game("pennywise")(["Cy", "Ann", "Bo"]).new_state()
    pw.apply("designate Ann")
    assert movers(pw, ["put 1", "put 1", "put 1", "put 1"]) == ["Ann", "Bo", "Cy", "Ann"]
    sv = find_game("sevens")(["Cy", "Ann", "Bo"], {"sv.rounds": 2}).new_state()
    for faces in ("roll 1 1 1 1 1 1", "roll 6 6 6 6 6 6", "roll 2 2 2 2 2 2"):  # Ann rolls highest
        sv.apply(faces)
    assert movers(sv, ["roll 2 2 1 1 3 3", "keep"] * 4) == ["Ann", "Bo", "Cy", "Ann"]
    fl = find_game("flip")(["Cy", "Ann"]).new_state()
    fl.apply("roll 6 6 6 6 6 1 1 1 1 1")  # dice 6-10 are Ann's, the lower total: Ann starts
    assert movers(fl, ["flip 6", "flip 1", "flip 7", "flip 2"]) == ["Ann", "Cy", "Ann", "Cy"]


def test_g_2_the_referee_state_is_authoritative_after_a_forced_step() -> None:
    """G-2: after a FORCED step (the Booth) the observed table is compared with the expected one;
    a table where the Booth was not carried out, or a Gathered penny was flipped, is flagged,
    and the referee's state stays as the rules made it."""
    state = find_game("seven-pennies")(["Jess", "Kevin"]).new_state()
    for action in ("designate Jess", "throw 3H 4T"):
        state.apply(action)
    before = state.copy()
    booth_done = ([Seen("penny", "tails", "theatre", ref=0)]
                  + [Seen("penny", face, "balcony", ref=1 + i) for i, face in enumerate(["heads", "tails"] * 3)])
    ruling = reconcile(state, booth_done)
    assert isinstance(ruling, TableMatches) and [m.rule for m in ruling.confirmed] == ["SP-3.2"]
    not_done = ([Seen("penny", "tails", "theatre", ref=0)]
                + [Seen("penny", face, "theatre", ref=1 + i) for i, face in enumerate(["heads", "tails"] * 3)])
    flagged = reconcile(state, not_done)
    assert isinstance(flagged, Discrepancy) and "Balcony" in flagged.text()
    state.apply("gather")
    flipped = ([Seen("penny", "heads", "gathered:Jess", ref=0)]
               + [Seen("penny", "heads", "balcony", ref=1 + i) for i in range(6)])
    assert isinstance(reconcile(state, flipped), Discrepancy)  # Jess's penny must show tails
    state.undo()
    assert state == before
