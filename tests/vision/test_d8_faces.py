"""The eight-sided dice's face reader (``vision.d8_faces``; SPD-1 with ``spd.faces = 8``): what
it looks at, that only dice the reader takes for a d8 are read by it, that without its model
file a d8's face is left to the players, and floors on the rendered fixtures' held-back scenes."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.fixtures_support import detection_at
from vision._coin_split import rendered_scale
from vision._patch_check import logits
from vision.d8_faces import CONTEXT, CROP_SIDE, D8_MODEL, FACES, d8_face_logits, d8_face_probabilities, d8_net, d8_patches
from vision.dice import CONFIDENT, MODEL_DIR, DiceParams, find_dice

SCENES = Path(__file__).resolve().parents[2] / "fixtures" / "scenes"
EIGHTS = DiceParams(kinds=("d8",))


def _scenes(part: str) -> list[tuple[str, np.ndarray, list[dict]]]:
    """The scenes of ``part`` that hold a flat d8, with every die of each."""
    out = []
    for e in json.loads((SCENES / part / "labels.json").read_text()):
        dice = [o for o in e["objects"] if o["kind"] in ("d6", "d8")]
        if any(o["kind"] == "d8" and not o["flags"] for o in dice):
            img = cv2.imread(str(SCENES / part / e["image"]), cv2.IMREAD_COLOR)
            assert img is not None, e["image"]
            out.append((e["image"], img, dice))
    return out


def test_a_crop_is_centred_on_the_die_and_a_little_larger() -> None:
    """``CONTEXT`` times the box's longer side: a 40 px die fills all but the crop's rim."""
    frame = np.zeros((200, 200, 3), np.uint8)
    frame[80:120, 80:120] = 255
    (crop,) = d8_patches(frame, [(100.0, 100.0, 40.0, 32.0)])
    assert crop.shape == (CROP_SIDE, CROP_SIDE, 3)
    assert abs((crop[..., 0] > 127).mean() - 1 / CONTEXT**2) < 0.05
    assert crop[CROP_SIDE // 2, CROP_SIDE // 2, 0] == 255 and crop[0, 0, 0] == 0


def test_face_probabilities_are_one_row_of_eight_per_box() -> None:
    net = d8_net(MODEL_DIR)
    assert net is not None
    frame = np.full((120, 160, 3), 90, np.uint8)
    probs = d8_face_probabilities(net, frame, [(40.0, 40.0, 30.0, 30.0), (100.0, 60.0, 24.0, 28.0)])
    assert probs.shape == (2, FACES)
    assert np.allclose(probs.sum(axis=1), 1.0, atol=1e-5) and (probs >= 0).all()
    assert d8_face_probabilities(net, frame, []).shape == (0, FACES)


def test_logits_read_at_named_quarter_turns_average_as_those_of_all_turns() -> None:
    """Reading a doubtful face again at the quarter turns not yet seen, and averaging, is the
    same as reading it at all four turns at once."""
    net = d8_net(MODEL_DIR)
    assert net is not None
    frame = np.asarray(np.random.default_rng(3).integers(0, 255, (120, 160, 3)), np.uint8)
    boxes = [(40.0, 40.0, 30.0, 30.0), (100.0, 60.0, 24.0, 28.0)]
    first = d8_face_logits(net, frame, boxes, (0,))
    rest = d8_face_logits(net, frame, boxes, (1, 2, 3))
    spots = [(x, y, max(w, h)) for x, y, w, h in boxes]
    assert np.allclose((first + 3 * rest) / 4, logits(net, frame, spots, FACES, turns=4), atol=1e-4)
    assert not np.allclose(first, rest, atol=1e-3)
    with pytest.raises(ValueError, match="quarter turns 0 to 3"):
        d8_face_logits(net, frame, boxes, (4,))


@pytest.mark.parametrize(("name", "face", "box"), [("dev_0186.jpg", 8, [910, 764, 32, 37]), ("dev_0088.jpg", 3, [208, 97, 35, 27])])
def test_a_doubtful_d8_face_is_read_again_at_the_other_quarter_turns(name: str, face: int, box: list[int]) -> None:
    """dev_0186's d8 showing 8 and dev_0088's showing 3, read at one turn, are not sure; read again
    at the three other quarter turns (``d8_doubt_turns``), their averaged reads are sure and right
    (at the table's scale)."""
    entry = next(e for e in json.loads((SCENES / "dev" / "labels.json").read_text()) if e["image"] == name)
    img = cv2.imread(str(SCENES / "dev" / name), cv2.IMREAD_COLOR)
    assert img is not None
    (die,) = [o for o in entry["objects"] if o["kind"] == "d8" and o["bbox"] == box]
    assert die["value"] == face and not die["flags"]
    alone = DiceParams(d8_closer_look=False)  # the closer look, after the turns, off: the turns alone
    once = detection_at(find_dice(img, replace(alone, d8_doubt_turns=1), mm_per_px=rendered_scale(entry), table=True), box)
    again = detection_at(find_dice(img, alone, mm_per_px=rendered_scale(entry), table=True), box)
    assert once is not None and once.kind == "d8" and once.confidence < CONFIDENT
    assert again is not None and again.kind == "d8" and again.value == face and again.confidence >= CONFIDENT


@pytest.mark.parametrize(("name", "face", "box", "sure"), [
    ("dev_0218.jpg", 8, [647, 839, 31, 38], False),
    ("dev_0172.jpg", 7, [374, 797, 38, 44], True),
])
def test_a_d8_face_still_doubtful_is_read_in_the_boxes_of_a_closer_look(name: str, face: int, box: list[int], sure: bool) -> None:
    """Read at four turns, dev_0218's d8 showing 8 is read as a 5, unsurely, and dev_0172's 7 is
    right but not sure; in the boxes the finder gives looking closer at them (``d8_closer_look``)
    each numeral reads right, dev_0172's surely (at the table's scale)."""
    entry = next(e for e in json.loads((SCENES / "dev" / "labels.json").read_text()) if e["image"] == name)
    img = cv2.imread(str(SCENES / "dev" / name), cv2.IMREAD_COLOR)
    assert img is not None
    (die,) = [o for o in entry["objects"] if o["kind"] == "d8" and o["bbox"] == box]
    assert die["value"] == face and not die["flags"]
    scale = rendered_scale(entry)
    without = detection_at(find_dice(img, DiceParams(d8_closer_look=False), mm_per_px=scale, table=True), die["bbox"])
    closer = detection_at(find_dice(img, mm_per_px=scale, table=True), die["bbox"])
    assert without is not None and without.confidence < CONFIDENT
    assert closer is not None and closer.kind == "d8" and closer.value == face
    assert (closer.confidence >= CONFIDENT) == sure


def test_a_network_with_the_wrong_number_of_outputs_is_named() -> None:
    """The cocked-die check gives one logit a crop, not eight: asking it for faces is an error."""
    from vision.cocked import cocked_net

    check = cocked_net(MODEL_DIR)
    assert check is not None
    with pytest.raises(ValueError, match="1 numbers for 1 crops, not 8 each"):
        logits(check, np.zeros((64, 64, 3), np.uint8), [(32.0, 32.0, 20.0)], FACES)


def test_without_its_model_file_a_d8_face_is_left_to_the_players(tmp_path: Path) -> None:
    """A model folder without ``dice_d8.onnx``: every d8 is found as before (with it, a doubtful
    one may be boxed again by the closer look, ``d8_closer_look``, near where it was), but none
    is read surely (the reader alone reads numerals too small to be sure of), and the dice the
    reader takes for six-sided ones are boxed and read exactly as with it."""
    for name in ("dice_finder.onnx", "dice_reader.onnx", "dice_reader.json", "dice_cocked.onnx", "dice_cocked.json"):
        shutil.copy(MODEL_DIR / name, tmp_path / name)
    assert d8_net(tmp_path) is None
    name, frame, _ = _scenes("dev")[0]
    without = find_dice(frame, DiceParams(model_dir=tmp_path))
    shipped = find_dice(frame)
    assert len(without) == len(shipped), name
    assert any(d.kind == "d8" for d in shipped)
    for a, b in zip(without, shipped):
        assert a.extra["d8_face"] is None
        assert np.hypot(a.center[0] - b.center[0], a.center[1] - b.center[1]) < 0.4 * max(a.bbox[2:]), name
        if b.kind == "d6":
            assert (a.bbox, a.value, a.confidence) == (b.bbox, b.value, b.confidence)
        else:
            assert b.extra["d8_face"] is not None or b.flags


def test_a_number_of_turns_the_reader_cannot_make_is_named_before_any_read() -> None:
    """Even a frame with no die at all: the mistake is in the settings, not in the table."""
    with pytest.raises(ValueError, match="d8_turns must be 1, 2 or 4, got 3"):
        find_dice(np.zeros((64, 64, 3), np.uint8), DiceParams(d8_turns=3))
    with pytest.raises(ValueError, match="d8_doubt_turns must be 1, 2 or 4, got 3"):
        find_dice(np.zeros((64, 64, 3), np.uint8), DiceParams(d8_doubt_turns=3))
    net = d8_net(MODEL_DIR)
    assert net is not None
    with pytest.raises(ValueError, match="turns must be 1, 2 or 4, got 3"):
        d8_face_probabilities(net, np.zeros((64, 64, 3), np.uint8), [(32.0, 32.0, 20.0, 20.0)], turns=3)


def test_a_model_description_that_is_not_what_training_writes_is_named(tmp_path: Path) -> None:
    shutil.copy(MODEL_DIR / D8_MODEL, tmp_path / D8_MODEL)
    (tmp_path / "dice_d8.json").write_text('{"crop_side": 48}')
    with pytest.raises(ValueError, match="dice_d8.json: needs numbers crop_side and context"):
        d8_net(tmp_path)


def test_held_back_fixtures_read_d8_faces_and_are_sure_only_when_right() -> None:
    """On the held-back rendered scenes, on a table of d8 (SPD-1, ``spd.faces = 8``) and on one
    of any dice: most d8 faces are read right, and no face is read surely that the die does not
    show; a six-sided die is never read surely as a d8. Floors well below the benchmark
    (BENCHMARKS.md, dice)."""
    d8 = right = sure_right = confident_wrong = 0
    for _, img, dice in _scenes("test"):
        on_d8_table, on_any_table = find_dice(img, EIGHTS), find_dice(img)
        for o in dice:
            d = detection_at(on_any_table, o["bbox"])
            if o["kind"] == "d6" and d is not None and d.kind == "d8":
                confident_wrong += int(d.confidence >= CONFIDENT)
            if o["kind"] != "d8" or o["flags"]:
                continue
            d8 += 1
            for found in (on_d8_table, on_any_table):
                d = detection_at(found, o["bbox"])
                if d is None or d.value is None:
                    continue
                ok = d.kind == "d8" and d.value == int(o["value"])
                sure = d.confidence >= CONFIDENT
                if found is on_d8_table:
                    right += int(ok)
                sure_right += int(ok and sure and found is on_d8_table)
                confident_wrong += int(sure and not ok)
    assert d8 >= 40
    assert right / d8 >= FLOOR_D8_RIGHT
    assert sure_right / d8 >= FLOOR_D8_SURE_RIGHT
    assert confident_wrong <= CEILING_CONFIDENT_WRONG


# Measured when the floors were set: on a table of d8, 33 of the 54 held-back d8 read right
# and 11 surely; with a reader that learned two drawings of numerals, 49 and 20; none surely
# wrong on either table. Floors well below.
FLOOR_D8_RIGHT = 0.45
FLOOR_D8_SURE_RIGHT = 0.08
CEILING_CONFIDENT_WRONG = 1


def test_d8_of_another_drawing_than_the_cycles_renders_are_never_read_surely_wrong(tmp_path: Path) -> None:
    """Sixteen fresh scenes rich in d8, drawn by the fixture generator's procedural renderer
    (numerals drawn otherwise than in the Cycles renders; seed 2029, which no training used):
    most faces are read right, some surely, and none surely wrong. A reader that learned one
    drawing only, with its threshold, read 6 of these 73 d8 surely wrong. Floors well below."""
    from tools.fixturegen.render import render_frame
    from tools.fixturegen.scenes import sample_scene

    d8 = right = sure_right = sure_wrong = 0
    for index in range(16):
        scene = sample_scene(index, "train", 2029, ("d8_dice",))
        data, label, _ = render_frame(scene, f"{scene.name}.jpg", "procedural", tmp_path)
        img = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
        found = find_dice(img)
        for o in label["objects"]:
            if o["kind"] != "d8" or o["flags"]:
                continue
            d8 += 1
            d = detection_at(found, o["bbox"])
            if d is None or d.value is None:
                continue
            ok = d.kind == "d8" and d.value == int(o["value"])
            right += int(ok)
            sure_right += int(ok and d.confidence >= CONFIDENT)
            sure_wrong += int(not ok and d.confidence >= CONFIDENT)
    assert d8 >= 60
    assert right / d8 >= 0.6
    assert sure_right / d8 >= 0.12
    assert sure_wrong == 0
