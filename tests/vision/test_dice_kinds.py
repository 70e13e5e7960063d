"""Eight-sided and cocked dice (issue 5): the reader's classes (a reader trained with 16 knows
d8 faces and cocked dice), a table's kinds of die, learning them, and floors on the rendered
fixtures' held-back scenes, which hold flat d8 and cocked d6 (one leaning on another: no face
is up, G-3 asks or rethrows, never reads)."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.fixtures_support import detection_at
from vision._dice_net import COCKED_CLASS, D8_FIRST_CLASS, READ_CLASSES_D8, read_class
from vision.dice import CONFIDENT, DiceParams, _meaning, find_dice

TEST_SCENES = Path(__file__).resolve().parents[2] / "fixtures" / "scenes" / "test"


def test_reader_classes_name_kind_and_face() -> None:
    assert read_class(0, 16) == ("none", None)
    assert [read_class(c, 16) for c in (1, 6)] == [("d6", 1), ("d6", 6)]
    assert [read_class(c, 16) for c in (D8_FIRST_CLASS, D8_FIRST_CLASS + 7)] == [("d8", 1), ("d8", 8)]
    assert read_class(COCKED_CLASS, 16) == ("cocked", None)
    assert read_class(6, 7) == ("d6", 6)
    with pytest.raises(ValueError, match="7 or 16 classes"):
        read_class(3, 9)
    with pytest.raises(ValueError, match="class 7 of 7"):
        read_class(7, 7)


def test_a_cocked_die_is_of_the_kind_whose_faces_are_likelier() -> None:
    probs = np.zeros(READ_CLASSES_D8, np.float32)
    probs[COCKED_CLASS] = 0.6
    probs[D8_FIRST_CLASS + 2] = 0.3
    probs[4] = 0.1
    assert _meaning(COCKED_CLASS, probs, READ_CLASSES_D8) == ("d8", None, ("cocked",))
    probs[4] = 0.35
    assert _meaning(COCKED_CLASS, probs, READ_CLASSES_D8) == ("d6", None, ("cocked",))
    assert _meaning(D8_FIRST_CLASS + 4, probs, READ_CLASSES_D8) == ("d8", 5, ())
    assert _meaning(4, probs, 7) == ("d6", 4, ())


def _fixture_dice() -> list[tuple[np.ndarray, list[dict]]]:
    labels = json.loads((TEST_SCENES / "labels.json").read_text())
    out = []
    for e in labels:
        dice = [o for o in e["objects"] if o["kind"] in ("d6", "d8")]
        if dice:
            img = cv2.imread(str(TEST_SCENES / e["image"]), cv2.IMREAD_COLOR)
            assert img is not None, e["image"]
            out.append((img, dice))
    return out


def test_held_back_fixtures_find_d8_and_never_read_cocked_dice_surely() -> None:
    """On the held-back rendered scenes: eight-sided dice are found, and on a table of d8
    (SPD-1, ``spd.faces = 8``) read as d8, never with a confident face they do not show; a
    cocked die (G-3) is never read with a confident face, and some are reported cocked (an
    unsure flag: the players are asked), while a flat die is seldom flagged so. Floors well
    below the benchmark (BENCHMARKS.md, dice)."""
    d8 = d8_found = cocked = cocked_reported = flat = flat_flagged = confident_wrong = 0
    eights = DiceParams(kinds=("d8",))
    for img, dice in _fixture_dice():
        found = find_dice(img)
        on_d8_table = find_dice(img, eights)
        assert all(d.kind == "d8" for d in on_d8_table)
        for o in dice:
            d = detection_at(found, o["bbox"])
            if o["kind"] == "d8" and not o["flags"]:
                d8 += 1
                e = detection_at(on_d8_table, o["bbox"])
                d8_found += int(e is not None)
                if e is not None and e.confidence >= CONFIDENT:
                    confident_wrong += int(e.value != int(o["value"]))
            if not o["flags"]:
                flat += 1
                flat_flagged += int(d is not None and "cocked" in d.flags)
            if "cocked" in o["flags"]:
                cocked += 1
                cocked_reported += int(d is not None and "cocked" in d.flags)
                if d is not None and d.confidence >= CONFIDENT and d.value is not None:
                    confident_wrong += 1
    assert d8 >= 40 and cocked >= 8
    assert d8_found / d8 >= FLOOR_D8_FOUND
    assert confident_wrong <= CEILING_CONFIDENT_WRONG
    assert cocked_reported >= FLOOR_COCKED_REPORTED
    assert flat_flagged <= CEILING_FLAT_FLAGGED_COCKED * flat


# Measured when committed: 53 of 54 d8 found (98%), no confident wrong read; 5 of 10 cocked
# dice reported cocked (3 by the reader alone), 3 of 396 flat dice flagged cocked. Floors well below.
FLOOR_D8_FOUND = 0.8
CEILING_CONFIDENT_WRONG = 1
FLOOR_COCKED_REPORTED = 2
CEILING_FLAT_FLAGGED_COCKED = 0.03


def test_a_table_of_one_kind_reads_dice_as_that_kind_only() -> None:
    """DiceParams.kinds: a Sevens table (SV-1, d6) never reads a d8; on a table of eight-sided
    dice (SPD-1 with spd.faces = 8) every die found is a d8; a kind that is no die is named."""
    from tests.vision.test_dice import draw_die, finish, table

    img = table()
    draw_die(img, 240, 180, 60, 4, (235, 235, 235), (20, 20, 20))
    frame = finish(img)
    sixes = find_dice(frame, DiceParams(kinds=("d6",)))
    assert sixes and all(d.kind == "d6" for d in sixes)
    assert all(d.value is None or 1 <= d.value <= 6 for d in sixes)
    eights = find_dice(frame, DiceParams(kinds=("d8",)))
    assert eights and all(d.kind == "d8" for d in eights)
    assert all(d.value is None or 1 <= d.value <= 8 for d in eights)
    with pytest.raises(ValueError, match="d6, d8"):
        find_dice(frame, DiceParams(kinds=("d20",)))
    for img, dice in _fixture_dice():
        assert all(d.kind == "d6" for d in find_dice(img, DiceParams(kinds=("d6",))))


def test_a_dice_profile_narrows_kinds_and_sizes_and_round_trips(tmp_path: Path) -> None:
    """Learning this table's dice (issue 5): kinds and sizes of the confirmed dice."""
    from vision.enrol import DiceProfile, enrol_dice
    from vision.types import Detection

    def die(kind: str, value: int, side: int) -> Detection:
        return Detection(kind=kind, value=value, bbox=(10, 10, side, side), confidence=1.0, center=(10 + side / 2, 10 + side / 2))

    profile = enrol_dice([(0.5, [die("d6", 3, 30), die("d6", 6, 34)]), (None, [die("d6", 1, 90)])])
    assert profile.kinds == ("d6",) and profile.dice == 3
    assert profile.size_mm == pytest.approx((15.0, 17.0))  # the unscaled throw teaches no size
    narrowed = profile.dice_params(DiceParams())
    assert narrowed.kinds == ("d6",)
    assert narrowed.size_mm == pytest.approx((15.0 * 0.7, 17.0 * 1.4))
    # A game that already names its kind keeps it.
    assert profile.dice_params(DiceParams(kinds=("d6", "d8"))).kinds == ("d6",)
    path = tmp_path / "dice.json"
    profile.save(path)
    assert DiceProfile.load(path) == profile
    for text, field in (("[]", "kinds"), ('{"kinds": ["d7"]}', "kinds"), ('{"kinds": ["d6"], "size_mm": [20, 10]}', "size_mm"),
                        ("{", "not JSON"), ('{"kinds": ["d6"], "dice": "many"}', "dice")):
        path.write_text(text)
        with pytest.raises(ValueError, match=field):
            DiceProfile.load(path)
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\xff")
    with pytest.raises(ValueError, match=r"dice profile .*dice\.json: not JSON \(not UTF-8"):
        DiceProfile.load(path)
    with pytest.raises(ValueError, match="a d6 shows 1 to 6"):
        enrol_dice([(0.5, [die("d6", 7, 30)])])
    with pytest.raises(ValueError, match="a d6 shows 1 to 6"):
        enrol_dice([(0.5, [die("d6", True, 30)])])  # a yes is no face
    with pytest.raises(ValueError, match="no die kind"):
        enrol_dice([(0.5, [die("penny", 1, 30)])])
    with pytest.raises(ValueError, match="at least one confirmed die"):
        enrol_dice([(0.5, [])])
