"""Many tablets on one table: event streams open while the control tablet polls and acts.

A server like ``referee serve --port``'s (``web.live.create_dashboard_server``; a match of
Sevens refereed by hand, its log in SQLite) runs in a child process on loopback. The bench
opens ``--streams`` event streams (a tablet each, read by one selector thread), then for
``--seconds`` the control tablet, unlocked with the PIN, alternates ``GET /api/state`` with
``POST /api/undo`` / ``POST /api/redo`` (each committed to the log and published to every
stream). It prints the streams opened and refused, the updates delivered against those
published, the control requests' latency (p50, p95, max, how many took over a second) and
the server's memory (RSS now and its peak). It stops by itself; nothing leaves loopback.

    nice -n 19 .venv/bin/python -m benchmarks.load_bench [--streams 50] [--seconds 30]
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import re
import selectors
import socket
import statistics
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

PIN = "8642"


def serve(db: str, ready: Any) -> None:
    """The child process: a hand-refereed match of Sevens with one roll played, served on loopback."""
    from web.app import create_app
    from web.live import create_dashboard_server
    from web.service import TableService, create_match
    from web.store import MatchStore

    store = MatchStore(db)
    match = create_match(store, "sevens", ["Ann", "Bo"], {"sv.rounds": "3"}, None)
    match.apply(match.state.chance_outcomes()[0][0], "tablet")  # something for undo to take back
    app = create_app({"REFEREE_SERVICE": TableService(store, match), "REFEREE_PIN": PIN})
    server = create_dashboard_server(app, "127.0.0.1", 0)
    ready.send(int(server.effective_port))
    server.run()


class Streams:
    """Event streams read by one thread; counts the ``state`` events each receives."""

    def __init__(self, port: int, count: int) -> None:
        self.selector = selectors.DefaultSelector()
        self.events: dict[socket.socket, int] = {}
        self.refused = 0
        self._tails: dict[socket.socket, bytes] = {}
        self._stop = threading.Event()
        for _ in range(count):
            sock = socket.create_connection(("127.0.0.1", port), timeout=5)
            sock.sendall(b"GET /api/events HTTP/1.0\r\nHost: table\r\nAccept: text/event-stream\r\n\r\n")
            head = sock.recv(65536)
            if not re.match(rb"HTTP/1\.[01] 200 ", head):
                self.refused += 1
                sock.close()
                continue
            sock.setblocking(False)
            self.events[sock] = head.count(b"event: state")
            self._tails[sock] = head[-16:]
            self.selector.register(sock, selectors.EVENT_READ)
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        while not self._stop.is_set():
            for key, _ in self.selector.select(timeout=0.2):
                sock = key.fileobj
                assert isinstance(sock, socket.socket)
                try:
                    data = sock.recv(262144)
                except BlockingIOError:
                    continue
                if not data:
                    self.selector.unregister(sock)
                    continue
                joined = self._tails[sock] + data
                self.events[sock] += joined.count(b"event: state") - self._tails[sock].count(b"event: state")
                self._tails[sock] = joined[-16:]

    def close(self) -> None:
        """Stop reading and close every stream."""
        self._stop.set()
        self._thread.join(5)
        for sock in self.events:
            sock.close()


class ControlTablet:
    """The tablet with the PIN: one keep-alive connection, the session cookie and CSRF token."""

    def __init__(self, port: int) -> None:
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        self.cookie = ""
        self.latencies: list[float] = []
        page = self.request("GET", "/")[1]
        token = re.search(r'name="csrf-token" content="([^"]+)"', page)
        assert token, "the play page carries a CSRF token"
        self.csrf = token.group(1)
        status, body = self.request("POST", "/api/login", {"pin": PIN})
        assert status == 200, f"login refused: {status} {body[:200]}"
        self.latencies.clear()

    def request(self, method: str, path: str, body: dict[str, Any] | None = None) -> tuple[int, str]:
        """One timed request; returns its status and body."""
        headers = {"Cookie": self.cookie} if self.cookie else {}
        if method == "POST":
            headers.update({"Content-Type": "application/json", "X-CSRF-Token": getattr(self, "csrf", "")})
        started = time.perf_counter()
        self.connection.request(method, path, json.dumps(body or {}) if method == "POST" else None, headers)
        response = self.connection.getresponse()
        text = response.read().decode()
        self.latencies.append(time.perf_counter() - started)
        cookie = response.getheader("Set-Cookie")
        if cookie:
            self.cookie = cookie.split(";", 1)[0]
        return response.status, text


def rss_kib(pid: int) -> tuple[int, int]:
    """The process's resident memory now and at its peak (KiB), from /proc."""
    fields = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line)
    return int(fields["VmRSS"].split()[0]), int(fields["VmHWM"].split()[0])


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--streams", type=int, default=50, help="event streams to open (default 50, at most 200)")
    parser.add_argument("--seconds", type=float, default=30.0, help="how long the control tablet works (default 30, at most 120)")
    args = parser.parse_args()
    streams_wanted = max(0, min(args.streams, 200))
    seconds = max(1.0, min(args.seconds, 120.0))
    context = multiprocessing.get_context("spawn")
    receive, send = context.Pipe(duplex=False)
    with tempfile.TemporaryDirectory(prefix="load-bench-") as folder:
        child = context.Process(target=serve, args=(str(Path(folder) / "matches.db"), send), daemon=True)
        child.start()
        try:
            if not receive.poll(60):
                raise SystemExit("the server did not start within 60 s")
            port = int(receive.recv())
            idle_rss, _ = rss_kib(child.pid or 0)
            streams = Streams(port, streams_wanted)
            control = ControlTablet(port)
            published = 0
            end = time.monotonic() + seconds
            undo = True
            while time.monotonic() < end:
                control.request("GET", "/api/state")
                status, body = control.request("POST", "/api/undo" if undo else "/api/redo")
                assert status == 200, f"{status} {body[:200]}"
                published += 1
                undo = not undo
                time.sleep(0.05)
            time.sleep(1.0)  # the last updates reach the streams
            rss, peak = rss_kib(child.pid or 0)
            streams.close()
        finally:
            child.terminate()
            child.join(5)
    opened = len(streams.events)
    delivered = sum(count - 1 for count in streams.events.values())  # the first event is the state on opening
    latencies = control.latencies
    print(f"streams: {opened} open, {streams.refused} refused (asked {streams_wanted})")
    print(f"updates: {published} published, {delivered} delivered of {published * opened} "
          f"({delivered / max(1, published * opened):.1%})")
    print(f"control: {len(latencies)} requests in {seconds:.0f} s; p50 {statistics.median(latencies) * 1000:.1f} ms, "
          f"p95 {percentile(latencies, 0.95) * 1000:.1f} ms, max {max(latencies) * 1000:.1f} ms, "
          f"{sum(t > 1.0 for t in latencies)} over 1 s")
    print(f"server RSS: {idle_rss / 1024:.1f} MiB before the streams, {rss / 1024:.1f} MiB at the end, peak {peak / 1024:.1f} MiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
