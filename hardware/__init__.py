"""Frame sources with one interface: the Pi camera, a USB webcam, a replayed game, a recorder.

Nothing here opens a device at import time; picamera2 and OpenCV are imported when a source
starts. ``open_source("pi" | "webcam[:N]" | "replay:PATH")`` makes the source a command line names.
"""

from hardware.frames import BaseSource, CameraError, Frame, FrameError, FrameSource, normalise
from hardware.sources import open_source, parse_camera

__all__ = ["BaseSource", "CameraError", "Frame", "FrameError", "FrameSource", "normalise", "open_source", "parse_camera"]
