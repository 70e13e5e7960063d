"""Learning this table (issue 5): the players confirm the faces of their own coins on the tablet
and the live reader adapts (``web.learn``, ``vision.enrol``); what it learned survives a restart."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from referee.errors import IllegalActionError, InvalidActionError
from tests.web.conftest import csrf_of
from web.app import create_app
from web.learn import profile_path
from web.bootstrap import open_table
from web.service import VisionReader

GAMES = Path(__file__).resolve().parents[2] / "fixtures" / "games"


def first_settled_table(db: Path, game: str = "sp_t1") -> Any:
    """A fixture game (SP-T1 unless named) replayed through vision up to its first settled (and read) table."""
    service = open_table(f"replay:{GAMES / game}", str(db), realtime=False, read="vision")
    assert service.loop is not None and service.source is not None
    service.source.start()
    while service.loop.latest_read is None:
        service.loop.step()
    return service


def true_faces(service: Any) -> dict[str, Any]:
    """The labelled face of each coin or die of the last read (what the players would confirm)."""
    labels = service.source.frames[service.source.index_of(service.loop.latest_read.frame_id)].labels
    faces = {}
    for coin in service.coins_to_learn()["coins"]:
        x, y = service.loop.latest_observation.objects[coin["ref"]].center
        label = next(o for o in labels if o["bbox"][0] <= x <= o["bbox"][0] + o["bbox"][2]
                     and o["bbox"][1] <= y <= o["bbox"][1] + o["bbox"][3])
        faces[str(coin["ref"])] = label["value"]
    return faces


def test_confirmed_faces_are_learned_kept_beside_the_log_and_used(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    service = first_settled_table(db)
    listed = service.coins_to_learn()
    assert listed["can_learn"] and listed["learned"] == 0
    assert len(listed["coins"]) == 7 and {c["kind"] for c in listed["coins"]} == {"penny"}
    assert all(c["crop_url"] == f"/api/crop/{c['ref']}.jpg" for c in listed["coins"])

    after = service.learn_table(true_faces(service))
    assert after["learned"] == 7
    assert profile_path(db).is_file()
    reader = service.loop.read
    assert isinstance(reader, VisionReader) and reader.learner.profile is not None
    observation = reader(service.loop.latest_read.image)  # read with the profile
    assert len([o for o in observation.objects if o.kind == "penny"]) == 7

    assert not service.coins_to_learn()["learned_outdated"]

    # A restart keeps what was learned.
    service.source.stop()
    again = open_table(f"replay:{GAMES / 'sp_t1'}", str(db), realtime=False, read="vision")
    assert again.coins_to_learn()["learned"] == 7
    assert not again.coins_to_learn()["learned_outdated"]
    assert again.forget_table()["learned"] == 0 and not profile_path(db).exists()


def test_bad_confirmations_are_refused_and_nothing_is_learned(tmp_path: Path) -> None:
    service = first_settled_table(tmp_path / "m.db")
    with pytest.raises(InvalidActionError, match="no coin or die of the last read"):
        service.learn_table({"99": "heads"})
    with pytest.raises(InvalidActionError, match="heads or tails"):
        service.learn_table({"0": "edge"})
    with pytest.raises(InvalidActionError, match="nothing to learn"):
        service.learn_table({"0": None})
    assert service.coins_to_learn()["learned"] == 0 and not profile_path(tmp_path / "m.db").exists()


def test_nothing_to_learn_before_a_table_is_read_or_without_a_camera_reader(tmp_path: Path) -> None:
    fresh = open_table(f"replay:{GAMES / 'sp_t1'}", str(tmp_path / "a.db"), realtime=False, read="vision")
    assert fresh.coins_to_learn()["coins"] == []
    with pytest.raises(IllegalActionError, match="no settled table"):
        fresh.learn_table({"0": "heads"})
    labels = open_table(f"replay:{GAMES / 'sp_t1'}", str(tmp_path / "b.db"), realtime=False, read="labels")
    assert labels.coins_to_learn()["can_learn"] is False
    with pytest.raises(IllegalActionError, match="no camera reader"):
        labels.learn_table({"0": "heads"})


def test_the_learn_api_needs_the_pin_and_names_bad_input(tmp_path: Path) -> None:
    service = first_settled_table(tmp_path / "m.db")
    client = create_app({"TESTING": True, "REFEREE_SERVICE": service, "REFEREE_PIN": "2468"}).test_client()
    headers = {"X-CSRF-Token": csrf_of(client)}
    listed = client.get("/api/learn").get_json()
    assert len(listed["coins"]) == 7
    faces = true_faces(service)
    assert client.post("/api/learn", json={"faces": faces}, headers=headers).status_code == 403  # no PIN yet
    assert client.post("/api/login", json={"pin": "2468"}, headers=headers).status_code == 200
    bad = client.post("/api/learn", json={"faces": ["heads"]}, headers=headers)
    assert bad.status_code == 400 and "faces must be an object" in bad.get_json()["error"]
    wrong = client.post("/api/learn", json={"faces": {"0": "sideways"}}, headers=headers)
    assert wrong.status_code == 400 and "heads or tails" in wrong.get_json()["error"]
    done = client.post("/api/learn", data=json.dumps({"faces": faces}), content_type="application/json", headers=headers)
    assert done.status_code == 200 and done.get_json()["learned"] == 7
    assert client.delete("/api/learn", headers=headers).get_json()["learned"] == 0


def test_confirmed_dice_teach_the_reader_their_kind_and_size(tmp_path: Path) -> None:
    """Dice are learned too: the Sevens table's confirmed dice (SV-1: six-sided) make a dice
    profile kept beside the log; the reader then reads d6 only, at about the learned size."""
    from web.learn import dice_profile_path

    db = tmp_path / "s.db"
    service = first_settled_table(db, "sevens_sv_t1_t3")
    listed = service.coins_to_learn()["coins"]
    dice = [item for item in listed if item["kind"] == "d6"]
    assert dice and all(item["choices"] == [1, 2, 3, 4, 5, 6] for item in dice)
    with pytest.raises(InvalidActionError, match="1 to 6"):
        service.learn_table({str(dice[0]["ref"]): 9})
    faces = {ref: str(face) for ref, face in true_faces(service).items()}  # the tablet sends strings
    after = service.learn_table(faces)
    assert after["dice_learned"] == len(dice) and after["learned"] == 0
    reader = service.loop.read
    assert isinstance(reader, VisionReader) and reader.learner is not None
    profile = reader.learner.dice_profile
    assert profile is not None and profile.kinds == ("d6",) and profile.size_mm is not None
    assert 8.0 <= profile.size_mm[0] <= profile.size_mm[1] <= 40.0
    assert dice_profile_path(profile_path(db)).is_file()
    again = reader(service.loop.latest_read.image)
    assert len([d for d in again.objects if d.kind == "d6"]) == len(dice)
    restarted = open_table(f"replay:{GAMES / 'sevens_sv_t1_t3'}", str(db), realtime=False, read="vision")
    assert restarted.coins_to_learn()["dice_learned"] == len(dice)
    assert restarted.forget_table()["dice_learned"] == 0 and not dice_profile_path(profile_path(db)).exists()


def test_coins_learned_with_an_earlier_coin_model_are_said_to_be_outdated_until_learned_again(tmp_path: Path) -> None:
    """After an update of the shipped coin model, a table's saved profile is kept (its colours
    and sizes still help) but its learned faces are not used, and the set-up page says so;
    confirming a table again learns them anew."""
    from dataclasses import replace

    from vision.enrol import CoinProfile

    db = tmp_path / "m.db"
    service = first_settled_table(db)
    service.learn_table(true_faces(service))
    path = profile_path(db)
    replace(CoinProfile.load(path), model="0" * 16).save(path)  # as if learned with an earlier model
    service.source.stop()

    again = first_settled_table(db)
    listed = again.coins_to_learn()
    assert listed["learned"] == 7 and listed["learned_outdated"]
    after = again.learn_table(true_faces(again))
    assert after["learned"] == 7 and not after["learned_outdated"]
    assert not CoinProfile.load(path).model.startswith("0000")


def test_a_throw_that_cannot_be_learned_is_not_kept(tmp_path: Path) -> None:
    """Bad input loses nothing: a frame the coin reader refuses is not kept among the examples,
    so the next good throw is still learned; nothing is written for the refused one."""
    from web.learn import TableLearner, confirmed_objects

    db = tmp_path / "m.db"
    service = first_settled_table(db)
    learner = TableLearner(profile_path(db))
    coins, dice = confirmed_objects(service.loop.latest_observation, true_faces(service))
    with pytest.raises(ValueError):
        learner.learn("not a frame", coins)
    assert learner.examples == [] and learner.profile is None and not profile_path(db).exists()
    learner.learn(service.loop.latest_read.image, coins, dice)
    assert learner.coins_learned == len(coins) == 7 and profile_path(db).is_file()
