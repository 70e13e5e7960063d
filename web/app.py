"""The Flask application factory (``create_app``), in the shape of Flask's tutorial.

The referee service (the live loop and the match) is attached with ``init_app``-style wiring
from config: ``REFEREE_SERVICE`` may be given ready-made (tests pass one with a replay source),
otherwise one is built from ``REFEREE_CAMERA``, ``REFEREE_GAME`` and friends.

Requests are bounded before they are read: ``MAX_CONTENT_LENGTH`` refuses a body over it
(413) from its Content-Length, or once that much of a streamed body has been read; PIN tries
are throttled by ``REFEREE_PIN_THROTTLE`` (a ``ThrottlePolicy``) on ``REFEREE_CLOCK``.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Mapping
from typing import Any

from flask import Flask, jsonify
from werkzeug.exceptions import HTTPException

from referee import ConfigError, IllegalActionError, InvalidActionError, RulesError
from web.store import StoreError
from web.throttle import PinThrottle, ThrottlePolicy

DEFAULTS: dict[str, Any] = {
    "REFEREE_PIN": "1234",
    "REFEREE_CAMERA": "replay:demo",
    "REFEREE_DB": None,
    "REFEREE_SERVICE": None,
    "STREAM_FPS": 5.0,
    "SESSION_COOKIE_SAMESITE": "Strict",
    "SESSION_COOKIE_HTTPONLY": True,
    "MAX_CONTENT_LENGTH": 64 * 1024,
    "REFEREE_PIN_THROTTLE": None,
    "REFEREE_CLOCK": None,
}


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    """Make the dashboard application: defaults, then instance config, then ``config``."""
    app = Flask(__name__, instance_relative_config=True)
    app.config.from_mapping(DEFAULTS, SECRET_KEY=secrets.token_hex(32))
    app.config.from_pyfile("referee.cfg", silent=True)
    if config:
        app.config.from_mapping(config)
    app.json.sort_keys = False  # type: ignore[attr-defined]  # scores stay in seating order

    from web import api, dashboard, service_access

    app.register_blueprint(dashboard.bp)
    app.register_blueprint(api.bp)
    _register_errors(app)
    if app.config["REFEREE_SERVICE"] is None:
        from web.service_factory import build_service

        app.config["REFEREE_SERVICE"] = build_service(app.config)
    app.extensions[service_access.EXTENSION] = app.config["REFEREE_SERVICE"]
    app.extensions["pin_throttle"] = PinThrottle(app.config["REFEREE_PIN_THROTTLE"] or ThrottlePolicy(),
                                                 app.config["REFEREE_CLOCK"] or time.monotonic)
    return app


def _register_errors(app: Flask) -> None:
    """Every error answers as JSON with a clear message: 409 for a move the rules forbid (with
    the rule), 400 for malformed input, the HTTP code otherwise."""

    @app.errorhandler(IllegalActionError)
    def illegal(error: IllegalActionError) -> Any:
        return jsonify(error=str(error), rule=error.rule), 409

    @app.errorhandler(InvalidActionError)
    @app.errorhandler(ConfigError)
    def invalid(error: RulesError) -> Any:
        return jsonify(error=str(error)), 400

    @app.errorhandler(StoreError)
    def log_failed(error: StoreError) -> Any:
        # The match log could not be read or written (a full disk, a damaged file): nothing changed.
        return jsonify(error=str(error)), 503

    @app.errorhandler(HTTPException)
    def http_error(error: HTTPException) -> Any:
        response = jsonify(error=error.description or error.name)
        response.status_code = error.code or 500
        for name, value in error.get_headers():
            if name.lower() != "content-type":  # keep Retry-After (429) and Allow (405)
                response.headers[name] = value
        return response
