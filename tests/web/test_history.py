"""The history in the options' words (``web.history``): each decision as its button said it
when it was chosen, a chance outcome left for the tablet to word."""

from __future__ import annotations

from referee import find_game
from web.history import history_labels


def test_decisions_read_as_their_options_did_and_throws_are_left_to_the_tablet() -> None:
    """G-5, SP-3.1, SP-3.5: "designate Jess" was "Jess throws first", the throw has no button,
    "gather" was the Gather option's label at that moment (Jess then holding 3 tails)."""
    state = find_game("seven-pennies")(["Jess", "Kevin"], {}).new_state()
    for action in ["designate Jess", "throw 2H 5T", "gather"]:
        state.apply(action)
    assert history_labels(state) == ["Jess throws first", None, "Gather 3 tails (Jess then holds 3 tails)"]
    assert [str(a) for a in state.history()] == ["designate Jess", "throw 2H 5T", "gather"], "the state is untouched"


def test_a_label_is_the_one_of_its_own_moment() -> None:
    """PW-4.1, PW-4.2: the same command reads with the total of the moment it was taken."""
    state = find_game("pennywise")(["A", "B"], {}).new_state()
    for action in ["designate A", "put 1", "put 1", "put 1"]:
        state.apply(action)
    labels = history_labels(state)
    assert labels[1] != labels[3] and labels[1] is not None and labels[3] is not None
    assert labels[1].startswith("Put in a penny") and "then holds" in labels[3]


def test_labels_kept_from_a_shorter_history_extend_to_the_longer_and_follow_an_undo() -> None:
    """SP-3.1, SP-3.5: labels found step by step as the match goes (kept between views), after an
    undo and another decision, are those a fresh replay of the whole log finds."""
    from web import history

    game = find_game("seven-pennies")(["Jess", "Kevin"], {})
    state = game.new_state()
    for action in ["designate Jess", "throw 2H 5T", "gather"]:
        state.apply(action)
        history_labels(state)
    state.undo()
    state.apply("cancel")
    history_labels(state)
    state.apply(state.legal_actions()[0])  # the next throw
    stepwise = history_labels(state)
    history._labels_seen.clear()
    assert stepwise == history_labels(state)
    assert stepwise[2] is not None and stepwise[2].startswith("Cancel") and stepwise[3] is None
