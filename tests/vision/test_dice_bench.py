"""``benchmarks/dice_bench.py``: fitting the sure threshold of the dice reader, and naming the
checks a candidate's model folder lacks."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

import benchmarks.dice_bench as dice_bench
from vision._dice_split import is_validation
from vision.dice import DiceParams
from vision.types import Detection

PHOTO = "photo_0.jpg"
SCENE = "dev_0000.jpg"


def logits_for(cls: int) -> list[float]:
    """Face logits (classes 1..15 of the 16-class reader) whose likeliest class is ``cls``."""
    out = [0.0] * 15
    out[cls - 1] = 5.0
    return out


def read(box: list[int], kind: str, value: int, read_prob: float, reader_class: int, d8_face: int | None) -> Detection:
    """A read on the labelled ``box`` as ``find_dice`` reports it."""
    x, y, w, h = box
    return Detection(
        kind=kind, value=value, bbox=(x, y, w, h), confidence=0.9, center=(x + w / 2, y + h / 2),
        extra={"much_smaller": False, "d8_face": d8_face, "face_logits": logits_for(reader_class), "read_prob": read_prob},
    )


def test_fit_confident_leaves_d8_faces_to_their_own_fit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A d8's read carries the d8 face reader's probability, sure at ``d8_confident_at``: the
    16-class reader's own face for it (here another one) must not count it as a wrong read,
    which set the sure threshold of the shipped networks at 0.9974 instead of 0.9944."""
    assert is_validation(PHOTO) and is_validation(SCENE)
    d6_box, d8_box = [10, 10, 20, 20], [40, 10, 20, 20]
    photos, scenes = tmp_path / "photos", tmp_path / "dev"
    for folder, name, objects, shade in (
        (photos, PHOTO, [{"kind": "d6", "value": 3, "bbox": d6_box}], 1),
        (scenes, SCENE, [{"kind": "d6", "value": 5, "bbox": d6_box}, {"kind": "d8", "value": 4, "bbox": d8_box}], 2),
    ):
        folder.mkdir()
        cv2.imwrite(str(folder / name), np.full((64, 64, 3), shade, np.uint8))
        half_mm = [[0.5, 0.0, 0.0], [0.0, 0.5, 0.0], [0.0, 0.0, 1.0]]
        (folder / "labels.json").write_text(json.dumps([{"image": name, "objects": objects, "size": [64, 64],
                                                         "homography": half_mm}]))
    reads = {
        1: [read(d6_box, "d6", 3, 0.99, 3, None)],
        # The d8 face reader reads 4 at 0.999; the 16-class reader's likeliest class is a d8's 2.
        2: [read(d6_box, "d6", 5, 0.99, 5, None), read(d8_box, "d8", 4, 0.999, 8, 4)],
    }
    calls: list[dict] = []

    def find_dice(img: np.ndarray, params: DiceParams, **kwargs: object) -> list[Detection]:
        calls.append(kwargs)
        return reads[int(img[0, 0, 0])]

    monkeypatch.setattr(dice_bench, "find_dice", find_dice)
    photo_threshold, table_threshold = dice_bench.fit_confident(photos, scenes, DiceParams())
    assert photo_threshold == pytest.approx(0.99)
    # The known table's threshold: the scenes read at their scale as a table, and the grey photo.
    assert table_threshold == pytest.approx(0.99)
    assert {"mm_per_px": pytest.approx(0.5), "table": True} in calls


def test_fit_d8_confident_also_reads_the_scenes_at_their_scale(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The live referee reads its calibrated table at its scale, where fainter candidates are
    taken and a die's box may differ: a d8 read wrong only there must still set the threshold."""
    box = [40, 10, 20, 20]
    cv2.imwrite(str(tmp_path / SCENE), np.zeros((64, 64, 3), np.uint8))
    half_mm = [[0.5, 0.0, 0.0], [0.0, 0.5, 0.0], [0.0, 0.0, 1.0]]
    entry = {"image": SCENE, "size": [64, 64], "homography": half_mm, "objects": [{"kind": "d8", "value": 4, "bbox": box}]}
    (tmp_path / "labels.json").write_text(json.dumps([entry]))
    scales: list[float | None] = []

    def find_dice(img: np.ndarray, params: DiceParams, mm_per_px: float | None = None) -> list[Detection]:
        scales.append(mm_per_px)
        face = 4 if mm_per_px is None else 6  # read right without the scale, wrong with it
        return [read(box, "d8", face, 0.97, 7 + face - 1, face)]

    monkeypatch.setattr(dice_bench, "find_dice", find_dice)
    assert dice_bench.fit_d8_confident(tmp_path, DiceParams()) == 1.0  # no read at 0.97 may be sure
    assert None in scales and sorted(s for s in scales if s is not None) == pytest.approx([0.5, 0.5])


def test_a_candidate_folder_without_the_checks_is_said_to_be_measured_without_them(tmp_path: Path) -> None:
    """A candidate's folder holding only the finder and the reader would be measured without the
    cocked-die check and the d8 face reader (``find_dice`` runs without what a folder lacks): the
    benchmark names both; the shipped folder lacks neither."""
    for name in ("dice_finder.onnx", "dice_reader.onnx", "dice_reader.json"):
        (tmp_path / name).write_bytes(b"")
    assert dice_bench.models_left_out(tmp_path) == ["dice_cocked.onnx", "dice_d8.onnx"]
    (tmp_path / "dice_d8.onnx").write_bytes(b"")
    assert dice_bench.models_left_out(tmp_path) == ["dice_cocked.onnx"]
    assert dice_bench.models_left_out(Path(dice_bench.__file__).resolve().parent.parent / "vision" / "models") == []


def test_label_boxes_count_each_labelled_d6_in_its_slices(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``--label-boxes``: each labelled six-sided die's own box goes to the reader alone, and a
    face read right counts in every slice its photo belongs to; d8 labels are not the six-sided
    reader's to read."""
    assert is_validation(PHOTO)
    cv2.imwrite(str(tmp_path / PHOTO), np.zeros((64, 64, 3), np.uint8))
    objects = [{"kind": "d6", "value": 3, "bbox": [0, 0, 20, 20]}, {"kind": "d6", "value": 5, "bbox": [30, 0, 20, 20]},
               {"kind": "d8", "value": 7, "bbox": [0, 30, 20, 20]}]
    entries = [{"image": PHOTO, "objects": objects}]
    asked: list[list[tuple[float, ...]]] = []

    def read_die_boxes(img: np.ndarray, boxes: list[tuple[float, ...]], params: DiceParams) -> list[tuple[int, float]]:
        asked.append(list(boxes))
        return [(3, 0.9), (6, 0.6)]  # the first right, the second wrong

    monkeypatch.setattr(dice_bench, "read_die_boxes", read_die_boxes)
    slices = dice_bench.label_box_accuracy(tmp_path, entries, DiceParams())
    assert asked == [[(0, 0, 20, 20), (30, 0, 20, 20)]]
    group = dice_bench.group_of(PHOTO)
    assert slices == {"all": (1, 2), "all/validation": (1, 2), group: (1, 2), f"{group}/validation": (1, 2)}
