"""``referee demo``: which recording a name picks, where its match log is and that it is
cleaned up, and one spelling of every game's name in the match log."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from web.cli import main
from web.demo_cli import FIXTURE_GAMES, game_folder, recorded_games

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


def test_the_demo_names_its_match_log_and_removes_it_when_stopped() -> None:
    demo = subprocess.Popen(
        [sys.executable, "-m", "web.cli", "demo", "--game", "sevens", "--port", "0", "--host", "127.0.0.1",
         "--read", "labels"],
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
