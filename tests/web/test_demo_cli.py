"""``referee demo``: which recording a name picks, where its match log is and that it is
cleaned up, one spelling of every game's name in the match log, and the recorded Pennies From
Heaven hand played on a table refereed by hand."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from web.cli import main
from web.demo_cli import FIXTURE_GAMES, game_folder, open_demo, recorded_games

ROOT = Path(__file__).resolve().parents[2]


def test_a_games_name_picks_a_recording_of_it_and_a_folders_name_that_folder() -> None:
    assert game_folder("sevens") == FIXTURE_GAMES / "sevens_sv_t1_t3"
    assert game_folder("sp_t2_tko") == FIXTURE_GAMES / "sp_t2_tko"
    for spelling in ("seven-pennies", "Seven Pennies", "seven_pennies"):
        assert recorded_games()[game_folder(spelling).name] == "seven-pennies"


def test_every_recording_names_its_game_as_the_rules_core_registers_it() -> None:
    from referee import game_names

    games = recorded_games()
    assert set(games) == {p.name for p in FIXTURE_GAMES.iterdir() if (p / "game.json").is_file()}
    assert set(games.values()) <= set(game_names())


def test_an_unknown_game_is_refused_naming_the_recordings_and_their_games() -> None:
    with pytest.raises(FileNotFoundError, match=r"no recorded game 'chess'.*sevens_sv_t1_t3 \(sevens\)"):
        game_folder("chess")


def test_the_demo_refuses_an_unknown_game_with_status_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--game", "chess", "--port", "0"]) == 2
    assert "no recorded game 'chess'" in capsys.readouterr().err


@pytest.mark.parametrize("how", [["--game", "sevens", "--read", "labels"], ["--game", "pennies-from-heaven", "--auto"]])
def test_the_demo_names_its_match_log_and_removes_it_when_stopped(how: list[str]) -> None:
    demo = subprocess.Popen(
        [sys.executable, "-m", "web.cli", "demo", *how, "--port", "0", "--host", "127.0.0.1"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert demo.stdout is not None
        deadline = time.monotonic() + 60
        log = None
        while log is None and time.monotonic() < deadline:
            line = demo.stdout.readline()
            if not line:
                break
            found = re.match(r"Match log: (\S+), removed when the demo stops", line)
            log = Path(found.group(1).rstrip(",")) if found else None
        assert log is not None, "the demo never named its match log"
        assert log.is_file() and log.name == "matches.db"
    finally:
        demo.send_signal(signal.SIGTERM)
        _, err = demo.communicate(timeout=30)
    assert demo.returncode == 0, err
    assert not log.parent.exists()


def test_a_match_of_a_recording_spelt_the_old_way_is_logged_under_the_registered_name(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from web.bootstrap import open_table

    db = tmp_path / "m.db"
    service = open_table(f"replay:{FIXTURE_GAMES / 'sp_t1'}", str(db), new=True, realtime=False, read="labels",
                         game="seven_pennies", players=["Jess", "Kevin"])
    service.store.close()
    assert main(["matches", "list", "--db", str(db)]) == 0
    listed = capsys.readouterr().out
    assert "seven-pennies" in listed and "seven_pennies" not in listed


PH_HAND = FIXTURE_GAMES / "ph_hand1"


def _recorded_hand() -> dict[str, Any]:
    recorded: dict[str, Any] = json.loads((PH_HAND / "game.json").read_text())
    return recorded


def _settled(service: Any, seconds: float = 5.0) -> list[str]:
    """The hand's actions once the demo has stopped entering any for a moment."""
    deadline = time.monotonic() + seconds
    played = service.hand.played(service)
    while time.monotonic() < deadline:
        time.sleep(0.3)
        again = service.hand.played(service)
        if again == played:
            break
        played = again
    return list(played)


def test_pennies_from_heaven_has_a_recorded_hand_found_by_the_games_name() -> None:
    assert game_folder("pennies-from-heaven") == PH_HAND
    assert game_folder("Pennies From Heaven") == PH_HAND
    assert recorded_games()["ph_hand1"] == "pennies-from-heaven"


def test_the_recorded_hand_is_a_whole_legal_hand_as_its_generator_plays_it() -> None:
    """PH-1.2: the fixture is what tools/record_ph_hand.py plays from its seed, to the hand's score."""
    from tools.record_ph_hand import record_hand

    recorded = _recorded_hand()
    assert record_hand(recorded["seed"]) | {"name": recorded["name"]} == recorded
    assert recorded["final"]["hands_scored"] == 1 and len(recorded["actions"]) > 100


def test_the_auto_demo_plays_the_recorded_hand_to_its_recorded_scores(tmp_path: Path) -> None:
    """PH-11: entered by the demo itself, the hand ends scored as recorded, with no camera."""
    recorded = _recorded_hand()
    service = open_demo("pennies-from-heaven", str(tmp_path / "m.db"), auto=True, realtime=False)
    assert service.source is None and service.loop is None
    service.start()
    try:
        assert service.wait(120), "the recorded hand never ended"
        assert service.hand.played(service) == [step["action"] for step in recorded["actions"]]
        assert service.match.state.scores() == recorded["final"]["scores"]
        assert len(service.match.state.score_sheet()) == 1
        assert service.view()["title"] == "Pennies From Heaven"
        assert service.view()["status"] == "Recorded hand finished"
    finally:
        service.stop()
        service.store.close()


def test_without_auto_the_demo_enters_the_tables_steps_and_waits_for_the_players(tmp_path: Path) -> None:
    """The deal's confirmation and every decision are the players' taps; the table's steps
    (upcard, red threes: PH-5.1, PH-6.1) are entered for them; off the recording, the hand is theirs."""
    actions = _recorded_hand()["actions"]
    service = open_demo("pennies-from-heaven", str(tmp_path / "m.db"), realtime=False)
    service.start()
    try:
        assert actions[0]["player"] != "table"
        assert _settled(service, 1.0) == [], "the demo took the dealer's decision itself"
        assert service.view()["status"].startswith(f"Recorded next: {actions[0]['player']}: dealer perfect")
        service.act(actions[0]["action"])
        decision = next(n for n, step in enumerate(actions) if n > 0 and step["player"] != "table")
        assert _settled(service) == [step["action"] for step in actions[:decision]]
        assert service.match.state.current_player() == service.match.state.game.players.index(actions[decision]["player"])
        service.act("draw")  # not what was recorded here
        assert actions[decision]["action"] != "draw"
        assert _settled(service, 1.0) == [step["action"] for step in actions[:decision]] + ["draw"]
        assert service.view()["status"] == "Off the recorded hand: enter the table's cards by hand"
    finally:
        service.stop()
        service.store.close()


def test_a_recorded_hand_without_a_list_of_actions_is_refused_naming_it(tmp_path: Path) -> None:
    from web.recorded_hand import open_hand

    recorded = _recorded_hand() | {"actions": [{"action": "draw"}]}
    with pytest.raises(ValueError, match="recorded hand 'ph_hand1': 'actions' must be a list of {player, action}"):
        open_hand(recorded, str(tmp_path / "m.db"))


def test_the_hands_table_has_no_camera_stream_to_wait_for(tmp_path: Path) -> None:
    """Without a camera the stream answers at once (404), so the dashboard's page finishes loading."""
    from web.app import create_app

    service = open_demo("pennies-from-heaven", str(tmp_path / "m.db"), realtime=False)
    try:
        client = create_app({"REFEREE_SERVICE": service, "REFEREE_PIN": "1234", "TESTING": True}).test_client()
        response = client.get("/stream.mjpg")
        assert response.status_code == 404 and b"no camera" in response.data
        assert client.get("/api/state").get_json()["title"] == "Pennies From Heaven"
    finally:
        service.stop()
        service.store.close()
