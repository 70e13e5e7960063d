"""Every route, fuzzed with malformed bodies, headers, methods, paths and query strings: no
answer is a server error (issue 54: "malformed input of any shape gets a 4xx")."""

from __future__ import annotations

from pathlib import Path

from tests.web.conftest import csrf_of
from tests.web.route_fuzz import fuzz_requests, send_all
from tests.web.test_learn import first_settled_table
from web.app import create_app
from web.throttle import ThrottlePolicy


def test_no_route_answers_a_malformed_request_with_a_5xx(tmp_path: Path) -> None:
    service = first_settled_table(tmp_path / "fuzz.db")
    # Guessing is throttled elsewhere; here wrong PINs must not stop the fuzz reaching the code behind them.
    app = create_app({"TESTING": True, "REFEREE_SERVICE": service, "REFEREE_PIN": "2468", "STREAM_FPS": 1000.0,
                      "REFEREE_PIN_THROTTLE": ThrottlePolicy(free_failures=10**9),
                      "PROPAGATE_EXCEPTIONS": False})  # a failure is counted as the 500 a tablet would get
    client = app.test_client()
    csrf = csrf_of(client)
    assert client.post("/api/login", json={"pin": "2468"}, headers={"X-CSRF-Token": csrf}).status_code == 200
    requests = fuzz_requests(app)
    assert len(requests) > 1000 and {r.path.split("?")[0] for r in requests} >= {"/api/match", "/api/learn", "/api/crop/0.jpg"}
    result = send_all(client, csrf, requests)
    assert result.sent == len(requests)
    assert result.server_errors == [], f"{len(result.server_errors)} server errors, e.g. {result.server_errors[:5]}"
    assert result.by_class["4xx"] > result.sent // 2, "most of the fuzz is malformed and refused"
