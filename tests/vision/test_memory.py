"""vision.memory: a face known on the last table holds for an object left untouched."""

from __future__ import annotations

import numpy as np

from vision.memory import recall, remember
from vision.types import CONFIDENT, Detection, TableObservation


def table(seed: int = 3) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 255, (120, 160, 3), dtype=np.uint8)


def die(value: int | None, x: int = 40, confidence: float = 0.3, flags: tuple[str, ...] = ()) -> Detection:
    return Detection("d6", value, (x, 30, 30, 30), confidence, center=(x + 15.0, 45.0), flags=flags)


def observed(*objects: Detection) -> TableObservation:
    return TableObservation(tuple(objects), (160, 120))


def test_an_untouched_die_keeps_its_known_face_at_the_confidence_acted_on() -> None:
    frame = table()
    memory = remember([(die(4, confidence=0.99), 4)], frame)
    (read,) = recall(observed(die(None, x=41)), frame, memory).objects
    assert read.value == 4 and read.confidence >= CONFIDENT and read.extra["remembered"]
    (guess,) = recall(observed(die(4)), frame, memory).objects  # an unsure read of the same face
    assert guess.value == 4 and guess.confidence >= CONFIDENT


def test_a_die_turned_over_in_place_is_read_afresh() -> None:
    """FLIP's flip (FL-3.1): same place, other face: the box's pixels differ."""
    before, after = table(), table()
    after[30:60, 40:70] = table(seed=8)[30:60, 40:70]
    memory = remember([(die(4, confidence=0.99), 4)], before)
    (read,) = recall(observed(die(None)), after, memory).objects
    assert read.value is None and read.confidence < CONFIDENT


def test_a_read_of_another_face_a_moved_die_or_a_flagged_one_is_left_as_read() -> None:
    frame = table()
    memory = remember([(die(4, confidence=0.99), 4)], frame)
    assert recall(observed(die(3)), frame, memory).objects[0].value == 3  # the reader sees another face
    moved = recall(observed(die(None, x=90)), frame, memory).objects[0]
    assert moved.value is None
    cocked = recall(observed(die(None, flags=("cocked",))), frame, memory).objects[0]
    assert cocked.value is None and cocked.flags == ("cocked",)


def test_a_featureless_box_proves_nothing() -> None:
    flat = np.full((120, 160, 3), 90, np.uint8)
    memory = remember([(die(4, confidence=0.99), 4)], flat)
    assert recall(observed(die(None)), flat, memory).objects[0].value is None


def test_each_remembered_object_answers_for_one_read_only() -> None:
    frame = table()
    memory = remember([(die(4, confidence=0.99), 4)], frame)
    reads = recall(observed(die(None), die(None, x=41)), frame, memory).objects
    assert [r.value for r in reads] == [4, None]


def test_places_are_compared_by_box_whatever_the_centre_field_says() -> None:
    """A reader that leaves ``Detection.center`` at its default is matched by its box."""
    frame = table()
    memory = remember([(Detection("d6", 2, (40, 30, 30, 30), 0.99), 2)], frame)
    (read,) = recall(observed(Detection("d6", None, (40, 30, 30, 30), 0.1)), frame, memory).objects
    assert read.value == 2
    (elsewhere,) = recall(observed(Detection("d6", None, (100, 70, 30, 30), 0.1)), frame, memory).objects
    assert elsewhere.value is None
