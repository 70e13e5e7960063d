"""Issue 5, RULES G-3: a coin lying on another, the one beneath half hidden (``vision.hidden_coins``)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.conftest import SHARED_DATA
from vision._coin_geometry import Circle
from vision._coin_split import rendered_scale
from vision.coins import find_coins
from vision.hidden_coins import coins_beneath
from vision.read import params_for_scale, read_table

ROOT = Path(__file__).resolve().parents[2]
DEV = ROOT / "fixtures" / "scenes" / "dev"
DATA = SHARED_DATA


def dev_scene(name: str) -> tuple[np.ndarray, dict]:
    labels = {e["image"]: e for e in json.loads((DEV / "labels.json").read_text())}
    frame = cv2.imread(str(DEV / name))
    assert frame is not None, f"cannot read {DEV / name}"
    return frame, labels[name]


def read_at_scale(frame: np.ndarray, scene: dict, look_beneath: bool = True) -> list:
    """The coins as the live referee reads its calibrated table."""
    scale = rendered_scale(scene)
    params = replace(params_for_scale(scale, frame.shape[1], frame.shape[0]).coins, look_beneath=look_beneath)
    dets, _ = find_coins(frame, params, mm_per_px=scale, scale_at=lambda p: rendered_scale(scene, p))
    return dets


def near(dets: list, box: list[int]) -> list:
    x, y, w, h = box
    return [d for d in dets if abs(d.center[0] - x - w / 2) < w and abs(d.center[1] - y - h / 2) < h]


@pytest.mark.parametrize("name", ["dev_0061.jpg", "dev_0103.jpg", "dev_0213.jpg"])
def test_a_penny_lying_on_another_is_reported_as_two_stacked_coins(name: str) -> None:
    """Rendered scenes with a penny thrown onto another (labels: one raised 1.5 mm, the other
    partly hidden). Without the look beneath, the pair is read as one penny with a sure face;
    with it, as two coins, both stacked and unread (the throw is not valid, G-3)."""
    frame, scene = dev_scene(name)
    raised = [o for o in scene["objects"] if o["kind"] == "penny" and o["height_mm"] > 1.25]
    assert len(raised) == 1
    box = raised[0]["bbox"]
    before = near(read_at_scale(frame, scene, look_beneath=False), box)
    assert len(before) == 1 and before[0].value is not None and before[0].confidence >= 0.8
    after = near(read_at_scale(frame, scene), box)
    assert len(after) == 2
    assert all(d.flags == ("stacked",) and d.value is None and d.confidence == 0.0 for d in after)
    assert all(d.kind == "penny" for d in after)
    # The hidden coin is placed on the one beneath, not on the raised one.
    beneath = [o for o in scene["objects"] if o["kind"] == "penny" and o is not raised[0] and near(after, o["bbox"])]
    assert beneath


def synthetic_pair(offset: float, shadow: bool = False) -> tuple[np.ndarray, Circle]:
    """A copper disc on green cloth with a second one beneath it, ``offset`` radii away (0: none);
    with ``shadow``, a dark crescent of the cloth instead of the second disc."""
    rng = np.random.default_rng(5)
    frame = np.clip(rng.normal((60, 120, 50), 3, (480, 640, 3)), 0, 255).astype(np.uint8)
    r, x, y = 40, 320, 240
    if offset:
        colour = (30, 70, 40) if shadow else (60, 110, 190)
        cv2.circle(frame, (int(x + offset * r), y), r, colour, -1, cv2.LINE_AA)
        if not shadow:
            cv2.circle(frame, (int(x + offset * r), y), r - 1, (40, 60, 110), 2, cv2.LINE_AA)
    cv2.circle(frame, (x, y), r, (70, 120, 200), -1, cv2.LINE_AA)
    cv2.circle(frame, (x, y), r - 1, (40, 60, 110), 2, cv2.LINE_AA)
    return cv2.GaussianBlur(frame, (3, 3), 0), Circle(x, y, r)


def beneath(frame: np.ndarray, top: Circle) -> list:
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    lab = cv2.cvtColor(frame, cv2.COLOR_BGR2LAB)
    table = np.median(lab[:40, :40].reshape(-1, 3), axis=0).astype(np.float32)
    return coins_beneath(gray, lab, 1.0, table, [top])


@pytest.mark.parametrize("offset", [0.4, 0.6, 0.8])
def test_the_crescent_of_a_coin_beneath_gives_its_circle(offset: float) -> None:
    frame, top = synthetic_pair(offset)
    found = beneath(frame, top)
    assert len(found) == 1
    hidden = found[0].hidden
    assert (hidden.x, hidden.y) == pytest.approx((320 + offset * 40, 240), abs=4)
    assert hidden.r == pytest.approx(40, rel=0.1)
    assert found[0].top == 0 and found[0].top_circle.r == pytest.approx(40, rel=0.1)


@pytest.mark.parametrize(("offset", "shadow"), [(0.0, False), (0.5, True)])
def test_a_lone_coin_or_its_shadow_hides_no_coin(offset: float, shadow: bool) -> None:
    frame, top = synthetic_pair(offset, shadow)
    assert beneath(frame, top) == []


def test_no_circles_no_coins_beneath() -> None:
    frame, _ = synthetic_pair(0.0)
    lab = cv2.cvtColor(frame, cv2.COLOR_BGR2LAB)
    assert coins_beneath(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), lab, 1.0, lab[0, 0].astype(np.float32), []) == []


@pytest.mark.parametrize("photo", ["mmr_52.jpg", "mmr_82.jpg", "mmr_197.jpg"])
def test_touching_real_coins_are_not_taken_for_stacked(photo: str) -> None:
    """Real photos of coins lying side by side, many touching: none is reported stacked (none of
    coins-mmr's, dice-rune55's or cards-cadyze's 806 photos has a stacked coin reported)."""
    path = DATA / "coins-mmr" / photo
    assert path.is_file(), f"real photo missing: {path}"
    objects = read_table(cv2.imread(str(path))).objects
    assert objects and not any("stacked" in o.flags for o in objects)

