"""Attacks on the dashboard, measured in-process (nothing leaves the machine).

``fuzz``: every route fuzzed (``tests/web/route_fuzz.py``: malformed bodies, CSRF tokens of
any bytes, wrong methods, odd paths and queries) against a real service replaying SP-T1 up
to its first settled table; prints the requests sent and the answers by class and status.

``guess``: an attacker tries all 10,000 four-digit PINs through ``POST /api/login`` as fast as
the throttle lets it (waiting exactly each Retry-After, on a simulated clock), from one address
and from many addresses in turn; prints the time the whole PIN space takes (the table's PIN
is left out, so that every PIN is tried).

    nice -n 19 .venv/bin/python -m benchmarks.attack_bench fuzz
    nice -n 19 .venv/bin/python -m benchmarks.attack_bench guess [--addresses 1 256]
"""

from __future__ import annotations

import argparse
import re
import tempfile
import time
from pathlib import Path

from flask import Flask

from tests.web.fake_service import FakeService
from tests.web.route_fuzz import fuzz_requests, send_all
from web.app import create_app
from web.service import open_table
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=("fuzz", "guess"))
    parser.add_argument("--addresses", type=int, nargs="+", default=[1, 256], help="guess: from how many addresses at once")
    args = parser.parse_args()
    if args.what == "fuzz":
        run_fuzz()
    else:
        for count in args.addresses:
            run_guess(count)


if __name__ == "__main__":
    main()
