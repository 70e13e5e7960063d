"""``referee serve --port`` refuses a body over the limit from its Content-Length, before
reading it (issue 54: a 200 MB body lifted the server to 1.33 GB), over loopback."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from tests.hardware.fakes import write_replay_game
from tests.web.test_serve_deploy import ROOT, free_port


def test_serve_refuses_an_oversized_body_before_reading_it(tmp_path: Path) -> None:
    folder = tmp_path / "game"
    write_replay_game(folder)
    port = free_port()
    command = [sys.executable, "-m", "web.cli", "serve", "--camera", f"replay:{folder}", "--read", "labels",
               "--db", str(tmp_path / "m.db"), "--port", str(port), "--host", "127.0.0.1"]
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                sock = socket.create_connection(("127.0.0.1", port), timeout=5)
                break
            except OSError:
                assert time.monotonic() < deadline, "the dashboard never answered"
                time.sleep(0.2)
        with sock:
            sock.sendall(b"POST /api/action HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                         b"Content-Length: 200000000\r\n\r\n" + b"x" * 65536)
            answer = sock.recv(4096)  # no more of the body is sent: the answer must come without it
        assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    finally:
        process.send_signal(signal.SIGTERM)
        process.communicate(timeout=20)
