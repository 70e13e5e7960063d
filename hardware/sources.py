"""Choose a source from its command-line name: ``pi``, ``pi:4608x2592``, ``webcam``, ``webcam:1``, ``replay:PATH``."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from hardware.frames import BaseSource


@dataclass(frozen=True)
class CameraSpec:
    """A parsed ``--camera`` value."""

    kind: str
    """``pi``, ``webcam`` or ``replay``."""
    index: int = 0
    """The webcam number."""
    path: Path | None = None
    """The recorded game folder of a replay."""
    full_size: tuple[int, int] | None = None
    """The Pi camera's full-resolution stream (``pi:WxH``), beside a small one of its shape
    (``small_stream_size``): faces are read from it once the table is still."""


SMALL_STREAM_WIDTH = 1280
"""The width of the small stream beside a full-resolution one (the frames the settle detector
and the finder see, as wide as the single stream's frames)."""


def small_stream_size(full_size: tuple[int, int]) -> tuple[int, int]:
    """The small stream's ``(width, height)`` beside ``full_size``: ``SMALL_STREAM_WIDTH`` wide
    (or the full width, if narrower), of the same shape, both even (YUV420 halves them).

    >>> small_stream_size((4608, 2592))
    (1280, 720)
    """
    width, height = full_size
    small_w = min(width, SMALL_STREAM_WIDTH)
    return small_w // 2 * 2, int(round(small_w * height / width / 2.0)) * 2


def parse_camera(text: str) -> CameraSpec:
    """Parse ``pi``, ``pi:WxH`` (the sensor's full size, e.g. ``pi:4608x2592``), ``webcam[:N]``
    or ``replay:PATH``.

    :raises ValueError: naming the accepted forms.
    """
    kind, sep, rest = text.partition(":")
    if kind == "pi" and not sep:
        return CameraSpec("pi")
    if kind == "pi":
        width, x, height = rest.lower().partition("x")
        if x and width.isdigit() and height.isdigit() and int(width) >= 16 and int(height) >= 16:
            return CameraSpec("pi", full_size=(int(width), int(height)))
    if kind == "webcam":
        if not sep:
            return CameraSpec("webcam")
        if rest.isdigit():
            return CameraSpec("webcam", int(rest))
    if kind == "replay" and rest:
        return CameraSpec("replay", path=Path(rest))
    raise ValueError(f"--camera must be pi, webcam, webcam:N or replay:PATH (pi:WIDTHxHEIGHT: the Pi camera "
                     f"with its full-resolution stream of that size), got {text!r}")


def open_source(text: str | CameraSpec, realtime: bool = True) -> BaseSource:
    """The (not yet started) source a ``--camera`` value names.

    :raises ValueError: for a malformed value; :raises CameraError: for a replay folder
        without a readable ``game.json``.
    """
    spec = parse_camera(text) if isinstance(text, str) else text
    if spec.kind == "pi":
        from hardware.picamera import PiCameraConfig, PiCameraSource

        if spec.full_size is None:
            return PiCameraSource()
        return PiCameraSource(PiCameraConfig(size=small_stream_size(spec.full_size), full_size=spec.full_size))
    if spec.kind == "webcam":
        from hardware.webcam import WebcamSource

        return WebcamSource(spec.index)
    from hardware.replay import ReplaySource

    assert spec.path is not None
    return ReplaySource(spec.path, realtime=realtime)
