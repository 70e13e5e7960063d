"""Issue 5: coins all seen as one ellipse (a stretched photo, a slanted camera), ``vision.foreshortening``."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tests.conftest import SHARED_DATA
from vision.foreshortening import Squash, blobs_of, squash_of, unstretched
from vision.read import ReadParams, read_table
from vision.types import CONFIDENT, DIE_KINDS, Detection

DATA = SHARED_DATA


def real(folder: str, name: str) -> np.ndarray:
    path = DATA / folder / name
    frame = cv2.imread(str(path))
    assert frame is not None, f"real photo missing: {path}"
    return np.asarray(frame, np.uint8)


def squeezed(frame: np.ndarray, fx: float, fy: float) -> np.ndarray:
    """The photo squeezed as a publisher's resize or a slanted camera squeezes it."""
    return np.asarray(cv2.resize(frame, None, fx=fx, fy=fy, interpolation=cv2.INTER_AREA), np.uint8)


def test_the_squash_of_a_photo_is_measured_from_its_coins() -> None:
    """mmr_90 squeezed to 0.8 of its height (a camera 37 degrees off vertical) or to 0.75 of its
    width (a 4:3 photo stretched to a square): measured within 0.02; as taken: no squash."""
    photo = real("coins-mmr", "mmr_90.jpg")
    assert squash_of(blobs_of(photo)) is None
    tall = squash_of(blobs_of(squeezed(photo, 1.0, 0.8)))
    assert tall is not None and tall.axis == "y" and tall.ratio == pytest.approx(0.8, abs=0.02)
    wide = squash_of(blobs_of(squeezed(photo, 0.75, 1.0)))
    assert wide is not None and wide.axis == "x" and wide.ratio == pytest.approx(0.75, abs=0.02)
    with pytest.raises(ValueError, match="HxWx3"):
        blobs_of(np.zeros((100, 100), np.uint8))


@pytest.mark.parametrize("height", [0.8, 0.7])
def test_coins_in_a_squeezed_photo_are_read_in_it_stretched_back(height: float) -> None:
    """The circle search takes only near-perfect circles: in mmr_90 squeezed to 0.8 or 0.7 of
    its height it found its six coins as "stacked" pairs of circles or not at all, none read
    surely. Searched in the frame stretched back, all six are read, the four with a face surely
    (two are dollar coins, "other"), their boxes the squeezed coins' own, and a note says so."""
    frame = squeezed(real("coins-mmr", "mmr_90.jpg"), 1.0, height)
    observation = read_table(frame)
    coins = [o for o in observation.objects if o.kind not in DIE_KINDS]
    assert sorted(c.kind for c in coins) == ["dime", "nickel", "other", "other", "penny", "quarter"]
    assert all(c.value == "tails" and c.confidence >= CONFIDENT for c in coins if c.kind != "other")
    assert all(c.bbox[3] == pytest.approx(height * c.bbox[2], rel=0.12) for c in coins)
    assert any("squeezed" in note for note in observation.notes)
    before = read_table(frame, params=ReadParams(unsquash=False)).objects
    assert sum(o.confidence >= CONFIDENT and o.value is not None for o in before) <= 1


def test_card_symbols_alike_are_no_coins_stretched() -> None:
    """A webcam's card photo whose printed symbols all show as one ellipse (0.6, long axes
    upright): the frame stretched round again reads no more sure coins than as it is (none), so
    the read is the one of the photo as it is."""
    frame = real("cards-cadyze", "cards_webcam_WIN_20240627_12_53_34_Pro_cb21de34.jpg")
    squash = squash_of(blobs_of(frame))
    assert squash is not None and squash.axis == "x"
    assert read_table(frame).objects == read_table(frame, params=ReadParams(unsquash=False)).objects


def test_reads_in_the_stretched_frame_are_placed_back() -> None:
    """A coin read in a frame stretched 1.25 times in height: its centre and box in the frame."""
    coin = Detection(kind="dime", value="heads", bbox=(100, 250, 50, 50), confidence=0.9, center=(125.0, 275.0))
    (back,) = unstretched([coin], 1.0, 1.25)
    assert back.center == (125.0, 220.0) and back.bbox == (100, 200, 50, 40)
    assert (back.kind, back.value, back.confidence) == ("dime", "heads", 0.9)
    assert Squash(0.8, "y", 5).ratio == 0.8
