"""Attacks from the club's Wi-Fi, each refused: taking the match over without the PIN,
changing the PIN without the old one, guessing the PIN, odd header bytes, oversized and
deeply nested bodies."""

from __future__ import annotations

import json

from flask import Flask
from flask.testing import FlaskClient

from tests.web.conftest import csrf_of
from tests.web.fake_service import FakeService
from web.app import create_app
from web.throttle import ThrottlePolicy

NEW_MATCH = {"game": "sevens", "players": ["Eve", "Mal"], "options": {"sv.rounds": "1"}}


class FakeClock:
    """A monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def app_with_clock(clock: FakeClock, policy: ThrottlePolicy | None = None) -> Flask:
    return create_app({"TESTING": True, "REFEREE_SERVICE": FakeService(), "REFEREE_PIN": "2468",
                       "REFEREE_CLOCK": clock, "REFEREE_PIN_THROTTLE": policy})


def spectator(app: Flask, address: str = "10.0.0.9") -> tuple[FlaskClient, dict[str, str]]:
    """A client from ``address`` that loaded the page (so it has a CSRF token) but never unlocked."""
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = address
    return client, {"X-CSRF-Token": csrf_of(client)}


def test_a_spectator_cannot_start_a_match_or_set_the_pin(client: FlaskClient, fake_service: FakeService) -> None:
    """The takeover: a browser that never unlocked starts a match with its own PIN."""
    headers = {"X-CSRF-Token": csrf_of(client)}
    before = fake_service.view()
    response = client.post("/api/match", json={**NEW_MATCH, "pin": "0000"}, headers=headers)
    assert response.status_code == 403 and "PIN" in response.get_json()["error"]
    assert fake_service.view() == before, "the match in play is untouched"
    assert client.post("/api/login", json={"pin": "0000"}, headers=headers).status_code == 403
    assert client.post("/api/login", json={"pin": "2468"}, headers=headers).status_code == 200


def test_changing_the_pin_needs_the_current_one(controller: tuple[FlaskClient, dict[str, str]], app: Flask) -> None:
    """An unlocked tablet left on the table does not let a passer-by lock the players out."""
    client, headers = controller
    refused = client.post("/api/match", json={**NEW_MATCH, "pin": "1111"}, headers=headers)
    assert refused.status_code == 403 and "current PIN" in refused.get_json()["error"]
    wrong = client.post("/api/match", json={**NEW_MATCH, "pin": "1111", "current_pin": "9999"}, headers=headers)
    assert wrong.status_code == 403
    assert app.config["REFEREE_PIN"] == "2468"
    kept = client.post("/api/match", json={**NEW_MATCH, "pin": "2468"}, headers=headers)
    assert kept.status_code == 200, "the same PIN again needs nothing more"
    changed = client.post("/api/match", json={**NEW_MATCH, "pin": "1111", "current_pin": "2468"}, headers=headers)
    assert changed.status_code == 200 and app.config["REFEREE_PIN"] == "1111"


def test_guessing_pins_is_slowed_then_locked_out_with_retry_after() -> None:
    clock = FakeClock()
    app = app_with_clock(clock)
    client, headers = spectator(app)
    for guess in range(5):  # the free tries
        assert client.post("/api/login", json={"pin": f"{guess:04d}"}, headers=headers).status_code == 403
    assert client.post("/api/login", json={"pin": "0005"}, headers=headers).status_code == 403  # the first wait: 1 s
    locked = client.post("/api/login", json={"pin": "2468"}, headers=headers)
    assert locked.status_code == 429 and locked.headers["Retry-After"] == "1"
    assert "too many wrong PINs" in locked.get_json()["error"], "refused without looking at the PIN, even the right one"
    assert client.get("/api/state").get_json()["pin_retry_after_s"] == 1.0, "the tablet can show the lock-out"
    clock.now += 1.0
    assert client.post("/api/login", json={"pin": "0006"}, headers=headers).status_code == 403
    assert client.post("/api/login", json={"pin": "2468"}, headers=headers).headers["Retry-After"] == "2"  # doubled
    clock.now += 2.0
    assert client.post("/api/login", json={"pin": "2468"}, headers=headers).status_code == 200
    assert client.get("/api/state").get_json()["pin_retry_after_s"] == 0.0


def test_many_addresses_guessing_together_are_capped_overall() -> None:
    clock = FakeClock()
    app = app_with_clock(clock, ThrottlePolicy(free_failures=5, overall_failures=12, overall_window_s=600.0))
    guesses = iter(range(10000))
    for address in ("10.0.0.1", "10.0.0.2", "10.0.0.3"):
        client, headers = spectator(app, address)
        for _ in range(4):
            assert client.post("/api/login", json={"pin": f"{next(guesses):04d}"}, headers=headers).status_code == 403
    newcomer, headers = spectator(app, "10.0.0.4")
    locked = newcomer.post("/api/login", json={"pin": "2468"}, headers=headers)
    assert locked.status_code == 429 and int(locked.headers["Retry-After"]) == 600
    clock.now += 600.0
    assert newcomer.post("/api/login", json={"pin": "2468"}, headers=headers).status_code == 200


def test_changing_the_pin_is_throttled_like_a_login(controller: tuple[FlaskClient, dict[str, str]]) -> None:
    """Otherwise "is this new PIN the current one?" would be a guessing oracle for an unlocked tablet."""
    client, headers = controller
    statuses = [client.post("/api/match", json={**NEW_MATCH, "pin": f"{guess:04d}"}, headers=headers).status_code
                for guess in range(8)]
    assert statuses[:6] == [403] * 6 and statuses[6:] == [429, 429]


def test_a_csrf_token_of_any_bytes_is_refused_not_an_error(client: FlaskClient) -> None:
    csrf_of(client)
    for token in ("é", "\u20ac" * 3, "\x00\xff", " "):
        response = client.post("/api/login", json={"pin": "2468"}, headers={"X-CSRF-Token": token})
        assert response.status_code == 403 and "CSRF" in response.get_json()["error"]


def test_a_pin_of_odd_characters_is_a_wrong_pin(client: FlaskClient) -> None:
    headers = {"X-CSRF-Token": csrf_of(client)}
    lone_surrogate = b'{"pin": "\\ud800\\udfff\\ud800"}'
    response = client.post("/api/login", data=lone_surrogate, content_type="application/json", headers=headers)
    assert response.status_code == 403 and response.get_json()["error"] == "wrong PIN"


def test_json_nested_1000_deep_is_400(controller: tuple[FlaskClient, dict[str, str]]) -> None:
    client, headers = controller
    for route in ("/api/action", "/api/login", "/api/match", "/api/answer", "/api/learn"):
        deep = '{"action": ' + "[" * 1000 + "]" * 1000 + "}"
        response = client.post(route, data=deep, content_type="application/json", headers=headers)
        assert response.status_code == 400 and "nests deeper" in response.get_json()["error"], route
    mild = {"faces": {"0": [[[[[[[[[[[[[[[[[["heads"]]]]]]]]]]]]]]]]]]}}
    response = client.post("/api/learn", data=json.dumps(mild), content_type="application/json", headers=headers)
    assert response.status_code == 400 and "nests deeper than 16" in response.get_json()["error"]


def test_an_oversized_body_is_413_before_it_is_read(controller: tuple[FlaskClient, dict[str, str]]) -> None:
    client, headers = controller
    body = json.dumps({"action": "cancel", "padding": "x" * (2 * 1024 * 1024)})
    response = client.post("/api/action", data=body, content_type="application/json", headers=headers)
    assert response.status_code == 413 and "error" in response.get_json()
