"""One meaning of ``Detection.value``: a face only where the referee would rule on it, the
best guess in ``guess`` (``read_table``'s objects, ``referee read --json``, the loop's questions)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from referee.reconcile import Question
from tests.hardware.fakes import FakeSource, SceneSettle, scene
from vision.overlay import describe
from vision.read import read_table
from vision.types import CONFIDENT, NOT_FLAT_FLAGS, Detection, TableObservation
from web.cli import main
from web.loop import TableLoop, seen_from
from web.store import MatchStore

COINS = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "coins-mmr"
PHOTOS = ("mmr_195.jpg", "mmr_197.jpg", "mmr_48.jpg")
"""Real photos whose cold read has coins below the gate (and some above it)."""


def photo(name: str) -> Path:
    """A real photo's path; a missing file fails the test."""
    path = COINS / name
    assert path.is_file(), f"real photo missing: {path}"
    return path


def test_gated_keeps_the_face_as_guess_and_gives_a_value_only_when_sure() -> None:
    unsure = Detection("penny", "heads", (0, 0, 20, 20), CONFIDENT - 0.01).gated()
    assert (unsure.value, unsure.guess) == (None, "heads")
    sure = Detection("penny", "heads", (0, 0, 20, 20), CONFIDENT).gated()
    assert (sure.value, sure.guess) == ("heads", "heads")
    for flag in sorted(NOT_FLAT_FLAGS):
        # G-3: a die cocked, a coin on edge or stacked is ruled on by its lie, never its face.
        flat_not = Detection("d6", 3, (0, 0, 20, 20), 0.99, flags=(flag,)).gated()
        assert (flat_not.value, flat_not.guess) == (None, 3), flag
    # A flag that does not stop a ruling keeps a sure face.
    assert Detection("dime", "tails", (0, 0, 20, 20), 0.9, flags=("overlapping",)).gated().value == "tails"
    # No face read at all: nothing to guess.
    assert Detection("other", None, (0, 0, 20, 20), 1.0).gated().guess is None


def test_a_face_given_is_the_guess_too() -> None:
    """A face answered or remembered (``replace(..., value=...)``) replaces the old guess."""
    unsure = Detection("d6", 2, (0, 0, 20, 20), 0.4).gated()
    answered = replace(unsure, value=5, confidence=1.0)
    assert (answered.value, answered.guess) == (5, 5)
    assert replace(answered, value=None).guess == 5


def test_no_read_below_the_gate_carries_a_value_and_each_keeps_its_guess() -> None:
    below = above = 0
    for name in PHOTOS:
        frame = cv2.imread(str(photo(name)))
        for d in read_table(frame).objects:
            if d.value is not None:
                assert d.confidence >= CONFIDENT and not NOT_FLAT_FLAGS & set(d.flags), (name, d)
                assert d.guess == d.value
                above += 1
            elif d.guess is not None:
                assert d.confidence < CONFIDENT or NOT_FLAT_FLAGS & set(d.flags), (name, d)
                below += 1
    # These photos have both kinds of read: the checks above checked something.
    assert below >= 5 and above >= 10, (below, above)


def test_referee_read_json_shows_the_value_and_the_guess(capsys: pytest.CaptureFixture[str]) -> None:
    image = photo("mmr_195.jpg")
    assert main(["read", str(image), "--json"]) == 0
    objects = json.loads(capsys.readouterr().out.strip())["objects"]
    assert all({"value", "guess", "confidence"} <= set(o) for o in objects)
    unsure = [o for o in objects if o["value"] is None and o["guess"] is not None]
    assert unsure and all(o["confidence"] < CONFIDENT for o in unsure)
    assert all(o["guess"] == o["value"] for o in objects if o["value"] is not None)
    assert main(["read", str(image)]) == 0
    text = capsys.readouterr().out
    assert f"penny {unsure[0]['guess']}? (" in text  # the text form marks a guess with "?"


class GatedReader:
    """Reads every scene as two d6 that ``read_table`` would give: faces 3 and 4, below the gate."""

    def __call__(self, image: np.ndarray) -> TableObservation:
        dice = (Detection("d6", 3, (10, 10, 8, 8), 0.5, center=(14.0, 14.0), zone="theatre"),
                Detection("d6", 4, (30, 10, 8, 8), 0.6, center=(34.0, 14.0), zone="theatre"))
        return TableObservation(tuple(d.gated() for d in dice), (image.shape[1], image.shape[0]))


def test_the_referee_asks_below_the_gate_and_the_question_shows_the_guessed_faces(tmp_path: Path) -> None:
    """SV-4.1's roll read below the gate is a question (never a ruling), naming the faces guessed."""
    store = MatchStore(tmp_path / "m.db")
    match = store.open(store.create("sevens", ["Ann", "Bo"], {"sv.rounds": 1}))
    source = FakeSource([scene(1), scene(1), scene(1)])
    source.start()
    loop = TableLoop(source, match, SceneSettle(), GatedReader())
    results = [loop.step() for _ in range(3)]
    ruled = [r for r in results if r is not None]
    assert [r.kind for r in ruled] == ["question"]
    assert "3" in ruled[0].text and "4" in ruled[0].text, ruled[0].text
    assert loop.latest_observation is not None
    assert [d.value for d in loop.latest_observation.objects] == [None, None]
    assert [s.value for s in seen_from(loop.latest_observation)] == [3, 4]
    assert isinstance(loop.reconciler(match.state, seen_from(loop.latest_observation)), Question)


def test_the_overlay_labels_an_unsure_read_with_its_guess() -> None:
    assert describe(Detection("d6", 5, (0, 0, 9, 9), 0.3).gated()) == "d6 5"
    assert describe(Detection("penny", "heads", (0, 0, 9, 9), 0.3).gated()) == "1c H"
    assert describe(Detection("other", None, (0, 0, 9, 9), 1.0)) == "other ?"
