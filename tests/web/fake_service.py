"""A small hand-written stand-in for the referee service: a real rules state, no camera."""

from __future__ import annotations

import queue
from typing import Any

import cv2
import numpy as np

from referee import CHANCE, State, find_game
from referee.actions import Designate


class FakeService:
    """Implements the service protocol the dashboard uses, over a real ``State``."""

    def __init__(self, game: str = "seven-pennies", players: list[str] | None = None,
                 options: dict[str, str] | None = None, first: str | None = "Jess") -> None:
        self.subscribers: list[queue.Queue[dict[str, Any]]] = []
        self.redo_stack: list[str] = []
        self.question: dict[str, Any] | None = None
        self.new_match(game, players or ["Jess", "Kevin"], options or {}, first)

    def new_match(self, game: str, players: list[str], options: dict[str, str], first: str | None) -> None:
        state: State = find_game(game)(players, options).new_state()
        if first and Designate in state.game.action_types:
            state.apply(Designate(first))
        self.state = state
        self.redo_stack = []
        self._publish()

    def view(self) -> dict[str, Any]:
        view = self.state.view()
        view.update(title=self.state.game.title, history=[str(a) for a in self.state.history()],
                    can_redo=bool(self.redo_stack), question=self.question, discrepancy=None,
                    awaiting_chance=self.state.current_player() == CHANCE, status="fake camera",
                    expected_values={str(a): v for a, v in self.state.expected_values().items()})
        return view

    def act(self, text: str) -> dict[str, Any]:
        self.state.apply(text)
        self.redo_stack = []
        self._publish()
        return self.view()

    def confirm_table(self) -> dict[str, Any]:
        from referee import IllegalActionError

        raise IllegalActionError("no forced move is waiting on the camera's check of the table")  # no camera here

    def undo(self) -> dict[str, Any]:
        self.redo_stack.append(str(self.state.undo()))
        self._publish()
        return self.view()

    def redo(self) -> dict[str, Any]:
        from referee import IllegalActionError

        if not self.redo_stack:
            raise IllegalActionError("there is nothing to redo")
        self.state.apply(self.redo_stack.pop())
        self._publish()
        return self.view()

    def answer(self, question_id: str, answer: str) -> dict[str, Any]:
        from referee import InvalidActionError

        if self.question is None or self.question["id"] != question_id:
            raise InvalidActionError(f"no open question {question_id!r}")
        self.question = None
        self._publish()
        return self.view()

    def subscribe(self) -> queue.Queue[dict[str, Any]]:
        subscription: queue.Queue[dict[str, Any]] = queue.Queue()
        self.subscribers.append(subscription)
        return subscription

    def unsubscribe(self, subscription: queue.Queue[dict[str, Any]]) -> None:
        if subscription in self.subscribers:
            self.subscribers.remove(subscription)

    def latest_jpeg(self, overlay: bool = True) -> bytes | None:
        frame = np.full((96, 128, 3), (40, 90, 40), np.uint8)
        ok, data = cv2.imencode(".jpg", frame)
        return data.tobytes() if ok else None

    def crop_jpeg(self, refs: list[int]) -> bytes | None:
        return self.latest_jpeg() if set(refs) <= {0, 1} else None

    def _publish(self) -> None:
        view = self.view()
        for subscription in self.subscribers:
            subscription.put(view)
