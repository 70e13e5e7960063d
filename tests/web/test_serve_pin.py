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
