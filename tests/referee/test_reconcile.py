"""Reconciling the camera's read with the table the rules expect (DESIGN.md, G-2, G-3)."""

from __future__ import annotations

from referee import find_game
from referee.actions import Roll
from referee.reconcile import (
    AS_READ,
    ONE_BY_ONE,
    ChanceOutcome,
    Discrepancy,
    Question,
    Seen,
    TableMatches,
    answer,
    reconcile,
)


def sevens_turn():
    state = find_game("sevens")(["A", "B"], {"sv.rounds": 1}).new_state()
    state.apply("roll 6 6 6 6 6 6")
    state.apply("roll 1 1 1 1 1 1")
    return state


def dice(zone: str, *faces: int, confidence: float = 0.99, flags: tuple[str, ...] = ()) -> list[Seen]:
    return [Seen("d6", f, zone, confidence, flags, ref=i) for i, f in enumerate(faces)]


def aside(n: int, start: int = 100) -> list[Seen]:
    return [Seen("d6", 3, "aside", 0.9, (), ref=start + i) for i in range(n)]


def test_a_roll_read_from_the_theatre_is_the_chance_outcome() -> None:
    state = sevens_turn()
    ruling = reconcile(state, dice("theatre", 1, 2, 4, 6, 3, 3))
    assert ruling == ChanceOutcome(Roll((1, 2, 3, 3, 4, 6)))


def test_too_few_dice_in_the_theatre_is_a_rethrow_naming_the_count() -> None:
    state = sevens_turn()
    ruling = reconcile(state, dice("theatre", 1, 2, 4, 6, 3) + aside(1))
    assert isinstance(ruling, Discrepancy) and ruling.rethrow
    assert "rolls 6 dice, but 5 lie in the Theatre" in ruling.text()


def test_an_unsure_face_becomes_a_question_never_a_guess() -> None:
    state = sevens_turn()
    seen = dice("theatre", 1, 2, 4, 6, 3, 3)
    seen[2] = Seen("d6", 4, "theatre", 0.55, (), ref=2)
    ruling = reconcile(state, seen)
    assert isinstance(ruling, Question)
    assert ruling.refs == (2,) and ruling.choices == ("1", "2", "3", "4", "5", "6", "cocked", "not a die")
    fixed = answer(seen, ruling.refs, 5)
    assert reconcile(state, fixed) == ChanceOutcome(Roll((1, 2, 3, 3, 5, 6)))


def test_several_unsure_faces_are_one_question_the_players_confirm_at_a_glance() -> None:
    """SV-4.1: a roll read right but not surely is asked about once, as read; "yes" applies it."""
    state = sevens_turn()
    seen = dice("theatre", 1, 2, 4, 6, 3, 3, confidence=0.6)
    ruling = reconcile(state, seen)
    assert isinstance(ruling, Question) and ruling.refs == (0, 1, 2, 3, 4, 5)
    assert ruling.choices == (AS_READ, ONE_BY_ONE)
    assert "1 die showing 1" in ruling.text and "2 dice showing 3" in ruling.text
    assert reconcile(state, answer(seen, ruling.refs, AS_READ)) == ChanceOutcome(Roll((1, 2, 3, 3, 4, 6)))


def test_a_group_read_the_players_reject_is_asked_about_die_by_die() -> None:
    """"No": every face of the group is forgotten, so each die is asked about alone; never a guess."""
    state = sevens_turn()
    seen = dice("theatre", 1, 2, 4, 6, 3, 3, confidence=0.99)
    seen[4], seen[5] = Seen("d6", 3, "theatre", 0.6, (), ref=4), Seen("d6", 3, "theatre", 0.6, (), ref=5)
    group = reconcile(state, seen)
    assert isinstance(group, Question) and group.refs == (4, 5)
    seen = answer(seen, group.refs, ONE_BY_ONE)
    first = reconcile(state, seen)
    assert isinstance(first, Question) and first.refs == (4,) and "1 more to check" in first.text
    seen = answer(seen, first.refs, 5)
    second = reconcile(state, seen)
    assert isinstance(second, Question) and second.refs == (5,)
    assert reconcile(state, answer(seen, second.refs, 3)) == ChanceOutcome(Roll((1, 2, 3, 4, 5, 6)))


def test_players_can_answer_that_an_unsure_die_is_cocked() -> None:
    """G-3: the answer "cocked" makes the throw invalid (throw again), nothing is applied."""
    state = sevens_turn()
    seen = dice("theatre", 1, 2, 4, 6, 3, 3)
    seen[4] = Seen("d6", None, "theatre", 0.3, (), ref=4)
    ruling = reconcile(state, seen)
    assert isinstance(ruling, Question) and "cocked" in ruling.choices
    after = reconcile(state, answer(seen, ruling.refs, "cocked"))
    assert isinstance(after, Discrepancy) and after.rethrow
    assert "cocked" in after.text() and after.problems[0].refs == (4,) and after.problems[0].rule == "G-3"


def test_a_die_the_camera_thinks_may_be_cocked_is_asked_about_not_ruled_on() -> None:
    """G-3: the reader's unsure "cocked" (flag kept, no confidence) asks the players, naming
    the doubt; a face answered drops it and the throw is read, "cocked" rules the rethrow."""
    state = sevens_turn()
    seen = dice("theatre", 1, 2, 4, 6, 3, 3)
    seen[4] = Seen("d6", None, "theatre", 0.0, ("cocked",), ref=4)
    ruling = reconcile(state, seen)
    assert isinstance(ruling, Question) and ruling.refs == (4,)
    assert "may be cocked" in ruling.text and "cocked" in ruling.choices
    assert reconcile(state, answer(seen, ruling.refs, 3)) == ChanceOutcome(Roll((1, 2, 3, 3, 4, 6)))
    after = reconcile(state, answer(seen, ruling.refs, "cocked"))
    assert isinstance(after, Discrepancy) and after.rethrow and after.problems[0].rule == "G-3"


def test_players_can_answer_that_an_unsure_coin_is_on_its_edge() -> None:
    """G-3 for a coin: "on edge" is offered beside heads and tails, and rules like a flagged read."""
    state = find_game("seven-pennies")(["A", "B"]).new_state()
    state.apply("designate A")
    seen = [Seen("penny", "heads", "theatre", 0.99, (), ref=i) for i in range(6)]
    seen.append(Seen("penny", None, "theatre", 0.2, (), ref=6))
    ruling = reconcile(state, seen)
    assert isinstance(ruling, Question) and ruling.choices == ("heads", "tails", "on edge", "not a coin")
    after = reconcile(state, answer(seen, ruling.refs, "on edge"))
    assert isinstance(after, Discrepancy) and after.rethrow and "on its edge" in after.text()


def test_coins_the_camera_saw_overlapping_are_asked_about_one_by_one() -> None:
    """RULES A1: a coin resting cocked on another makes the throw invalid, so the camera reads
    neither of two overlapping coins; the players say which lies flat and which leans."""
    state = find_game("seven-pennies")(["A", "B"]).new_state()
    state.apply("designate A")
    seen = [Seen("penny", "heads", "theatre", 0.99, (), ref=i) for i in range(5)]
    seen += [Seen("penny", None, "theatre", 0.0, ("overlapping",), ref=i) for i in (5, 6)]
    ruling = reconcile(state, seen)
    assert isinstance(ruling, Question) and ruling.refs == (5,)
    assert "overlaps another coin" in ruling.text and "on edge" in ruling.choices
    seen = answer(seen, ruling.refs, "tails")  # the one beneath lies flat
    ruling = reconcile(state, seen)
    assert isinstance(ruling, Question) and ruling.refs == (6,)
    after = reconcile(state, answer(seen, ruling.refs, "on edge"))  # the other leans on it
    assert isinstance(after, Discrepancy) and after.rethrow and "on its edge" in after.text()


def test_a_coin_the_camera_is_unsure_lies_flat_is_asked_about_not_ruled_on() -> None:
    """G-3 / A1: only a sure "on its edge" or "on another coin" rules a rethrow. The camera's
    tilted-coin and stacked-coin finds carry no confidence (a bar of the coin's colour may be
    a shadow, a circle inside another a coin's own design), so the players are asked; a face
    answered says the coin lies flat and the throw is read, "on edge" rules the rethrow."""
    state = find_game("seven-pennies")(["A", "B"]).new_state()
    state.apply("designate A")
    flat = [Seen("penny", "heads" if i < 4 else "tails", "theatre", 0.99, (), ref=i) for i in range(6)]
    for flag, words in (("on_edge", "may be on its edge"), ("leaning", "may be on its edge"),
                        ("stacked", "seems to lie on another coin")):
        seen = [*flat, Seen("penny", None, "theatre", 0.0, (flag,), ref=6)]
        ruling = reconcile(state, seen)
        assert isinstance(ruling, Question) and ruling.refs == (6,), flag
        assert words in ruling.text and "on edge" in ruling.choices
        assert reconcile(state, answer(seen, ruling.refs, "tails")) == ChanceOutcome(
            state.game.parse_action("throw 4H 3T"))
        after = reconcile(state, answer(seen, ruling.refs, "on edge"))
        assert isinstance(after, Discrepancy) and after.rethrow and after.problems[0].rule == "G-3"
    # Sure, as the players' answer makes it, the same flag rules at once.
    sure = [*flat, Seen("penny", None, "theatre", 1.0, ("stacked",), ref=6)]
    ruling = reconcile(state, sure)
    assert isinstance(ruling, Discrepancy) and ruling.rethrow and "lies on or under another coin" in ruling.text()


def test_players_can_answer_that_an_unsure_die_is_no_die() -> None:
    """A printed letter taken for a die: "not a die" drops the read and the throw is read
    from the dice that are there."""
    state = sevens_turn()
    seen = dice("theatre", 1, 2, 4, 6, 3, 3) + [Seen("d6", None, "theatre", 0.2, (), ref=6)]
    ruling = reconcile(state, seen)
    assert isinstance(ruling, Question) and ruling.refs == (6,) and "not a die" in ruling.choices
    assert reconcile(state, answer(seen, ruling.refs, "not a die")) == ChanceOutcome(Roll((1, 2, 3, 3, 4, 6)))


def test_a_doubtful_extra_object_is_asked_about_before_the_table_is_called_wrong() -> None:
    """An unsure read in a zone whose faces do not matter (a letter of "BALCONY" taken for a
    die): the players are asked before a discrepancy is ruled, and "not a die" clears it."""
    state = find_game("seven-pennies")(["A", "B"], {"spd.enabled": "true"}).new_state()
    state.apply("designate A")
    balcony = [Seen("d6", None, "balcony", 1.0, (), ref=i) for i in range(7)]
    letter = Seen("d6", None, "balcony", 0.3, (), ref=7)
    assert isinstance(reconcile(state, balcony), TableMatches)
    ruling = reconcile(state, [*balcony, letter])
    assert isinstance(ruling, Question) and ruling.refs == (7,)
    assert isinstance(reconcile(state, answer([*balcony, letter], ruling.refs, "not a die")), TableMatches)
    # A sure read of an eighth die is no question: the table is not as the rules say.
    extra = reconcile(state, [*balcony, Seen("d6", 4, "balcony", 0.99, (), ref=7)])
    assert isinstance(extra, Discrepancy)


def test_a_face_read_as_none_is_asked_about() -> None:
    state = sevens_turn()
    seen = dice("theatre", 1, 2, 4, 6, 3, 3)
    seen[0] = Seen("d6", None, "theatre", 0.9, (), ref=0)
    assert isinstance(reconcile(state, seen), Question)


def test_a_cocked_die_in_the_theatre_means_throw_again() -> None:
    """G-3 / A1: an object that does not lie flat makes the throw invalid."""
    state = sevens_turn()
    seen = dice("theatre", 1, 2, 4, 6, 3) + [Seen("d6", 3, "theatre", 0.9, ("cocked",), ref=9)]
    ruling = reconcile(state, seen)
    assert isinstance(ruling, Discrepancy) and ruling.rethrow
    assert "cocked" in ruling.text() and ruling.problems[0].refs == (9,)


def test_a_die_outside_every_zone_during_a_throw_means_throw_again() -> None:
    state = sevens_turn()
    seen = dice("theatre", 1, 2, 4, 6, 3) + [Seen("d6", 3, None, 0.9, (), ref=7)]
    ruling = reconcile(state, seen)
    assert isinstance(ruling, Discrepancy) and ruling.rethrow and ruling.problems[0].refs == (7,)


def test_forced_moves_confirmed_when_the_table_matches() -> None:
    """SV-4.2: after the removal the Theatre holds 2 and 3, the four removed dice lie aside."""
    state = sevens_turn()
    state.apply("roll 1 2 4 6 3 3")
    ruling = reconcile(state, dice("theatre", 2, 3) + aside(4))
    assert isinstance(ruling, TableMatches)
    assert [m.rule for m in ruling.confirmed] == ["SV-4.2"]


def test_forced_move_not_yet_made_is_a_discrepancy_naming_the_dice() -> None:
    state = sevens_turn()
    state.apply("roll 1 2 4 6 3 3")
    ruling = reconcile(state, dice("theatre", 2, 3, 1, 6, 4, 3))
    assert isinstance(ruling, Discrepancy) and not ruling.rethrow
    assert ruling.text() == (
        "Still to do: Move 1 die showing 1, 1 die showing 3, 1 die showing 4 and 1 die showing 6 "
        "from the Theatre to the side of the table (SV-4.2)"
    )
    # Not part-way through the moves: the differences are named one by one.
    stray = reconcile(state, dice("theatre", 2, 3, 1, 6, 4) + aside(1))
    assert isinstance(stray, Discrepancy) and not stray.pending
    assert "in the Theatre should be in the side of the table" in stray.text()


def test_a_missing_die_is_named() -> None:
    state = sevens_turn()
    state.apply("roll 1 2 4 6 3 3")
    ruling = reconcile(state, dice("theatre", 2) + aside(4))
    assert isinstance(ruling, Discrepancy)
    assert "the Theatre is missing 1 die showing 3" in ruling.text()


def test_a_table_waiting_for_the_throw_matches() -> None:
    """Before the roll every die lies aside and the Theatre is empty: as expected, no discrepancy."""
    state = sevens_turn()
    assert isinstance(reconcile(state, aside(6)), TableMatches)


def test_sp_table_after_gather_waits_for_the_next_throw() -> None:
    """SP-3.5 then SP-3.1: the gathered tail in Jess's area, 6 pennies in the Balcony, Theatre empty."""
    state = find_game("seven-pennies")(["Jess", "Kevin"]).new_state()
    for text in ("designate Jess", "throw 3H 4T", "gather"):
        state.apply(text)
    seen = [Seen("penny", "tails", "gathered:Jess", 0.95, (), 0)]
    seen += [Seen("penny", "heads" if i % 2 else "tails", "balcony", 0.9, (), i + 1) for i in range(6)]
    ruling = reconcile(state, seen)
    assert isinstance(ruling, TableMatches)
    thrown = [Seen("penny", "tails", "gathered:Jess", 0.95, (), 0)]
    thrown += [Seen("penny", "heads" if i < 5 else "tails", "theatre", 0.9, (), i + 1) for i in range(6)]
    assert reconcile(state, thrown) == ChanceOutcome(state.game.parse_action("throw 5H 1T"))


def test_a1_invalid_throw_instruction_follows_the_option() -> None:
    """A1 / g.invalid_throw: throw everything again, or only the offending objects."""
    for value, words in (("rethrow_all", "throw it all again"), ("rethrow_offending", "Throw again only")):
        state = find_game("sevens")(["A", "B"], {"sv.rounds": 1, "g.invalid_throw": value}).new_state()
        state.apply("roll 6 6 6 6 6 6")
        state.apply("roll 1 1 1 1 1 1")
        seen = dice("theatre", 1, 2, 4, 6, 3) + [Seen("d6", 3, "theatre", 0.9, ("on_edge",), ref=9)]
        ruling = reconcile(state, seen)
        assert isinstance(ruling, Discrepancy) and ruling.rethrow and words in ruling.text()


def test_a_table_part_way_through_its_forced_moves_names_what_is_left() -> None:
    """SP-3.5 then SP-4.2: the gather is made, the round-end return to the Balcony is still to do."""
    state = find_game("seven-pennies")(["Jess", "Kevin"]).new_state()
    for text in ("designate Jess", "throw 3H 4T", "gather", "throw 5H 1T", "gather", "throw 0H 2T", "gather"):
        state.apply(text)
    seen = [Seen("penny", "tails", "gathered:Jess", 0.95, (), i) for i in range(3)]
    seen += [Seen("penny", "heads", "gathered:Kevin", 0.95, (), 10 + i) for i in range(4)]
    ruling = reconcile(state, seen)
    assert isinstance(ruling, Discrepancy) and not ruling.rethrow
    assert [m.rule for m in ruling.pending] == ["SP-4.2", "SP-4.2"]
    assert ruling.text().startswith("Still to do: Move 3 tails from Jess's Gathered area to the Balcony (SP-4.2)")
    done = [Seen("penny", None, "balcony", 0.95, (), i) for i in range(7)]
    assert isinstance(reconcile(state, done), TableMatches)


def test_g_2_leftover_dice_not_yet_moved_are_not_read_as_the_next_throw() -> None:
    """SPD-5.1 / G-2: after Gather 3 the leftovers 2, 2, 6 must go to the Balcony first; the
    three dice still lying in the Theatre are not B's throw of three dice."""
    state = find_game("seven-pennies")(["A", "B"], {"spd.enabled": True}).new_state()
    for text in ("designate A", "throw 1 6 2 3 3 5 4", "gather 3", "throw 4 4 5 5 1 6", "gather 5", "throw 2 2 3 6", "gather 3"):
        state.apply(text)
    held = [Seen("d6", 3, "gathered:A", 0.95, (), 20 + i) for i in range(2)]
    held += [Seen("d6", 5, "gathered:B", 0.95, (), 30 + i) for i in range(2)]
    waiting = held + dice("theatre", 2, 2, 6)
    ruling = reconcile(state, waiting)
    assert isinstance(ruling, Discrepancy) and ruling.pending and "SPD-5.1" in ruling.text()
    moved = held + [Seen("d6", 2, "balcony", 0.9, (), i) for i in range(3)]
    assert isinstance(reconcile(state, moved), TableMatches)
    thrown = held + dice("theatre", 1, 4, 5)
    assert isinstance(reconcile(state, thrown), ChanceOutcome)


def test_tracked_dice_are_compared_by_face_not_by_id() -> None:
    """FL-1.4: the rules name FLIP's dice; the camera sees only each die's face and zone."""
    state = find_game("flip")(["A", "B"]).new_state()
    state.apply("roll 1 2 3 4 6 6 6 5 1 2")
    seen = [Seen("d6", f, "area:A", 0.95, (), i) for i, f in enumerate((1, 2, 3, 4, 6))]
    seen += [Seen("d6", f, "area:B", 0.95, (), 10 + i) for i, f in enumerate((6, 6, 5, 1, 2))]
    assert isinstance(reconcile(state, seen), TableMatches)


def test_forced_moves_made_in_another_order_are_recognised() -> None:
    """SP-4.2: Kevin returns his pennies before Jess does: Jess's return is what is left to do."""
    state = find_game("seven-pennies")(["Jess", "Kevin"]).new_state()
    for text in ("designate Jess", "throw 3H 4T", "gather", "throw 5H 1T", "gather", "throw 0H 2T", "gather"):
        state.apply(text)
    seen = [Seen("penny", "tails", "gathered:Jess", 0.95, (), i) for i in range(3)]
    seen += [Seen("penny", None, "balcony", 0.95, (), 10 + i) for i in range(4)]
    ruling = reconcile(state, seen)
    assert isinstance(ruling, Discrepancy)
    assert [str(m) for m in ruling.pending] == ["Move 3 tails from Jess's Gathered area to the Balcony (SP-4.2)"]
