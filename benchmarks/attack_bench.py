"""Attacks on the dashboard, measured in-process (nothing leaves the machine).

``fuzz``: every route fuzzed (``tests/web/route_fuzz.py``: malformed bodies, CSRF tokens of
any bytes, wrong methods, odd paths and queries) against a real service replaying SP-T1 up
to its first settled table; prints the requests sent and the answers by class and status.

``guess``: an attacker tries all 10,000 four-digit PINs through ``POST /api/login`` as fast as
the throttle lets it (waiting exactly each Retry-After, on a simulated clock), from one address
and from many addresses in turn; prints the time the whole PIN space takes (the table's PIN
is left out, so that every PIN is tried).

``body``: the dashboard as ``referee serve --port`` serves it (waitress, on 127.0.0.1) is sent
bodies of 64 MB and 200 MB (``--megabytes``) to ``POST /api/action``, 1 MB at a time; prints
the answer, how much of the body was sent before it came, and this process's peak resident
memory while it lasted.

    nice -n 19 .venv/bin/python -m benchmarks.attack_bench fuzz
    nice -n 19 .venv/bin/python -m benchmarks.attack_bench guess [--addresses 1 256]
    nice -n 19 .venv/bin/python -m benchmarks.attack_bench body [--megabytes 64 200]
"""

from __future__ import annotations

import argparse
import re
import select
import socket
import tempfile
import threading
import time
from pathlib import Path

from flask import Flask

from tests.web.fake_service import FakeService
from tests.web.route_fuzz import fuzz_requests, send_all
from web.app import create_app
from web.bootstrap import open_table
from web.throttle import ThrottlePolicy

GAMES = Path(__file__).resolve().parents[1] / "fixtures" / "games"
TABLE_PIN = "99999"


def csrf_of(app: Flask, address: str = "127.0.0.1") -> tuple[object, str]:
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = address
    page = client.get("/").get_data(as_text=True)
    found = re.search(r'name="csrf-token" content="([^"]+)"', page)
    assert found, "the play page carries a CSRF token"
    return client, found.group(1)


def run_fuzz() -> None:
    with tempfile.TemporaryDirectory() as folder:
        service = open_table(f"replay:{GAMES / 'sp_t1'}", str(Path(folder) / "fuzz.db"), realtime=False, read="vision")
        assert service.loop is not None and service.source is not None
        service.source.start()
        while service.loop.latest_read is None:
            service.loop.step()
        app = create_app({"REFEREE_SERVICE": service, "REFEREE_PIN": "2468", "STREAM_FPS": 1000.0,
                          "REFEREE_PIN_THROTTLE": ThrottlePolicy(free_failures=10**9), "PROPAGATE_EXCEPTIONS": False})
        client, csrf = csrf_of(app)
        client.post("/api/login", json={"pin": "2468"}, headers={"X-CSRF-Token": csrf})  # type: ignore[attr-defined]
        requests = fuzz_requests(app)
        start = time.perf_counter()
        result = send_all(client, csrf, requests)  # type: ignore[arg-type]
        seconds = time.perf_counter() - start
    routes = {rule.rule for rule in app.url_map.iter_rules()}
    print(f"fuzz: {result.sent} requests over {len(routes)} routes in {seconds:.1f} s")
    print("by class: " + ", ".join(f"{name} {count}" for name, count in sorted(result.by_class.items())))
    print("by status: " + ", ".join(f"{code} {count}" for code, count in sorted(result.by_status.items())))
    for line in result.server_errors[:20]:
        print(f"  5xx: {line}")


class SimulatedClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def run_guess(addresses: int) -> None:
    clock = SimulatedClock()
    app = create_app({"REFEREE_SERVICE": FakeService(), "REFEREE_PIN": TABLE_PIN, "REFEREE_CLOCK": clock})
    clients = [csrf_of(app, f"10.{n // 65536}.{n // 256 % 256}.{n % 256}") for n in range(addresses)]
    tried = refused = 0
    for pin in range(10_000):
        while True:
            client, csrf = clients[(tried + refused) % addresses]
            response = client.post("/api/login", json={"pin": f"{pin:04d}"}, headers={"X-CSRF-Token": csrf})  # type: ignore[attr-defined]
            if response.status_code != 429:
                assert response.status_code == 403, response.get_data(as_text=True)
                tried += 1
                break
            refused += 1
            clock.now += float(response.headers["Retry-After"])
    hours = clock.now / 3600.0
    print(f"guess: {addresses} address(es), {tried} PINs tried, {refused} tries refused (429); "
          f"all 10,000 take {clock.now:,.0f} s = {hours:,.1f} h = {hours / 24:,.1f} days (half that on average to find one)")


def resident_mb() -> float:
    """This process's resident memory now, in MB (Linux)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024.0
    return float("nan")


def unlock(port: int) -> tuple[str, str]:
    """The control tablet: load the page, unlock with the demo PIN; returns its cookie and CSRF token."""
    import http.client

    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request("GET", "/")
    page = connection.getresponse()
    cookie = (page.getheader("Set-Cookie") or "").split(";", 1)[0]
    found = re.search(r'name="csrf-token" content="([^"]+)"', page.read().decode())
    assert found and cookie, "the play page sets a session and carries a CSRF token"
    connection.request("POST", "/api/login", body=b'{"pin": "1234"}',
                       headers={"Content-Type": "application/json", "Cookie": cookie, "X-CSRF-Token": found.group(1)})
    login = connection.getresponse()
    login.read()
    assert login.status == 200, login.status
    cookie = (login.getheader("Set-Cookie") or cookie).split(";", 1)[0]
    connection.close()
    return cookie, found.group(1)


def send_body(port: int, megabytes: int, cookie: str, csrf: str) -> tuple[str, int]:
    """POST ``megabytes`` MB to /api/action as the control tablet; returns the status line and
    about how many MB were sent before it came."""
    chunk = b"x" * (1024 * 1024)
    sent = 0
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(f"POST /api/action HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                     f"Cookie: {cookie}\r\nX-CSRF-Token: {csrf}\r\n"
                     f"Content-Length: {megabytes * len(chunk)}\r\nConnection: close\r\n\r\n".encode())
        sock.setblocking(False)
        answer = b""
        left = megabytes * len(chunk)
        deadline = time.monotonic() + 60
        while b"\r\n" not in answer and time.monotonic() < deadline:
            readable, writable, _ = select.select([sock], [sock] if left else [], [], 0.05)
            if readable:
                try:
                    data = sock.recv(4096)
                except OSError:
                    break
                if not data:
                    break
                answer += data
            elif writable:
                try:
                    count = sock.send(chunk[:left])
                except BlockingIOError:
                    continue
                except OSError:
                    left = 0  # the server stopped reading: wait for its answer
                    continue
                left -= count
                sent += count
    return answer.split(b"\r\n", 1)[0].decode(errors="replace"), sent // len(chunk)


def run_body(sizes: list[int]) -> None:
    import waitress.server  # type: ignore[import-untyped]

    from web.serve_cli import _serve_dashboard

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = int(probe.getsockname()[1])
    server = _serve_dashboard(FakeService(), "127.0.0.1", port)  # a replay's dashboard: the demo PIN
    assert isinstance(server, waitress.server.BaseWSGIServer)
    time.sleep(0.5)
    cookie, csrf = unlock(port)
    try:
        for megabytes in sizes:
            peak = [resident_mb()]
            before = peak[0]
            done = threading.Event()

            def sample() -> None:
                while not done.is_set():
                    peak[0] = max(peak[0], resident_mb())
                    time.sleep(0.005)

            sampler = threading.Thread(target=sample, daemon=True)
            sampler.start()
            start = time.perf_counter()
            status, sent = send_body(port, megabytes, cookie, csrf)
            seconds = time.perf_counter() - start
            time.sleep(0.2)
            done.set()
            sampler.join()
            print(f"body {megabytes} MB: {status!r} after {sent} MB sent, {seconds:.2f} s; "
                  f"resident {before:.0f} MB before, peak {peak[0]:.0f} MB")
    finally:
        server.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=("fuzz", "guess", "body"))
    parser.add_argument("--addresses", type=int, nargs="+", default=[1, 256], help="guess: from how many addresses at once")
    parser.add_argument("--megabytes", type=int, nargs="+", default=[64, 200], help="body: the sizes sent")
    args = parser.parse_args()
    if args.what == "fuzz":
        run_fuzz()
    elif args.what == "body":
        run_body(args.megabytes)
    else:
        for count in args.addresses:
            run_guess(count)


if __name__ == "__main__":
    main()
