"""The replay's simulated tablet: a recorded game's tablet decisions taken at their moments.

A replayed game (``replay:PATH``) carries the decisions its players took on the tablet and when;
``RecordedTablet`` takes each once the replay has shown its frame, as the players did, and can
answer the referee's questions the recording did not foresee from the frames' labels.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from hardware.replay import ReplaySource
from referee import CHANCE
from referee.errors import ConfigError, IllegalActionError
from referee.reconcile import AS_READ, NOT_FLAT_ANSWERS, NOT_THERE_ANSWERS, ONE_BY_ONE
from referee.actions import Action
from vision.types import TableObservation
from web.store import Match


class _Loop(Protocol):
    latest_observation: TableObservation | None


class TableService(Protocol):
    """What the recorded tablet needs of the service it plays on (``web.service.TableService``,
    which calls the tablet and so is not imported here)."""

    @property
    def match(self) -> Match: ...

    @property
    def loop(self) -> _Loop | None: ...

    def moves_before(self, action: Action) -> list[str]: ...

    def act(self, text: str, wait_for_moves: bool = True) -> dict[str, Any]: ...

    def undo(self) -> dict[str, Any]: ...

    def redo(self) -> dict[str, Any]: ...

    def answer(self, question_id: int | str, answer: str, actor: str = "players") -> dict[str, Any]: ...


class RecordedTablet:
    """Takes a replayed game's recorded tablet decisions at their recorded moments.

    Each decision is ``{"action": "keep", "after_frame": "0042"}`` (an action; the fixtures
    write ``"frame"``, an index or an id, for ``after_frame``), or
    ``{"answer": "heads", ...}`` (the answer to the pending question), or ``{"undo": true}``.
    A decision with ``after_frame`` waits until that frame has been read; one without waits
    until a player (not chance) is to act and nothing is pending. Decisions already in the
    match log (counted by the tablet's and players' events) are not taken again after a restart.
    """

    def __init__(self, decisions: Sequence[Mapping[str, Any]], source: ReplaySource, answer_from_labels: bool = False) -> None:
        self.decisions = list(decisions)
        self.source = source
        self.answer_from_labels = answer_from_labels
        """Answer the referee's questions the recording did not foresee (an unsure read) with
        what the question's frame's labels say, as players looking at the table would. The
        answer is logged with the actor ``labels``."""
        self.answered = 0
        """How many questions were answered from the labels."""
        self.waiting = ""
        """Why the next decision is not taken although its moment has come (the rules forbid it
        now: the match is not where the recording was, e.g. a question is still open)."""

    def next_decision(self, match: Match) -> tuple[int, Mapping[str, Any]] | None:
        """The number and text of the next recorded decision not yet in the match log."""
        done = sum(1 for e in match.events if e.actor in ("tablet", "players") and e.kind != "ruling")
        return (done, self.decisions[done]) if done < len(self.decisions) else None

    def moment_reached(self, number: int, decision: Mapping[str, Any]) -> bool:
        """Whether the replay has shown the frame and reached the time the decision was recorded at.

        :raises ConfigError: for a decision waiting for a frame the recording does not have.
        """
        after = decision.get("after_frame", decision.get("frame"))
        if isinstance(after, int) and 0 <= after < len(self.source.frames):
            after = self.source.frames[after].frame_id  # the fixtures name frames by index
        if after is not None:
            try:
                if self.source.index_of(str(after)) >= self.source.position:
                    return False
            except KeyError:
                raise ConfigError(f"recorded decision {number + 1} waits for frame {after!r}, which is not in the recording") from None
        moment = decision.get("t")
        # A frame is held for a while: a decision recorded later than the frame in view waits.
        return not (isinstance(moment, (int, float)) and getattr(self.source, "last_timestamp", moment) < moment)

    def truth(self, service: TableService) -> str | None:
        """The labelled value of the object the pending question is about, if the recording has it."""
        pending = service.match.pending
        loop = service.loop
        if pending is None or pending.detail.get("ruling") != "question" or loop is None or pending.frame_id is None:
            return None
        observation = loop.latest_observation
        refs = [int(ref) for ref in pending.detail.get("refs") or []]
        if observation is None or not refs or not all(0 <= ref < len(observation.objects) for ref in refs):
            return None
        try:
            labels = self.source.frames[self.source.index_of(pending.frame_id)].labels
        except KeyError:
            return None
        choices = [str(c) for c in pending.detail.get("choices", [])]
        truths = [self._label_at(labels, observation.objects[ref].center, choices) for ref in refs]
        if AS_READ in choices:
            # "Are these read right?": yes only if every read face is the labelled one.
            read = {int(s["ref"]): str(s["value"]) for s in pending.detail.get("seen", [])}
            return AS_READ if all(truth == read.get(ref) for ref, truth in zip(refs, truths)) else ONE_BY_ONE
        value = truths[0]
        return value if value in choices else None

    @staticmethod
    def _label_at(labels: Any, point: tuple[float, float], choices: list[str]) -> str | None:
        """What the labelled object at ``point`` shows, as an answer; a not-there answer where
        no object is labelled (the camera took something else for one)."""
        x, y = point
        for label in labels if isinstance(labels, list) else []:
            bx, by, bw, bh = label.get("bbox", (0, 0, 0, 0))
            if bx <= x <= bx + bw and by <= y <= by + bh:
                flags = set(label.get("flags") or ())
                if "leaning" in flags:
                    flags.add("on_edge")  # a leaning coin does not lie flat either: "on edge"
                return next((said for said, flag in NOT_FLAT_ANSWERS.items() if flag in flags), str(label.get("value")))
        return next((c for c in choices if c in NOT_THERE_ANSWERS), None)

    def __call__(self, service: TableService) -> None:
        """Take every recorded decision whose moment has come (called after each loop step)."""
        while True:
            match = service.match
            upcoming = self.next_decision(match)
            if self.answer_from_labels and (upcoming is None or "answer" not in upcoming[1]):
                value = self.truth(service)
                if value is not None:
                    assert match.pending is not None
                    service.answer(match.pending.seq, value, actor="labels")
                    self.answered += 1
                    continue
            if upcoming is None:
                return
            done, decision = upcoming
            if not self.moment_reached(done, decision):
                return
            after = decision.get("after_frame", decision.get("frame"))
            pending = match.pending
            if "answer" in decision:
                # An answer waits for its question.
                if pending is None or pending.detail.get("ruling") != "question":
                    return
            elif after is None and (pending is not None or match.state.current_player() == CHANCE or match.state.is_terminal()):
                return
            if "answer" in decision:
                assert pending is not None
                service.answer(pending.seq, str(decision["answer"]))
            elif decision.get("undo"):
                service.undo()
            elif decision.get("redo"):
                service.redo()
            else:
                text = str(decision["action"])
                error = match.state.why_illegal(match.state.game.parse_action(text))
                # A decision recorded with its moment is taken then, as it was; one without
                # waits, as players do, until the camera has seen the forced moves made (G-2).
                awaited = service.moves_before(match.state.game.parse_action(text)) if after is None and error is None else []
                if awaited:
                    error = IllegalActionError(f"the camera has not yet seen {'; '.join(awaited)}", rule="G-2")
                if error is not None:
                    # A recorded decision the rules forbid now is not forced on the match: it
                    # waits (and says why) until the table is where the recording was.
                    self.waiting = f"recorded decision {done + 1} ({text}) waits: {error}"
                    return
                self.waiting = ""
                service.act(text, wait_for_moves=False)
