"""TableService: view, tablet actions, undo/redo, answers, updates after commit, pictures, restart."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import cv2
import numpy as np
import pytest

from referee import CHANCE
from referee.errors import ConfigError, IllegalActionError, InvalidActionError
from tests.hardware.fakes import FakeSource, SceneReader, SceneSettle, write_replay_game
from tests.web.test_loop import SCENES, frames
from web.bootstrap import open_table
from web.service import TableService, create_match
from web.store import MatchStore


def service_with(tmp_path: Path, items: list[object]) -> TableService:
    store = MatchStore(tmp_path / "m.db")
    match = create_match(store, "sevens", ["Ann", "Bo"], {"sv.rounds": "1"})
    return TableService(store, match, FakeSource(items), settle=SceneSettle, read=SceneReader(SCENES))


def test_view_act_undo_redo_and_updates_only_after_commit(tmp_path: Path) -> None:
    service = service_with(tmp_path, frames(1, 2, 3))
    updates = service.subscribe()
    seen_in_db: list[int] = []
    db = sqlite3.connect(tmp_path / "m.db", check_same_thread=False)

    def check(result: object) -> None:
        # When the service tells anyone, the event is already on disk.
        seen_in_db.append(db.execute("SELECT COUNT(*) FROM events").fetchone()[0])

    service.on_result = check
    service.start()
    assert service.wait(10)
    assert seen_in_db == [1, 2, 3]
    view = service.view()
    assert view["awaiting_chance"] is False and view["to_act"] == "Ann"
    assert [o["action"] for o in view["options"]] == ["keep", "reroll"]
    assert view["loop"]["state"] == "finished" and view["loop"]["settles"] == 3
    assert updates.qsize() >= 3 and updates.get_nowait()["history"] == ["roll 6 6 6 6 6 6"]

    assert service.act("keep")["scores"]["Ann"] == 5
    with pytest.raises(IllegalActionError):
        service.act("keep")
    with pytest.raises(InvalidActionError):
        service.act("dance")
    assert service.undo()["can_redo"] is True
    assert service.redo()["scores"]["Ann"] == 5
    service.stop()


def test_questions_are_answered_through_the_service(tmp_path: Path) -> None:
    service = service_with(tmp_path, frames(1, 2, 3))
    service.start()
    service.wait(10)
    service.act("keep")
    assert service.loop is not None
    service.loop.source = FakeSource(frames(5), prefix="g")
    service.loop.source.start()
    service.loop.step(), service.loop.step(), service.loop.step(), service.loop.step()
    question = service.view()["question"]
    assert question["choices"][0] == "1" and question["crop_url"].startswith("/api/crop/")
    with pytest.raises(IllegalActionError, match="not waiting"):
        service.answer(question["id"] + 1, "5")
    with pytest.raises(InvalidActionError, match="not one of"):
        service.answer(str(question["id"]), "seven")
    view = service.answer(str(question["id"]), "5")
    assert view["question"] is None and view["history"][-1] == "roll 2 2 5 5 5 6"


def test_pictures_with_and_without_overlay(tmp_path: Path) -> None:
    service = service_with(tmp_path, frames(1))
    assert service.latest_jpeg() == b""
    service.start()
    service.wait(10)
    plain = cv2.imdecode(np.frombuffer(service.latest_jpeg(overlay=False), np.uint8), cv2.IMREAD_COLOR)
    assert plain.shape == (12, 16, 3)
    assert service.latest_jpeg(overlay=True) != service.latest_jpeg(overlay=False)
    assert service.crop_jpeg(0) and service.crop_jpeg(99) == b"" and service.crop_jpeg([0, 99]) == b""
    one = cv2.imdecode(np.frombuffer(service.crop_jpeg([0]), np.uint8), cv2.IMREAD_COLOR)
    several = cv2.imdecode(np.frombuffer(service.crop_jpeg([0, 1]), np.uint8), cv2.IMREAD_COLOR)
    assert several.shape[1] >= one.shape[1]  # the picture holds every object asked about


def test_the_read_is_shown_on_the_frame_it_was_read_from(tmp_path: Path) -> None:
    """After a settled read the players move things: the question's picture and the overlay
    show the frame that was read, the live picture shows the table now."""
    from tests.hardware.fakes import scene

    service = service_with(tmp_path, [*frames(1), scene(0), scene(0)])
    service.start()
    service.wait(10)
    assert service.loop is not None and service.loop.latest_read is not None
    live = cv2.imdecode(np.frombuffer(service.latest_jpeg(overlay=False), np.uint8), cv2.IMREAD_GRAYSCALE)
    crop = cv2.imdecode(np.frombuffer(service.crop_jpeg(0), np.uint8), cv2.IMREAD_GRAYSCALE)
    assert abs(float(live.mean()) - 0.0) < 0.5  # scene 0: the table after the read
    assert abs(float(crop.mean()) - 1.0) < 0.5  # scene 1: the table as it was read
    assert int(service.loop.latest_read.image[0, 0, 0]) == 1


def test_forced_moves_the_camera_saw_made_are_shown_done(tmp_path: Path) -> None:
    """SP-T1: after 3H 4T the pairs must go to the Balcony (SP-3.2); once a settled table shows
    them there, the view marks that move done until the next action."""
    games = Path(__file__).resolve().parents[2] / "fixtures" / "games"
    service = open_table(f"replay:{games / 'sp_t1'}", str(tmp_path / "m.db"), realtime=False, read="labels")
    assert service.loop is not None and service.source is not None
    moves: list[dict] = []
    with service.source:
        while not any(m["done"] for m in moves):
            result = service.loop.step()
            if result is not None and result.kind not in ("chance", "confirmed"):
                raise AssertionError(result.text)
            moves = service.view()["forced_moves"]
    done = [m["text"] for m in moves if m["done"]]
    assert done == ["Move 3 heads and 3 tails from the Theatre to the Balcony (SP-3.2)"]
    service.act("gather")
    assert not any(m["done"] for m in service.view()["forced_moves"])


def watch_and_tap(service: TableService, decision: str, scenes: dict) -> list[tuple[str, bool]]:
    """Run the camera's loop as ``serve`` does (its state ``running``) and tap ``decision``
    after every frame at which a player is to act: what each tap got, and whether the table
    could then be confirmed by hand (it is, when it can). Stops once the decision is taken."""
    assert service.loop is not None
    service.loop.read = SceneReader(scenes)
    taps: list[tuple[str, bool]] = []
    stop = threading.Event()

    def tap() -> None:
        view = service.view()
        if view["awaiting_chance"]:
            return
        try:
            service.act(decision)
        except IllegalActionError as error:
            taps.append((str(error), view["can_confirm_table"]))
            if view["can_confirm_table"]:
                service.confirm_table()
            return
        taps.append(("taken", view["can_confirm_table"]))
        stop.set()

    service.loop.source.start()
    service.loop.run(stop, after_step=tap)
    return taps


def test_a_decision_waits_until_the_camera_sees_the_forced_moves_made(tmp_path: Path) -> None:
    """G-2, SV-4.2: after the roll 1 2 4 6 3 3 the pairs 1+6 and 4+3 go aside. A decision tapped
    before the camera has seen them aside is refused (taken, the table after the moves would be
    read as the next roll); once it has (scene 4), the decision is taken."""
    service = service_with(tmp_path, frames(1, 2, 3, 4))
    taps = watch_and_tap(service, "keep", SCENES)
    *refused, taken = taps
    assert refused and all(text.startswith("G-2") and "SV-4.2" in text and not can for text, can in refused)
    assert service.match.state.current_player() == CHANCE  # Bo throws next: why Ann's keep waited
    assert taken == ("taken", False)
    assert service.match.state.scores()["Ann"] == 5  # the 2 and the 3 left (SV-4.4)


def test_the_players_may_say_the_table_is_right_when_the_camera_disagrees(tmp_path: Path) -> None:
    """G-2: scene 7 shows the roll untouched (a discrepancy: the pairs not aside). The players
    say the table is right on the tablet: the moves are logged as made by their word, and the
    decision is taken."""
    scenes = {**SCENES, 7: SCENES[3]}
    service = service_with(tmp_path, frames(1, 2, 3, 7, 4))
    with pytest.raises(IllegalActionError, match="no forced move"):
        service.confirm_table()
    taps = watch_and_tap(service, "keep", scenes)
    *refused, taken = taps
    assert taken == ("taken", False) and any(can for _, can in refused)
    by_hand = [e for e in service.match.events if e.actor == "tablet" and e.kind == "ruling"]
    assert len(by_hand) == 1 and by_hand[0].detail["by_hand"] is True and by_hand[0].detail["moves"]
    assert service.match.state.scores()["Ann"] == 5


def test_moves_of_objects_the_camera_does_not_read_do_not_wait_for_it(tmp_path: Path) -> None:
    """G-2, G-6: Pennies From Heaven's cards are entered by hand, not read: after a draw (PH-7.1)
    the next decision is taken at once although the camera watches."""
    store = MatchStore(tmp_path / "m.db")
    match = create_match(store, "pennies-from-heaven", ["N", "E", "S", "W"], {})
    service = TableService(store, match, FakeSource([]), settle=SceneSettle, read=SceneReader({}))
    assert service.loop is not None
    service.loop.status.state = "running"  # the camera watches, as ``serve``'s thread does
    for action in ["designate W", "dealt no no", "upcard 9C", *["red-threes none"] * 4, "draw"]:
        service.act(action)
    assert "PH-7.1" in service.view()["forced_moves"][0]["text"] and service.moves_awaited() == []
    service.act("red-threes none")


def test_a_decision_no_throw_follows_does_not_wait_for_the_camera(tmp_path: Path) -> None:
    """G-2, PW-4.1: in Pennywise no throw follows a decision, so the camera's next look checks
    the last turn's coins with the rest of the table: B's decision is taken although the
    camera has not yet seen A's penny put in (players often move the coins before tapping)."""
    store = MatchStore(tmp_path / "m.db")
    match = create_match(store, "pennywise", ["A", "B"], {}, first="A")
    service = TableService(store, match, FakeSource([]), settle=SceneSettle, read=SceneReader({}))
    assert service.loop is not None
    service.loop.status.state = "running"  # the camera watches, as ``serve``'s thread does
    service.act("put 1")
    assert service.moves_awaited() and "PW-4.1" in service.moves_awaited()[0]
    view = service.view()
    assert view["options"] and not any(o["waits_for_camera"] for o in view["options"]) and not view["moves_awaited"]
    # The camera sees B's nickel put in before the tap: a discrepancy, but no decision waits on
    # it, so the players are not asked to vouch for the table.
    match.record("ruling", "1 nickel in the centre should be in B's stash", "camera", "f1",
                 {"ruling": "discrepancy", "problems": [], "rethrow": False})
    assert service.view()["discrepancy"] and service.view()["can_confirm_table"] is False
    service.act("put 5 take 1")


def test_without_a_watching_camera_decisions_are_taken_at_once(tmp_path: Path) -> None:
    """A replay that has ended (or a camera lost) leaves the players to go on by hand."""
    service = service_with(tmp_path, frames(1, 2, 3))
    service.start()
    assert service.wait(10)
    view = service.view()
    assert view["forced_moves"] and view["moves_awaited"] is False
    assert service.act("keep")["scores"]["Ann"] == 5


def test_new_match_abandons_the_old_one(tmp_path: Path) -> None:
    service = service_with(tmp_path, [])
    old = service.match.id
    view = service.new_match("sevens", ["Cy", "Di", "Ed"], {"sv.rounds": "2"})
    assert view["players"] == ["Cy", "Di", "Ed"] and view["match"] != old
    assert service.store.info(old).status == "abandoned"
    with pytest.raises(ConfigError):
        service.new_match("sevens", ["Cy"], {"sv.rounds": "2"})


def test_open_table_resumes_the_match_in_play(tmp_path: Path) -> None:
    folder = tmp_path / "game"
    write_replay_game(folder)
    first = open_table(f"replay:{folder}", str(tmp_path / "m.db"), realtime=False, read="labels")
    assert first.loop is not None
    first.loop.source.start()
    for _ in range(16):
        first.loop.step()
    first.store.close()
    again = open_table(f"replay:{folder}", str(tmp_path / "m.db"), realtime=False, read="labels")
    assert again.match.id == first.match.id and again.match.state == first.match.state
    again.start()
    again.wait(10)
    assert again.view()["winners"] == ["Bo"]
    assert [e.frame_id for e in again.match.events if e.actor == "camera"] == ["0006", "0015", "0024", "0033", "0033"]
    with pytest.raises(ConfigError, match="no match to resume"):
        open_table("webcam:7", str(tmp_path / "other.db"))


def recording_to_bos_roll(tmp_path: Path, unsure_dice: bool = False) -> TableService:
    """The synthetic Sevens replay served with a recorder, read by its own labels, stepped to
    Bo's roll (frame 0033) after Ann keeps; with ``unsure_dice`` every die of that roll is read
    unsurely (each still naming its face)."""
    from dataclasses import replace

    import web.service as service_module

    folder = tmp_path / "game"
    write_replay_game(folder)
    service = open_table(f"replay:{folder}", str(tmp_path / "m.db"), realtime=False, read="vision",
                         record=str(tmp_path / "rec"))
    # Stand in for vision with the recording's own labels (the reader is what is swapped here).
    assert service.loop is not None and service.recorder is not None
    replay = service.recorder.source
    by_labels = service_module.LabelReader(replay)

    def read(image: np.ndarray) -> object:
        observation = by_labels(image)
        if unsure_dice and replay.frames[replay.position - 1].frame_id == "0033":
            observation = replace(observation, objects=tuple(replace(o, confidence=0.5) for o in observation.objects))
        return observation

    service.loop.read = read
    service.recorder.start()
    for _ in range(27):  # through Ann's roll (frame 0024) and two more frames
        service.loop.step()
    service.act("keep")
    for _ in range(9):  # Bo's roll, with one unsure die
        service.loop.step()
    return service


def recorded(tmp_path: Path) -> tuple[dict, dict]:
    import json

    data = json.loads((tmp_path / "rec" / "game.json").read_text())
    return data, {f["id"]: f["labels"] for f in data["frames"] if "labels" in f}


def test_serving_with_a_recorder_labels_the_confirmed_reads(tmp_path: Path) -> None:
    service = recording_to_bos_roll(tmp_path)
    question = service.view()["question"]
    service.answer(question["id"], "2")
    service.stop()
    data, labelled = recorded(tmp_path)
    assert sorted(labelled) == ["0006", "0015", "0024", "0033"]
    assert [obj["value"] for obj in labelled["0033"]] == [2] * 6  # the players' answer is the label
    assert data["decisions"] == [{"action": "keep", "after_frame": "0026"}]
    assert [r["kind"] for r in data["rulings"]] == ["chance", "chance", "chance", "question", "chance"]


def test_a_throw_confirmed_as_read_is_labelled_with_the_read_faces(tmp_path: Path) -> None:
    """SV-4.1: Bo's six dice all read unsurely are one question; "yes" applies the roll and the
    recording labels each die with its read face, now certain."""
    service = recording_to_bos_roll(tmp_path, unsure_dice=True)
    question = service.view()["question"]
    assert question["choices"] == ["yes", "no, one by one"] and len(question["refs"]) == 6
    assert service.answer(question["id"], "yes")["history"][-1] == "roll 2 2 2 2 2 2"
    service.stop()
    _, labelled = recorded(tmp_path)
    assert [(obj["value"], obj["confidence"]) for obj in labelled["0033"]] == [(2, 1.0)] * 6
