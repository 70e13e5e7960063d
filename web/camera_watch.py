"""Keep the tablets told about a live camera: lost, retrying, back.

``serve`` wraps every live camera (``pi``, ``webcam``) in ``hardware.reconnect.ReconnectingSource``
and hands it to ``watch_camera``. From then on:

- a camera that fails (a ``CameraError``: unplugged, ribbon loose) turns the loop's status to
  ``camera lost`` with "camera lost, retrying: why" at once, and the tablets are told;
- a camera that hangs (a read still waiting after ``stall_s`` seconds) is reported the same way
  by a watcher thread, so the status never says "running" through an outage;
- when frames come again the status is ``running`` and the tablets are told;
- stopping the service ends the retrying: the waits between attempts end on its stop event.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from hardware.reconnect import ReconnectingSource

STALL_SECONDS = 1.5
"""A read still waiting this long means the camera is lost (the status must say so within 2 s)."""

LOST = "camera lost"
"""The loop state shown while the camera is away (``web.loop.LoopStatus.state``)."""


class CameraWatch:
    """Turns a reconnecting camera's news into the loop's status (see the module docstring)."""

    def __init__(self, source: ReconnectingSource, status: Any, publish: Callable[[], object],
                 stall_s: float = STALL_SECONDS, clock: Callable[[], float] = time.monotonic) -> None:
        self.source = source
        self.status = status
        """The loop's ``LoopStatus``."""
        self.publish = publish
        self.stall_s = stall_s
        self._clock = clock
        self._lost = False

    def on_status(self, text: str) -> None:
        """``ReconnectingSource``'s report: lost (or not yet available), or connected again."""
        if text == "camera connected":
            self.back()
        else:
            self.lost(text)

    def lost(self, why: str) -> None:
        """Show the camera as lost and retrying, and tell the tablets."""
        self._lost = True
        self.status.state = LOST
        reason = why.removeprefix("camera lost: ").removeprefix("camera not available: ")
        self.status.last_problem = f"camera lost, retrying: {reason}"
        self.publish()

    def back(self) -> None:
        """Show the camera as running again, and tell the tablets."""
        if self._lost:
            self._lost = False
            self.status.state = "running"
            self.publish()

    def check(self) -> None:
        """One look: a read waiting too long is an outage; frames flowing again end one."""
        since = self.source.reading_since
        waiting = since is not None and self._clock() - since >= self.stall_s
        if waiting and not self._lost:
            self.lost(f"no frame for {self._clock() - since:.1f} s" if since is not None else "no frame")
        elif self._lost and self.source.connected and not waiting and self.status.state != LOST:
            self.back()

    def run(self, stop: threading.Event, every_s: float = 0.25) -> None:
        """Look every ``every_s`` seconds until ``stop`` is set."""
        while not stop.wait(every_s):
            self.check()


def watch_camera(service: Any, source: ReconnectingSource) -> CameraWatch:
    """Wire a reconnecting camera to ``service``: its status, its tablets and its stop event;
    starts the watcher thread (it ends when the service stops)."""
    assert service.loop is not None, "a watched camera belongs to a service with a loop"
    stop: threading.Event = service._stop
    watch = CameraWatch(source, service.loop.status, service._publish)
    source.on_status = watch.on_status
    source.sleep = stop.wait
    source.should_stop = stop.is_set
    threading.Thread(target=watch.run, args=(stop,), name="camera-watch", daemon=True).start()
    return watch
