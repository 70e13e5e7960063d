"""Live updates for many tablets: a bounded number of event streams on a sized waitress pool.

Each server-sent event stream holds one waitress worker thread while it is open. Rather than
change the serving model, the number of streams is bounded and the pool is sized for it:

- ``create_dashboard_server`` gives waitress ``max_streams + RESERVED_THREADS`` threads, so
  however many streams are open, ``RESERVED_THREADS`` workers are always free for the control
  tablet, the state, the pages and the pictures;
- a stream past ``max_streams`` is refused at once with 503, a ``Retry-After`` and the
  address to poll instead (``/api/state``); the play page then polls until a stream is free;
- every stream sends a heartbeat every ``heartbeat_s`` seconds: writing to a tablet that went
  away (Wi-Fi dropped, lid closed) fails, and its worker is freed;
- every stream ends itself after ``stream_s`` seconds; the browser's ``EventSource``
  reconnects after the ``retry`` it was given, so no stream holds a worker for ever and the
  tablets share the streams fairly.

The settings come from the app's config (``LIVE_MAX_STREAMS``, ``LIVE_HEARTBEAT_SECONDS``,
``LIVE_STREAM_SECONDS``), with the defaults below.
"""

from __future__ import annotations

import json
import queue
import threading
import time
from collections.abc import Iterator
from typing import Any

from flask import Flask, Response, current_app, jsonify

MAX_STREAMS = 64
"""Event streams open at once, by default: 50 tablets and some to spare."""

RESERVED_THREADS = 8
"""Waitress workers never taken by a stream: the control tablet and every other request."""

HEARTBEAT_SECONDS = 5.0
"""How often an idle stream writes a comment line, which frees a stream whose tablet left."""

STREAM_SECONDS = 120.0
"""How long one stream stays open before it ends itself and the browser reconnects."""

RETRY_MS = 2000
"""How long the browser waits before it reconnects an ended stream."""

POLL_SECONDS = 2
"""How often a tablet refused a stream polls ``/api/state`` (and the ``Retry-After`` it is given)."""


class StreamGate:
    """Counts the open event streams and refuses one past ``limit`` (thread-safe)."""

    def __init__(self, limit: int) -> None:
        if limit < 1:
            raise ValueError(f"the live stream limit must be at least 1, got {limit}")
        self.limit = limit
        self._open = 0
        self._lock = threading.Lock()

    @property
    def open(self) -> int:
        """How many streams are open now."""
        return self._open

    def enter(self) -> bool:
        """Take a place for one more stream; ``False`` when all ``limit`` are taken."""
        with self._lock:
            if self._open >= self.limit:
                return False
            self._open += 1
            return True

    def leave(self) -> None:
        """Give back the place of a stream that ended."""
        with self._lock:
            self._open = max(0, self._open - 1)


def gate_of(app: Flask) -> StreamGate:
    """The app's stream gate, made on first use from ``LIVE_MAX_STREAMS``."""
    gate = app.extensions.get("live_streams")
    if gate is None:
        gate = StreamGate(int(app.config.get("LIVE_MAX_STREAMS", MAX_STREAMS)))
        app.extensions["live_streams"] = gate
    return gate


def server_threads(max_streams: int) -> int:
    """Waitress workers for ``max_streams`` streams plus the reserved ones."""
    return max_streams + RESERVED_THREADS


def create_dashboard_server(app: Flask, host: str, port: int) -> Any:
    """A waitress server for the dashboard, its pool sized for the app's stream limit
    (``server.effective_port`` is the port bound; ``run()`` serves, ``close()`` stops). A body
    over the app's ``MAX_CONTENT_LENGTH`` is refused from its Content-Length, before it is read."""
    from waitress.server import create_server  # type: ignore[import-untyped]

    gate = gate_of(app)
    threads = server_threads(gate.limit)
    return create_server(app, host=host, port=port, threads=threads,
                         connection_limit=max(100, 2 * threads), channel_timeout=max(120.0, 4 * _heartbeat_s(app)),
                         max_request_body_size=app.config["MAX_CONTENT_LENGTH"])


def events_response(service: Any, limit: int | None = None) -> Response:
    """The ``/api/events`` answer: a ``state`` event with the whole view now and after every
    change, heartbeats between; or 503 with where to poll when every stream is taken.

    ``limit`` ends the stream after that many events (tests and scripts).
    """
    gate = gate_of(current_app)
    if not gate.enter():
        refusal = jsonify(error=f"all {gate.limit} live streams are in use: poll /api/state every {POLL_SECONDS} s instead",
                          poll="/api/state", poll_seconds=POLL_SECONDS)
        refusal.status_code = 503
        refusal.headers["Retry-After"] = str(POLL_SECONDS)
        return refusal
    heartbeat = _heartbeat_s(current_app)
    ends_at = time.monotonic() + float(current_app.config.get("LIVE_STREAM_SECONDS", STREAM_SECONDS))
    try:
        subscription = service.subscribe()
    except BaseException:
        gate.leave()
        raise
    released = threading.Event()

    def release() -> None:
        # Once, whether the stream ran to its end or the server closed it before it began.
        if not released.is_set():
            released.set()
            service.unsubscribe(subscription)
            gate.leave()

    def stream() -> Iterator[str]:
        sent = 0
        try:
            yield f"retry: {RETRY_MS}\n\n"
            yield encode_event(service.view())
            sent += 1
            while limit is None or sent < limit:
                left = ends_at - time.monotonic()
                if left <= 0:
                    return
                try:
                    update = subscription.get(timeout=min(heartbeat, left))
                except queue.Empty:
                    yield ": heartbeat\n\n"
                    continue
                yield encode_event(update)
                sent += 1
        finally:
            release()

    # Not stream_with_context: the stream needs no request context, and holding one would keep
    # the request's objects alive for the stream's whole life.
    response = Response(stream(), mimetype="text/event-stream",
                        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})
    response.call_on_close(release)
    return response


def encode_event(view: dict[str, Any]) -> str:
    """One server-sent ``state`` event carrying ``view`` as JSON."""
    return f"event: state\ndata: {json.dumps(view)}\n\n"


def _heartbeat_s(app: Flask) -> float:
    return float(app.config.get("LIVE_HEARTBEAT_SECONDS", HEARTBEAT_SECONDS))
