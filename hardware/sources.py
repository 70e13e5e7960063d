"""Choose a source from its command-line name: ``pi``, ``webcam``, ``webcam:1``, ``replay:PATH``."""

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


def parse_camera(text: str) -> CameraSpec:
    """Parse ``pi``, ``webcam[:N]`` or ``replay:PATH``.

    :raises ValueError: naming the accepted forms.
    """
    kind, sep, rest = text.partition(":")
    if kind == "pi" and not sep:
        return CameraSpec("pi")
    if kind == "webcam":
        if not sep:
            return CameraSpec("webcam")
        if rest.isdigit():
            return CameraSpec("webcam", int(rest))
    if kind == "replay" and rest:
        return CameraSpec("replay", path=Path(rest))
    raise ValueError(f"--camera must be pi, webcam, webcam:N or replay:PATH, got {text!r}")


def open_source(text: str | CameraSpec, realtime: bool = True) -> BaseSource:
    """The (not yet started) source a ``--camera`` value names.

    :raises ValueError: for a malformed value; :raises CameraError: for a replay folder
        without a readable ``game.json``.
    """
    spec = parse_camera(text) if isinstance(text, str) else text
    if spec.kind == "pi":
        from hardware.picamera import PiCameraSource

        return PiCameraSource()
    if spec.kind == "webcam":
        from hardware.webcam import WebcamSource

        return WebcamSource(spec.index)
    from hardware.replay import ReplaySource

    assert spec.path is not None
    return ReplaySource(spec.path, realtime=realtime)
