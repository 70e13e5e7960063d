"""Tests for vision.dice: real photos from ../shared/data, dice drawn with OpenCV, bad input."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.fixtures_support import detection_at
from tests.conftest import DICE_RUNE55
import vision.dice as dice_module
import vision.dice.closer
import vision.dice.find
import vision.dice.reading
from vision._coin_split import rendered_scale
from vision._dice_net import PIPS
from vision._dice_split import is_held_out
from vision.dice import CONFIDENT, DiceParams, draw_dice, find_dice, read_die_boxes
from vision.types import Detection

DATA = DICE_RUNE55
TEST_SCENES = Path(__file__).resolve().parents[2] / "fixtures" / "scenes" / "test"


def draw_die(
    img: np.ndarray, cx: int, cy: int, side: int, face: int, body: tuple[int, int, int], pip: tuple[int, int, int]
) -> None:
    """Draw a top-down die (rounded square with pips and a soft shadow) into ``img``."""
    half = side // 2
    r = max(2, side // 7)
    shadow = np.zeros(img.shape[:2], np.uint8)
    cv2.rectangle(shadow, (cx - half + 3, cy - half + 4), (cx + half + 3, cy + half + 4), 255, -1)
    shadow = cv2.GaussianBlur(shadow, (0, 0), side / 10)
    img[:] = (img.astype(np.float32) * (1 - 0.45 * shadow[..., None] / 255.0)).astype(np.uint8)
    x0, y0, x1, y1 = cx - half, cy - half, cx + half, cy + half
    cv2.rectangle(img, (x0 + r, y0), (x1 - r, y1), body, -1, cv2.LINE_AA)
    cv2.rectangle(img, (x0, y0 + r), (x1, y1 - r), body, -1, cv2.LINE_AA)
    for px, py in ((x0 + r, y0 + r), (x1 - r, y0 + r), (x0 + r, y1 - r), (x1 - r, y1 - r)):
        cv2.circle(img, (px, py), r, body, -1, cv2.LINE_AA)
    for u, v in PIPS[face]:
        cv2.circle(img, (int(x0 + u * side), int(y0 + v * side)), max(2, side // 11), pip, -1, cv2.LINE_AA)


def table(w: int = 480, h: int = 360, colour: tuple[int, int, int] = (60, 110, 40)) -> np.ndarray:
    """A plain felt-like table with a little noise."""
    rng = np.random.default_rng(5)
    img = np.empty((h, w, 3), np.uint8)
    img[:] = colour
    noise = rng.normal(0, 6, img.shape)
    return np.clip(img + noise, 0, 255).astype(np.uint8)


def finish(img: np.ndarray) -> np.ndarray:
    """Camera softness."""
    return cv2.GaussianBlur(img, (0, 0), 0.8)




def covers(found: list[Detection], x: float, y: float) -> bool:
    """Whether some detection's box holds the point (x, y)."""
    return any(bx <= x <= bx + bw and by <= y <= by + bh for bx, by, bw, bh in (d.bbox for d in found))


# Drawn dice: clean drawings, unlike anything the networks learned (photos and renders).
@pytest.mark.parametrize("face", [1, 2, 3, 4, 5, 6])
def test_white_die_black_pips_is_found_and_read(face: int) -> None:
    img = table()
    draw_die(img, 240, 180, 60, face, (235, 235, 235), (20, 20, 20))
    found = find_dice(finish(img))
    assert len(found) == 1 and found[0].kind == "d6" and found[0].value == face
    assert covers(found, 240, 180)
    assert abs(found[0].center[0] - 240) < 40 and abs(found[0].center[1] - 180) < 40


def test_dark_die_light_pips_is_found_and_read() -> None:
    img = table()
    draw_die(img, 180, 180, 56, 5, (40, 30, 30), (240, 240, 240))
    found = find_dice(finish(img))
    assert len(found) == 1 and found[0].value == 5
    assert covers(found, 180, 180)
    assert abs(found[0].center[0] - 180) < 40 and abs(found[0].center[1] - 180) < 40


def test_two_touching_dice_are_both_found() -> None:
    """Two dice side by side with the narrow seam their rounded edges leave (3 px at 50 px).
    Drawn flat squares meeting edge to edge with no seam at all are taken for one die by the
    shipped finder (it learned real and rendered dice, whose edges are rounded)."""
    img = table()
    draw_die(img, 215, 180, 50, 3, (235, 235, 235), (20, 20, 20))
    draw_die(img, 268, 180, 50, 6, (235, 235, 235), (20, 20, 20))
    found = find_dice(finish(img))
    assert covers(found, 215, 180) and covers(found, 268, 180)


DEV_SCENES = Path(__file__).resolve().parents[2] / "fixtures" / "scenes" / "dev"


@pytest.mark.parametrize("name", ["dev_0011.jpg", "dev_0034.jpg", "dev_0062.jpg"])
def test_touching_small_dice_are_found_by_the_closer_look(name: str) -> None:
    """Two touching dice about 30 px across in a 1280x960 frame can make one peak in the
    finder's first look, so that one of them has no candidate; the closer look beside the peak
    finds it (``close_look``), with or without the table's scale. (The scenes are those where
    the shipped finder needs it: it separates some other touching pairs itself.
    The closer look at doubtful reads, ``doubt_look_px``, also finds these dice: it is turned
    off here, to see the first closer look alone, and so is the finer look at a photo with no
    scale, ``fine_long_side``, which finds them too.)"""
    entry = next(e for e in json.loads((DEV_SCENES / "labels.json").read_text()) if e["image"] == name)
    img = cv2.imread(str(DEV_SCENES / name), cv2.IMREAD_COLOR)
    assert img is not None
    flat = [o["bbox"] for o in entry["objects"] if o["kind"] == "d6" and not o.get("flags")]

    def found_count(found: list[Detection]) -> int:
        """Labelled dice with a read whose centre is in the label's box and whose box holds the label's centre."""
        return sum(
            any(x <= d.center[0] <= x + w and y <= d.center[1] <= y + h and covers([d], x + w / 2, y + h / 2) for d in found)
            for x, y, w, h in flat
        )

    for scale in (None, rendered_scale(entry)):
        alone = DiceParams(doubt_look_px=0.0, fine_long_side=0)
        assert found_count(find_dice(img, dataclasses.replace(alone, close_look=0.0), mm_per_px=scale)) == len(flat) - 1
        assert found_count(find_dice(img, alone, mm_per_px=scale)) == len(flat)


def test_two_touching_dice_in_one_box_are_told_apart_by_a_closer_look_at_the_doubtful_read() -> None:
    """In dev_0202 a 3 and a 4 touch corner to corner, about 42 px each: the finder's first look
    gives one peak between them, and its box holding both is read "4" without being sure
    (0.76), so that the 3 is missed. Looked at again closer (``doubt_look_px``), the finder
    boxes each die, and both are read right, with or without the table's scale."""
    entry = next(e for e in json.loads((DEV_SCENES / "labels.json").read_text()) if e["image"] == "dev_0202.jpg")
    img = cv2.imread(str(DEV_SCENES / "dev_0202.jpg"), cv2.IMREAD_COLOR)
    assert img is not None
    pair = [o for o in entry["objects"] if o["kind"] == "d6" and o["value"] in (3, 4) and 600 < o["bbox"][0] < 650]
    assert len(pair) == 2

    def reads_at(found: list[Detection], box: list[float]) -> list[Detection]:
        """The reads in the labelled box (their centre inside, their box holding the label's centre)."""
        x, y, w, h = box
        return [d for d in found if x <= d.center[0] <= x + w and y <= d.center[1] <= y + h and covers([d], x + w / 2, y + h / 2)]

    for scale in (None, rendered_scale(entry)):
        found = find_dice(img, DiceParams(doubt_look_px=0.0), mm_per_px=scale)
        before = [reads_at(found, o["bbox"]) for o in pair]
        # One read, "4", in the box of both: the 3 has no read of its own.
        assert [len(r) for r in before] == [1, 1] and before[0][0] is before[1][0] and before[0][0].value == 4
        found = find_dice(img, mm_per_px=scale)
        # Each die's own read: the one centred nearest the label's centre among those in its box.
        after = [
            min(reads_at(found, o["bbox"]), key=lambda d: (d.center[0] - o["bbox"][0] - o["bbox"][2] / 2) ** 2
                + (d.center[1] - o["bbox"][1] - o["bbox"][3] / 2) ** 2)
            for o in pair
        ]
        assert after[0] is not after[1]
        assert [d.value for d in after] == [o["value"] for o in pair]


def test_the_closer_look_keeps_no_box_much_smaller_than_the_frames_dice() -> None:
    """dev_0180's large "2" (55 px) is boxed by its pips: looked at closer, the finder boxes a
    pip of 14 to 16 px, which the reader takes for a "1". Under 0.6 of the frame's readable
    dice (``doubt_look_smallest``), it is not kept."""
    entry = next(e for e in json.loads((DEV_SCENES / "labels.json").read_text()) if e["image"] == "dev_0180.jpg")
    img = cv2.imread(str(DEV_SCENES / "dev_0180.jpg"), cv2.IMREAD_COLOR)
    assert img is not None
    (two,) = [o for o in entry["objects"] if o["kind"] == "d6" and o["value"] == 2]
    x, y, w, h = two["bbox"]

    def pips_read(params: DiceParams) -> list[Detection]:
        """Reads centred in the "2" whose box is under 20 px."""
        found = find_dice(img, params, mm_per_px=rendered_scale(entry), table=True)
        return [d for d in found if x <= d.center[0] <= x + w and y <= d.center[1] <= y + h and max(d.bbox[2:]) < 20]

    assert [d.value for d in pips_read(DiceParams(doubt_look_smallest=0.0))] == [1]
    assert pips_read(DiceParams()) == []


def test_on_a_known_table_every_read_not_sure_is_looked_at_again() -> None:
    """dev_0000's 4 is read at 0.969 at the table's scale, not sure there (``confident_at_table``
    0.9733) though above ``doubt_below``: with ``doubt_at_table`` it is looked at again, and its
    closer box reads it surely."""
    entry = next(e for e in json.loads((DEV_SCENES / "labels.json").read_text()) if e["image"] == "dev_0000.jpg")
    img = cv2.imread(str(DEV_SCENES / "dev_0000.jpg"), cv2.IMREAD_COLOR)
    assert img is not None
    (four,) = [o for o in entry["objects"] if o["kind"] == "d6" and o["bbox"][:2] == [684, 775]]
    scale = rendered_scale(entry)
    before = detection_at(find_dice(img, DiceParams(doubt_at_table=False), mm_per_px=scale, table=True), four["bbox"])
    after = detection_at(find_dice(img, mm_per_px=scale, table=True), four["bbox"])
    assert before is not None and before.value == 4 and before.confidence < CONFIDENT
    assert DiceParams().doubt_below <= before.extra["read_prob"] < DiceParams().confident_at_table
    assert after is not None and after.value == 4 and after.confidence >= CONFIDENT
    # Without a table (a photo) the same read is not looked at again: 0.969 is above doubt_below.
    photo = detection_at(find_dice(img, mm_per_px=scale), four["bbox"])
    assert photo is not None and photo.extra["read_prob"] == before.extra["read_prob"]


def test_without_a_scale_the_dice_give_one_and_a_faint_die_is_found_at_it() -> None:
    """dev_0054, a validation scene read as a photo (no scale): the finder scores its 2 at 0.27,
    under ``det_threshold``, so the first read misses it. The other two dice, read surely
    enough, give the scale (``own_scale_mm``; within a quarter of the scene's true one), and
    read again at it the 2 is found among the fainter candidates a known scale allows, and read
    right, but not surely: only the guessed scale found it. (The finer look at a wide photo,
    ``fine_long_side``, finds the 2 in the first read: it is turned off here, to see the read at
    the dice's own scale alone.)"""
    entry = next(e for e in json.loads((DEV_SCENES / "labels.json").read_text()) if e["image"] == "dev_0054.jpg")
    img = cv2.imread(str(DEV_SCENES / "dev_0054.jpg"), cv2.IMREAD_COLOR)
    assert img is not None
    (two,) = [o for o in entry["objects"] if o["kind"] == "d6" and o["value"] == 2]
    first = find_dice(img, DiceParams(own_scale_mm=0.0, fine_long_side=0))
    assert detection_at(first, two["bbox"]) is None
    own = dice_module._own_scale(first, DiceParams())
    assert own is not None and abs(own / rendered_scale(entry) - 1.0) < 0.25
    again = find_dice(img, DiceParams(fine_long_side=0))
    found = detection_at(again, two["bbox"])
    assert found is not None and found.value == 2
    assert found.extra["finder_score"] < DiceParams().det_threshold
    assert 0.0 < found.confidence < CONFIDENT
    assert len(again) == len(first) + 1  # the same two dice, and the 2


def test_a_die_seen_only_at_the_dices_own_scale_is_never_sure() -> None:
    """A die whose finder score is under ``sure_from`` (in ``find_dice``: one only the read at the
    dice's own scale finds) is never sure, however surely it is read: its confidence is its
    read's probability times ``CONFIDENT``. On a dark tray of dice-rune55 (a trained-on photo)
    that read takes faint candidates, a dark speck among them; none of them is sure."""
    img = table()
    draw_die(img, 240, 180, 48, 3, (235, 235, 230), (20, 20, 20))
    img = finish(img)
    params = DiceParams()
    (sure,) = find_dice(img, params)
    assert sure.value == 3 and sure.confidence >= CONFIDENT
    (capped,) = dice_module._find_dice(img, params, None, (), False, 1.0, dice_module._Seen())
    assert capped.value == 3 and capped.bbox == sure.bbox
    assert capped.confidence == pytest.approx(CONFIDENT * capped.extra["read_prob"], abs=1e-4)  # read_prob is rounded
    assert capped.confidence < CONFIDENT

    name = "rune55_pxl_PXL_20240219_191333849_0161562b.jpg"
    photo = cv2.imread(str(DATA / name), cv2.IMREAD_COLOR)
    assert photo is not None, f"missing real photo {DATA / name}"
    faint = [d for d in find_dice(photo) if d.extra["finder_score"] < params.det_threshold]
    assert faint and all(d.confidence < CONFIDENT for d in faint)


def test_the_read_at_the_dices_own_scale_reuses_the_first_reads_network_outputs(monkeypatch: pytest.MonkeyPatch) -> None:
    """The second read of dev_0054 (at the dice's own scale) makes no new first look and reads
    no box the first read read: the same reads as without the kept outputs, for less."""
    img = cv2.imread(str(DEV_SCENES / "dev_0054.jpg"), cv2.IMREAD_COLOR)
    assert img is not None
    looks: list[int] = []
    boxes: list[tuple[float, float, float, float]] = []
    blob_of, read_of = dice_module.finder_blob, dice_module._read_boxes

    def looked(frame: np.ndarray, long_side: int) -> tuple[np.ndarray, float]:
        looks.append(long_side)
        return blob_of(frame, long_side)

    def read(frame: np.ndarray, models: object, bs: list[tuple[float, float, float, float]], turns: int,
             seen: object = None) -> np.ndarray:
        boxes.extend(b for b in bs if seen is None or (b, turns) not in seen.logits)  # type: ignore[attr-defined]
        return read_of(frame, models, bs, turns, seen)  # type: ignore[arg-type]

    monkeypatch.setattr(vision.dice.find, "finder_blob", looked)
    monkeypatch.setattr(vision.dice.find, "_read_boxes", read)
    monkeypatch.setattr(vision.dice.closer, "_read_boxes", read)
    found = find_dice(img)
    assert len(found) == 3
    assert sorted(looks) == sorted(set(looks)) and 512 in looks  # each first look once
    assert len(boxes) == len(set(boxes))  # no box read twice


def test_a_die_of_another_size_than_the_rest_is_not_lost_at_their_scale() -> None:
    """Three dice 40 px across and one 110 px: the three give the scale, at which the large one
    is too large for a die (``DIE_MM_RANGE``); the second read loses no die the first found."""
    img = table(640, 480)
    for x, y, face in ((100, 100, 2), (200, 110, 3), (140, 220, 5)):
        draw_die(img, x, y, 40, face, (235, 235, 230), (20, 20, 20))
    draw_die(img, 420, 300, 110, 4, (235, 235, 230), (20, 20, 20))
    img = finish(img)
    first = find_dice(img, DiceParams(own_scale_mm=0.0))
    assert sorted(d.value or 0 for d in first) == [2, 3, 4, 5]
    own = dice_module._own_scale(first, DiceParams())
    assert own is not None and 110 * own > dice_module.DIE_MM_RANGE[1]
    found = find_dice(img)
    assert sorted(d.value or 0 for d in found) == [2, 3, 4, 5]
    assert covers(found, 420, 300)


def test_a_single_die_gives_no_scale(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fewer dice read surely enough than ``own_scale_min``: the frame is read once, as it was."""
    img = table()
    draw_die(img, 240, 180, 48, 5, (235, 235, 230), (20, 20, 20))
    img = finish(img)
    reads: list[float | None] = []
    inner = dice_module._find_dice

    def counted(*args: object, **kwargs: object) -> list[Detection]:
        reads.append(args[2])  # type: ignore[arg-type]
        return inner(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(vision.dice.find, "_find_dice", counted)
    found = find_dice(img)
    assert [d.value for d in found] == [5]
    assert reads == [None]
    reads.clear()
    found = find_dice(img, DiceParams(own_scale_min=1))
    assert [d.value for d in found] == [5]
    assert len(reads) == 2 and reads[0] is None and reads[1] is not None


def test_the_closer_look_at_doubtful_reads_reads_more_of_a_real_tray_right() -> None:
    """A tray of ten dice photographed from above (dice-rune55, a validation photo, never trained
    on): the closer look at the reads the reader doubts gives boxes it reads better. Measured
    when it was made: 6 of 10 dice read right without it, 9 with it."""
    name = "rune55_pxl_PXL_20240219_191228644_151fb7c2.jpg"
    img = cv2.imread(str(DATA / name), cv2.IMREAD_COLOR)
    assert img is not None, f"missing real photo {DATA / name}"
    objs = _labels()[name]

    def right(found: list[Detection]) -> int:
        """Labelled dice with exactly one read in their box, of the labelled face."""
        n = 0
        for o in objs:
            x, y, w, h = o["bbox"]  # type: ignore[misc]
            hits = [d for d in found if x <= d.center[0] <= x + w and y <= d.center[1] <= y + h]
            n += int(len(hits) == 1 and hits[0].value == o["value"])
        return n

    without = right(find_dice(img, DiceParams(doubt_look_px=0.0)))
    with_look = right(find_dice(img))
    assert len(objs) == 10
    assert with_look >= 8
    assert with_look > without


@pytest.mark.parametrize(("name", "value"), [("dev_0137.jpg", 1), ("dev_0193.jpg", 2)])
def test_a_die_boxed_too_tightly_is_read_in_a_wider_box(name: str, value: int) -> None:
    """The finder boxes only the middle of these dice (the pip of a "1", half a "2"): a crop
    that tight shows the reader no die. Read again in a box 1.6 times as large
    (``wider_look``), each is found with its face, at the table's scale."""
    entry = next(e for e in json.loads((DEV_SCENES / "labels.json").read_text()) if e["image"] == name)
    img = cv2.imread(str(DEV_SCENES / name), cv2.IMREAD_COLOR)
    assert img is not None
    scale = rendered_scale(entry)
    die = next(o for o in entry["objects"] if o["kind"] == "d6" and o["value"] == value and not o.get("flags")
               and detection_at(find_dice(img, DiceParams(wider_look=1.0), mm_per_px=scale), o["bbox"]) is None)
    read = detection_at(find_dice(img, mm_per_px=scale), die["bbox"])
    assert read is not None and read.value == value
    x, y, w, h = die["bbox"]
    assert covers([read], x + w / 2, y + h / 2) and read.bbox[2] > 0.6 * w


def test_a_wider_look_keeps_no_box_it_finds_no_sure_read_in() -> None:
    """Printed letters looked at wider pass as some die but seldom as one read: a wider box is
    kept only when the reader's likeliest read there reaches ``wider_look_read``. With that
    at 1 nothing is ever kept, and the reads are those without the wider look."""
    entry = next(e for e in json.loads((DEV_SCENES / "labels.json").read_text()) if e["image"] == "dev_0193.jpg")
    img = cv2.imread(str(DEV_SCENES / "dev_0193.jpg"), cv2.IMREAD_COLOR)
    scale = rendered_scale(entry)
    assert img is not None
    never = [d.bbox for d in find_dice(img, DiceParams(wider_look_read=1.01), mm_per_px=scale)]
    assert never == [d.bbox for d in find_dice(img, DiceParams(wider_look=1.0), mm_per_px=scale)]
    assert len(find_dice(img, mm_per_px=scale)) > len(never)


def test_only_small_candidates_not_surely_no_die_are_looked_at_wider(monkeypatch: pytest.MonkeyPatch) -> None:
    """The wider look is spent only where it may find a die: a candidate the reader rejects,
    but not surely (``wider_look_not_die``), smaller than the frame's dice (``wider_look_below``),
    whose wider box holds no die already read. Its wider box replaces it only when read surely."""
    def logit_row(not_die: float, face: int = 3) -> np.ndarray:
        """Logits (16 classes) with this "no die" probability and the rest on one face."""
        row = np.full(16, -20.0, np.float32)
        row[0], row[face] = np.log(not_die), np.log(1.0 - not_die)
        return row

    cands = [
        (0.9, (100.0, 100.0, 50.0, 50.0)),  # a die, read
        (0.9, (300.0, 100.0, 50.0, 50.0)),  # a die, read
        (0.5, (200.0, 300.0, 25.0, 25.0)),  # small, rejected, not surely: looked at wider
        (0.5, (400.0, 300.0, 25.0, 25.0)),  # small but surely no die: not looked at
        (0.5, (200.0, 500.0, 48.0, 48.0)),  # rejected, not surely, but of the dice's size
        (0.5, (110.0, 110.0, 25.0, 25.0)),  # small, rejected, on a die already read
    ]
    logits = np.stack([logit_row(0.01), logit_row(0.01), logit_row(0.95), logit_row(0.999),
                       logit_row(0.95), logit_row(0.95)])
    Box = tuple[float, float, float, float]
    asked: list[Box] = []

    def read_boxes(frame: np.ndarray, models: object, boxes: list[Box], turns: int, seen: object = None) -> np.ndarray:
        asked.extend(boxes)
        return np.stack([logit_row(0.001, face=5)] * len(boxes))

    monkeypatch.setattr(vision.dice.closer, "_read_boxes", read_boxes)
    params = DiceParams()
    frame = np.zeros((600, 600, 3), np.uint8)
    dice_module._look_wider(frame, None, cands, logits, 1, params, None, ())  # type: ignore[arg-type]
    assert asked == [(200.0, 300.0, 25.0 * params.wider_look, 25.0 * params.wider_look)]
    assert cands[2][1] == asked[0] and int(np.argmax(logits[2])) == 5
    assert cands[3][1] == (400.0, 300.0, 25.0, 25.0)


def test_a_shoulder_is_heat_left_beside_a_peak() -> None:
    """A die on the slope of its neighbour's peak (the map falling from 0.9 through 0.5 and
    0.45 to 0.3) makes no peak of its own but a shoulder there; a die alone makes none."""
    from vision._dice_net import DET_STRIDE
    from vision.dice import _shoulders

    alone = np.zeros((40, 40), np.float32)
    alone[9:12, 9:12] = 0.2
    alone[10, 9] = alone[10, 11] = alone[9, 10] = alone[11, 10] = 0.5
    alone[10, 10] = 0.9
    beside = alone.copy()
    beside[10, 12], beside[10, 13] = 0.45, 0.3  # heat[y, x]: the second die two cells right
    side = 3.0 * DET_STRIDE  # a die three cells across
    peaks = [(0.9, 10.5 * DET_STRIDE, 10.5 * DET_STRIDE, side, side)]  # the one peak, as decode_finder gives it
    assert _shoulders(beside[None, None], peaks, 0.25, 0.4) == [(12.5 * DET_STRIDE, 10.5 * DET_STRIDE, side)]
    assert _shoulders(alone[None, None], peaks, 0.25, 0.4) == []
    assert _shoulders(beside[None, None], [], 0.25, 0.4) == []


def test_the_candidate_limit_counts_dice_not_duplicates(monkeypatch: pytest.MonkeyPatch) -> None:
    """``max_dice`` limits the candidates left once duplicates are dropped: when the finder
    reports one die many times over (as in crowded trays), the limit still reaches the others."""
    import vision.dice as dice_module

    original = dice_module.decode_finder

    def repeated(out: np.ndarray, threshold: float, most: int) -> list[tuple[float, float, float, float, float]]:
        found = original(out, threshold, most)
        return found[:1] * 10 + found

    monkeypatch.setattr(vision.dice.find, "decode_finder", repeated)
    monkeypatch.setattr(vision.dice.closer, "decode_finder", repeated)
    img = table()
    draw_die(img, 140, 180, 50, 3, (235, 235, 235), (20, 20, 20))
    draw_die(img, 340, 180, 50, 5, (235, 235, 235), (20, 20, 20))
    found = find_dice(finish(img), DiceParams(max_dice=2))
    assert covers(found, 140, 180) and covers(found, 340, 180)


def test_empty_table_has_no_dice() -> None:
    assert find_dice(finish(table())) == []


def test_input_is_not_modified_and_overlay_is_a_copy() -> None:
    img = table()
    draw_die(img, 240, 180, 60, 4, (235, 235, 235), (20, 20, 20))
    before = img.copy()
    found = find_dice(img)
    over = draw_dice(img, found)
    assert np.array_equal(img, before)
    assert over.shape == img.shape and not np.array_equal(over, img)


def test_grey_frame_is_accepted() -> None:
    img = table()
    draw_die(img, 240, 180, 60, 6, (235, 235, 235), (20, 20, 20))
    found = find_dice(cv2.cvtColor(finish(img), cv2.COLOR_BGR2GRAY))
    assert covers(found, 240, 180)


@pytest.mark.parametrize(
    ("frame", "word"),
    [
        (np.zeros((100, 100, 3), np.float32), "dtype"),
        (np.zeros((100, 100, 4), np.uint8), "shape"),
        (np.zeros((100,), np.uint8), "shape"),
        ([[0, 0], [0, 0]], "numpy array"),
    ],
)
def test_bad_frame_is_named(frame: object, word: str) -> None:
    with pytest.raises(ValueError, match=word):
        find_dice(frame)  # type: ignore[arg-type]


def test_bad_scale_is_named() -> None:
    with pytest.raises(ValueError, match="mm_per_px"):
        find_dice(table(), mm_per_px=0.0)


def test_scale_drops_objects_that_cannot_be_dice() -> None:
    img = table()
    draw_die(img, 240, 180, 60, 4, (235, 235, 235), (20, 20, 20))
    img = finish(img)
    assert covers(find_dice(img, mm_per_px=0.25), 240, 180)  # 60 px = 15 mm: a die
    assert find_dice(img, mm_per_px=2.0) == []  # 60 px = 120 mm: no die is that big


def test_a_candidate_on_something_already_read_is_not_read() -> None:
    """``not_at``: circles already read as something else (the coins ``read_table`` read
    surely) hold no die: a candidate centred in one is left out, one beside it is not."""
    img = table()
    draw_die(img, 150, 180, 56, 4, (235, 235, 235), (20, 20, 20))
    draw_die(img, 330, 180, 56, 2, (235, 235, 235), (20, 20, 20))
    img = finish(img)
    assert covers(find_dice(img), 150, 180) and covers(find_dice(img), 330, 180)
    found = find_dice(img, not_at=[(150.0, 180.0, 35.0)])
    assert not covers(found, 150, 180) and covers(found, 330, 180)


def test_the_coarse_pass_reads_only_boxes_too_large_for_the_fine_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """The coarse pass (for close-ups) boxed printed zone names and markers on the rendered
    tables, each read for nothing; its boxes under ``coarse_min_side`` of its long side are
    left to the fine pass. On a held-back scene: fewer crops read, the same dice found."""
    import vision.dice as dice_module

    crops: list[int] = []
    original = dice_module.reader_input
    monkeypatch.setattr(vision.dice.reading, "reader_input", lambda patches: crops.append(len(patches)) or original(patches))
    entry = json.loads((TEST_SCENES / "labels.json").read_text())[0]
    img = cv2.imread(str(TEST_SCENES / entry["image"]), cv2.IMREAD_COLOR)
    assert img is not None
    every = find_dice(img, DiceParams(coarse_min_side=0.0))
    large_only = find_dice(img)
    assert crops[1] < crops[0]
    assert sorted(d.bbox for d in large_only) == sorted(d.bbox for d in every)
    # A close-up die, a third of the frame, is still found by the coarse pass.
    close = table()
    draw_die(close, 240, 180, 150, 5, (235, 235, 235), (20, 20, 20))
    assert covers(find_dice(finish(close)), 240, 180)


def test_at_a_known_scale_the_coarse_pass_runs_only_for_dice_it_alone_finds(monkeypatch: pytest.MonkeyPatch) -> None:
    """``coarse_from``: at the table's scale every die of a held-back scene is at most 0.06
    of the frame's long side, small enough for the first pass, so the coarse pass is not
    made, and the same dice are found; a scale at which a die may fill a tenth of the frame
    or more (a close-up) keeps it. (A frame read as a photo, not as a known table, also gets the
    finer look, ``fine_long_side``, after the others; it is turned off but in the last read.)"""
    import vision.dice as dice_module

    passes: list[int] = []
    original = dice_module.finder_blob
    monkeypatch.setattr(
        vision.dice.find, "finder_blob", lambda frame, side: passes.append(side) or original(frame, side)
    )
    entry = json.loads((TEST_SCENES / "labels.json").read_text())[0]
    img = cv2.imread(str(TEST_SCENES / entry["image"]), cv2.IMREAD_COLOR)
    assert img is not None
    scale = rendered_scale(entry)
    photo = DiceParams(fine_long_side=0)
    both = find_dice(img, dataclasses.replace(photo, coarse_from=0.0), mm_per_px=scale)
    assert passes == [512, 192]
    passes.clear()
    first_only = find_dice(img, photo, mm_per_px=scale)
    assert passes == [512]
    assert sorted(d.bbox for d in first_only) == sorted(d.bbox for d in both)
    passes.clear()
    find_dice(img, photo, mm_per_px=40.0 / (0.2 * max(img.shape[:2])))  # a 40 mm box is a fifth of the frame
    assert passes == [512, 192]
    passes.clear()
    find_dice(img)  # no scale: every pass, and the finer look at this wide photo
    assert passes == [512, 192, 1024]


def crop_of_the_whole_frame_blurred(frame: np.ndarray, cx: float, cy: float, side: float, angle: float) -> np.ndarray:
    """The reader's 40 px crop as its definition makes it: the whole frame blurred against
    aliasing (sigma 0.45 crop pixels), then the turned square sampled."""
    k = 40 / side
    whole = cv2.GaussianBlur(frame, (0, 0), 0.45 / k)
    m = cv2.getRotationMatrix2D((cx, cy), angle, k)
    m[0, 2] += 20 - cx
    m[1, 2] += 20 - cy
    return cv2.warpAffine(whole, m, (40, 40), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def test_a_large_crop_blurs_only_what_it_samples() -> None:
    """A die much larger than the reader's crop is blurred before it is shrunk (or its pips
    alias away); only the frame around the crop is blurred, which gives the crop that
    blurring the whole frame gives (to one level of rounding), at any turn and at the edges."""
    from vision._dice_net import crop_patch

    rng = np.random.default_rng(7)
    frame = cv2.GaussianBlur(rng.integers(0, 256, (480, 640, 3), dtype=np.uint8), (0, 0), 1.5)
    for side, cx, cy, angle in ((200.0, 320.0, 240.0, 0.0), (300.0, 40.0, 450.0, 30.0), (120.0, 600.0, 20.0, 45.0)):
        expected = crop_of_the_whole_frame_blurred(frame, cx, cy, side, angle)
        got = crop_patch(frame, cx, cy, side, angle, size=40)
        assert np.abs(got.astype(int) - expected.astype(int)).max() <= 1, (side, cx, cy, angle)


def test_a_die_many_times_the_crop_is_averaged_down_first_to_nearly_the_same_crop() -> None:
    """A die over eight times the crop's side (a phone's close-up) is averaged down by a whole
    factor before the blur (blurring its full size took a sixth of a second a crop): the crop
    is nearly the one blurring the whole frame gives, at any turn; where it reaches beyond the
    frame's edge (repeated there from a coarser image's last row) a little less nearly."""
    from vision._dice_net import SHRINK_BEYOND, crop_patch

    rng = np.random.default_rng(11)
    frame = cv2.GaussianBlur(rng.integers(0, 256, (1600, 1600, 3), dtype=np.uint8), (0, 0), 4.0)
    frame = cv2.normalize(frame, None, 0, 255, cv2.NORM_MINMAX)
    cases = ((500.0, 800.0, 800.0, 0.0, 0.5, 3), (1000.0, 700.0, 900.0, 30.0, 0.5, 3), (700.0, 80.0, 1500.0, 60.0, 2.0, 10))
    for side, cx, cy, angle, mean_diff, max_diff in cases:
        assert 40 / side < SHRINK_BEYOND / 2
        expected = crop_of_the_whole_frame_blurred(frame, cx, cy, side, angle)
        got = crop_patch(frame, cx, cy, side, angle, size=40)
        diff = np.abs(got.astype(int) - expected.astype(int))
        assert diff.mean() <= mean_diff and diff.max() <= max_diff, (side, cx, cy, angle, diff.mean(), diff.max())


def test_params_are_frozen() -> None:
    with pytest.raises(AttributeError):
        DiceParams().det_threshold = 0.1  # type: ignore[misc]


# Real photos: held-out photos of each group (never trained on); a missing file fails
# the test. Floors sit well below the benchmark figures (BENCHMARKS.md, dice).
REAL = [
    "rune55_pxl_PXL_20240219_192350216_6e92a39f.jpg",
    "rune55_pxl_PXL_20240219_191029616_708a45f7.jpg",
    "rune55_pxl_PXL_20240219_191939311_931357f7.jpg",
    "rune55_num_00058_6c8b25c3.jpg",
    "rune55_num_00143_fe2b57a2.jpg",
    "rune55_img_IMG_0665_1cc379e3.jpg",
    "rune55_rand_K2EY8aOQJ86H0HKrieoF_b14df001.jpg",
    "rune55_rand_KshvEsQ0w0gGdTKX1AXz_59f9e364.jpg",
]


def _labels() -> dict[str, list[dict[str, object]]]:
    path = DATA / "labels.json"
    assert path.is_file(), f"missing real-photo labels {path}"
    return {e["image"]: e["objects"] for e in json.loads(path.read_text())}


def test_real_photos_floors() -> None:
    labels = _labels()
    dice = found_n = matched = right = confident_wrong = 0
    for name in REAL:
        assert is_held_out(name), name
        path = DATA / name
        assert path.is_file(), f"missing real photo {path}"
        img = cv2.imread(str(path), cv2.IMREAD_COLOR)
        assert img is not None, f"unreadable real photo {path}"
        found = find_dice(img)
        objs = labels[name]
        dice += len(objs)
        found_n += len(found)
        used: set[int] = set()
        for o in objs:
            x, y, w, h = o["bbox"]  # type: ignore[misc]
            for j, d in enumerate(found):
                if j not in used and x <= d.center[0] <= x + w and y <= d.center[1] <= y + h:
                    used.add(j)
                    matched += 1
                    right += int(d.value == o["value"])
                    confident_wrong += int(d.confidence >= CONFIDENT and d.value != o["value"])
                    break
        confident_wrong += sum(1 for j, d in enumerate(found) if j not in used and d.confidence >= CONFIDENT)
    assert dice >= 80
    assert matched / dice >= FLOOR_FOUND
    assert matched / max(found_n, 1) >= FLOOR_PRECISION
    assert right / dice >= FLOOR_READ_RIGHT
    assert confident_wrong / dice <= CEILING_CONFIDENT_WRONG


# Measured on these 80 dice when the models were committed: found 85%, precision 82%,
# read right 40%, confident wrong 1.3% of dice. Floors well below that.
FLOOR_FOUND = 0.70
FLOOR_PRECISION = 0.60
FLOOR_READ_RIGHT = 0.25
CEILING_CONFIDENT_WRONG = 0.08


def test_the_reader_alone_reads_given_boxes_each_with_a_face() -> None:
    """``read_die_boxes`` (the benchmark's ``--label-boxes``): the reader on boxes it is given,
    a face 1..6 for each in order, however unsure, and no box at all gives no read."""
    img = table()
    draw_die(img, 120, 180, 60, 5, (235, 235, 235), (20, 20, 20))
    draw_die(img, 330, 180, 60, 2, (30, 30, 160), (240, 240, 240))
    frame = finish(img)
    reads = read_die_boxes(frame, [(300, 150, 60, 60), (90, 150, 60, 60)])
    assert [face for face, _ in reads] == [2, 5]
    assert all(0.5 < p <= 1.0 for _, p in reads)
    assert read_die_boxes(frame, []) == []


@pytest.mark.parametrize("box", [(10, 10, 0, 20), (10, 10, 20, -5)])
def test_a_die_box_of_no_size_is_named(box: tuple[int, int, int, int]) -> None:
    with pytest.raises(ValueError, match="positive width and height"):
        read_die_boxes(table(), [box])


def test_the_reader_alone_on_real_labelled_boxes_floor() -> None:
    """On these 80 held-out dice's labelled boxes the reader alone read 71 faces right (88.8%)
    when this test was written (the floor well below): a regression in the reader
    shows here apart from the finder's."""
    labels = _labels()
    dice = right = 0
    for name in REAL:
        img = cv2.imread(str(DATA / name), cv2.IMREAD_COLOR)
        assert img is not None, f"unreadable real photo {DATA / name}"
        objs = [o for o in labels[name] if o["kind"] == "d6"]
        reads = read_die_boxes(img, [tuple(o["bbox"]) for o in objs])  # type: ignore[misc]
        dice += len(objs)
        right += sum(int(face == o["value"]) for (face, _), o in zip(reads, objs))
    assert dice >= 80
    assert right / dice >= 0.7


def test_printed_names_and_markers_on_the_table_are_not_dice() -> None:
    """On the held-back rendered tables (never trained on), the printed zone names and the
    corner markers are not taken for dice: a found die lies on a labelled object."""
    entries = json.loads((TEST_SCENES / "labels.json").read_text())[:SCENES_FOR_FALSE_DICE]
    found_n = on_nothing = 0
    for e in entries:
        img = cv2.imread(str(TEST_SCENES / e["image"]), cv2.IMREAD_COLOR)
        assert img is not None, e["image"]
        boxes = [o["bbox"] for o in e["objects"] if o.get("bbox")]
        for d in find_dice(img):
            found_n += 1
            on_nothing += int(not any(x <= d.center[0] <= x + w and y <= d.center[1] <= y + h for x, y, w, h in boxes))
    assert found_n >= 100, found_n  # the 153 dice there are still found
    assert on_nothing <= CEILING_FALSE_DICE, on_nothing


# Measured on the first 40 held-back scenes when the reader was committed: 136 found, 1 on
# nothing labelled; a reader that had not learned the printed names and markers as hard
# negatives found 188, 54 of them on nothing.
SCENES_FOR_FALSE_DICE = 40
CEILING_FALSE_DICE = 10


def test_unread_candidates_the_reader_doubts_are_dice_are_dropped() -> None:
    """A card's pips pass the finder as dice. Those the reader gives no value and doubts are
    dice at all (not-a-die above ``unsure_not_die``) are dropped; read ones and flagged ones stay."""
    # A card photo the dice networks never learned from (they learn every other one).
    path = DATA.parent / "cards-cadyze" / "cards_webcam_WIN_20240630_19_35_16_Pro_7b93aee8.jpg"
    assert path.is_file(), f"missing real photo {path}"
    img = cv2.imread(str(path), cv2.IMREAD_COLOR)
    assert img is not None, f"unreadable real photo {path}"
    params = DiceParams(faint_not_die=1.01)  # this rule alone: faint boxes kept
    kept = find_dice(img, params)
    every = find_dice(img, dataclasses.replace(params, unsure_not_die=1.0))
    doubted = [d for d in every if d.value is None and not d.flags and d.extra["not_die"] > params.unsure_not_die]
    assert len(doubted) >= 5, "the photo no longer shows the case"
    assert len(kept) == len(every) - len(doubted)
    assert all(d.value is not None or d.flags or d.extra["not_die"] <= params.unsure_not_die for d in kept)
    assert not any(d.confidence >= CONFIDENT for d in every)


@pytest.mark.parametrize("name", ["cards_webcam_WIN_20240627_12_29_18_Pro_346a337d.jpg",
                                  "cards_webcam_WIN_20240627_17_16_14_Pro_8e40d3e8.jpg"])
def test_faint_unread_boxes_in_a_photo_of_no_known_scale_are_dropped(name: str) -> None:
    """Card photos the dice networks never learned from: spades and clubs the finder scores
    faintly and the reader can neither read nor quite believe are dice (``faint_not_die``,
    ``faint_score``) are no longer reported as dice; every read with a value stays."""
    path = DATA.parent / "cards-cadyze" / name
    img = cv2.imread(str(path), cv2.IMREAD_COLOR)
    assert img is not None, f"missing or unreadable real photo {path}"
    params = DiceParams()
    kept = find_dice(img, params)
    every = find_dice(img, dataclasses.replace(params, faint_not_die=1.01))
    faint = [d for d in every if d.value is None and not d.flags and d.extra["not_die"] > params.faint_not_die
             and d.extra["finder_score"] < params.faint_score]
    assert faint, "the photo no longer shows the case"
    assert len(kept) == len(every) - len(faint)
    assert [(d.center, d.value) for d in every if d.value is not None] == [(d.center, d.value) for d in kept if d.value is not None]
    # At a known scale the rule does not apply: sizes there rule out what is no die.
    scale = 19.05 / max(max(d.bbox[2], d.bbox[3]) for d in every)
    at_scale = find_dice(img, dataclasses.replace(params, faint_not_die=1.01), mm_per_px=scale)
    assert find_dice(img, params, mm_per_px=scale) == at_scale != []


def test_a_closer_look_square_the_finder_cannot_take_is_named() -> None:
    with pytest.raises(ValueError, match="close_look_px"):
        find_dice(table(), DiceParams(close_look_px=100))
    assert find_dice(table(), DiceParams(close_look=0.0, close_look_px=100)) == []  # no closer look: not used
    with pytest.raises(ValueError, match="doubt_look_blob"):
        find_dice(table(), DiceParams(doubt_look_blob=100))
    assert find_dice(table(), DiceParams(doubt_look_px=0.0, doubt_look_blob=100)) == []


def test_bad_reader_turns_are_named() -> None:
    img = table()
    draw_die(img, 240, 180, 60, 4, (235, 235, 235), (20, 20, 20))
    with pytest.raises(ValueError, match="reader_turns"):
        find_dice(finish(img), DiceParams(reader_turns=3))
    with pytest.raises(ValueError, match="reader_turns"):
        read_die_boxes(finish(img), [(210, 150, 60, 60)], DiceParams(reader_turns=3))


def test_confidence_is_rescaled_so_the_fitted_threshold_is_confident() -> None:
    from vision.dice import _rescale

    t = DiceParams().confident_at
    assert _rescale(t, t) == pytest.approx(CONFIDENT)
    assert _rescale(0.0, t) == 0.0 and _rescale(1.0, t) == pytest.approx(1.0)
    raws = np.linspace(0.0, 1.0, 101)
    assert np.all(np.diff([_rescale(float(r), t) for r in raws]) >= 0)


def test_every_read_says_its_raw_probability() -> None:
    img = table()
    draw_die(img, 240, 180, 60, 5, (235, 235, 235), (20, 20, 20))
    for d in find_dice(finish(img)):
        assert 0.0 <= d.extra["read_prob"] <= 1.0
        assert d.value is None or d.confidence > 0.0


def test_the_readers_crop_geometry_travels_with_the_model(tmp_path: Path) -> None:
    """``dice_reader.json`` beside the reader says its crop size and margin; a model folder
    with a missing network or a broken description is named in the error."""
    import shutil

    from vision.dice import MODEL_DIR

    frame = np.full((240, 320, 3), 200, np.uint8)
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(FileNotFoundError, match="dice_finder.onnx"):
        find_dice(frame, DiceParams(model_dir=empty))
    broken = tmp_path / "broken"
    broken.mkdir()
    for name in ("dice_finder.onnx", "dice_reader.onnx"):
        shutil.copy(MODEL_DIR / name, broken / name)
    (broken / "dice_reader.json").write_text('{"crop_size": "big"}')
    with pytest.raises(ValueError, match="dice_reader.json"):
        find_dice(frame, DiceParams(model_dir=broken))
    # So is a description of classes no reader has.
    (broken / "dice_reader.json").write_text('{"crop_size": 40, "crop_scale": 1.3, "classes": 9}')
    with pytest.raises(ValueError, match="classes must be 7 or 16"):
        find_dice(frame, DiceParams(model_dir=broken))


def _dev_scene(name: str) -> tuple[np.ndarray, dict]:
    entry = next(e for e in json.loads((DEV_SCENES / "labels.json").read_text()) if e["image"] == name)
    img = cv2.imread(str(DEV_SCENES / name), cv2.IMREAD_COLOR)
    assert img is not None, f"cannot read {name}"
    return img, entry


def test_on_a_known_table_reads_are_sure_sooner_and_right() -> None:
    """A camera over a known table (``table``: a calibration's or its markers' scale) makes a
    read sure from ``confident_at_table``; a photo of dice anywhere else only from the stricter
    ``confident_at``, which a phone's photo of dice heaped in a tray sets. dev_0002's dice read
    between the two are sure on the table only, and right. (The closer look at every read not
    sure on a table, ``doubt_at_table``, is off here: it would box some dice anew.)"""
    params = DiceParams(doubt_at_table=False)
    assert params.confident_at_table < params.confident_at
    img, entry = _dev_scene("dev_0002.jpg")
    scale = rendered_scale(entry)
    on_table = find_dice(img, params, mm_per_px=scale, table=True)
    photo = find_dice(img, params, mm_per_px=scale)
    assert [d.bbox for d in on_table] == [d.bbox for d in photo]
    between = [i for i, d in enumerate(photo) if params.confident_at_table <= d.extra["read_prob"] < params.confident_at]
    assert len(between) >= 3
    labelled = {id(detection_at(on_table, o["bbox"])): o["value"] for o in entry["objects"] if o["kind"] == "d6" and not o["flags"]}
    for i in between:
        assert photo[i].confidence < CONFIDENT <= on_table[i].confidence
        assert on_table[i].value == labelled[id(on_table[i])]


def test_on_a_known_table_the_cocked_check_still_looks_at_every_read_not_sure_on_a_photo() -> None:
    """A cocked die read as a face between the two thresholds must still meet the cocked-die
    check: at ``cocked_at`` 0 every read below ``confident_at`` is flagged cocked on a table
    too, unread, and only those at or above it keep their faces."""
    img, entry = _dev_scene("dev_0002.jpg")
    every = find_dice(img, DiceParams(cocked_at=0.0), mm_per_px=rendered_scale(entry), table=True)
    assert any(d.flags == ("cocked",) and d.extra["read_prob"] >= DiceParams().confident_at_table for d in every)
    for d in every:
        if d.extra["read_prob"] < DiceParams().confident_at:
            assert d.flags == ("cocked",) and d.value is None and d.confidence == 0.0
        else:
            assert d.value is not None and d.confidence >= CONFIDENT


def _framed_small(name: str, die_px: float) -> tuple[np.ndarray, list[tuple[float, float, float, float]]]:
    """A dice-rune55 photo shrunk so its median labelled die is ``die_px`` across, in the middle of
    a 1280x960 frame of its median colour (a wide photo of a few dice), and its labels' boxes there."""
    img = cv2.imread(str(DATA / name), cv2.IMREAD_COLOR)
    assert img is not None, f"missing real photo {DATA / name}"
    objs = [o for o in _labels()[name] if o["kind"] == "d6"]
    f = die_px / float(np.median([np.sqrt(o["bbox"][2] * o["bbox"][3]) for o in objs]))  # type: ignore[index]
    small = cv2.resize(img, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
    h, w = small.shape[:2]
    x0, y0 = (1280 - w) // 2, (960 - h) // 2
    frame = np.empty((960, 1280, 3), np.uint8)
    frame[:] = np.median(small.reshape(-1, 3), axis=0)
    frame[y0 : y0 + h, x0 : x0 + w] = small
    boxes = [(o["bbox"][0] * f + x0, o["bbox"][1] * f + y0, o["bbox"][2] * f, o["bbox"][3] * f) for o in objs]  # type: ignore[index]
    return frame, boxes


def test_a_wide_photo_s_small_dice_are_found_by_a_finer_look_never_sure() -> None:
    """Five dice 25 px across in a 1280x960 photo with no scale (dice-rune55, a validation photo,
    never trained on, framed small): the finder at its usual 512 px sees them 10 px across and
    finds one; the finer look (``fine_long_side``) finds all five. A die only it found is read
    but never sure; a known table's frame gets no finer look. Measured when it was made: 1
    found without, 5 with, none sure."""
    frame, boxes = _framed_small("rune55_num_00125_b747f7ad.jpg", 25.0)

    def found_in(dice: list[Detection]) -> int:
        return sum(any(x <= d.center[0] <= x + w and y <= d.center[1] <= y + h for d in dice) for x, y, w, h in boxes)

    without = find_dice(frame, DiceParams(fine_long_side=0))
    with_look = find_dice(frame)
    assert len(boxes) == 5
    assert found_in(with_look) >= 4
    assert found_in(with_look) > found_in(without)
    first = [d.center for d in without]
    for d in with_look:
        if not any(abs(d.center[0] - x) < 6 and abs(d.center[1] - y) < 6 for x, y in first):
            assert d.confidence < CONFIDENT
    assert len(find_dice(frame, table=True)) == len(find_dice(frame, DiceParams(fine_long_side=0), table=True))
