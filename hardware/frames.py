"""What every frame source yields, the one protocol they share, and normalising at the edge.

Every source returns a :class:`Frame`: a BGR ``uint8`` image of the configured size, a
monotonic timestamp in seconds, and an id naming the frame so that the match log can say
which frame justified each camera action (picamera2's "array plus metadata dict" shape).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray

Image = NDArray[np.uint8]
"""A BGR image, ``height x width x 3``, ``uint8``."""


class CameraError(RuntimeError):
    """A source cannot deliver frames: not started, closed, missing, or gone away."""


class FrameError(ValueError):
    """One frame is unusable (empty, corrupt, wrong size or type); the next one may be fine."""


@dataclass(frozen=True)
class Frame:
    """One picture from a source."""

    image: Image
    """BGR, ``uint8``, ``height x width x 3``."""
    timestamp: float
    """Seconds on a monotonic clock (the source's own, or ``time.monotonic``)."""
    frame_id: str
    """Names this frame in the match log (``"0042"`` for a replayed fixture frame)."""
    metadata: dict[str, Any] = field(default_factory=dict, compare=False)
    """What the source knows besides the pixels (exposure, gains, the fixture's labels)."""

    @property
    def size(self) -> tuple[int, int]:
        """``(width, height)`` in pixels."""
        return int(self.image.shape[1]), int(self.image.shape[0])


@runtime_checkable
class FrameSource(Protocol):
    """Anything that yields frames: ``start()``, ``read()``, ``stop()``, ``close()``, and ``with``."""

    def start(self) -> None:
        """Open the device (or file) and begin delivering frames."""

    def read(self) -> Frame:
        """The next frame.

        :raises CameraError: before ``start()``, after ``close()``, or when the device is gone.
        :raises FrameError: for one unusable frame.
        :raises EOFError: when a finite source (a replay) has no more frames.
        """
        ...

    def stop(self) -> None:
        """Stop delivering frames; ``start()`` may be called again."""

    def close(self) -> None:
        """Release the device for good."""

    def __enter__(self) -> FrameSource: ...

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None) -> None: ...


@runtime_checkable
class FullResolutionSource(Protocol):
    """A source that keeps, beside each small frame it yields, the same moment at the sensor's
    full resolution (the Pi camera's ``main`` stream beside its ``lores`` one): the settle
    detector watches the small frames, and the reader reads a settled table's faces from the
    full picture. The loop asks for it with ``full_frame`` (``web.loop``)."""

    def full_frame(self, frame: Frame) -> Frame | None:
        """The full-resolution picture of ``frame``, the latest frame read (same id and
        timestamp), or ``None`` when the source no longer has it (a newer frame was read).

        :raises CameraError: when the device cannot deliver it.
        """
        ...


class BaseSource:
    """The lifecycle every source shares: started/closed checks and the ``with`` block.

    Subclasses implement ``_open``, ``_grab`` and ``_release``; ``read`` checks the lifecycle
    and normalises what ``_grab`` returns.
    """

    name = "source"

    def __init__(self, size: tuple[int, int] | None = None) -> None:
        self.size = size
        """``(width, height)`` every frame is checked against (``None``: whatever comes)."""
        self._started = False
        self._closed = False

    @property
    def started(self) -> bool:
        """Whether ``start()`` has been called and ``stop()`` has not."""
        return self._started

    def start(self) -> None:
        """Open and begin delivering frames (a no-op when already started).

        :raises CameraError: after ``close()``, or when the device cannot be opened.
        """
        if self._closed:
            raise CameraError(f"{self.name} is closed; make a new source")
        if not self._started:
            self._open()
            self._started = True

    def read(self) -> Frame:
        """The next frame, normalised to BGR uint8 of the configured size.

        :raises CameraError: when not started or the device is gone.
        :raises FrameError: for one unusable frame.
        """
        if self._closed:
            raise CameraError(f"{self.name} is closed")
        if not self._started:
            raise CameraError(f"{self.name} is not started: call start() (or use it in a with block) first")
        image, timestamp, frame_id, metadata = self._grab()
        return Frame(normalise(image, self.size, what=f"{self.name} frame {frame_id}"), timestamp, frame_id, metadata)

    def stop(self) -> None:
        """Stop delivering frames; ``start()`` may follow."""
        if self._started:
            self._started = False
            self._release()

    def close(self) -> None:
        """Stop and release for good (safe to call twice)."""
        self.stop()
        self._closed = True

    def __enter__(self) -> BaseSource:
        self.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    # -- hooks -----------------------------------------------------------------------------

    def _open(self) -> None:
        raise NotImplementedError

    def _grab(self) -> tuple[Any, float, str, dict[str, Any]]:
        """``(image, timestamp, frame_id, metadata)``; the image is normalised by ``read``."""
        raise NotImplementedError

    def _release(self) -> None:
        raise NotImplementedError


def normalise(image: Any, size: tuple[int, int] | None = None, what: str = "frame") -> Image:
    """``image`` as BGR uint8 ``h x w x 3``: grey is expanded, a 4th (alpha/padding) channel dropped.

    :raises FrameError: naming what is wrong: not an array, empty, not 8-bit, an odd shape, or a
        size other than ``size`` (``(width, height)``).
    """
    if not isinstance(image, np.ndarray):
        raise FrameError(f"{what}: expected a numpy image, got {type(image).__name__}")
    if image.size == 0:
        raise FrameError(f"{what}: the image is empty (shape {image.shape})")
    if image.dtype != np.uint8:
        raise FrameError(f"{what}: expected 8-bit pixels (uint8), got {image.dtype}")
    if image.ndim == 2:
        image = np.repeat(image[:, :, None], 3, axis=2)
    elif image.ndim == 3 and image.shape[2] == 4:
        # picamera2's XRGB8888 is B, G, R, padding in memory: drop the padding.
        image = np.ascontiguousarray(image[:, :, :3])
    elif image.ndim == 3 and image.shape[2] == 1:
        image = np.repeat(image, 3, axis=2)
    elif not (image.ndim == 3 and image.shape[2] == 3):
        raise FrameError(f"{what}: expected h x w x 3 BGR, got shape {image.shape}")
    height, width = image.shape[:2]
    if size is not None and (width, height) != tuple(size):
        raise FrameError(f"{what}: expected {size[0]}x{size[1]}, got {width}x{height}")
    result: Image = image
    return result


def monotonic() -> float:
    """The default clock of live sources."""
    return time.monotonic()
