"""The loop from frame to ruling, driven frame by frame with fakes (Sevens, RULES.md §4)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from hardware.frames import BaseSource
from referee.errors import IllegalActionError
from tests.hardware.fakes import FakeSource, SceneReader, SceneSettle, dice, scene
from vision.types import Detection
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


def run(loop: TableLoop, until_question: bool = False) -> list[LoopResult]:
    """The results to the end of the source, or up to and including the next question."""
    results = []
    while True:
        try:
            result = loop.step()
        except EOFError:
            return results
        if result is not None:
            results.append(result)
            if until_question and result.kind == "question":
                return results


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


class SecondLookReader(SceneReader):
    """Reads ``scenes`` at first; on a second look, ``closer`` (a faint die found after all)."""

    def __init__(self, scenes: dict, closer: dict) -> None:
        super().__init__(scenes)
        self.closer = closer
        self.second_looks = 0

    def second_look(self, image: object) -> object:
        self.second_looks += 1
        return SceneReader(self.closer)(image)  # type: ignore[arg-type]


def test_a_table_that_looks_wrong_is_looked_at_again_and_the_closer_read_kept_if_it_adds_up(tmp_path: Path) -> None:
    """SV-4.1: six dice are rolled; the first look finds five, so the table looks short. The
    second look finds the sixth and the roll is applied; a table that adds up is not looked at twice."""
    reader = SecondLookReader({1: dice("theatre", 2, 3, 4, 5, 6), 2: dice("theatre", 1, 1, 1, 1, 1, 1)},
                              {1: dice("theatre", 2, 3, 4, 5, 6, 6)})
    loop = TableLoop(FakeSource(frames(1, 2)), new_match(tmp_path), SceneSettle(), reader)
    loop.source.start()
    results = run(loop)
    assert [r.kind for r in results] == ["chance", "chance"]
    assert str(loop.match.state.history()[0]) == "roll 2 3 4 5 6 6"
    assert reader.second_looks == 1


def test_a_second_look_that_does_not_help_leaves_the_discrepancy(tmp_path: Path) -> None:
    """SV-4.1: a roll of five dice stays short however closely the table is read."""
    reader = SecondLookReader({1: dice("theatre", 2, 3, 4, 5, 6)}, {1: dice("theatre", 2, 3, 4, 5, 6)})
    loop = TableLoop(FakeSource(frames(1)), new_match(tmp_path), SceneSettle(), reader)
    loop.source.start()
    (result,) = run(loop)
    assert result.kind == "discrepancy" and "SV-4.1" in result.event.detail["problems"][0]["rule"]
    assert reader.second_looks == 1 and loop.match.state.history() == []


def textured(number: int, seed: int = 5) -> np.ndarray:
    """A frame with texture (so the memory can recognise an untouched die) whose first pixel holds ``number``."""
    image = np.random.default_rng(seed).integers(0, 255, (60, 80, 3), dtype=np.uint8)
    image[0, 0] = number
    return image


def test_a_die_the_players_named_is_not_asked_about_again_while_it_lies_untouched(tmp_path: Path) -> None:
    """After the players answer what an unsure die shows, the next settled table with that die
    untouched (same place, same pixels) reads it as they said; a die that changed is asked about."""

    def unsure_six(zone: str, face: int | None) -> list:
        return [Detection("d6", face, (20, 20, 16, 16), 0.4, center=(28.0, 28.0), zone=zone)]

    sure = [Detection("d6", face, (40 + 8 * i, 40, 8, 8), 0.97, center=(44.0 + 8 * i, 44.0), zone="theatre")
            for i, face in enumerate((2, 2, 5, 5, 6))]
    scenes = {1: sure + unsure_six("theatre", 6), 2: sure + unsure_six("theatre", 6), 3: sure + unsure_six("theatre", 6)}
    items = [textured(0), textured(1), textured(1), textured(1), textured(0), textured(2), textured(2), textured(2),
             textured(0), textured(3, seed=9), textured(3, seed=9), textured(3, seed=9)]
    loop = TableLoop(FakeSource(items), new_match(tmp_path), SceneSettle(), SceneReader(scenes))
    loop.source.start()
    (question,) = run(loop, until_question=True)
    assert question.kind == "question"
    loop.answer(question.event.seq, "6")
    second = run(loop, until_question=True)
    # Frame 2 shows the same pixels: the named die is known, the table is ruled on without asking.
    assert second[0].kind != "question" and second[0].frame_id == "f0007"
    # Frame 3's pixels differ (something moved there): asked again.
    assert second[1].kind == "question" and second[1].frame_id == "f0011"

