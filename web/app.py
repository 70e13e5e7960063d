"""The Flask application factory (``create_app``), in the shape of Flask's tutorial.

The referee service (the live loop and the match) is attached with ``init_app``-style wiring
from config: ``REFEREE_SERVICE`` may be given ready-made (tests pass one with a replay source),
otherwise one is built from ``REFEREE_CAMERA``, ``REFEREE_GAME`` and friends.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from typing import Any

from flask import Flask, jsonify
from werkzeug.exceptions import HTTPException

from referee import ConfigError, IllegalActionError, InvalidActionError, RulesError
from web.store import StoreError

DEFAULTS: dict[str, Any] = {
    "REFEREE_PIN": "1234",
    "REFEREE_CAMERA": "replay:demo",
    "REFEREE_DB": None,
    "REFEREE_SERVICE": None,
    "STREAM_FPS": 5.0,
    "SESSION_COOKIE_SAMESITE": "Strict",
    "SESSION_COOKIE_HTTPONLY": True,
}


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    """Make the dashboard application: defaults, then instance config, then ``config``."""
    app = Flask(__name__, instance_relative_config=True)
    app.config.from_mapping(DEFAULTS, SECRET_KEY=secrets.token_hex(32))
    app.config.from_pyfile("referee.cfg", silent=True)
    if config:
        app.config.from_mapping(config)
    app.json.sort_keys = False  # type: ignore[attr-defined]  # scores stay in seating order

    from web import api, dashboard

    app.register_blueprint(dashboard.bp)
    app.register_blueprint(api.bp)
    _register_errors(app)
    if app.config["REFEREE_SERVICE"] is None:
        from web.service_factory import build_service

        app.config["REFEREE_SERVICE"] = build_service(app.config)
    app.extensions["referee"] = app.config["REFEREE_SERVICE"]
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
        return jsonify(error=error.description or error.name), error.code or 500
