"""The committed fixtures agree with their labels (issue 4): files present, every object inside
the frame, values in range, zones that exist, homographies true, games consistent.

These tests read ``fixtures/``; they never render.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import numpy as np
import pytest

from tests.fixtures_support import (
    COIN_KINDS,
    DIE_FACES,
    FIXTURES,
    FLAGS,
    SPLITS,
    game_frame_path,
    game_names,
    image_to_table,
    jpeg_size,
    load_game,
    scene_image_path,
    scene_labels,
)

ZONE_ID = re.compile(r"^(theatre|balcony|aside|centre|middle|(gathered|nickels|stash|area):[A-Za-z]+)$")
GAMES = ("sp_t1", "sp_t2_tko", "sp_t4_dice", "sevens_sv_t1_t3", "flip_fl_t1", "pennywise_pw_t3")


def _inside(poly: list[tuple[float, float]], x: float, y: float) -> bool:
    inside = False
    for i in range(len(poly)):
        x1, y1 = poly[i]
        x2, y2 = poly[(i + 1) % len(poly)]
        if (y1 > y) != (y2 > y) and x1 + (y - y1) * (x2 - x1) / (y2 - y1) > x:
            inside = not inside
    return inside


def check_frame(label: dict[str, Any], path: Any) -> None:
    """Everything one frame's label promises about its picture."""
    assert path.exists(), f"missing image {path}"
    w, h = label["size"]
    assert (w, h) == (1280, 960)
    assert jpeg_size(path) == (w, h), path
    assert label["renderer"] in ("procedural", "blender")
    zones = label["zones_mm"]
    assert zones and set(zones) == set(label["zones_px"])
    for zid in zones:
        assert ZONE_ID.match(zid), zid
    # The homography maps each zone corner's pixel back onto its table position (SPEC: exact labels).
    for zid, poly in zones.items():
        back = image_to_table(label, np.array(label["zones_px"][zid]))
        assert np.abs(back - np.array(poly)).max() < 0.5, (label["image"], zid)
    if label["markers"]:
        assert sorted(label["markers"]) == ["0", "1", "2", "3"]
        xs = [np.mean(np.array(m["px"])[:, 0]) for m in label["markers"].values()]
        ys = [np.mean(np.array(m["px"])[:, 1]) for m in label["markers"].values()]
        # clockwise from top-left: 0 top-left, 1 top-right, 2 bottom-right, 3 bottom-left
        assert xs[0] < xs[1] and xs[3] < xs[2] and ys[0] < ys[3] and ys[1] < ys[2]
    ids = [o["id"] for o in label["objects"]]
    assert len(ids) == len(set(ids)), "object ids repeat"
    moving = False
    for o in label["objects"]:
        x, y, bw, bh = o["bbox"]
        assert 0 <= x and 0 <= y and x + bw <= w and y + bh <= h and bw > 0 and bh > 0, (label["image"], o["id"], o["bbox"])
        pts = np.array(o["outline"])
        assert len(pts) >= 3
        assert pts[:, 0].min() >= x - 1 and pts[:, 0].max() <= x + bw + 1
        assert pts[:, 1].min() >= y - 1 and pts[:, 1].max() <= y + bh + 1
        assert set(o["flags"]) <= set(FLAGS), o["flags"]
        if o["kind"] in COIN_KINDS:
            if "on_edge" in o["flags"]:
                assert o["value"] is None
            elif "moving" in o["flags"]:
                assert o["value"] in (None, "heads", "tails")  # edge-on in the air: no face up
            else:
                assert o["value"] in ("heads", "tails")
        else:
            assert o["kind"] in DIE_FACES, o["kind"]
            assert isinstance(o["value"], int) and 1 <= o["value"] <= DIE_FACES[o["kind"]]
        px, py = o["position_mm"]
        if o["zone"] is None:
            assert not any(_inside(p, px, py) for p in zones.values())
        else:
            assert o["zone"] in zones and _inside(zones[o["zone"]], px, py)
        moving = moving or "moving" in o["flags"]
    assert label["hand_in_view"] == (label["hand_bbox"] is not None)
    assert label["settled"] == (not moving and not label["hand_in_view"])


@pytest.mark.parametrize("split", SPLITS)
def test_every_scene_label_matches_its_image(split: str) -> None:
    labels = scene_labels(split)
    folder = FIXTURES / "scenes" / split
    assert {p.name for p in folder.glob("*.jpg")} == {lab["image"] for lab in labels}
    for label in labels:
        assert label["split"] == split
        check_frame(label, scene_image_path(split, label))


def test_scenes_cover_the_conditions_of_the_issue() -> None:
    labels = scene_labels("dev") + scene_labels("test")
    assert len(labels) >= 300
    assert not {lab["image"] for lab in scene_labels("dev")} & {lab["image"] for lab in scene_labels("test")}
    kinds: Counter[str] = Counter()
    flags: Counter[str] = Counter()
    designs: set[tuple[str, str, str]] = set()
    for lab in labels:
        for o in lab["objects"]:
            kinds[o["kind"]] += 1
            flags.update(o["flags"])
            if "design" in o:
                designs.add((o["kind"], o["value"], o["design"]))
    assert all(kinds[k] >= 50 for k in ("penny", "nickel", "dime", "quarter", "d6", "d8")), kinds
    assert all(flags[f] >= 10 for f in FLAGS), flags
    for design in ("lincoln", "wheat", "memorial", "shield"):
        assert any(d[0] == "penny" and d[2] == design for d in designs), design
    for kind in ("nickel", "dime", "quarter"):
        assert {d[1] for d in designs if d[0] == kind} == {"heads", "tails"}
    assert sum(lab["hand_in_view"] for lab in labels) >= 10
    assert sum(not lab["markers"] for lab in labels) >= 10
    assert sum(any(lab["camera"]["dist"]) for lab in labels) >= 10
    assert sum(o["zone"] is None for lab in labels for o in lab["objects"]) >= 10
    assert len({lab["cloth"] for lab in labels}) >= 5
    assert {lab["renderer"] for lab in labels} == {"procedural", "blender"}


def test_all_games_are_recorded() -> None:
    assert set(GAMES) <= set(game_names())


def _theatre_values(frame: dict[str, Any]) -> list[Any]:
    return sorted((o["value"] for o in frame["objects"] if o["zone"] == "theatre"), key=str)


@pytest.mark.parametrize("name", GAMES)
def test_game_frames_decisions_and_rulings_are_consistent(name: str) -> None:
    game = load_game(name)
    frames = game["frames"]
    folder = FIXTURES / "games" / name
    assert {p.name for p in folder.glob("*.jpg")} == {f["image"] for f in frames}
    times = [f["t"] for f in frames]
    assert times == sorted(times) and len(set(times)) == len(times), "frames out of time order"
    all_ids: set[str] = set()
    for k, frame in enumerate(frames):
        assert frame["index"] == k and frame["image"] == f"{k:04d}.jpg"
        check_frame(frame, game_frame_path(name, frame))
        all_ids |= {o["id"] for o in frame["objects"]} | set(frame["in_hand"])
    # Objects are never created or lost while a player is not adding or paying one (a nickel).
    for frame in frames:
        seen = {o["id"] for o in frame["objects"]} | set(frame["in_hand"])
        dice_and_pennies = {i for i in all_ids if not i.startswith("n")}
        if name != "pennywise_pw_t3":
            assert dice_and_pennies <= seen, (name, frame["index"], dice_and_pennies - seen)
    for record in game["decisions"] + game["chance"] + game["expected"]:
        assert 0 <= record["frame"] < len(frames)
        assert re.match(r"^[A-Z]+[A-Z0-9.-]*\d", record["rule"]), record["rule"]
    for record in game["decisions"] + game["chance"]:
        frame = frames[record["frame"]]
        assert frame["settled"], (name, record)  # decisions and reads are made on a settled table
        assert record["t"] >= frame["t"]
    decision_times = [d["t"] for d in game["decisions"]]
    assert decision_times == sorted(decision_times)
    # Each chance outcome is exactly what lies in the Theatre on its frame.
    for c in game["chance"]:
        frame = frames[c["frame"]]
        words = c["action"].split()
        if words[0] == "throw" and words[1].endswith("H"):
            h, t = int(words[1][:-1]), int(words[2][:-1])
            assert Counter(_theatre_values(frame)) == Counter({"heads": h, "tails": t}) - Counter(), (name, c)
        elif "dice" in c:
            values = {o["id"]: o["value"] for o in frame["objects"]}
            assert all(values[i] == v for i, v in c["dice"].items()), (name, c)
        else:
            faces = sorted(int(w) for w in words[1:])
            assert sorted(_theatre_values(frame)) == faces, (name, c, _theatre_values(frame))


def test_sp_t1_ends_round_one_with_jess_3_kevin_4() -> None:
    game = load_game("sp_t1")
    assert game["final"]["scores"] == {"Jess": 3, "Kevin": 4}  # RULES.md SP-T1, GATHER branch
    assert [c["action"] for c in game["chance"]] == ["throw 3H 4T", "throw 5H 1T", "throw 0H 2T"]
    assert [d["action"] for d in game["decisions"]] == ["gather", "gather", "gather"]
    last_settled = [f for f in game["frames"] if f["settled"]][-1]
    assert Counter(o["zone"] for o in last_settled["objects"]) == Counter({"balcony": 7})
    # Before scoring, Jess's three tails and Kevin's four heads lie in their Gathered areas.
    before = game["frames"][-3]
    gathered = Counter((o["zone"], o["value"]) for o in before["objects"])
    assert gathered == Counter({("gathered:Jess", "tails"): 3, ("gathered:Kevin", "heads"): 4})


def test_pennywise_uses_all_four_coins() -> None:
    game = load_game("pennywise_pw_t3")
    kinds = {o["kind"] for f in game["frames"] for o in f["objects"]}
    assert kinds == {"penny", "nickel", "dime", "quarter"}
    final = [f for f in game["frames"] if f["settled"]][-1]
    cents = {"penny": 1, "nickel": 5, "dime": 10, "quarter": 25}
    total: Counter[str] = Counter()
    for o in final["objects"]:
        total[o["zone"]] += cents[o["kind"]]
    assert total == Counter({"stash:A": 58, "stash:B": 45, "centre": 25})  # RULES.md PW-T3
