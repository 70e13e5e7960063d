"""``vision.full_resolution``: faces read again from each object's crop of the full picture."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.full_resolution import read_faces_closer
from vision.read import read_table
from vision.types import CONFIDENT, Detection, TableObservation

DEV = Path(__file__).resolve().parents[2] / "fixtures" / "scenes" / "dev"


def dev_scene(index: int) -> tuple[np.ndarray, list[dict[str, object]]]:
    entry = json.loads((DEV / "labels.json").read_text())[index]
    image = cv2.imread(str(DEV / entry["image"]))
    assert image is not None, f"fixture missing: {entry['image']}"
    return np.asarray(image, np.uint8), entry["objects"]


def test_objects_keep_their_place_and_take_the_closer_reads_faces() -> None:
    """A dev scene's 1280x960 frame as the full picture beside its half-size small frame: every
    object keeps the small frame's box, centre and zone, and the ones found again carry the
    closer read (kind, face, guess, confidence) with ``extra["full_resolution"]``."""
    full, labels = dev_scene(3)
    small = cv2.resize(full, (640, 480), interpolation=cv2.INTER_AREA)
    observation = read_table(small)
    closer = read_faces_closer(observation, full)
    assert len(closer.objects) == len(observation.objects) >= 10
    assert [(d.bbox, d.center, d.zone) for d in closer.objects] == [(d.bbox, d.center, d.zone) for d in observation.objects]
    found = [d for d in closer.objects if d.extra["full_resolution"]]
    assert len(found) >= 0.8 * len(closer.objects)
    for d in closer.objects:  # one meaning of value holds for the closer reads too
        assert d.value is None or (d.confidence >= CONFIDENT and d.guess == d.value)
    # Every face ruled on is the labelled one (the centre lies in its label's box, full pixels).
    for d in closer.objects:
        if d.value is None:
            continue
        x, y = 2 * d.center[0], 2 * d.center[1]
        label = next(o for o in labels if o["bbox"][0] <= x <= o["bbox"][0] + o["bbox"][2]  # type: ignore[index]
                     and o["bbox"][1] <= y <= o["bbox"][1] + o["bbox"][3])  # type: ignore[index]
        assert (d.kind, d.value) == (label["kind"], label["value"])
    assert "full-resolution picture (1280x960)" in closer.notes[-1]


def test_an_object_the_full_picture_does_not_show_keeps_the_small_read() -> None:
    die = Detection("d6", 4, (20, 20, 10, 10), 0.9, center=(25.0, 25.0), zone="theatre")
    observation = TableObservation((die,), (64, 48), mm_per_px=1.5)
    blank = np.full((96, 128, 3), 90, np.uint8)
    (kept,) = read_faces_closer(observation, blank).objects
    assert (kept.kind, kept.value, kept.confidence, kept.zone) == ("d6", 4, 0.9, "theatre")
    assert kept.extra["full_resolution"] is False


def test_a_full_picture_of_another_size_or_shape_is_refused() -> None:
    observation = TableObservation((), (64, 48))
    with pytest.raises(ValueError, match="smaller than the frame read"):
        read_faces_closer(observation, np.zeros((24, 32, 3), np.uint8))
    with pytest.raises(ValueError, match="another shape"):
        read_faces_closer(observation, np.zeros((48, 128, 3), np.uint8))
    with pytest.raises(ValueError):
        read_faces_closer(observation, np.zeros((96, 128), np.float32))


def test_a_full_picture_no_finer_at_the_readers_scale_leaves_the_read_as_it_is() -> None:
    """A small frame read at 0.55 mm per pixel beside a full picture of twice its pixels: the
    crops would be read at 0.5 mm per pixel at the finest, not 1.5 times finer: nothing changes."""
    die = Detection("d6", 4, (20, 20, 10, 10), 0.9, center=(25.0, 25.0))
    observation = TableObservation((die,), (64, 48), mm_per_px=0.55)
    assert read_faces_closer(observation, np.full((96, 128, 3), 90, np.uint8)) is observation
