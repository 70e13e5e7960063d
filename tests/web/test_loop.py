"""The loop from frame to ruling, driven frame by frame with fakes (Sevens, RULES.md §4)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hardware.frames import BaseSource
from referee.errors import IllegalActionError
from tests.hardware.fakes import FakeSource, SceneReader, SceneSettle, dice, scene
from web.loop import LoopResult, TableLoop
from web.store import Match, MatchStore

SCENES = {
    1: dice("theatre", 6, 6, 6, 6, 6, 6),
    2: dice("theatre", 1, 1, 1, 1, 1, 1),
    3: dice("theatre", 1, 2, 4, 6, 3, 3),
    4: dice("theatre", 2, 3) + dice("aside", 1, 6, 4, 3),
    5: dice("theatre", 2, 2, 5, 5, 6, 6)[:5] + dice("theatre", 6, confidence=0.4),
}


def new_match(tmp_path: Path) -> Match:
    store = MatchStore(tmp_path / "m.db")
    return store.open(store.create("sevens", ["Ann", "Bo"], {"sv.rounds": 1}))


def run(loop: TableLoop) -> list[LoopResult]:
    results = []
    while True:
        try:
            result = loop.step()
        except EOFError:
            return results
        if result is not None:
            results.append(result)


def frames(*numbers: int) -> list[object]:
    # Each scene held for three frames, with a "moving" blank frame between scenes.
    items: list[object] = []
    for number in numbers:
        items += [scene(0), scene(number), scene(number), scene(number)]
    return items


def make_loop(tmp_path: Path, source: BaseSource, scenes: dict = SCENES) -> TableLoop:
    source.start()
    return TableLoop(source, new_match(tmp_path), SceneSettle(), SceneReader(scenes))


def test_throws_become_chance_outcomes_and_the_forced_moves_are_confirmed(tmp_path: Path) -> None:
    loop = make_loop(tmp_path, FakeSource(frames(1, 2, 3, 4)))
    results = run(loop)
    assert [r.kind for r in results] == ["chance", "chance", "chance", "confirmed"]
    assert loop.match.state.history()[-1] == loop.match.state.game.parse_action("roll 1 2 3 3 4 6")
    assert "Move 4 dice" in results[3].text or "Table as expected" in results[3].text
    # Each ruling is in the log with the frame that justified it, once per settle.
    assert [e.frame_id for e in loop.match.events] == [r.frame_id for r in results] == ["f0003", "f0007", "f0011", "f0015"]
    assert loop.status.settles == 4 and all(r.latency_s >= 0 for r in results)


def test_an_unsure_read_is_a_question_and_the_answer_applies_it(tmp_path: Path) -> None:
    loop = make_loop(tmp_path, FakeSource(frames(1, 2, 3, 4)))
    run(loop)
    loop.match.apply("keep", "tablet")  # Ann keeps 5 (SV-4.4); Bo rolls next.
    loop.source = FakeSource(frames(5), prefix="g")
    loop.source.start()
    (question,) = run(loop)
    assert question.kind == "question" and question.event.detail["choices"] == ["1", "2", "3", "4", "5", "6", "cocked", "not a die"]
    assert loop.match.pending == question.event
    before = list(loop.match.state.history())
    assert loop.match.state.history() == before  # never a guess
    with pytest.raises(ValueError, match="not one of"):
        loop.answer(question.event.seq, "9")
    applied = loop.answer(question.event.seq, "5")
    assert applied.kind == "chance" and str(loop.match.state.history()[-1]) == "roll 2 2 5 5 5 6"
    assert [e.kind for e in loop.match.events][-3:] == ["ruling", "answer", "action"]
    with pytest.raises(ValueError, match="not waiting"):
        loop.answer(question.event.seq, "5")


def test_not_a_die_drops_the_read_and_tells_a_reader_that_can_remember(tmp_path: Path) -> None:
    """Scene 6: five dice and a sixth "die" the reader is unsure of (a printed letter); the
    players answer "not a die": the roll is short (SV-4.1) and the reader is told which read."""

    class RememberingReader(SceneReader):
        def __init__(self, scenes: dict) -> None:
            super().__init__(scenes)
            self.not_there_reads: list[object] = []

        def not_there(self, detection: object) -> None:
            self.not_there_reads.append(detection)

    scenes = {**SCENES, 6: dice("theatre", 1, 2, 4, 6, 3) + dice("theatre", 5, confidence=0.3)}
    reader = RememberingReader(scenes)
    loop = TableLoop(FakeSource(frames(6)), new_match(tmp_path), SceneSettle(), reader)
    loop.source.start()
    (question,) = run(loop)
    assert question.kind == "question" and "not a die" in question.event.detail["choices"]
    after = loop.answer(question.event.seq, "not a die")
    assert reader.not_there_reads == [scenes[6][5]]
    assert after.kind == "discrepancy" and "SV-4.1" in after.event.detail["problems"][0]["rule"]
    assert loop.match.state.history() == []  # nothing applied from a short roll


def test_a_read_contradicting_the_rules_is_a_discrepancy_never_applied(tmp_path: Path) -> None:
    scenes = {1: dice("theatre", 6, 6, 6, 6, 6, 6, 6),  # a die too many (SV-2.2: six dice)
              2: dice("theatre", 6, 6, 6, 6, 6) + dice(None, 2),  # a die outside every zone
              3: dice("theatre", 6, 6, 6, 6, 6, 6)}
    loop = make_loop(tmp_path, FakeSource(frames(1, 2, 3)), scenes)
    results = run(loop)
    assert [r.kind for r in results] == ["discrepancy", "discrepancy", "chance"]
    assert "rolls 6 dice, but 7 lie in the Theatre" in results[0].text
    assert "outside the play area" in results[1].text
    assert [str(a) for a in loop.match.state.history()] == ["roll 6 6 6 6 6 6"]
    assert loop.match.pending is None  # the good throw cleared the discrepancy


def test_a_chance_outcome_the_rules_forbid_is_never_applied(tmp_path: Path) -> None:
    from referee.reconcile import ChanceOutcome

    loop = make_loop(tmp_path, FakeSource(frames(1)))
    loop.reconciler = lambda state, seen: ChanceOutcome(state.game.parse_action("roll 1 2"))
    (result,) = run(loop)
    assert result.kind == "discrepancy" and "contradicts the rules" in result.text and "SV-2.2" in result.text
    assert loop.match.state.history() == []


def test_tablet_actions_on_the_same_match_are_checked(tmp_path: Path) -> None:
    loop = make_loop(tmp_path, FakeSource(frames(1)))
    run(loop)
    with pytest.raises(IllegalActionError):
        loop.match.apply("keep", "tablet")
