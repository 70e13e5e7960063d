"""``TableService``: one table's referee as the dashboard and the command line use it.

It owns the match (in the store), the live loop running in a thread, and the subscribers
waiting for updates. Every change (a camera ruling, a tablet action, undo, redo, an answer)
is committed to the log first and only then published to subscribers as the new view.

Its neighbours each do one job: ``web.bootstrap`` wires a table together (``open_table``),
``web.camera_reader`` reads the camera's frames, ``web.pictures`` draws what the tablets see
and ``web.replay_tablet`` takes a replay's recorded decisions. The readers' and the replay
tablet's public names stay importable from here too; the composition's come from
``web.bootstrap``, which imports this module.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from hardware.frames import Frame, FrameSource, Image
from hardware.recorder import Recorder
from referee import CHANCE
from referee.actions import Action
from referee.errors import ConfigError, IllegalActionError, InvalidActionError
from referee.reconcile import AS_READ, ONE_BY_ONE
from vision.types import TableObservation
from web.camera_reader import (
    CAMERA_KINDS,
    SECOND_LOOK_DIE_SCORE,
    LabelReader,
    VisionReader,
    in_play_area,
    kinds_in_play,
    make_reader,
    without_spots,
)
from web.history import history_labels
from web.learn import learn_from_last_read, objects_to_confirm, undone_frame
from web.legend import LegendEntry
from web.loop import LoopResult, Reader, Settler, TableLoop
from web.match_setup import create_match
from web.pictures import OVERLAY_QUALITY, crop_picture, encode_jpeg, overlay_picture, picture_layout, table_legend
from web.replay_tablet import RecordedTablet
from web.store import Event, Match, MatchStore
from web.summary import round_summary

SettleFactory = Callable[[], Settler]
"""Makes a fresh settle detector (one per loop, and again for a new match)."""

__all__ = [
    # The service itself.
    "TableService", "SettleFactory", "moves_seen_done",
    # The match's creation, which the composition (``web.bootstrap``) shares.
    "create_match",
    # Re-exported for the importers that have always found them here.
    "CAMERA_KINDS", "SECOND_LOOK_DIE_SCORE", "LabelReader", "VisionReader", "in_play_area", "kinds_in_play",
    "make_reader", "without_spots", "RecordedTablet",
]


class TableService:
    """The referee of one table (see the module docstring).

    ``source`` may be ``None`` for a table refereed by hand (actions typed on the tablet).
    ``tablet`` is called after every loop step; the replayed games use it to take their
    recorded decisions at the recorded moments.
    """

    def __init__(
        self,
        store: MatchStore,
        match: Match,
        source: FrameSource | None = None,
        settle: SettleFactory | None = None,
        read: Reader | None = None,
        camera: str = "",
        resume_after: str | None = None,
        overlay: Callable[[Image, TableObservation], Image] | None = None,
    ) -> None:
        self.store = store
        self.match = match
        self.source = source
        self.camera = camera
        self._settle_factory = settle
        self._overlay = overlay
        self._subscribers: list[queue.Queue[dict[str, Any]]] = []
        self._lock = threading.RLock()
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self.tablet: Callable[[TableService], None] | None = None
        self.loop: TableLoop | None = None
        self.results: list[LoopResult] = []
        """Every ruling the loop made since start (for the terminal and measurements)."""
        self.on_result: Callable[[LoopResult], None] = lambda result: None
        self.recorder: Recorder | None = None
        """A ``hardware.recorder.Recorder`` the source is wrapped in, to label what was confirmed."""
        if source is not None:
            if settle is None or read is None:
                raise ConfigError("a service with a camera needs a settle detector and a reader")
            self.loop = TableLoop(source, match, settle(), read, on_update=self._loop_update, resume_after=resume_after)

    # -- what the tablet sees --------------------------------------------------------------

    def view(self) -> dict[str, Any]:
        """The state's view plus the match id, pending question or discrepancy, history and loop status."""
        with self.match.lock:
            state = self.match.state
            view = state.view()
            pending = self.match.pending
            view.update(
                match=self.match.id,
                title=state.game.title,
                players=list(state.game.players),
                awaiting_chance=state.current_player() == CHANCE,
                history=[str(action) for action in state.history()],
                history_labels=history_labels(state),
                can_redo=bool(self.match.redo_stack),
                expected_values={str(a): v for a, v in state.expected_values().items()},
                question=None,
                discrepancy=None,
                log_length=len(self.match.events),
                round_summary=round_summary(state),
            )
            # Forced moves the camera has seen made since the last action are shown as done.
            made = moves_seen_done(self.match)
            for move in view.get("forced_moves", []):
                move["done"] = move.get("text") in made
            awaited = self.moves_awaited()
            for option in view.get("options", []):
                option["waits_for_camera"] = bool(awaited) and self._throw_follows(option["action"])
            # Decisions held back until the camera sees the moves made; only then is the players'
            # word that the table is right worth offering against a discrepancy.
            view["moves_awaited"] = any(option["waits_for_camera"] for option in view.get("options", []))
            last_change = next((e.kind for e in reversed(self.match.events) if e.kind in ("action", "undo", "redo")), None)
            view["after_undo"] = last_change == "undo"
            view["can_confirm_table"] = view["moves_awaited"] and pending is not None and pending.detail.get("ruling") == "discrepancy"
            if pending is not None and pending.detail.get("ruling") == "question":
                refs = pending.detail.get("refs", [])
                view["question"] = {"id": pending.seq, "text": pending.text, "choices": pending.detail.get("choices", []),
                                    "refs": refs, "frame": pending.frame_id,
                                    "crop_url": f"/api/crop/{'-'.join(str(r) for r in refs)}.jpg" if refs else None}
            elif pending is not None:
                view["discrepancy"] = {"id": pending.seq, "text": pending.text, "frame": pending.frame_id,
                                       "problems": [p["text"] for p in pending.detail.get("problems", [])],
                                       "rethrow": bool(pending.detail.get("rethrow"))}
        view["picture"] = self.picture()
        loop = self.loop.status.to_json() if self.loop else {"state": "no camera"}
        view["loop"] = loop
        view["camera"] = self.camera
        view["status"] = _status_line(loop)
        return view

    # -- what the tablet does --------------------------------------------------------------

    def act(self, text: str, wait_for_moves: bool = True) -> dict[str, Any]:
        """Apply an action typed or tapped on the tablet (a decision, or a correction).

        While the camera watches, a player's decision after which the table is thrown waits
        until it has seen the rules' forced moves made (G-2, :meth:`moves_before`);
        ``wait_for_moves=False`` takes it at once (a replay's recorded decision at its recorded
        moment).

        :raises InvalidActionError: for text that is no action of this game.
        :raises IllegalActionError: for an action the rules forbid now, or a decision taken
            before the camera has seen the forced moves made.
        """
        with self.match.lock:
            awaited = self.moves_before(self.match.parse(text.strip())) if wait_for_moves else []
            if awaited:
                raise IllegalActionError(
                    f"the camera has not yet seen the forced moves made ({'; '.join(awaited)}): "
                    "make them and let the table settle first", rule="G-2")
            event = self.match.apply(text.strip(), "tablet")
        return self._changed(event)

    def moves_before(self, action: Action) -> list[str]:
        """The forced moves a player's decision ``action`` must wait for (G-2: the table is
        checked after each forced step before further input is taken), or ``[]``.

        Only a decision after which the table is thrown waits, while the camera watches: taken
        before the camera has seen the moves made, the table after them would be read as the
        throw (Sevens: the 3 and 4 of 3 4 4 4 set aside, the untouched 4 4 taken for a roll).
        After any other decision (Pennywise's next coin) the camera's next look still checks
        the moves, with the rest of the table.
        """
        with self.match.lock:
            state = self.match.state
            if state.current_player() == CHANCE or state.why_illegal(action) is not None:
                return []
            awaited = self.moves_awaited()
            return awaited if awaited and self._throw_follows(action) else []

    def _throw_follows(self, action: Action | str) -> bool:
        """Whether the table is thrown next once ``action`` is taken."""
        after = self.match.state.copy()
        after.apply(action)
        return after.current_player() == CHANCE

    def moves_awaited(self) -> list[str]:
        """The forced moves the camera has yet to see made, while it is watching (G-2).

        Only moves of objects the camera reads (coins and dice: not Pennies From Heaven's
        cards, entered by hand). Empty without a camera, or when its loop is not running (a
        replay that ended, a camera lost): then the players go on by hand.
        """
        if self.loop is None or self.loop.status.state != "running":
            return []
        with self.match.lock:
            made = moves_seen_done(self.match)
            return [str(move) for move in self.match.state.forced_moves()
                    if str(move) not in made and any(item.kind in CAMERA_KINDS for item in move.items)]

    def confirm_table(self) -> dict[str, Any]:
        """The players say the table is right although the camera saw it otherwise.

        Offered only while the camera's discrepancy is about the forced moves (it has looked
        at the table after them): the moves are logged as made, by the tablet's word, and the
        decisions they held back can be taken.

        :raises IllegalActionError: when no forced move is waiting on such a discrepancy.
        """
        with self.match.lock:
            awaited = self.moves_awaited()
            pending = self.match.pending
            if not awaited or pending is None or pending.detail.get("ruling") != "discrepancy":
                raise IllegalActionError("no forced move is waiting on the camera's check of the table")
            event = self.match.record("ruling", "The players say the table is right: " + "; ".join(awaited), "tablet",
                                      pending.frame_id, {"ruling": "confirmed", "moves": awaited, "by_hand": True})
        if self.recorder is not None:
            self.recorder.ruling("confirmed", event.text, event.frame_id)
        return self._publish()

    def undo(self) -> dict[str, Any]:
        """Take back the last action (it can be redone).

        :raises IllegalActionError: when nothing has been played.
        """
        changed = self._changed(self.match.undo("tablet"))
        learner = getattr(self.loop.read, "learner", None) if self.loop else None
        if learner is not None and hasattr(learner, "unlearn"):
            frame = undone_frame(self.match.events)
            if frame is not None:
                learner.unlearn(frame)  # a throw taken back unteaches its answers
        return changed

    def redo(self) -> dict[str, Any]:
        """Apply again the last action taken back.

        :raises IllegalActionError: when nothing was undone since the last action.
        """
        return self._changed(self.match.redo("tablet"))

    def answer(self, question_id: int | str, answer: str, actor: str = "players") -> dict[str, Any]:
        """Answer the pending question; the referee then rules again on the same frame.

        ``actor`` is who answered, as the log records it.

        :raises InvalidActionError: for a question id that is not a number or an answer not offered.
        :raises IllegalActionError: when that question is not waiting.
        """
        try:
            seq = int(question_id)
        except (TypeError, ValueError):
            raise InvalidActionError(f"question id must be a number, got {question_id!r}") from None
        loop = self.loop or TableLoop(_NoSource(), self.match, _NoSettle(), _no_read)
        pending = self.match.pending
        if pending is None or pending.seq != seq or pending.detail.get("ruling") != "question":
            raise IllegalActionError(f"question {seq} is not waiting for an answer")
        try:
            result = loop.answer(seq, answer, actor)
        except ValueError as exc:
            raise InvalidActionError(str(exc)) from None
        if self.loop is None:
            self._loop_update(result)
        return self.view()

    # -- learning this table -----------------------------------------------------------------

    def coins_to_learn(self) -> dict[str, Any]:
        """The coins and dice of the last settled table's read, for the players to confirm (listed
        under ``coins``, as the API always named them), and how many coins and dice the reader
        has learned so far."""
        learner = getattr(self.loop.read, "learner", None) if self.loop else None
        observation = self.loop.latest_observation if self.loop else None
        read_frame = self.loop.latest_read if self.loop else None
        return {"coins": objects_to_confirm(observation), "learned": learner.coins_learned if learner else 0,
                "dice_learned": learner.dice_learned if learner else 0,
                "learned_outdated": learner.coins_outdated if learner else False,
                "can_learn": learner is not None, "frame": read_frame.frame_id if read_frame else None}

    def learn_table(self, faces: Mapping[str, Any]) -> dict[str, Any]:
        """Teach the reader this table's coins: ``faces`` maps refs of the last read's coins to the
        faces the players confirmed (``web.learn``).

        :raises IllegalActionError: without a camera reader or before any table was read.
        :raises InvalidActionError: for a ref that is no coin of the read or a face that is no face.
        """
        with self._lock:
            learner = getattr(self.loop.read, "learner", None) if self.loop else None
            learn_from_last_read(self.loop, learner, faces)
        return self.coins_to_learn()

    def forget_table(self) -> dict[str, Any]:
        """Back to the shipped reader: forget what was learned of this table's coins."""
        learner = getattr(self.loop.read, "learner", None) if self.loop else None
        if learner is not None:
            learner.forget()
        return self.coins_to_learn()

    def new_match(self, game: str, players: Sequence[str], options: Mapping[str, str] | None = None,
                  first: str | None = None) -> dict[str, Any]:
        """Abandon the match in play and start another on the same table.

        :raises ConfigError: for an unknown game, bad players or options.
        """
        match = create_match(self.store, game, list(players), dict(options or {}), first, self.camera)
        with self._lock:
            old = self.match
            if old.status == "playing":
                self.store.set_status(old.id, "abandoned")
            self.match = match
            if self.loop is not None:
                assert self._settle_factory is not None
                self.loop.match = match
                self.loop.settle = self._settle_factory()
        return self._publish()

    # -- live updates ----------------------------------------------------------------------

    def subscribe(self) -> queue.Queue[dict[str, Any]]:
        """A queue that receives the new view after every change (for server-sent events)."""
        subscription: queue.Queue[dict[str, Any]] = queue.Queue(maxsize=100)
        with self._lock:
            self._subscribers.append(subscription)
        return subscription

    def unsubscribe(self, subscription: queue.Queue[dict[str, Any]]) -> None:
        """Stop sending updates to ``subscription``."""
        with self._lock:
            if subscription in self._subscribers:
                self._subscribers.remove(subscription)

    def _changed(self, event: Event) -> dict[str, Any]:
        if self.recorder is not None:
            latest = self.latest_frame()
            self.recorder.decision(event.text if event.kind == "action" else event.kind, latest.frame_id if latest else None)
        # The event (with the match's status) is committed: now, and only now, the tablets are told.
        return self._publish()

    def _publish(self) -> dict[str, Any]:
        view = self.view()
        with self._lock:
            subscribers = list(self._subscribers)
        for subscription in subscribers:
            try:
                subscription.put_nowait(view)
            except queue.Full:
                # A tablet that stopped reading misses updates; its next one carries the whole view.
                pass
        return view

    def _loop_update(self, result: LoopResult) -> None:
        self.results.append(result)
        if self.recorder is not None:
            self._record(self.recorder, result)
        self.on_result(result)
        self._publish()

    def _record(self, recorder: Recorder, result: LoopResult) -> None:
        """Label the recorded frame with the read the referee confirmed (answers included)."""
        recorder.ruling(result.kind, result.text, result.frame_id)
        observation = self.loop.latest_observation if self.loop else None
        if result.kind not in ("chance", "confirmed") or observation is None or result.frame_id is None:
            return
        # A label's value is the face read with its confidence, sure or not (``LabelReader``
        # gates it again on replay).
        labels = [{**{k: v for k, v in obj.to_json().items() if k != "guess"}, "value": obj.guess}
                  for obj in observation.objects]
        for event in reversed(self.match.events):
            if event.kind == "answer" and event.frame_id == result.frame_id:
                question = next(e for e in self.match.events if e.seq == event.detail["question"])
                value = str(event.detail["value"])
                if value == ONE_BY_ONE:
                    continue  # the players answer about each object in turn
                for ref in question.detail.get("refs", []):
                    if value != AS_READ:  # "yes, as read" keeps the read faces
                        labels[ref]["value"] = int(value) if value.isdigit() else value
                    labels[ref]["confidence"] = 1.0
        try:
            recorder.label(result.frame_id, labels)
        except KeyError:
            pass

    # -- pictures --------------------------------------------------------------------------

    def latest_frame(self) -> Frame | None:
        """The newest good camera frame, if any."""
        return self.loop.latest if self.loop else None

    def latest_jpeg(self, overlay: bool = True) -> bytes:
        """A camera picture as JPEG; ``b""`` before any.

        With ``overlay``, the last settled frame ruled on with what was read drawn on it (the
        picture the ruling is about: the objects may have moved since); without, the newest
        frame, live."""
        observation = self.loop.latest_observation if self.loop else None
        read_frame = self.loop.latest_read if self.loop else None
        if overlay and observation is not None and read_frame is not None:
            image = self._draw(read_frame.image, observation)
        else:
            frame = self.latest_frame()
            if frame is None:
                return b""
            image = frame.image
        return encode_jpeg(image, OVERLAY_QUALITY)

    def crop_jpeg(self, refs: int | Sequence[int], margin: int = 24) -> bytes:
        """The picture of the objects ``refs`` of the last read (for a question); ``b""`` when one
        is unknown. Where it shows several, each is marked with the face read for it."""
        refs = [refs] if isinstance(refs, int) else list(refs)
        frame = self.loop.latest_read if self.loop else None
        observation = self.loop.latest_observation if self.loop else None
        if frame is None or observation is None:
            return b""
        return crop_picture(frame.image, observation, refs, margin)

    def _draw(self, image: Image, observation: TableObservation) -> Image:
        if self._overlay is not None:
            return self._overlay(image, observation)
        return overlay_picture(image, observation, self._legend(observation))

    def _legend(self, observation: TableObservation) -> list[LegendEntry]:
        """The legend of the last read: each object named as the options name it (web.legend)."""
        with self.match.lock:
            return table_legend(self.match.state, moves_seen_done(self.match), observation)

    def picture(self) -> dict[str, Any]:
        """What the picture shows besides the frame, for the tablet: the legend of its numbered
        markers, and where the markers and the objects lie in it (frame pixels)."""
        observation = self.loop.latest_observation if self.loop else None
        if observation is None or self._overlay is not None:
            return {"legend": [], "markers": [], "objects": [], "size": None}
        return picture_layout(observation, self._legend(observation))

    # -- the thread ------------------------------------------------------------------------

    def start(self) -> None:
        """Run the loop in a background thread (no-op without a camera or when running)."""
        if self.loop is None or (self._thread is not None and self._thread.is_alive()):
            return
        assert self.source is not None
        self._stop.clear()
        self.source.start()
        self._thread = threading.Thread(target=self._run, name=f"table-loop-{self.match.id}", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        assert self.loop is not None
        tablet = self.tablet
        try:
            self.loop.run(self._stop, after_step=(lambda: tablet(self)) if tablet else lambda: None)
        except Exception as exc:  # the thread must report, not vanish: the service shows the error
            self.loop.status.state = "error"
            self.loop.status.last_problem = f"{type(exc).__name__}: {exc}"
        self._publish()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the loop thread to end (a replay's last frame); ``True`` if it ended."""
        if self._thread is None:
            return True
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def stop(self) -> None:
        """Stop the loop thread and close the source."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
        if self.source is not None:
            self.source.close()


def moves_seen_done(match: Match) -> set[str]:
    """The forced moves confirmed made since the last change of the rules state: by the
    camera's last ruling, or by the players on the tablet (``TableService.confirm_table``)."""
    last = next((e for e in reversed(match.events) if e.kind == "action" or e.kind == "ruling"), None)
    if last is None or last.detail.get("ruling") != "confirmed":
        return set()
    return {str(move) for move in last.detail.get("moves", [])}


def _status_line(loop: Mapping[str, Any]) -> str:
    state = loop.get("state", "")
    if state == "camera lost":
        problem = str(loop.get("last_problem", ""))
        if problem.startswith("camera lost, retrying"):  # web.camera_watch's words
            return "C" + problem[1:]
        return f"Camera lost, retrying ({problem})"
    if state == "finished":
        return "Recording finished"
    if loop.get("calibration"):
        return f"Camera: {loop['calibration']}"
    return "" if state in ("running", "idle", "no camera") else str(state)


class _NoSource:
    """Stands in for a camera when a table is refereed by hand (answers still work)."""

    def start(self) -> None:
        """Nothing to start."""

    def read(self) -> Frame:
        """Never called."""
        raise EOFError("no camera")

    def stop(self) -> None:
        """Nothing to stop."""

    def close(self) -> None:
        """Nothing to close."""

    def __enter__(self) -> _NoSource:
        return self

    def __exit__(self, *exc: object) -> None:
        return None


class _NoSettle:
    def update(self, frame: Any, timestamp: float) -> Any:
        return None


def _no_read(image: Image) -> TableObservation:
    raise ValueError("no reader")
