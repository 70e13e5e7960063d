"""Every route of the dashboard and the API, and their error paths (Flask test client)."""

from __future__ import annotations

import json

from flask.testing import FlaskClient

from tests.web.conftest import csrf_of
from tests.web.fake_service import FakeService


def test_play_page_is_served_with_its_assets(client: FlaskClient) -> None:
    page = client.get("/")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert 'id="prompt"' in html and "Spectator" in html
    for asset in ("/static/referee.css", "/static/play.js"):
        assert asset in html
        with client.get(asset) as response:
            assert response.status_code == 200
    assert "http://" not in html and "https://" not in html, "no asset comes from the internet"


def test_setup_page_lists_games_and_explains_options(client: FlaskClient) -> None:
    html = client.get("/setup").get_data(as_text=True)
    assert "Sevens" in html and "Seven Pennies" in html
    games = client.get("/api/games").get_json()
    sevens = next(g for g in games if g["name"] == "sevens")
    tiebreak = next(o for o in sevens["options"] if o["key"] == "sv.tiebreak")
    assert tiebreak["choices"] == ["extra_rounds", "co_winners"] and tiebreak["help"]


def test_state_for_a_spectator(client: FlaskClient) -> None:
    view = client.get("/api/state").get_json()
    assert view["controller"] is False
    assert view["prompt"].startswith("Jess: throw the 7 pennies")
    assert view["scores"] == {"Jess": 0, "Kevin": 0}
    assert list(view["scores"]) == ["Jess", "Kevin"], "scores in seating order"


def test_spectator_cannot_act(client: FlaskClient) -> None:
    headers = {"X-CSRF-Token": csrf_of(client)}
    response = client.post("/api/action", json={"action": "throw 3H 4T"}, headers=headers)
    assert response.status_code == 403
    assert "PIN" in response.get_json()["error"]


def test_wrong_pin_cannot_unlock(client: FlaskClient) -> None:
    headers = {"X-CSRF-Token": csrf_of(client)}
    response = client.post("/api/login", json={"pin": "0000"}, headers=headers)
    assert response.status_code == 403 and response.get_json()["error"] == "wrong PIN"
    assert client.post("/api/action", json={"action": "throw 3H 4T"}, headers=headers).status_code == 403


def test_requests_without_the_csrf_token_are_refused(client: FlaskClient) -> None:
    csrf_of(client)
    assert client.post("/api/login", json={"pin": "2468"}).status_code == 403
    forged = client.post("/api/login", json={"pin": "2468"}, headers={"X-CSRF-Token": "forged"})
    assert forged.status_code == 403 and "CSRF" in forged.get_json()["error"]


def test_controller_plays_the_sp_t1_line(controller: tuple[FlaskClient, dict[str, str]]) -> None:
    """SP-T1 through the API: throws, the forced Booth shown, legal options with labels."""
    client, headers = controller
    view = client.post("/api/action", json={"action": "throw 3H 4T"}, headers=headers).get_json()
    assert view["controller"] is True
    assert [o["action"] for o in view["options"]] == ["gather", "cancel"]
    assert all(o["label"] for o in view["options"])
    assert any("Balcony" in m["text"] for m in view["forced_moves"])
    for text in ("gather", "throw 5H 1T", "gather", "throw 0H 2T", "gather"):
        response = client.post("/api/action", json={"action": text}, headers=headers)
        assert response.status_code == 200, response.get_json()
    assert response.get_json()["scores"] == {"Jess": 3, "Kevin": 4}


def test_illegal_action_is_409_with_the_rule(controller: tuple[FlaskClient, dict[str, str]]) -> None:
    client, headers = controller
    response = client.post("/api/action", json={"action": "throw 3H 3T"}, headers=headers)
    assert response.status_code == 409
    body = response.get_json()
    assert body["rule"].startswith("SP-") and body["error"]


def test_a_spectator_cannot_say_the_table_is_right(client: FlaskClient) -> None:
    response = client.post("/api/table-is-right", json={}, headers={"X-CSRF-Token": csrf_of(client)})
    assert response.status_code == 403


def test_the_table_is_right_is_refused_when_no_move_waits(controller: tuple[FlaskClient, dict[str, str]]) -> None:
    """G-2: the players' word that the forced moves are made; refused (409) when none waits."""
    client, headers = controller
    response = client.post("/api/table-is-right", json={}, headers=headers)
    assert response.status_code == 409 and "no forced move" in response.get_json()["error"]


def test_malformed_input_is_400(controller: tuple[FlaskClient, dict[str, str]]) -> None:
    client, headers = controller
    assert client.post("/api/action", data="not json", headers=headers).status_code == 400
    missing = client.post("/api/action", json={}, headers=headers)
    assert missing.status_code == 400 and "action" in missing.get_json()["error"]
    garbled = client.post("/api/action", json={"action": "juggle 3"}, headers=headers)
    assert garbled.status_code == 400 and "unknown action" in garbled.get_json()["error"]
    wrong_type = client.post("/api/action", json={"action": 7}, headers=headers)
    assert wrong_type.status_code == 400


def test_undo_and_redo(controller: tuple[FlaskClient, dict[str, str]]) -> None:
    client, headers = controller
    client.post("/api/action", json={"action": "throw 3H 4T"}, headers=headers)
    view = client.post("/api/undo", json={}, headers=headers).get_json()
    assert view["history"] == ["designate Jess"] and view["can_redo"] is True
    view = client.post("/api/redo", json={}, headers=headers).get_json()
    assert view["history"][-1] == "throw 3H 4T"
    assert client.post("/api/redo", json={}, headers=headers).status_code == 409


def test_answer_a_question(controller: tuple[FlaskClient, dict[str, str]], fake_service: FakeService) -> None:
    client, headers = controller
    fake_service.question = {"id": "q1", "text": "Is this penny heads or tails?", "choices": ["heads", "tails"]}
    assert client.get("/api/state").get_json()["question"]["id"] == "q1"
    assert client.post("/api/answer", json={"question": "q9", "answer": "heads"}, headers=headers).status_code == 400
    view = client.post("/api/answer", json={"question": "q1", "answer": "heads"}, headers=headers).get_json()
    assert view["question"] is None


def test_new_match_with_options_and_pin(controller: tuple[FlaskClient, dict[str, str]]) -> None:
    client, headers = controller
    body = {"game": "sevens", "players": ["Ann", "Bo"], "options": {"sv.rounds": "2"}, "pin": "97531", "current_pin": "2468"}
    view = client.post("/api/match", json=body, headers=headers).get_json()
    assert view["game"] == "sevens" and view["prompt"].startswith("Ann: roll all six dice")
    bad = client.post("/api/match", json={**body, "options": {"sv.rounds": "zero"}}, headers=headers)
    assert bad.status_code == 400 and "sv.rounds" in bad.get_json()["error"]
    unknown = client.post("/api/match", json={**body, "game": "chess"}, headers=headers)
    assert unknown.status_code == 400 and "unknown game 'chess'" in unknown.get_json()["error"]


def test_new_match_needs_the_pin_once_one_is_set(controller: tuple[FlaskClient, dict[str, str]], app) -> None:
    client, headers = controller
    body = {"game": "sevens", "players": ["Ann", "Bo"], "options": {"sv.rounds": "1"}, "pin": "97531", "current_pin": "2468"}
    assert client.post("/api/match", json=body, headers=headers).status_code == 200
    other = app.test_client()
    other_headers = {"X-CSRF-Token": csrf_of(other)}
    assert other.post("/api/match", json=body, headers=other_headers).status_code == 403
    assert other.post("/api/login", json={"pin": "2468"}, headers=other_headers).status_code == 403


def test_events_stream_sends_the_state(controller: tuple[FlaskClient, dict[str, str]], fake_service: FakeService) -> None:
    client, headers = controller
    response = client.get("/api/events?limit=2")
    assert response.mimetype == "text/event-stream"
    chunks = response.iter_encoded()
    assert next(chunks).startswith(b"retry:")
    first = next(chunks).decode()
    assert first.startswith("event: state\n")
    fake_service.act("throw 3H 4T")
    second = next(chunks).decode()
    data = json.loads(second.split("data: ", 1)[1])
    assert data["history"][-1] == "throw 3H 4T"


def test_camera_stream_snapshot_and_crop(client: FlaskClient) -> None:
    response = client.get("/stream.mjpg?frames=2")
    assert response.mimetype == "multipart/x-mixed-replace"
    body = response.get_data()
    assert body.count(b"--frame") == 2 and b"\xff\xd8" in body
    snapshot = client.get("/api/snapshot.jpg")
    assert snapshot.status_code == 200 and snapshot.data[:2] == b"\xff\xd8"
    assert client.get("/api/crop/0.jpg").status_code == 200
    assert client.get("/api/crop/0-1.jpg").status_code == 200  # a question about several objects
    missing = client.get("/api/crop/5.jpg")
    assert missing.status_code == 404 and "object 5" in missing.get_json()["error"]
    garbled = client.get("/api/crop/0-x.jpg")
    assert garbled.status_code == 404 and "joined by '-'" in garbled.get_json()["error"]


def test_unknown_route_is_json_404(client: FlaskClient) -> None:
    response = client.get("/api/nothing")
    assert response.status_code == 404 and "error" in response.get_json()
