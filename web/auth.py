"""Who may act: holders of the control PIN; everyone else watches. Plus CSRF protection.

A controller's session carries a flag set by ``POST /api/login`` with the right PIN. Every
state-changing request must carry the session's CSRF token in the ``X-CSRF-Token`` header
(the pages put it in a meta tag), and the session cookie is SameSite=Strict.
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar

from flask import abort, current_app, request, session

F = TypeVar("F", bound=Callable[..., Any])


def csrf_token() -> str:
    """The session's CSRF token, made on first use."""
    token = session.get("csrf")
    if not token:
        token = session["csrf"] = secrets.token_urlsafe(24)
    return str(token)


def check_csrf() -> None:
    """Abort with 403 unless the request carries the session's CSRF token."""
    sent = request.headers.get("X-CSRF-Token", "")
    expected = session.get("csrf", "")
    if not expected or not hmac.compare_digest(str(sent), str(expected)):
        abort(403, "missing or wrong CSRF token: reload the page")


def is_controller() -> bool:
    """Whether this session holds the current control PIN."""
    return bool(session.get("controller")) and session.get("pin_epoch") == current_app.config.get("PIN_EPOCH", 0)


def login(pin: str) -> bool:
    """Make this session a controller if ``pin`` is right."""
    expected = str(current_app.config["REFEREE_PIN"])
    if hmac.compare_digest(pin.encode(), expected.encode()):
        session["controller"] = True
        session["pin_epoch"] = current_app.config.get("PIN_EPOCH", 0)
        return True
    return False


def set_pin(pin: str) -> None:
    """Change the control PIN; every other controller session must unlock again."""
    current_app.config["REFEREE_PIN"] = pin
    current_app.config["PIN_EPOCH"] = current_app.config.get("PIN_EPOCH", 0) + 1
    session["controller"] = True
    session["pin_epoch"] = current_app.config["PIN_EPOCH"]


def controller_required(view: F) -> F:
    """Only PIN holders may change the match, and only with the CSRF token."""

    @wraps(view)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        check_csrf()
        if not is_controller():
            abort(403, "only players with the control PIN may act: unlock with the PIN")
        return view(*args, **kwargs)

    return wrapped  # type: ignore[return-value]
