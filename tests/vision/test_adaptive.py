"""The table's own answers make its reads sure only where reads like them were right (``vision.adaptive``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vision.adaptive import AdaptParams, Example, TableExamples, adapt, agrees, example_of
from vision.dice_embedding import dice_embeddings, with_output
from vision.types import CONFIDENT, Detection, TableObservation


PLAIN = AdaptParams(agreed_only=False, floor=0.5)
"""Reads made sure from the level all the table's examples prove, agreed or not."""


def _read(value: int | None, confidence: float, flags: tuple[str, ...] = ()) -> TableObservation:
    return TableObservation((Detection("d6", value, (0, 0, 20, 20), confidence, flags=flags),), (100, 100))


def _examples(right: int, wrong: int, score: float = 0.75) -> TableExamples:
    examples = TableExamples()
    for n in range(right):
        examples.add(f"r{n}", Example("d6", 4, 4, score))
    for n in range(wrong):
        examples.add(f"w{n}", Example("d6", 4, 5, score))
    return examples


def test_enough_right_examples_make_an_unsure_read_as_sure_as_them_sure() -> None:
    out = adapt(_read(4, 0.76), _examples(70, 0), PLAIN).objects[0]
    assert out.value == 4 and out.confidence >= CONFIDENT
    assert out.extra["cold_confidence"] == 0.76 and out.extra["table_sure_from"] == 0.75


def test_a_read_less_sure_than_the_examples_or_with_too_few_examples_stays_unsure() -> None:
    assert adapt(_read(4, 0.70), _examples(70, 0), PLAIN).objects[0].confidence == 0.70
    assert adapt(_read(4, 0.76), _examples(PLAIN.support - 1, 0), PLAIN).objects[0].confidence == 0.76


def test_by_default_only_reads_the_look_alikes_agree_with_are_made_sure() -> None:
    assert adapt(_read(4, 0.76), _examples(70, 0)).objects[0].confidence == 0.76


def test_one_wrong_example_among_few_proves_no_level() -> None:
    # Under 1 / wrong_share examples, a single wrong guess at that score blocks it.
    assert adapt(_read(4, 0.76), _examples(200, 1), PLAIN).objects[0].confidence == 0.76


def test_flagged_reads_and_reads_with_no_face_are_left_as_read() -> None:
    examples = _examples(70, 0)
    assert adapt(_read(4, 0.76, ("cocked",)), examples, PLAIN).objects[0].confidence == 0.76
    assert adapt(_read(None, 0.76), examples, PLAIN).objects[0].value is None


def test_a_made_sure_read_is_recorded_as_first_read() -> None:
    sure = adapt(_read(4, 0.76), _examples(70, 0), PLAIN).objects[0]
    assert example_of(sure, "d6", 4).score == 0.76


def test_examples_forget_a_throw_and_survive_a_round_trip(tmp_path: Path) -> None:
    examples = _examples(3, 1)
    assert examples.forget("w0") == 1 and len(examples) == 3
    examples.save(tmp_path / "a.json")
    back = TableExamples.load(tmp_path / "a.json")
    assert back.all() == examples.all()


def test_a_bad_examples_file_is_refused_naming_what_is_wrong(tmp_path: Path) -> None:
    path = tmp_path / "a.json"
    path.write_text('{"throws": [{"frame": "1", "examples": [{"kind": "d7", "value": 1, "guess": 1, "score": 0.5}]}]}')
    with pytest.raises(ValueError, match="d7"):
        TableExamples.load(path)
    path.write_text("not json")
    with pytest.raises(ValueError, match="not JSON"):
        TableExamples.load(path)


def _examples_with_features(value: int, n: int, feature: tuple[float, ...]) -> list[Example]:
    return [Example("d6", value, value, 0.9, "d6", False, feature) for _ in range(n)]


def test_look_alikes_agree_only_when_all_the_nearest_show_the_guess() -> None:
    fours = _examples_with_features(4, 9, (1.0, 0.0))
    fives = _examples_with_features(5, 9, (0.0, 1.0))
    assert agrees((0.9, 0.1), 4, "d6", fours + fives)
    assert not agrees((0.9, 0.1), 5, "d6", fours + fives)
    assert not agrees((0.9, 0.1), 4, "d6", fours[:8])  # fewer than AdaptParams.neighbours: no agreement


def test_an_agreed_read_is_sure_from_the_level_the_agreed_examples_prove() -> None:
    examples = TableExamples()
    # Reads at 0.72 have been wrong now and then, except where the look-alikes agreed.
    for n in range(70):
        examples.add(f"a{n}", Example("d6", 4, 4, 0.72, "d6", True, (1.0, 0.0)))
    for n in range(5):
        examples.add(f"w{n}", Example("d6", 4, 5, 0.72, "d6", False, (0.0, 1.0)))
    plain = adapt(_read(4, 0.74), examples, PLAIN).objects[0]
    assert plain.confidence == 0.74
    agreed = adapt(_read(4, 0.74), examples, features=[(1.0, 0.0)]).objects[0]
    assert agreed.confidence >= CONFIDENT and agreed.extra["table_agreed"]


def test_the_dice_readers_hidden_layer_is_a_unit_vector_per_box_and_bad_model_bytes_are_refused() -> None:
    frame = np.full((120, 160, 3), 200, np.uint8)
    frame[40:70, 50:80] = 30
    vectors = dice_embeddings(frame, [(50, 40, 30, 30), (90, 40, 30, 30)])
    assert vectors.shape == (2, 64)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-3)
    assert dice_embeddings(frame, []).shape == (0, 64)
    with pytest.raises(ValueError, match="no graph"):
        with_output(b"\x08\x07", "x")
