"""Every answer teaches (issue 58): the faces the game took on each throw, read surely or
answered, teach the table's reader from the next throw on (``web.learn.TableLearner.teach``,
``vision.adaptive``), kept beside the match log; a throw taken back (undo) is unlearned."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from vision.adaptive import AdaptParams
from vision.types import TableObservation
from web.learn import TableLearner, examples_path, profile_path
from web.bootstrap import open_table

GAMES = Path(__file__).resolve().parents[2] / "fixtures" / "games"


class TimidReader:
    """A replay's recorded labels read as a reader too timid to rule on any of them (every face
    right, at confidence 0.75, under the gate), then made sure where the table's answers prove
    it (``learner.adapt``), as ``web.service.VisionReader`` does."""

    def __init__(self, labels: Any, learner: TableLearner, adapts: bool = True) -> None:
        self.labels = labels
        self.learner = learner
        self.adapts = adapts

    def __call__(self, image: Any) -> TableObservation:
        read = self.labels(image)
        timid = tuple(replace(d, confidence=0.75, center=(d.bbox[0] + d.bbox[2] / 2, d.bbox[1] + d.bbox[3] / 2))
                      for d in read.objects)
        observation = replace(read, objects=timid)
        return self.learner.adapt(observation) if self.adapts else observation


def replayed(game: str, db: Path, adapts: bool = True) -> Any:
    """The fixture game replayed to its end by a timid reader, its questions answered from the labels."""
    service = open_table(f"replay:{GAMES / game}", str(db), realtime=False, read="labels", answer_from_labels=True)
    assert service.loop is not None
    # A short game: the table's answers prove a read sure from 20 of them (not the default 60);
    # the labels give no vectors for look-alikes to agree by, so the level all answers prove serves.
    learner = TableLearner(profile_path(db), AdaptParams(support=20, agreed_only=False))
    service.loop.read = TimidReader(service.loop.read, learner, adapts)
    service.start()
    assert service.wait(120), "the replay did not finish"
    service.stop()
    return service


def throws_asked(service: Any) -> list[bool]:
    """For each throw the camera ruled on (a chance outcome applied), whether it was asked about first."""
    events = service.match.events
    asked = {e.frame_id for e in events if e.kind == "ruling" and e.detail.get("ruling") == "question"}
    return [e.frame_id in asked for e in events if e.kind == "action" and e.actor == "camera"]


def test_first_throws_ask_and_later_throws_of_the_same_coins_do_not(tmp_path: Path) -> None:
    # SP-T2 (T.K.O.): the same seven pennies thrown again and again under one camera.
    service = replayed("sp_t2_tko", tmp_path / "m.db")
    asked = throws_asked(service)
    assert len(asked) >= 6
    assert all(asked[:3]), asked  # nothing learned yet: every unsure throw is a question
    assert not any(asked[-3:]), asked  # the same coins, answered before: ruled without asking
    assert service.view()["loop"]["state"] == "finished"
    learner = service.loop.read.learner
    assert len(learner.answers) >= 7 * len(asked)
    # Kept beside the match log: a restart reads the same answers back.
    assert len(TableLearner(profile_path(tmp_path / "m.db")).answers) == len(learner.answers)
    assert examples_path(profile_path(tmp_path / "m.db")).is_file()


def test_without_learning_every_throw_asks(tmp_path: Path) -> None:
    asked = throws_asked(replayed("sp_t2_tko", tmp_path / "m.db", adapts=False))
    assert asked and all(asked)


def test_undo_unlearns_the_throw_it_takes_back(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    service = open_table(f"replay:{GAMES / 'sp_t1'}", str(db), realtime=False, read="labels", answer_from_labels=True)
    assert service.loop is not None and service.source is not None and service.tablet is not None
    learner = TableLearner(profile_path(db))
    service.loop.read = TimidReader(service.loop.read, learner)
    service.source.start()
    # Step until the camera's first throw is applied (the question answered from the labels).
    while not any(e.kind == "action" and e.actor == "camera" for e in service.match.events):
        service.loop.step()
        service.tablet(service)
    thrown = next(e for e in service.match.events if e.kind == "action" and e.actor == "camera")
    assert thrown.frame_id in learner.answers.by_frame
    taught = len(learner.answers)
    assert taught == 7
    service.undo()  # the players take the throw back: its answers are not this table's any more
    assert thrown.frame_id not in learner.answers.by_frame and len(learner.answers) == 0
    assert len(TableLearner(profile_path(db)).answers) == 0


def test_faces_confirmed_in_learn_this_table_are_answers_too(tmp_path: Path) -> None:
    from tests.web.test_learn import first_settled_table, true_faces

    service = first_settled_table(tmp_path / "m.db")
    service.learn_table(true_faces(service))
    learner = service.loop.read.learner
    frame = service.loop.latest_read.frame_id
    assert len(learner.answers.by_frame[frame]) == 7
    # Recorded as read before the answer: the read's own confidence, not the answer's certainty.
    reads = sorted(round(float(d.confidence), 4) for d in service.loop.latest_observation.objects if d.kind == "penny")
    assert sorted(round(e.score, 4) for e in learner.answers.by_frame[frame]) == reads
    service.forget_table()  # back to the shipped reader: the answers go too
    assert len(learner.answers) == 0
