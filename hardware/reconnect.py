"""Keep a camera going: when it vanishes, report it and reopen it with backoff.

``ReconnectingSource`` wraps a source. A ``CameraError`` from ``read`` (an unplugged webcam,
a Pi camera whose ribbon came loose) stops the source, reports the loss through
``on_status`` and retries ``start`` after 0.5 s, 1 s, 2 s ... up to ``max_delay`` seconds,
for ever: the match waits and nothing is lost. Frame errors (one bad frame) and the end of a
replay pass straight through.

``reading_since`` tells a watcher how long the current ``read`` has been waiting: a camera
that hangs instead of failing (a read that never returns) is seen as lost by the caller.
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
        sleep: Callable[[float], object] = time.sleep,
        should_stop: Callable[[], bool] = lambda: False,
        clock: Callable[[], float] = time.monotonic,
        retry_first_start: bool = True,
    ) -> None:
        self.source = source
        self.retry_first_start = retry_first_start
        """``False``: a camera missing when first started is a ``CameraError`` at once (a
        command that should say so and stop), not an endless wait."""
        self.on_status = on_status
        self.first_delay = first_delay
        self.max_delay = max_delay
        self.sleep = sleep
        """Waits between attempts (an ``Event.wait`` makes the wait end when stopping)."""
        self.should_stop = should_stop
        """Asked before each attempt: true ends the retrying with a ``CameraError``."""
        self._clock = clock
        self.reading_since: float | None = None
        """When the ``read`` under way began (``clock`` time), or ``None`` between reads."""
        self.reconnects = 0
        """How many times the camera came back."""
        self.connected = False

    def start(self) -> None:
        """Start the wrapped source, retrying with backoff until it opens (or ``should_stop``).

        :raises CameraError: when it cannot be opened and ``retry_first_start`` is false.
        """
        if not self.retry_first_start:
            self.source.start()
            self.connected = True
            return
        self._connect("camera not available")

    def read(self) -> Frame:
        """The next frame; a vanished camera is reconnected first.

        :raises CameraError: only when ``should_stop`` became true while waiting.
        """
        self.reading_since = self._clock()
        try:
            return self._read()
        finally:
            self.reading_since = None

    def _read(self) -> Frame:
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
            if self.should_stop():
                raise CameraError(f"{why}; stopped while waiting for it")
            try:
                self.source.start()
            except CameraError as exc:
                attempt += 1
                self.on_status(f"{why}: {exc}; retrying in {delay:.1f} s (attempt {attempt})")
                self.sleep(delay)
                delay = min(delay * 2, self.max_delay)
                continue
            if attempt or why == "camera lost":
                self.reconnects += why == "camera lost"
                self.on_status("camera connected")
            self.connected = True
            return

    def full_frame(self, frame: Frame) -> Frame | None:
        """The wrapped source's full-resolution picture of ``frame``
        (:class:`hardware.frames.FullResolutionSource`), or ``None`` where it keeps none or the
        camera is lost.

        :raises CameraError: when the device cannot deliver it.
        """
        full_frame = getattr(self.source, "full_frame", None)
        if full_frame is None or not self.connected:
            return None
        full: Frame | None = full_frame(frame)
        return full

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
