"""Live updates for many tablets on the real server (waitress on loopback): the control tablet
is answered while streams are open, a stream past the limit is refused with where to poll, a
tablet that left frees its stream, and a stream ends itself so the browser reconnects."""

from __future__ import annotations

import http.client
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from tests.web.fake_service import FakeService
from web.app import create_app
from web.live import create_dashboard_server, gate_of


def shut_down(server: Any) -> None:
    """Stop a running waitress server from another thread: close every channel (its loop ends
    when none is left), then its workers."""
    deadline = time.monotonic() + 5
    while server._map and time.monotonic() < deadline:
        for channel in list(server._map.values()):
            channel.handle_close()
        time.sleep(0.05)
    server.task_dispatcher.shutdown(timeout=2)


@contextmanager
def serving(server: Any) -> Iterator[int]:
    stopping = threading.Event()

    def run() -> None:
        try:
            server.run()
        except OSError:
            # Channels closed from this thread while the server's loop sat in select(): its
            # descriptor is gone. Only an error before the shutdown is the server's.
            if not stopping.is_set():
                raise

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        yield int(server.effective_port)
    finally:
        stopping.set()
        shut_down(server)
        thread.join(5)


def open_stream(port: int) -> socket.socket:
    """An event stream as a tablet opens it, read up to its first ``state`` event."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=5)
    sock.sendall(b"GET /api/events HTTP/1.0\r\nHost: table\r\nAccept: text/event-stream\r\n\r\n")
    received = b""
    while b"event: state" not in received:
        chunk = sock.recv(65536)
        assert chunk, f"the stream closed before its first event: {received[:200]!r}"
        received += chunk
    assert received.startswith(b"HTTP/1.1 200") or received.startswith(b"HTTP/1.0 200"), received[:100]
    return sock


def timed_get(port: int, path: str) -> tuple[int, float]:
    started = time.monotonic()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=3)
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        response.read()
        return response.status, time.monotonic() - started
    finally:
        connection.close()


def read_until(sock: socket.socket, needle: bytes, seconds: float) -> bytes:
    sock.settimeout(seconds)
    received = b""
    deadline = time.monotonic() + seconds
    while needle not in received and time.monotonic() < deadline:
        try:
            chunk = sock.recv(65536)
        except TimeoutError:
            break
        if not chunk:
            break
        received += chunk
    return received


def test_the_control_tablet_is_answered_within_a_second_while_20_tablets_listen(capsys: pytest.CaptureFixture[str]) -> None:
    from web.serve_cli import _serve_dashboard

    service = FakeService()
    server = _serve_dashboard(service, "127.0.0.1", 0)  # what ``referee serve --port`` runs
    capsys.readouterr()
    streams: list[socket.socket] = []
    try:
        port = int(server.effective_port)
        for _ in range(20):
            streams.append(open_stream(port))
        for path in ("/api/state", "/", "/api/games", "/api/state", "/api/snapshot.jpg"):
            status, seconds = timed_get(port, path)
            assert status == 200 and seconds < 1.0, (path, status, seconds)
        service.act("throw 3H 4T")  # every tablet is told
        for sock in streams:
            assert b"throw 3H 4T" in read_until(sock, b"throw 3H 4T", 3.0)
    finally:
        for sock in streams:
            sock.close()
        shut_down(server)


def test_a_stream_past_the_limit_is_refused_with_where_to_poll_and_a_tablet_that_left_frees_its_place() -> None:
    app = create_app({"REFEREE_SERVICE": FakeService(), "LIVE_MAX_STREAMS": 3, "LIVE_HEARTBEAT_SECONDS": 0.1})
    with serving(create_dashboard_server(app, "127.0.0.1", 0)) as port:
        streams = [open_stream(port) for _ in range(3)]
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=3)
        connection.request("GET", "/api/events")
        refused = connection.getresponse()
        body = refused.read().decode()
        connection.close()
        assert refused.status == 503 and refused.getheader("Retry-After") == "2"
        assert "all 3 live streams are in use" in body and "/api/state" in body
        assert timed_get(port, "/api/state")[0] == 200  # polling still answers
        streams.pop().close()  # a tablet leaves without a word: the next heartbeat frees its place
        deadline = time.monotonic() + 3
        while gate_of(app).open > 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert gate_of(app).open == 2
        streams.append(open_stream(port))
        for sock in streams:
            sock.close()


def test_a_stream_ends_itself_so_the_browser_reconnects() -> None:
    app = create_app({"REFEREE_SERVICE": FakeService(), "LIVE_STREAM_SECONDS": 0.3, "LIVE_HEARTBEAT_SECONDS": 0.1})
    with serving(create_dashboard_server(app, "127.0.0.1", 0)) as port:
        sock = open_stream(port)
        started = time.monotonic()
        sock.settimeout(3)
        while sock.recv(65536):
            assert time.monotonic() - started < 3, "the stream did not end"
        sock.close()
        assert gate_of(app).open == 0
