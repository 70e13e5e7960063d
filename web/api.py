"""The JSON API the dashboard uses, the live-update stream and the camera stream.

Views stay thin: they check who is asking, call the referee service and turn its errors into
HTTP codes (an illegal action is 409 with the rule it breaks; malformed input is 400).
Every change needs the unlocked session (the control PIN) and the CSRF token, starting a
match included; changing the PIN needs the current one too.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

from flask import Blueprint, Response, abort, current_app, jsonify, request

from web.auth import (check_csrf, check_pin, controller_required, is_controller, login, pin_is_right, pin_wait,
                      refuse_while_waiting, set_pin)
from web.dashboard import games_catalogue
from web.service_access import service

bp = Blueprint("api", __name__)

MAX_JSON_DEPTH = 16
"""How deeply a request's JSON may nest; the API's own bodies need two levels."""
MAX_PIN_LENGTH = 64


def view_for_client() -> dict[str, Any]:
    """The service's view plus what this client may do."""
    view = dict(service().view())
    view["controller"] = is_controller()
    view["pin_retry_after_s"] = round(pin_wait(), 1)
    return view


def json_body(*required: str) -> dict[str, Any]:
    """The request's JSON object, with ``required`` keys present.

    :raises: 400 naming what is wrong; 413 for a body over ``MAX_CONTENT_LENGTH``.
    """
    try:
        data = request.get_json(silent=True)
    except RecursionError:
        abort(400, f"the request body nests deeper than {MAX_JSON_DEPTH} levels")
    if not isinstance(data, dict):
        abort(400, "the request body must be a JSON object")
    if nesting_depth(data, MAX_JSON_DEPTH) > MAX_JSON_DEPTH:
        abort(400, f"the request body nests deeper than {MAX_JSON_DEPTH} levels")
    missing = [key for key in required if key not in data]
    if missing:
        abort(400, f"missing field(s): {', '.join(missing)}")
    return data


def nesting_depth(value: Any, limit: int) -> int:
    """How deeply ``value``'s lists and objects nest (a scalar is 0), counted without
    recursion and only up to one past ``limit``."""
    deepest = 0
    pending: list[tuple[Any, int]] = [(value, 0)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, dict | list):
            depth += 1
            deepest = max(deepest, depth)
            if deepest > limit:
                return deepest
            children = item.values() if isinstance(item, dict) else item
            pending.extend((child, depth) for child in children)
    return deepest


def text_field(data: dict[str, Any], key: str) -> str:
    """A non-empty string field of the body (400 otherwise)."""
    value = data.get(key)
    if not isinstance(value, str) or not value.strip():
        abort(400, f"{key} must be a non-empty string")
    return value.strip()


@bp.get("/api/state")
def state() -> Any:
    """The current view: prompt, options with labels, forced moves, scores, history."""
    return jsonify(view_for_client())


@bp.get("/api/games")
def games() -> Any:
    """Every game with its options and their explanations."""
    return jsonify(games_catalogue())


@bp.post("/api/login")
def login_route() -> Any:
    """Unlock control of the match with the PIN (429 with Retry-After after too many wrong)."""
    check_csrf()
    data = json_body("pin")
    if not isinstance(data["pin"], str) or len(data["pin"]) > MAX_PIN_LENGTH or not login(data["pin"]):
        abort(403, "wrong PIN")
    return jsonify(ok=True)


@bp.post("/api/action")
@controller_required
def action() -> Any:
    """Apply one action in its text form (``{"action": "cancel"}``)."""
    text = text_field(json_body("action"), "action")
    service().act(text)
    return jsonify(view_for_client())


@bp.post("/api/undo")
@controller_required
def undo() -> Any:
    """Take back the last action (kept for redo)."""
    service().undo()
    return jsonify(view_for_client())


@bp.post("/api/redo")
@controller_required
def redo() -> Any:
    """Apply again the last action taken back."""
    service().redo()
    return jsonify(view_for_client())


@bp.post("/api/table-is-right")
@controller_required
def table_is_right() -> Any:
    """The players say the forced moves are made although the camera saw otherwise."""
    service().confirm_table()
    return jsonify(view_for_client())


@bp.post("/api/answer")
@controller_required
def answer() -> Any:
    """Answer the referee's question about an unsure read (``{"question", "answer"}``)."""
    data = json_body("question", "answer")
    service().answer(str(data["question"]), text_field(data, "answer"))
    return jsonify(view_for_client())


@bp.get("/api/learn")
def learn_state() -> Any:
    """Learning this table: the coins of the last settled table's read and how many were learned."""
    return jsonify(service().coins_to_learn())


@bp.post("/api/learn")
@controller_required
def learn() -> Any:
    """Teach the reader the table's own coins: ``{"faces": {"<ref>": "heads" | "tails" | null}}``
    for the coins of the last settled table's read."""
    faces = json_body("faces")["faces"]
    if not isinstance(faces, dict):
        abort(400, "faces must be an object of coin ref: heads, tails or null")
    return jsonify(service().learn_table(faces))


@bp.delete("/api/learn")
@controller_required
def forget() -> Any:
    """Forget what was learned of this table's coins (back to the shipped reader)."""
    return jsonify(service().forget_table())


@bp.post("/api/match")
@controller_required
def new_match() -> Any:
    """Start a new match: ``{"game", "players": [...], "options": {...}, "first", "pin",
    "current_pin"}``.

    Only controllers may replace the match on the table. A ``pin`` other than the current one
    becomes the control PIN only with the right ``current_pin`` (a tablet left unlocked does
    not let a passer-by lock the players out).
    """
    data = json_body("game", "players")
    players = data["players"]
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        abort(400, "players must be a list of names")
    options = data.get("options") or {}
    if not isinstance(options, dict):
        abort(400, "options must be an object of key: value")
    first = data.get("first")
    if first is not None and not isinstance(first, str):
        abort(400, "first must be a player's name")
    pin = data.get("pin")
    if pin is not None and (not isinstance(pin, str) or (pin and not 4 <= len(pin) <= MAX_PIN_LENGTH)):
        abort(400, f"the PIN must be 4 to {MAX_PIN_LENGTH} characters")
    if pin:
        # Throttled like a login: otherwise "is this new PIN the current one?" would let an
        # unlocked tablet guess the PIN at full speed.
        refuse_while_waiting()
        if not pin_is_right(pin) and not check_pin(str(data.get("current_pin") or "")):
            abort(403, "changing the PIN needs the right current PIN (current_pin): the PIN was not changed")
    service().new_match(text_field(data, "game"), players, {str(k): str(v) for k, v in options.items()}, first or None)
    if pin:
        set_pin(pin)
    else:
        set_pin(str(current_app.config["REFEREE_PIN"]))
    return jsonify(view_for_client())


@bp.get("/api/events")
def events() -> Response:
    """Server-sent events: a ``state`` event with the whole view after every change (at most
    ``LIVE_MAX_STREAMS`` at once; past that, 503 and where to poll: see ``web.live``)."""
    from web.live import events_response

    return events_response(service(), request.args.get("limit", type=int))


@bp.get("/stream.mjpg")
def stream() -> Response:
    """The camera picture with what was read drawn on it, as MJPEG (``?frames=N`` to stop).
    A table refereed by hand has no camera: 404 at once, not a stream that never sends a
    picture (the page would never finish loading)."""
    limit = request.args.get("frames", type=int)
    interval = 1.0 / float(current_app.config["STREAM_FPS"])
    svc = service()
    if getattr(svc, "source", True) is None:
        abort(404, "this table has no camera")

    def frames() -> Iterator[bytes]:
        sent = 0
        while limit is None or sent < limit:
            jpeg = svc.latest_jpeg(overlay=True)
            if jpeg:
                yield b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: " + str(len(jpeg)).encode() + b"\r\n\r\n" + jpeg + b"\r\n"
                sent += 1
            time.sleep(interval)

    return Response(frames(), mimetype="multipart/x-mixed-replace; boundary=frame", headers={"Cache-Control": "no-store"})


@bp.get("/api/snapshot.jpg")
def snapshot() -> Response:
    """The latest camera picture with overlays, as one JPEG."""
    jpeg = service().latest_jpeg(overlay=request.args.get("overlay", "1") != "0")
    if not jpeg:
        abort(404, "no camera picture yet")
    return Response(jpeg, mimetype="image/jpeg", headers={"Cache-Control": "no-store"})


@bp.get("/api/crop/<refs>.jpg")
def crop(refs: str) -> Response:
    """The picture of the objects the referee asks about: ``/api/crop/3.jpg``, ``/api/crop/0-2-5.jpg``."""
    try:
        numbers = [int(part) for part in refs.split("-")]
    except ValueError:
        abort(404, f"{refs!r} names no objects: give their numbers joined by '-', e.g. 0-2-5")
    jpeg = service().crop_jpeg(numbers)
    if not jpeg:
        abort(404, f"no object {refs} in the last read")
    return Response(jpeg, mimetype="image/jpeg", headers={"Cache-Control": "no-store"})
