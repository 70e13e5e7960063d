"""The live loop of one table: source -> settle -> read -> reconcile -> match.

Each settled frame is read once and reconciled with the table the rules expect; the loop
then does exactly one of four things (DESIGN.md, "The flow of one throw"):

- ``chance``: the throw's outcome is applied to the match as a camera action;
- ``confirmed``: the table matches the rules (the forced moves were carried out);
- ``discrepancy``: something is missing, extra, misplaced, on edge or cocked; it waits on the
  tablet until the table is put right or the players correct it;
- ``question``: a read too unsure to use; the players answer it, never a guess.

Where the source keeps each frame at the sensor's full resolution as well
(``hardware.frames.FullResolutionSource``), the settled table's objects, found in the small
frame, have their faces read from the full picture (``vision.full_resolution``).

Every result is committed to the match log before ``on_update`` tells anyone. The loop is the
imperative shell: the source, settle detector, reader, reconciler and clocks are passed in,
so tests drive it with fakes frame by frame (``step``) and a service runs it in a thread
(``run``).
"""

from __future__ import annotations

import statistics
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from hardware.frames import CameraError, Frame, FrameError, FrameSource
from referee import CHANCE
from referee.reconcile import (
    CONFIDENT,
    NOT_THERE_ANSWERS,
    ChanceOutcome,
    Discrepancy,
    Question,
    Ruling,
    Seen,
    TableMatches,
    answer,
    reconcile,
)
from referee.table import describe_items
from vision.observe import LastTable, observe
from vision.types import TableObservation
from web.store import Event, Match, StoreError


class Settler(Protocol):
    """The settle detector: fed every frame, it says when a throw has come to rest."""

    def update(self, frame: Any, timestamp: float) -> Any:
        """Something true (the settled frame or an event about it) once per settle, else ``None``."""


Reader = Callable[[Any], TableObservation]
"""Turns a settled BGR image into an observation (``vision.read.read_table`` with its calibration)."""

Reconciler = Callable[..., Ruling]


@dataclass(frozen=True)
class LoopResult:
    """What one settled frame (or one answer) produced, once it is in the log."""

    kind: str
    """``chance``, ``confirmed``, ``discrepancy`` or ``question``."""
    text: str
    """The ruling in words, for the terminal and the tablet."""
    event: Event
    """The committed log event."""
    frame_id: str | None
    latency_s: float = 0.0
    """Seconds from the settle being detected to the event being committed."""


@dataclass
class LoopStatus:
    """How the loop is doing, for the dashboard and ``serve``'s terminal."""

    state: str = "idle"
    """``idle``, ``running``, ``camera lost``, ``finished`` or ``error``."""
    frames: int = 0
    bad_frames: int = 0
    settles: int = 0
    last_problem: str = ""
    latencies: list[float] = field(default_factory=list)
    calibration: str = ""
    """The camera's calibration in words when it is not right (looking for markers, camera moved)."""

    def to_json(self) -> dict[str, Any]:
        """JSON-friendly summary (latencies as median and worst, in ms)."""
        data: dict[str, Any] = {"state": self.state, "frames": self.frames, "bad_frames": self.bad_frames,
                                "settles": self.settles, "last_problem": self.last_problem}
        if self.calibration:
            data["calibration"] = self.calibration
        if self.latencies:
            data["latency_ms"] = {"median": round(statistics.median(self.latencies) * 1000, 1),
                                  "worst": round(max(self.latencies) * 1000, 1)}
        return data


def seen_from(observation: TableObservation) -> list[Seen]:
    """The observation in the rules' terms; ``ref`` is each detection's index. Each ``Seen``
    carries the face read, sure or not (``Detection.guess``), with its confidence: the rules
    use only sure reads and ask about the others, showing the face read."""
    return [Seen(d.kind, d.guess, d.zone, float(d.confidence), tuple(d.flags), ref=i)
            for i, d in enumerate(observation.objects)]


def seen_to_json(seen: Sequence[Seen]) -> list[dict[str, Any]]:
    """Reads as stored with a question, so it can be answered after a restart."""
    return [{"kind": s.kind, "value": s.value, "zone": s.zone, "confidence": s.confidence,
             "flags": list(s.flags), "ref": s.ref} for s in seen]


def seen_from_json(data: Sequence[dict[str, Any]]) -> list[Seen]:
    """The inverse of ``seen_to_json``."""
    return [Seen(d["kind"], d["value"], d["zone"], float(d["confidence"]), tuple(d["flags"]), int(d["ref"])) for d in data]


def _settled(result: Any, frame: Frame) -> Frame | None:
    """The frame to read when the settle detector reports a settle, else ``None``.

    Accepts the shapes a detector may return: ``None``/``False`` (nothing), ``True`` or the
    image itself (the current frame), or an event object carrying ``frame``/``image`` and
    optionally ``frame_id``/``timestamp``.
    """
    if result is None or result is False:
        return None
    if result is True or result is frame.image:
        return frame
    image = getattr(result, "frame", None)
    if image is None:
        image = getattr(result, "image", None)
    if image is None:
        return frame
    if isinstance(image, Frame):
        return image
    frame_id = getattr(result, "frame_id", None) or frame.frame_id
    stamp = getattr(result, "timestamp", None)
    return Frame(image, float(stamp) if stamp is not None else frame.timestamp, str(frame_id), frame.metadata)


class TableLoop:
    """One table's loop (see the module docstring).

    ``resume_after``: when replaying a recording into a match that already has camera events,
    the frames up to and including that frame id are fed to the settle detector (so it is in
    the same state as before the restart) but their settles are not ruled on again.
    """

    def __init__(
        self,
        source: FrameSource,
        match: Match,
        settle: Settler,
        read: Reader,
        reconciler: Reconciler = reconcile,
        on_update: Callable[[LoopResult], None] = lambda result: None,
        on_frame: Callable[[Frame], None] = lambda frame: None,
        clock: Callable[[], float] = time.perf_counter,
        resume_after: str | None = None,
    ) -> None:
        self.source = source
        self.match = match
        self.settle = settle
        self.read = read
        self.reconciler = reconciler
        self.on_update = on_update
        self.on_frame = on_frame
        self.clock = clock
        self.status = LoopStatus()
        self.latest: Frame | None = None
        """The newest good frame (for the camera stream)."""
        self.latest_observation: TableObservation | None = None
        """The read of the last settled frame ruled on."""
        self.latest_read: Frame | None = None
        """The settled frame ``latest_observation`` was read from (the players may have moved
        things since: a question's picture and the read's overlay belong on this one)."""
        self.last_table = LastTable()
        """The objects of the last table ruled on whose faces are known (read with confidence or
        answered), handed to the next ``observe``: an untouched one is not asked about again."""
        self._resume_after = resume_after
        self._logged_frames = {e.frame_id for e in match.events if e.frame_id is not None}
        self.finish_answer()

    def finish_answer(self) -> LoopResult | None:
        """Rule on an answer logged just before a crash (the answer is in the log, its ruling not)."""
        events = self.match.events
        if not events or events[-1].kind != "answer":
            return None
        answered = events[-1]
        question = next(e for e in events if e.seq == answered.detail["question"])
        seen = seen_from_json(question.detail["seen"])
        value = answered.detail["value"]
        typed: str | int = int(value) if str(value).isdigit() else value
        return self._decide(answer(seen, question.detail.get("refs", []), typed), question.frame_id, self.clock())

    # -- one frame -------------------------------------------------------------------------

    def step(self) -> LoopResult | None:
        """Read one frame and, if the table just settled, rule on it.

        :raises CameraError: when the source is gone (wrap it in ``ReconnectingSource``).
        :raises EOFError: at the end of a replay.
        """
        try:
            frame = self.source.read()
        except FrameError as exc:
            # One bad frame (corrupt, empty, wrong size or type) is skipped, never read.
            self.status.bad_frames += 1
            self.status.last_problem = str(exc)
            return None
        self.status.frames += 1
        self.latest = frame
        self.on_frame(frame)
        settled = _settled(self.settle.update(frame.image, frame.timestamp), frame)
        if self._resume_after is not None:
            if frame.frame_id == self._resume_after:
                self._resume_after = None
            return None
        if settled is None or settled.frame_id in self._logged_frames:
            return None
        return self.rule(settled, self.clock())

    def rule(self, frame: Frame, settled_at: float) -> LoopResult:
        """Observe a settled frame (``vision.observe``: one call), reconcile it, and commit the one result."""
        self.status.settles += 1
        full = self._full_frame(frame)
        observation = observe(frame.image, self.read, full=full.image if full is not None else None,
                              last=self.last_table, looks_right=self._looks_right)
        self.latest_observation = observation
        self.latest_read = frame
        return self._decide(seen_from(observation), frame.frame_id, settled_at)

    def _full_frame(self, frame: Frame) -> Frame | None:
        """The settled frame at the sensor's full resolution, where the source keeps it
        (``hardware.frames.FullResolutionSource``), else ``None``."""
        full_frame = getattr(self.source, "full_frame", None)
        if full_frame is None:
            return None
        try:
            full: Frame | None = full_frame(frame)
        except CameraError as exc:
            self.status.last_problem = str(exc)  # the small frame's read stands
            return None
        return full

    def _looks_right(self, observation: TableObservation) -> bool:
        """Whether the rules would take the table if every read face were right: when not,
        vision looks again more closely (``vision.observe``; e.g. a faint die on a cloth of
        its own colour) and keeps the closer read only if the table then adds up or a
        question can settle it. It is still read with the same confidence, so looking again
        never turns into guessing."""
        return self._adds_up_if_read_right(observation) is not False

    def _adds_up_if_read_right(self, observation: TableObservation) -> bool | None:
        """Whether the table would add up if every read face were right (unsure ones too): ``False``
        when even then something is missing, extra or misplaced, ``None`` when the rules
        would still need an answer (a read with no face)."""
        assumed = [replace(s, confidence=1.0) if s.value is not None else s for s in seen_from(observation)]
        with self.match.lock:
            ruling = self.reconciler(self.match.state, assumed)
        if isinstance(ruling, Question):
            return None
        return not isinstance(ruling, Discrepancy) or bool(ruling.pending)

    def answer(self, question_seq: int, value: str, actor: str = "players") -> LoopResult:
        """The players answered question ``question_seq``: log it, then rule again with their answer.

        ``actor`` is who answered, as the log records it (``labels``: a replay's recorded truth).

        :raises ValueError: when that question is not the one pending, or the answer is not a choice.
        """
        with self.match.lock:
            pending = self.match.pending
            if pending is None or pending.seq != question_seq or pending.detail.get("ruling") != "question":
                raise ValueError(f"question {question_seq} is not waiting for an answer")
            choices = [str(c) for c in pending.detail.get("choices", [])]
            if choices and str(value) not in choices:
                raise ValueError(f"answer {value!r} is not one of: {', '.join(choices)}")
            started = self.clock()
            self.match.record("answer", f"{pending.text}: {value}", actor, pending.frame_id,
                              {"question": question_seq, "value": value})
            seen = seen_from_json(pending.detail["seen"])
            typed: str | int = int(value) if str(value).isdigit() else value
            refs = pending.detail.get("refs", [])
            if value in NOT_THERE_ANSWERS:
                self._tell_reader_not_there(refs)
            return self._decide(answer(seen, refs, typed), pending.frame_id, started)

    def _tell_reader_not_there(self, refs: list[int]) -> None:
        """The players said the read objects ``refs`` of the last read are not there: a reader
        that can remember it (``VisionReader.not_there``) leaves those spots out from now on."""
        not_there = getattr(self.read, "not_there", None)
        observation = self.latest_observation
        if not_there is None or observation is None:
            return
        for ref in refs:
            if 0 <= int(ref) < len(observation.objects):
                not_there(observation.objects[int(ref)])

    def _decide(self, seen: list[Seen], frame_id: str | None, started: float) -> LoopResult:
        with self.match.lock:
            state = self.match.state
            ruling = self.reconciler(state, seen)
            result = self._commit(ruling, seen, frame_id, started)
        if not isinstance(ruling, Question):
            self._remember(seen, frame_id)
        if isinstance(ruling, ChanceOutcome):
            self._teach(seen, frame_id)
        if frame_id is not None:
            self._logged_frames.add(frame_id)
        self.status.latencies.append(result.latency_s)
        self.on_update(result)
        return result

    def _remember(self, seen: list[Seen], frame_id: str | None) -> None:
        """Keep the faces known on the table just ruled on, for the next ``observe``."""
        observation, frame = self.latest_observation, self.latest_read
        if observation is None or frame is None or frame.frame_id != frame_id:
            return
        known = [(observation.objects[s.ref], s.value) for s in seen
                 if s.value is not None and not s.flags and s.confidence >= CONFIDENT
                 and 0 <= s.ref < len(observation.objects) and observation.objects[s.ref].kind == s.kind]
        self.last_table = LastTable(tuple(known), frame.image)

    def _teach(self, seen: list[Seen], frame_id: str | None) -> None:
        """Every face the game took from the throw just ruled on (read surely, answered or
        corrected) teaches a reader that learns (``web.learn.TableLearner.teach``), from the
        next throw on. Objects recalled untouched from the table before (``vision.memory``)
        teach nothing new: the same die counted twice would make its read look surer than
        the table has shown."""
        learner = getattr(self.read, "learner", None)
        observation, frame = self.latest_observation, self.latest_read
        if learner is None or not hasattr(learner, "teach") or observation is None or frame is None or frame.frame_id != frame_id:
            return
        answered = [(observation.objects[s.ref], s.kind, s.value) for s in seen
                    if s.value is not None and not s.flags and s.confidence >= CONFIDENT
                    and 0 <= s.ref < len(observation.objects) and not observation.objects[s.ref].extra.get("remembered")]
        if answered:
            learner.teach(frame.frame_id, answered)

    def _commit(self, ruling: Ruling, seen: list[Seen], frame_id: str | None, started: float) -> LoopResult:
        match = self.match
        if isinstance(ruling, ChanceOutcome):
            error = match.state.why_illegal(ruling.action)
            if error is None and match.state.current_player() == CHANCE:
                event = match.apply(ruling.action, "camera", frame_id, {"ruling": "chance"})
                return self._result("chance", f"{ruling.action}", event, frame_id, started)
            # The rules say this cannot be the outcome: never apply it, show it as a discrepancy.
            problem = str(error) if error is not None else "no throw is expected now"
            rule = error.rule if error is not None else ""
            text = f"The read {ruling.action} contradicts the rules: {problem}"
            event = match.record("ruling", text, "camera", frame_id,
                                 {"ruling": "discrepancy", "problems": [{"text": text, "rule": rule}], "rethrow": True})
            return self._result("discrepancy", text, event, frame_id, started)
        if isinstance(ruling, TableMatches):
            moves = [str(move) for move in ruling.confirmed]
            text = "Table as expected" + (": " + "; ".join(moves) if moves else "")
            event = match.record("ruling", text, "camera", frame_id, {"ruling": "confirmed", "moves": moves})
            return self._result("confirmed", text, event, frame_id, started)
        if isinstance(ruling, Discrepancy):
            text = ruling.text()
            problems = [{"text": p.text, "zone": p.zone, "refs": list(p.refs), "rule": p.rule} for p in ruling.problems]
            event = match.record("ruling", text, "camera", frame_id,
                                 {"ruling": "discrepancy", "problems": problems, "rethrow": ruling.rethrow})
            return self._result("discrepancy", text, event, frame_id, started)
        if isinstance(ruling, Question):
            event = match.record("ruling", ruling.text, "camera", frame_id,
                                 {"ruling": "question", "refs": list(ruling.refs), "choices": list(ruling.choices),
                                  "seen": seen_to_json(seen)})
            return self._result("question", ruling.text, event, frame_id, started)
        raise TypeError(f"reconcile returned {ruling!r}, which is no ruling")

    def _result(self, kind: str, text: str, event: Event, frame_id: str | None, started: float) -> LoopResult:
        return LoopResult(kind, text, event, frame_id, self.clock() - started)

    # -- the thread ------------------------------------------------------------------------

    def run(self, stop: threading.Event, after_step: Callable[[], None] = lambda: None) -> None:
        """Step until ``stop`` is set or a replay ends; camera loss is reported in ``status``."""
        self.status.state = "running"
        while not stop.is_set():
            try:
                self.step()
            except EOFError:
                self.status.state = "finished"
                return
            except CameraError as exc:
                self.status.state = "camera lost"
                self.status.last_problem = str(exc)
                if stop.wait(0.5):
                    break
                continue
            except StoreError as exc:
                # The log could not be written (a full disk): the ruling was not made; say so, go on.
                self.status.last_problem = str(exc)
                if stop.wait(0.5):
                    break
                continue
            self.status.state = "running"
            after_step()
        self.status.state = "stopped"


def describe_seen(seen: Sequence[Seen]) -> str:
    """``"6 dice showing ... in the Theatre"``-style summary of what was read (for logs)."""
    from referee.table import Item

    return describe_items(Item(s.kind, s.value) for s in seen)
