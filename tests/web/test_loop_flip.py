"""End to end: the FLIP fixture game (FL-T1 played on to the end of round 1) refereed from its
replayed frames through the settle detector, the recorded labels as the read, reconciliation
and the match, with its recorded tablet decisions (RULES.md FL-3.2, FL-4, FL-5, FL-3.1).

The camera cannot see die ids: the referee numbers the round-start roll by ascending face in
each area (referee/games/flip.py), and the fixture's labels carry those ids.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from web.bootstrap import open_table

FOLDER = Path(__file__).resolve().parents[2] / "fixtures" / "games" / "flip_fl_t1"


def referee(db: Path) -> Any:
    service = open_table(f"replay:{FOLDER}", str(db), realtime=False, read="labels")
    service.start()
    assert service.wait(300), "the replay did not finish"
    service.stop()
    return service


def test_flip_fixture_game_is_refereed_to_its_recorded_end(tmp_path: Path) -> None:
    recorded = json.loads((FOLDER / "game.json").read_text())
    service = referee(tmp_path / "m.db")
    events = service.match.events
    view = service.view()
    assert view["loop"]["state"] == "finished", view["loop"]

    # FL-3.2: one roll of all ten dice, read from the camera, with the ids of the convention.
    camera = [e for e in events if e.actor == "camera" and e.kind == "action"]
    assert [e.text for e in camera] == [c["action"] for c in recorded["chance"]] == ["roll 1 2 3 4 6 1 2 5 6 6"]
    assert int(camera[0].frame_id) <= recorded["chance"][0]["frame"]
    # Before the roll the empty table (the dice in the players' hands) was as expected, not a roll.
    first = events[0]
    assert first.actor == "camera" and first.detail["ruling"] == "confirmed" and first.frame_id == "0000"

    # FL-4: every recorded decision taken, in order, and each accepted by the rules.
    taken = [e.text for e in events if e.actor == "tablet" and e.kind == "action"]
    assert taken == [d["action"] for d in recorded["decisions"]]
    assert taken[:10] == ["flip 1", "tap 5", "take nothing", "tap 8", "take nothing", "flip 6", "tap 7",
                          "take nothing", "tap 4", "take 7"]  # FL-T1: flip a1 ... A takes b5

    # Every move the rules forced was seen on the table; the only discrepancy is the dice
    # waiting to go back to B after A's dice went back (FL-3.1), put right on the next frame.
    rulings = [e for e in events if e.actor == "camera" and e.kind == "ruling"]
    problems = [e.text for e in rulings if e.detail["ruling"] != "confirmed"]
    assert problems == ["Still to do: Move die 9 (a 1), die 7 (a 2), die 8 (a 5), die 10 (a 6) and die 6 (a 6) "
                        "from the middle to B's area (FL-3.1)"]
    assert rulings[-1].detail["ruling"] == "confirmed" and rulings[-1].frame_id == f"{len(recorded['frames']) - 1:04d}"
    assert all(e.frame_id is not None for e in events if e.actor == "camera")

    # FL-5: A tapped B's last die and scores the 6 + 2 + 3 A holds; round 2 waits for its roll.
    final = recorded["final"]
    assert view["scores"] == final["scores"] == {"A": 11, "B": 0}
    state = service.match.state
    assert state.round() == final["round"] == 2 and state.phase() == "roll"
    zones = state.zones()
    for player, dice in final["areas"].items():
        assert {item.ident: item.value for item in zones[f"area:{player}"]} == dice
    assert zones["middle"] == ()
