"""Dice the finder missed, proposed where a die-sized patch lies unexplained (``vision.die_patches``).

Issue 5: dice "touching or not, from about 25 pixels across" must be found. On the dev scenes at
their scale the finder missed some clear dice alone on the cloth.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import cv2
import numpy as np

from tests.vision.test_dice import draw_die
from vision._coin_split import rendered_scale
from vision.dice import DiceParams, find_dice
from vision.die_patches import die_patches

DEV_SCENES = Path(__file__).resolve().parents[2] / "fixtures" / "scenes" / "dev"


def cloth_with_things() -> np.ndarray:
    """Green felt (1280 x 960) at 0.5 mm a pixel: a white die 16 mm across, a printed stroke and a copper disc."""
    frame = np.zeros((960, 1280, 3), np.uint8)
    frame[:] = (50, 110, 40)
    draw_die(frame, 400, 300, 32, 5, (235, 235, 235), (20, 20, 20))
    cv2.line(frame, (700, 600), (900, 600), (230, 230, 230), 3)  # a zone's printed line
    cv2.circle(frame, (900, 300), 19, (70, 120, 190), -1, cv2.LINE_AA)  # a penny
    return frame


def test_a_lone_die_sized_patch_is_proposed() -> None:
    """The die is proposed, boxed round its centre; the stroke is not, nor the penny read as a
    coin (``not_at``)."""
    boxes = die_patches(cloth_with_things(), 0.5, [], [(900.0, 300.0, 19.0)])
    assert len(boxes) == 1
    cx, cy, w, h = boxes[0]
    assert abs(cx - 400) < 8 and abs(cy - 300) < 8 and 28 <= w == h <= 60


def test_a_die_touching_a_printed_line_is_proposed_without_the_line() -> None:
    """A die lying against a zone's printed line (the FLIP game's red 6): the line is cut from
    the patch, and the die alone is proposed."""
    frame = np.zeros((960, 1280, 3), np.uint8)
    frame[:] = (150, 175, 195)  # beige felt
    cv2.line(frame, (200, 620), (1100, 620), (25, 25, 25), 8)  # a zone's black outline
    draw_die(frame, 640, 600, 34, 6, (40, 40, 200), (240, 240, 240))  # a red die against it
    boxes = die_patches(frame, 0.5, [], [])
    assert len(boxes) == 1
    cx, cy, w, _ = boxes[0]
    assert abs(cx - 640) < 10 and abs(cy - 600) < 12 and w < 70


def test_a_patch_touching_a_candidate_or_a_coin_is_theirs() -> None:
    """A patch that a finder's candidate box touches is that candidate's (its die, its shadow);
    one on a coin is the coin's; a grey frame gives none."""
    frame = cloth_with_things()
    assert die_patches(frame, 0.5, [(405.0, 305.0, 30.0, 30.0)], [(900.0, 300.0, 19.0)]) == []
    penny_only = die_patches(frame, 0.5, [(405.0, 305.0, 30.0, 30.0)], [])
    assert [(round(x), round(y)) for x, y, _, _ in penny_only] == [(900, 300)]
    assert die_patches(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), 0.5, [], []) == []


def dice_near(name: str, x: float, y: float, params: DiceParams) -> list[tuple[str, int | str | None]]:
    """Kind and face of each die ``find_dice`` reads within 15 px of (x, y) in the dev scene
    ``name``, at the scene's scale on its known table."""
    entry = next(e for e in json.loads((DEV_SCENES / "labels.json").read_text()) if e["image"] == name)
    frame = cv2.imread(str(DEV_SCENES / name))
    dice = find_dice(frame, params, mm_per_px=rendered_scale(entry), table=True)
    return [(d.kind, d.value) for d in dice if abs(d.center[0] - x) < 15 and abs(d.center[1] - y) < 15]


def test_a_clear_die_the_finder_misses_is_read_at_the_tables_scale() -> None:
    """dev_0058: a white "2" alone on the cloth that the finder scores under its threshold is
    found and read through its patch at the table's scale (``DiceParams.patch_candidates``)."""
    assert dice_near("dev_0058.jpg", 571, 704, dataclasses.replace(DiceParams(), patch_candidates=False)) == []
    assert dice_near("dev_0058.jpg", 571, 704, DiceParams()) == [("d6", 2)]


def test_a_die_whose_finder_box_the_reader_rejects_is_read_through_its_patch() -> None:
    """dev_0082: the finder boxes only parts of a black "2" on the red cloth, and the reader
    rightly finds no die in those boxes; the die's own patch, which they touch, is read on the
    known table (``DiceParams.patches_beside_rejected``). Before, the rejected boxes took the
    patch and the die was missed."""
    before = dataclasses.replace(DiceParams(), patches_beside_rejected=False)
    assert dice_near("dev_0082.jpg", 714, 711, before) == []
    assert dice_near("dev_0082.jpg", 714, 711, DiceParams()) == [("d6", 2)]
