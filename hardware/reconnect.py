"""Keep a camera going: when it vanishes, report it and reopen it with backoff.

``ReconnectingSource`` wraps a source. A ``CameraError`` from ``read`` (an unplugged webcam,
a Pi camera whose ribbon came loose) stops the source, reports the loss through
``on_status`` and retries ``start`` after 0.5 s, 1 s, 2 s ... up to ``max_delay`` seconds,
for ever: the match waits and nothing is lost. Frame errors (one bad frame) and the end of a
replay pass straight through.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from types import TracebackType

from hardware.frames import CameraError, Frame, FrameSource


class ReconnectingSource:
    """A source that survives its camera disappearing (see the module docstring)."""

    def __init__(
        self,
        source: FrameSource,
        on_status: Callable[[str], None] = lambda text: None,
        first_delay: float = 0.5,
        max_delay: float = 10.0,
        sleep: Callable[[float], None] = time.sleep,
        should_stop: Callable[[], bool] = lambda: False,
    ) -> None:
        self.source = source
        self.on_status = on_status
        self.first_delay = first_delay
        self.max_delay = max_delay
        self._sleep = sleep
        self._should_stop = should_stop
        self.reconnects = 0
        """How many times the camera came back."""
        self.connected = False

    def start(self) -> None:
        """Start the wrapped source, retrying with backoff until it opens (or ``should_stop``)."""
        self._connect("camera not available")

    def read(self) -> Frame:
        """The next frame; a vanished camera is reconnected first.

        :raises CameraError: only when ``should_stop`` became true while waiting.
        """
        while True:
            if not self.connected:
                self._connect("camera lost")
            try:
                return self.source.read()
            except CameraError as exc:
                self.connected = False
                self.on_status(f"camera lost: {exc}")
                try:
                    self.source.stop()
                except CameraError:
                    pass

    def _connect(self, why: str) -> None:
        delay = self.first_delay
        attempt = 0
        while True:
            if self._should_stop():
                raise CameraError(f"{why}; stopped while waiting for it")
            try:
                self.source.start()
            except CameraError as exc:
                attempt += 1
                self.on_status(f"{why}: {exc}; retrying in {delay:.1f} s (attempt {attempt})")
                self._sleep(delay)
                delay = min(delay * 2, self.max_delay)
                continue
            if attempt or why == "camera lost":
                self.reconnects += why == "camera lost"
                self.on_status("camera connected")
            self.connected = True
            return

    def stop(self) -> None:
        """Stop the wrapped source."""
        self.connected = False
        self.source.stop()

    def close(self) -> None:
        """Close the wrapped source."""
        self.connected = False
        self.source.close()

    def __enter__(self) -> ReconnectingSource:
        self.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None) -> None:
        self.close()
