"""The match's history in the words the options used: each decision as its button said it.

The log holds actions as commands ("put 25 take 10 5", "gather"); the tablet's history list and
its Undo button name them as a player chose them ("Put in a quarter, take back a dime and a
nickel (Ann then holds 49¢)"). A label depends on the state it was chosen in, so the labels are
found by replaying the log on a copy of the state (the state itself is untouched). A chance
outcome (a throw, a roll, a deal) has no button: its entry is ``None`` and the tablet words it.
"""

from __future__ import annotations

from referee import CHANCE, State


def history_labels(state: State) -> list[str | None]:
    """One entry per action of ``state``'s history, in order: the label the options gave the
    decision when it was taken, or ``None`` for a chance outcome or a table's entry the options
    did not list (a card game's typed move)."""
    actions = list(state.history())
    probe = state.copy()
    while probe.history():
        probe.undo()
    labels: list[str | None] = []
    for action in actions:
        listed = probe.current_player() != CHANCE and action in probe.legal_actions()
        labels.append(probe.label(action) if listed else None)
        probe.apply(action)
    return labels
