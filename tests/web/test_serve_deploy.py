"""deploy/: the systemd unit and install script check out, and the service starts on a replay."""

from __future__ import annotations

import configparser
import json
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from tests.hardware.fakes import write_replay_game

ROOT = Path(__file__).resolve().parents[2]
UNIT = ROOT / "deploy" / "table-referee.service"
SCRIPT = ROOT / "deploy" / "install-pi.sh"


def filled_unit(tmp_path: Path, camera: str, port: int) -> Path:
    text = UNIT.read_text()
    for key, value in {"USER": "root", "REPO": str(ROOT), "DATA": str(tmp_path), "PORT": str(port), "CAMERA": camera}.items():
        text = text.replace(f"@{key}@", value)
    path = tmp_path / "table-referee.service"
    path.write_text(text)
    return path


def test_unit_file_is_valid_and_restarts_on_failure(tmp_path: Path) -> None:
    unit = filled_unit(tmp_path, "pi", 8000)
    parser = configparser.ConfigParser(strict=True, interpolation=None)
    parser.read(unit)
    assert parser["Service"]["Restart"] == "on-failure"
    assert parser["Install"]["WantedBy"] == "multi-user.target"
    assert parser["Service"]["ExecStart"].split()[1:4] == ["serve", "--camera", "pi"]
    if shutil.which("systemd-analyze"):
        done = subprocess.run(["systemd-analyze", "verify", str(unit)], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr


def test_install_script_passes_the_shell_linter_and_parses() -> None:
    assert subprocess.run(["bash", "-n", str(SCRIPT)]).returncode == 0
    if shutil.which("shellcheck"):
        done = subprocess.run(["shellcheck", str(SCRIPT)], capture_output=True, text=True)
        assert done.returncode == 0, done.stdout
    usage = subprocess.run(["bash", str(SCRIPT), "--bogus"], capture_output=True, text=True)
    assert usage.returncode == 2 and "unknown argument --bogus" in usage.stderr


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_the_unit_command_starts_the_service_on_a_replay_and_serves_the_dashboard(tmp_path: Path) -> None:
    folder = tmp_path / "game"
    write_replay_game(folder)
    port = free_port()
    parser = configparser.ConfigParser(interpolation=None)
    parser.read(filled_unit(tmp_path, f"replay:{folder}", port))
    command = parser["Service"]["ExecStart"].split()
    command[0:1] = [sys.executable, "-m", "web.cli"]
    command += ["--read", "labels", "--host", "127.0.0.1"]
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        view = None
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and view is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/state", timeout=2) as response:
                    view = json.loads(response.read())
            except OSError:
                time.sleep(0.2)
        assert view is not None, "the dashboard never answered"
        assert view["game"] == "sevens" and view["camera"] == f"replay:{folder}"
    finally:
        process.send_signal(signal.SIGTERM)
        out, err = process.communicate(timeout=20)
    assert process.returncode == 0, err
    assert "match 1 (Sevens; Ann, Bo)" in out
