"""The round summary the tablet shows once a round is over: each player's score at its end."""

from __future__ import annotations

from typing import Any


def round_summary(state: Any) -> dict[str, Any] | None:
    """``{"round": n, "scores": {...}, "just_ended": bool}`` for the last round ended (``just_ended``
    while nothing has been played in the next one), or ``None`` in the first round.

    The scores are those just after the action that ended round ``n`` (found by taking back the
    current round's actions on a copy; the state itself is untouched).
    """
    current = state.round()
    if current <= 1 or not state.history():
        return None
    probe = state.copy()
    last = None
    taken_back = 0
    while probe.history() and probe.round() == current:
        last = probe.undo()
        taken_back += 1
    if last is None or probe.round() == current:
        return None
    ended = probe.round()
    probe.apply(last)
    return {"round": ended, "scores": dict(probe.scores()), "just_ended": taken_back == 1}
