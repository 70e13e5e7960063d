"""A recorded hand played on a table refereed by hand: the demo of a game without a camera.

Pennies From Heaven's cards are all entered on the tablet, so its recording is the hand's
actions in text form (``fixtures/games/ph_*/game.json``, written by ``tools/record_ph_hand.py``),
not frames. ``open_hand`` opens a camera-less table service for it whose ``start`` enters the
recording: the table's steps for the players, and their decisions too with ``auto``.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from typing import Any

from referee.actions import Designate
from referee.errors import IllegalActionError, InvalidActionError
from web.match_setup import create_match
from web.service import TableService
from web.store import open_store

HAND_PACE = 0.8
"""Seconds between the recorded actions a recorded hand's demo enters itself: readable, not slow."""


def open_hand(recorded: Mapping[str, Any], db: str, auto: bool = False, pace: float = HAND_PACE) -> Any:
    """A table refereed by hand (no camera) that plays the recorded hand ``recorded`` (a
    ``game.json`` with ``actions``): the table's steps entered for the players, their decisions
    awaited on the tablet, unless ``auto`` enters them too. The actions start on ``start()``.

    :raises ConfigError: for an unknown game, bad players or options.
    :raises ValueError: for a recording whose actions are not a list of ``{player, action}``.
    """
    from referee import find_game

    actions = recorded.get("actions")
    if not isinstance(actions, list) or not all(
            isinstance(step, dict) and isinstance(step.get("action"), str) and isinstance(step.get("player"), str)
            for step in actions):
        raise ValueError(f"recorded hand {recorded.get('name')!r}: 'actions' must be a list of {{player, action}}")
    game = find_game(str(recorded.get("game", ""))).name
    first = recorded.get("first")
    store = open_store(db)
    match = create_match(store, game, [str(p) for p in recorded.get("players", [])], dict(recorded.get("options") or {}),
                         first=str(first) if first else None, camera=f"hand:{recorded.get('name', '')}")
    service = HandService(store, match)
    service.hand = RecordedHand(actions, auto=auto, pace=pace)
    return service


class RecordedHand:
    """Enters a recorded hand on a table refereed by hand while the match follows the recording.

    The recording's next action is the one after as many as the match's history holds (past
    the set-up's ``designate``). The table's steps (``player`` ``table``) are entered after
    ``pace`` seconds; a player's decision waits for the tablet, unless ``auto``. Once the
    players enter something else, the match no longer follows the recording and the hand is
    theirs to finish by hand; an undo back onto the recording picks it up again.
    """

    def __init__(self, actions: Sequence[Mapping[str, str]], auto: bool = False, pace: float = HAND_PACE,
                 poll: float = 0.05) -> None:
        self.actions = list(actions)
        self.auto = auto
        self.pace = pace
        self.poll = poll

    def next_step(self, service: Any) -> Mapping[str, str] | None:
        """The recorded action to enter next, or ``None`` at the end or off the recording."""
        played = self.played(service)
        if played != [step["action"] for step in self.actions[:len(played)]] or len(played) >= len(self.actions):
            return None
        return self.actions[len(played)]

    def played(self, service: Any) -> list[str]:
        """The actions of the hand the match has taken, in text form."""
        history = list(service.match.state.history())
        if history and isinstance(history[0], Designate):
            history = history[1:]  # the table's choice at set-up, not a step of the hand
        return [str(action) for action in history]

    def finished(self, service: Any) -> bool:
        """Whether the match has played the whole recording."""
        return self.played(service) == [step["action"] for step in self.actions]

    def status(self, service: Any) -> str:
        """Where the match stands in the recording, in a player's words."""
        if self.finished(service):
            return "Recorded hand finished"
        step = self.next_step(service)
        if step is None:
            return "Off the recorded hand: enter the table's cards by hand"
        if step["player"] == "table" or self.auto:
            return "Playing the recorded hand"
        state = service.match.state
        try:
            words = state.label(state.game.parse_action(step["action"]))
        except (IllegalActionError, InvalidActionError):
            words = step["action"]
        return f"Recorded next: {words if words.startswith(step['player']) else step['player'] + ': ' + words}"

    def run(self, service: Any, stop: threading.Event) -> None:
        """Enter the recording's actions until it ends (``auto``) or ``stop`` is set."""
        while not stop.is_set():
            step = self.next_step(service)
            if step is None and self.auto and self.finished(service):
                return
            if step is None or not (self.auto or step["player"] == "table"):
                stop.wait(self.poll)
                continue
            if stop.wait(self.pace):
                return
            with service.match.lock:
                if self.next_step(service) is not step:
                    continue  # someone entered something meanwhile
                try:
                    service.act(step["action"])
                except (IllegalActionError, InvalidActionError):
                    return  # a recording these rules refuse: the players go on by hand


class HandService(TableService):
    """A table service without a camera whose ``start`` plays a :class:`RecordedHand`."""

    hand: RecordedHand | None = None

    def start(self) -> None:
        """Start entering the recorded hand in a background thread (no-op when running)."""
        if self.hand is None or (self._thread is not None and self._thread.is_alive()):
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self.hand.run, args=(self, self._stop),
                                        name=f"recorded-hand-{self.match.id}", daemon=True)
        self._thread.start()

    def view(self) -> dict[str, Any]:
        """The table's view, its status line saying where the match stands in the recording:
        the decision recorded next (the players' to tap), off the recording, or finished."""
        view: dict[str, Any] = super().view()
        if self.hand is not None:
            view["status"] = self.hand.status(self)
        return view
