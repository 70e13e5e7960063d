"""``referee serve`` end to end on a recorded game, and surviving SIGKILL at random points."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.hardware.fakes import write_replay_game
from web.cli import main

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    folder = tmp_path_factory.mktemp("replay") / "sevens"
    return folder, write_replay_game(folder)


def serve_command(folder: Path, db: Path) -> list[str]:
    return [sys.executable, "-m", "web.cli", "serve", "--camera", f"replay:{folder}", "--fast",
            "--read", "labels", "--db", str(db), "--json"]


def test_serve_referees_a_recorded_game_to_the_expected_scores(recorded: tuple[Path, dict], tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    folder, game = recorded
    db = tmp_path / "m.db"
    assert main(["serve", "--camera", f"replay:{folder}", "--fast", "--read", "labels", "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert "[0024] chance: roll 1 2 3 3 4 6" in out and "? What does this d6 show?" in out
    assert "Game over. Winners: Bo" in out
    assert main(["matches", "list", "--db", str(db)]) == 0
    assert "sevens" in capsys.readouterr().out
    assert main(["matches", "export", "1", "--db", str(db)]) == 0
    exported = json.loads(capsys.readouterr().out)
    assert exported["state"]["view"]["scores"] == game["expected"]["scores"]
    assert exported["match"]["status"] == "over"
    # Camera events name the frame that justified them.
    assert [e["frame"] for e in exported["events"] if e["actor"] == "camera"] == ["0006", "0015", "0024", "0033", "0033"]


def test_serve_names_bad_arguments(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--camera", "usb", "--db", str(tmp_path / "m.db")]) == 2
    assert "--camera must be pi, webcam, webcam:N or replay:PATH" in capsys.readouterr().err
    assert main(["serve", "--camera", f"replay:{tmp_path}", "--db", str(tmp_path / "m.db")]) == 2
    assert "game.json is missing" in capsys.readouterr().err
    assert main(["matches", "show", "--db", str(tmp_path / "none.db")]) == 2


def run_to_end(command: list[str]) -> dict:
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=60, check=True)
    result: dict = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_killed_at_random_points_and_restarted_ends_like_an_uninterrupted_run(recorded: tuple[Path, dict], tmp_path: Path) -> None:
    folder, game = recorded
    started = time.monotonic()
    reference = run_to_end(serve_command(folder, tmp_path / "reference.db"))
    duration = time.monotonic() - started
    assert reference["scores"] == game["expected"]["scores"] and reference["winners"] == ["Bo"]
    rng = random.Random(7)
    deadline = time.monotonic() + 75
    for trial in range(20):
        db = tmp_path / f"killed{trial}.db"
        command = serve_command(folder, db)
        process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.1, duration))
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
        resumed = run_to_end(command)
        assert resumed["log"] == reference["log"], f"trial {trial}"
        assert resumed["events"] == reference["events"], f"trial {trial}"
        assert resumed["scores"] == reference["scores"] and resumed["terminal"]
        assert time.monotonic() < deadline, f"only {trial + 1} trials fitted in the time"


def test_record_turns_a_replay_into_a_new_replayable_game(recorded: tuple[Path, dict], tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    folder, game = recorded
    out = tmp_path / "new"
    assert main(["record", "--camera", f"replay:{folder}", str(out), "--game", "sevens", "--players", "Ann,Bo"]) == 0
    assert f"recorded {len(game['frames'])} frames" in capsys.readouterr().out
    written = json.loads((out / "game.json").read_text())
    assert written["game"] == "sevens" and [f["id"] for f in written["frames"]] == [f["id"] for f in game["frames"]]
    assert main(["record", "--camera", f"replay:{folder}", str(out)]) == 2
    assert "already holds a recording" in capsys.readouterr().err
