"""The match's history in the words the options used: each decision as its button said it.

The log holds actions as commands ("put 25 take 10 5", "gather"); the tablet's history list and
its Undo button name them as a player chose them ("Put in a quarter, take back a dime and a
nickel (Ann then holds 49¢)"). A label depends on the state it was chosen in, so the labels are
found by replaying the log on a copy of the state (the state itself is untouched). A chance
outcome (a throw, a roll, a deal) has no button: its entry is ``None`` and the tablet words it.

A decision's label never changes once taken, so the labels of the histories seen lately are kept
and a longer history replays only its new actions: finding the options anew at every step of
a long card hand (Pennies From Heaven's hundreds of actions) on every view would take seconds.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from referee import CHANCE, State

_KEPT = 32
"""How many histories' labels are kept (a few tables, their undos and redos)."""
_labels_seen: OrderedDict[tuple[Any, ...], list[str | None]] = OrderedDict()
_labels_lock = threading.Lock()  # views are drawn on the server's threads at once


def history_labels(state: State) -> list[str | None]:
    """One entry per action of ``state``'s history, in order: the label the options gave the
    decision when it was taken, or ``None`` for a chance outcome or a table's entry the options
    did not list (a card game's typed move)."""
    actions = list(state.history())
    game = (type(state.game).__name__, repr(state.game.to_json()))
    known = 0
    labels: list[str | None] = []
    with _labels_lock:
        for length in range(len(actions), 0, -1):
            kept = _labels_seen.get((game, *actions[:length]))
            if kept is not None:
                known, labels = length, list(kept)
                break
    probe = state.copy()
    for _ in range(len(actions) - known):
        probe.undo()
    for action in actions[known:]:
        listed = probe.current_player() != CHANCE and action in probe.legal_actions()
        labels.append(probe.label(action) if listed else None)
        probe.apply(action)
    with _labels_lock:
        _labels_seen[(game, *actions)] = list(labels)
        _labels_seen.move_to_end((game, *actions))
        while len(_labels_seen) > _KEPT:
            _labels_seen.popitem(last=False)
    return labels
