"""vision.observe: the one call the loop makes for a settled table (read, recall, second look)."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np

from vision.observe import LastTable, observe
from vision.types import Detection, TableObservation

ROOT = Path(__file__).resolve().parents[2]
FRAME = np.random.default_rng(3).integers(0, 255, (120, 160, 3), dtype=np.uint8)


def die(face: int | None, confidence: float, x: int = 40) -> Detection:
    return Detection("d6", face, (x, 30, 30, 30), confidence, center=(x + 15.0, 45.0))


class Reader:
    """Reads ``first``; looks again (``second_look``) with ``closer``; counts the looks."""

    def __init__(self, first: list[Detection], closer: list[Detection] | None = None) -> None:
        self.first, self.closer, self.looks = first, closer, 0

    def __call__(self, image: object) -> TableObservation:
        return TableObservation(tuple(self.first), (160, 120))

    def second_look(self, image: object) -> TableObservation:
        self.looks += 1
        return TableObservation(tuple(self.closer or ()), (160, 120))


def test_an_untouched_die_known_on_the_last_table_is_read_with_its_known_face() -> None:
    last = LastTable(((die(4, 0.99), 4),), FRAME)
    observation = observe(FRAME, Reader([die(None, 0.0, x=41)]), last=last)
    assert observation.objects[0].value == 4 and observation.objects[0].extra.get("remembered")
    assert observe(FRAME, Reader([die(None, 0.0, x=41)])).objects[0].value is None  # nothing known: as read


def test_a_table_that_looks_wrong_is_read_again_and_the_closer_read_kept_only_if_it_looks_right() -> None:
    two = [die(2, 0.99), die(5, 0.99, x=90)]
    reader = Reader(two[:1], two)
    kept = observe(FRAME, reader, looks_right=lambda o: len(o.objects) == 2)
    assert reader.looks == 1 and len(kept.objects) == 2
    reader = Reader(two[:1], [])
    assert len(observe(FRAME, reader, looks_right=lambda o: len(o.objects) == 2).objects) == 1 and reader.looks == 1
    reader = Reader(two, [])
    assert len(observe(FRAME, reader, looks_right=lambda o: True).objects) == 2 and reader.looks == 0


def test_a_frame_the_reader_cannot_read_is_an_empty_observation_saying_why() -> None:
    def broken(image: object) -> TableObservation:
        raise ValueError("frame is 0x0")

    observation = observe(FRAME, broken)
    assert observation.objects == () and observation.frame_size == (160, 120)
    assert observation.notes == ("unreadable frame: frame is 0x0",)


def test_the_loop_enters_vision_only_through_observe() -> None:
    tree = ast.parse((ROOT / "web" / "loop.py").read_text(encoding="utf-8"))
    modules = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
    assert {m for m in modules if m.startswith("vision")} == {"vision.observe", "vision.types"}
