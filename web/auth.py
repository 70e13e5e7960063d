"""Who may act: holders of the control PIN; everyone else watches. Plus CSRF protection.

A controller's session carries a flag set by ``POST /api/login`` with the right PIN. Every
state-changing request must carry the session's CSRF token in the ``X-CSRF-Token`` header
(the pages put it in a meta tag), and the session cookie is SameSite=Strict. PINs are
compared as bytes, whatever characters a request sends, and their tries are throttled
(``web.throttle``): a client that got too many wrong waits, and is told how long.
"""

from __future__ import annotations

import hmac
import math
import secrets
from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar

from flask import abort, current_app, request, session
from werkzeug.exceptions import TooManyRequests

from web.throttle import PinThrottle

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
    if not expected or not hmac.compare_digest(as_bytes(sent), as_bytes(str(expected))):
        abort(403, "missing or wrong CSRF token: reload the page")


def is_controller() -> bool:
    """Whether this session holds the current control PIN."""
    return bool(session.get("controller")) and session.get("pin_epoch") == current_app.config.get("PIN_EPOCH", 0)


def as_bytes(text: str) -> bytes:
    """``text`` as bytes for a constant-time comparison, whatever it holds (lone surrogates
    from JSON's ``\\ud800`` included)."""
    return text.encode("utf-8", "surrogatepass")


def pin_is_right(pin: str) -> bool:
    """Whether ``pin`` is the control PIN (compared in constant time)."""
    return hmac.compare_digest(as_bytes(pin), as_bytes(str(current_app.config["REFEREE_PIN"])))


def throttle() -> PinThrottle:
    """The app's PIN throttle."""
    found = current_app.extensions["pin_throttle"]
    assert isinstance(found, PinThrottle)
    return found


def client_name() -> str:
    """Who is asking, as the throttle counts them: the network address."""
    return request.remote_addr or "unknown"


def pin_wait() -> float:
    """Seconds before this client may try a PIN again (0.0 when it may now)."""
    return throttle().wait(client_name())


def refuse_while_waiting() -> None:
    """:raises: 429 with Retry-After while this client must wait after too many wrong PINs."""
    wait = pin_wait()
    if wait > 0:
        seconds = math.ceil(wait)
        raise TooManyRequests(f"too many wrong PINs: try again in {seconds} s", retry_after=seconds)


def check_pin(pin: str) -> bool:
    """Whether ``pin`` is the control PIN, counted by the throttle.

    :raises: 429 with Retry-After, without looking at ``pin``, while this client must wait.
    """
    refuse_while_waiting()
    if pin_is_right(pin):
        throttle().succeeded(client_name())
        return True
    throttle().failed(client_name())
    return False


def login(pin: str) -> bool:
    """Make this session a controller if ``pin`` is right.

    :raises: 429 while this client must wait after too many wrong PINs (see ``check_pin``).
    """
    if not check_pin(pin):
        return False
    session["controller"] = True
    session["pin_epoch"] = current_app.config.get("PIN_EPOCH", 0)
    return True


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


DEMO_PIN = "1234"
"""The PIN of the demo and of replays, printed in the README: never good enough for a live table."""


def serve_pin(given: str | None, environment: str | None, camera: str,
              configured: str | None = None, config_file: str = "the dashboard's referee.cfg") -> str | None:
    """The control PIN ``referee serve`` guards its dashboard with: ``--pin``, else
    ``$REFEREE_PIN``, else ``configured`` (``REFEREE_PIN`` in the config file ``config_file``,
    the instance config the app reads); for a replay with none of them, ``None``: the app's
    own (the demo's).

    :raises ValueError: naming the three ways to set one, for a live camera with no PIN of its
        own (or the demo's, which anyone can read), or for a PIN shorter than 4 characters.
    """
    pin = given if given is not None else environment or configured or None
    if pin is not None and not 4 <= len(pin) <= 64:
        raise ValueError("the control PIN must be 4 to 64 characters")
    if camera.startswith("replay:"):
        return pin
    if pin is None or pin == DEMO_PIN:
        raise ValueError(f"a live camera's dashboard needs a control PIN of your own (the demo's {DEMO_PIN} is "
                         "public): give --pin PIN or set REFEREE_PIN in the environment (deploy/install-pi.sh keeps "
                         f"one in pin.env) or in the config file {config_file} (a line REFEREE_PIN = \"your PIN\")")
    return pin
