"""A small hand-written stand-in for the referee service: a real rules state, no camera."""

from __future__ import annotations

import queue
from typing import Any

import cv2
import numpy as np

from referee import CHANCE, State, find_game
from referee.actions import Designate
from vision.overlay import draw_markers
from vision.types import Detection, TableObservation
from web.history import history_labels
from web.legend import legend


class FakeService:
    """Implements the service protocol the dashboard uses, over a real ``State``."""

    def __init__(self, game: str = "seven-pennies", players: list[str] | None = None,
                 options: dict[str, str] | None = None, first: str | None = "Jess") -> None:
        self.subscribers: list[queue.Queue[dict[str, Any]]] = []
        self.redo_stack: list[str] = []
        self.question: dict[str, Any] | None = None
        self.discrepancy: dict[str, Any] | None = None
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
                    history_labels=history_labels(self.state),
                    can_redo=bool(self.redo_stack), question=self.question, discrepancy=self.discrepancy,
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


PIPS = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)], 4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
        5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)], 6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)]}


class UnsureRollService(FakeService):
    """Sevens with the camera's roll read unsurely: of six dice, two (a 3 and a 5) are read
    below the sure confidence, so the referee asks about them before it rules (the question
    screen), with the dice drawn on the picture, numbered, and their crop."""

    SIZE = (960, 540)
    FACES = (1, 2, 4, 6, 3, 5)
    UNSURE = (4, 5)

    def __init__(self) -> None:
        objects = []
        for index, face in enumerate(self.FACES):
            x, y = 150 + 120 * index, 230
            unsure = index in self.UNSURE
            objects.append(Detection("d6", None if unsure else face, (x, y, 70, 70), 0.4 if unsure else 0.95,
                                     center=(x + 35.0, y + 35.0), zone="theatre", guess=face))
        self.objects = tuple(objects)
        self.entries = legend(self.objects, {})
        self.question = {"id": "1", "text": "Are these read right: 1 die showing 3 and 1 die showing 5?",
                         "choices": ["yes", "no, one by one"], "refs": list(self.UNSURE),
                         "crop_url": "/api/crop/" + "-".join(str(r) for r in self.UNSURE) + ".jpg"}
        question = self.question
        super().__init__(game="sevens", players=["Ann", "Bo"], options={"sv.rounds": "1"}, first=None)
        self.question = question

    def view(self) -> dict[str, Any]:
        view = super().view()
        view["picture"] = {"legend": [e.to_json() for e in self.entries],
                           "objects": [list(o.bbox) for o in self.objects]}
        return view

    def frame(self) -> np.ndarray:
        """The table: green felt, six white dice with their pips, each numbered beside it."""
        width, height = self.SIZE
        frame = np.full((height, width, 3), (40, 90, 40), np.uint8)
        for obj in self.objects:
            x0, y0, w, h = obj.bbox
            x1, y1 = x0 + w, y0 + h
            cv2.rectangle(frame, (x0, y0), (x1, y1), (235, 235, 235), -1)
            cx, cy = (x0 + x1) // 2, (y0 + y1) // 2
            for dx, dy in PIPS[int(obj.guess or 1)]:
                cv2.circle(frame, (cx + 18 * dx, cy + 18 * dy), 6, (30, 30, 30), -1)
        observation = TableObservation(self.objects, self.SIZE)
        return draw_markers(frame, observation, [e.marker() for e in self.entries])

    def latest_jpeg(self, overlay: bool = True) -> bytes | None:
        ok, data = cv2.imencode(".jpg", self.frame())
        return data.tobytes() if ok else None

    def crop_jpeg(self, refs: list[int]) -> bytes | None:
        if not refs or not set(refs) <= set(range(len(self.objects))):
            return None
        boxes = [self.objects[r].bbox for r in refs]
        x0, y0 = int(min(b[0] for b in boxes)) - 30, int(min(b[1] for b in boxes)) - 30
        x1, y1 = int(max(b[0] + b[2] for b in boxes)) + 30, int(max(b[1] + b[3] for b in boxes)) + 30
        ok, data = cv2.imencode(".jpg", self.frame()[max(0, y0):y1, max(0, x0):x1])
        return data.tobytes() if ok else None
