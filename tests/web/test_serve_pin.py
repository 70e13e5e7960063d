"""``referee serve --port`` on a live camera needs a control PIN of its own (issue 54): the
demo's 1234, printed in the README, guards only replays."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.web.fake_service import FakeService
from web.auth import serve_pin
from web.cli import main
from web.serve_cli import _serve_dashboard


def test_a_live_camera_needs_a_pin_of_its_own() -> None:
    for camera in ("pi", "webcam", "webcam:1"):
        with pytest.raises(ValueError, match="needs a control PIN of your own.*--pin PIN or set REFEREE_PIN"):
            serve_pin(None, None, camera)
        with pytest.raises(ValueError, match="the demo's 1234 is public"):
            serve_pin("1234", None, camera)
    assert serve_pin("8642", None, "pi") == "8642"
    assert serve_pin(None, "97531", "pi") == "97531", "the environment's PIN (the unit's pin.env)"
    assert serve_pin("8642", "97531", "pi") == "8642", "--pin wins"
    with pytest.raises(ValueError, match="4 to 64 characters"):
        serve_pin("12", None, "pi")


def test_a_replay_may_keep_the_apps_own_pin() -> None:
    """None: the app's default (the demo's 1234, or the instance config's REFEREE_PIN)."""
    assert serve_pin(None, None, "replay:fixtures/games/sp_t1") is None
    assert serve_pin(None, "", "replay:x") is None
    assert serve_pin("1234", None, "replay:x") == "1234"
    assert serve_pin("8642", None, "replay:x") == "8642"


def test_serve_refuses_to_start_a_live_dashboard_without_a_pin(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("REFEREE_PIN", raising=False)
    assert main(["serve", "--camera", "webcam:7", "--port", "8123", "--db", str(tmp_path / "m.db")]) == 2
    assert "needs a control PIN of your own" in capsys.readouterr().err
    assert not (tmp_path / "m.db").exists(), "refused before the match log or the camera is opened"


class FakeServer:
    """Stands in for waitress's server: keeps the app it was given, serves nothing."""

    def __init__(self, app: Any, **_: Any) -> None:
        self.app = app

    def run(self) -> None:
        pass

    def close(self) -> None:
        pass


def test_the_served_dashboard_is_guarded_by_the_pin_given(monkeypatch: pytest.MonkeyPatch) -> None:
    import waitress.server  # type: ignore[import-untyped]

    monkeypatch.setattr(waitress.server, "create_server", FakeServer)
    server = _serve_dashboard(FakeService(), "127.0.0.1", 8123, "8642")
    assert server.app.config["REFEREE_PIN"] == "8642"


def test_the_pin_may_come_from_the_config_file_after_pin_and_environment() -> None:
    assert serve_pin(None, None, "pi", configured="97531") == "97531", "the config file's PIN"
    assert serve_pin(None, "8642", "pi", configured="97531") == "8642", "$REFEREE_PIN wins over the file"
    assert serve_pin("2468", "8642", "pi", configured="97531") == "2468", "--pin wins over both"
    with pytest.raises(ValueError, match="the demo's 1234 is public"):
        serve_pin(None, None, "webcam", configured="1234")
    with pytest.raises(ValueError, match="4 to 64 characters"):
        serve_pin(None, None, "pi", configured="12")


def test_the_config_files_pin_is_read_as_the_dashboard_reads_it(tmp_path: Path) -> None:
    from web.serve_cli import config_file, configured_pin

    assert config_file().name == "referee.cfg"
    assert configured_pin(tmp_path / "referee.cfg") is None, "no file: no PIN"
    (tmp_path / "referee.cfg").write_text('STREAM_FPS = 2.0\n')
    assert configured_pin(tmp_path / "referee.cfg") is None, "a file without a PIN"
    (tmp_path / "referee.cfg").write_text('REFEREE_PIN = "97531"\n')
    assert configured_pin(tmp_path / "referee.cfg") == "97531"
    (tmp_path / "referee.cfg").write_text('REFEREE_PIN = 97531\n')
    with pytest.raises(ValueError, match=r"REFEREE_PIN in .*referee\.cfg must be a string in quotes"):
        configured_pin(tmp_path / "referee.cfg")
    (tmp_path / "referee.cfg").write_text('REFEREE_PIN = "97531\n')
    with pytest.raises(ValueError, match=r"the config file .*referee\.cfg cannot be read: SyntaxError"):
        configured_pin(tmp_path / "referee.cfg")


def test_serve_names_the_three_ways_to_give_a_live_camera_its_pin(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("REFEREE_PIN", raising=False)
    cfg = tmp_path / "instance" / "referee.cfg"
    monkeypatch.setattr("web.serve_cli.config_file", lambda: cfg)
    assert main(["serve", "--camera", "pi", "--port", "8123", "--db", str(tmp_path / "m.db")]) == 2
    error = capsys.readouterr().err
    assert "--pin PIN" in error and "set REFEREE_PIN in the environment" in error
    assert f"in the config file {cfg}" in error
    assert not (tmp_path / "m.db").exists()


def test_serve_takes_a_live_cameras_pin_from_the_config_file(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    from hardware.frames import CameraError

    monkeypatch.delenv("REFEREE_PIN", raising=False)
    cfg = tmp_path / "referee.cfg"
    cfg.write_text('REFEREE_PIN = "97531"\n')
    monkeypatch.setattr("web.serve_cli.config_file", lambda: cfg)
    opened: list[str] = []

    def open_table(camera: str, *_: Any, **__: Any) -> Any:
        opened.append(camera)
        raise CameraError(f"no camera {camera} on this machine")

    monkeypatch.setattr("web.bootstrap.open_table", open_table)
    assert main(["serve", "--camera", "webcam:7", "--port", "8123", "--db", str(tmp_path / "m.db")]) == 2
    assert opened == ["webcam:7"], "past the PIN check: the table was opened"
    error = capsys.readouterr().err
    assert "no camera webcam:7" in error and "control PIN" not in error
