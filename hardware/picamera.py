"""The Raspberry Pi camera through picamera2, imported lazily so nothing else needs it.

Lifecycle as picamera2 has it: ``Picamera2()``, ``create_video_configuration``, ``configure``,
``start``, ``capture_request`` (array and metadata of the same frame), ``stop``, ``close``.
The main stream is ``RGB888``, which picamera2 lays out as B, G, R in memory: exactly the
BGR OpenCV wants. Exposure and white balance run automatically for a moment after start,
then are read back from the metadata and locked (``AeEnable``/``AwbEnable`` off), so the
coins look the same in every frame of a game; a module with autofocus is set to manual
focus at a fixed lens position.
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hardware.frames import BaseSource, CameraError


@dataclass(frozen=True)
class PiCameraConfig:
    """How to drive the Pi camera."""

    size: tuple[int, int] = (1280, 960)
    """Main stream ``(width, height)``; 1280x960 keeps the full 4:3 field of the sensor."""
    settle_s: float = 1.5
    """How long auto exposure and white balance run before they are locked."""
    lens_position: float | None = 1.5
    """Dioptres (1/metres) for manual focus on modules with autofocus; 1.5 is about 67 cm.
    ``None`` leaves focus alone (fixed-focus modules)."""
    exposure_time_us: int | None = None
    """Force an exposure time instead of locking what auto exposure chose."""
    analogue_gain: float | None = None
    """Force an analogue gain instead of locking what auto exposure chose."""
    camera_num: int = 0
    """Which camera on a board with two connectors."""


PICAMERA2_MISSING = (
    "picamera2 is not installed: on Raspberry Pi OS run `sudo apt install python3-picamera2` and make "
    "the virtual environment with --system-site-packages (deploy/install-pi.sh does both)"
)


def load_picamera2() -> Any:
    """The ``Picamera2`` class.

    :raises CameraError: when picamera2 is not installed, saying how to install it.
    """
    try:
        module = importlib.import_module("picamera2")
    except ImportError as exc:
        raise CameraError(f"{PICAMERA2_MISSING} ({exc})") from None
    return module.Picamera2


class PiCameraSource(BaseSource):
    """Frames from the Pi camera module, BGR uint8, exposure and white balance locked.

    Frame ids are ``pi-<start time>-<count>``: unique across restarts, so the match log never
    mistakes a new frame for one already ruled on. ``factory`` makes the camera object (``Picamera2`` by default, a fake in tests) and
    ``sleep`` waits while auto exposure settles.
    """

    name = "Pi camera"

    def __init__(
        self,
        config: PiCameraConfig | None = None,
        factory: Callable[..., Any] | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.config = config or PiCameraConfig()
        super().__init__(self.config.size)
        self._factory = factory
        self._sleep = sleep
        self._camera: Any = None
        self._count = 0
        self._session = ""
        self.locked_controls: dict[str, Any] = {}
        """The controls locked at start (for the log and the recorder)."""

    def _open(self) -> None:
        factory = self._factory or load_picamera2()
        try:
            camera = factory(self.config.camera_num)
        except (RuntimeError, IndexError, OSError) as exc:
            raise CameraError(f"no Pi camera {self.config.camera_num} could be opened: {exc}") from exc
        try:
            config = camera.create_video_configuration(
                main={"size": tuple(self.config.size), "format": "RGB888"}, buffer_count=4
            )
            camera.configure(config)
            camera.start()
            self._lock(camera)
        except Exception as exc:
            camera.close()
            raise CameraError(f"the Pi camera did not start: {exc}") from exc
        self._camera = camera
        self._session = time.strftime("%Y%m%d%H%M%S")
        self._count = 0

    def _lock(self, camera: Any) -> None:
        """Let auto exposure and white balance settle, then freeze them (and focus)."""
        if self.config.lens_position is not None and "LensPosition" in getattr(camera, "camera_controls", {}):
            # AfMode 0 is libcamera's AfModeManual.
            camera.set_controls({"AfMode": 0, "LensPosition": self.config.lens_position})
        self._sleep(self.config.settle_s)
        metadata = camera.capture_metadata()
        controls: dict[str, Any] = {"AeEnable": False, "AwbEnable": False}
        exposure = self.config.exposure_time_us or metadata.get("ExposureTime")
        gain = self.config.analogue_gain or metadata.get("AnalogueGain")
        if exposure is not None:
            controls["ExposureTime"] = int(exposure)
        if gain is not None:
            controls["AnalogueGain"] = float(gain)
        if metadata.get("ColourGains") is not None:
            red, blue = metadata["ColourGains"]
            controls["ColourGains"] = (float(red), float(blue))
        camera.set_controls(controls)
        self.locked_controls = controls

    def _grab(self) -> tuple[Any, float, str, dict[str, Any]]:
        try:
            request = self._camera.capture_request()
        except Exception as exc:
            raise CameraError(f"the Pi camera stopped delivering frames: {exc}") from exc
        try:
            image = request.make_array("main")
            metadata = dict(request.get_metadata())
        finally:
            request.release()
        self._count += 1
        # SensorTimestamp is nanoseconds on the kernel's monotonic clock: the time of the exposure.
        stamp = metadata.get("SensorTimestamp")
        timestamp = stamp / 1e9 if isinstance(stamp, (int, float)) else time.monotonic()
        return image, timestamp, f"pi-{self._session}-{self._count:06d}", metadata

    def _release(self) -> None:
        camera, self._camera = self._camera, None
        if camera is not None:
            try:
                camera.stop()
            finally:
                camera.close()
