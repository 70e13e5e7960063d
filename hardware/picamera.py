"""The Raspberry Pi camera through picamera2, imported lazily so nothing else needs it.

Lifecycle as picamera2 has it: ``Picamera2()``, ``create_video_configuration``, ``configure``,
``start``, ``capture_request`` (array and metadata of the same frame), ``stop``, ``close``.
The main stream is ``RGB888``, which picamera2 lays out as B, G, R in memory: exactly the
BGR OpenCV wants. With ``PiCameraConfig.full_size`` the main stream is the sensor's full
resolution and the frames read are a ``lores`` stream (``YUV420``, the one format every Pi's
ISP gives it) of the same moment: the settle detector watches those, and the full picture of
the latest one is there on demand (``full_frame``), for reading faces at the sensor's
resolution. Exposure and white balance run automatically for a moment after start,
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

import cv2
import numpy as np

from hardware.frames import BaseSource, CameraError, Frame, FrameError, Image, normalise


@dataclass(frozen=True)
class PiCameraConfig:
    """How to drive the Pi camera."""

    size: tuple[int, int] = (1280, 960)
    """``(width, height)`` of the frames read; 1280x960 keeps the full 4:3 field of the sensor.
    With ``full_size`` this is the ``lores`` stream, of the same shape as the full one."""
    full_size: tuple[int, int] | None = None
    """The main stream at the sensor's full resolution (4608x2592 for Camera Module 3,
    4056x3040 for the HQ camera), kept for ``full_frame``; ``None``: one stream of ``size``."""
    buffer_count: int = 4
    """Buffers picamera2 cycles through; one holds the latest full picture until the next frame."""
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
        check_streams(self.config)
        super().__init__(self.config.size)
        self._factory = factory
        self._sleep = sleep
        self._camera: Any = None
        self._count = 0
        self._session = ""
        self.locked_controls: dict[str, Any] = {}
        """The controls locked at start (for the log and the recorder)."""
        self._held: Any = None
        """The request of the latest frame, kept while its full picture may be asked for."""
        self._held_frame: tuple[str, float, dict[str, Any]] | None = None
        """That frame's id, timestamp and metadata."""

    def _open(self) -> None:
        factory = self._factory or load_picamera2()
        try:
            camera = factory(self.config.camera_num)
        except (RuntimeError, IndexError, OSError) as exc:
            raise CameraError(f"no Pi camera {self.config.camera_num} could be opened: {exc}") from exc
        try:
            config = self._camera_config(camera)
            camera.configure(config)
            camera.start()
            self._lock(camera)
        except Exception as exc:
            camera.close()
            raise CameraError(f"the Pi camera did not start: {exc}") from exc
        self._camera = camera
        self._session = time.strftime("%Y%m%d%H%M%S")
        self._count = 0

    def _camera_config(self, camera: Any) -> Any:
        """picamera2's video configuration: one ``RGB888`` stream, or the full-resolution main
        stream beside a ``YUV420`` lores one."""
        if self.config.full_size is None:
            return camera.create_video_configuration(
                main={"size": tuple(self.config.size), "format": "RGB888"}, buffer_count=self.config.buffer_count
            )
        return camera.create_video_configuration(
            main={"size": tuple(self.config.full_size), "format": "RGB888"},
            lores={"size": tuple(self.config.size), "format": "YUV420"},
            buffer_count=self.config.buffer_count,
        )

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
        dual = self.config.full_size is not None
        try:
            if dual:
                image: Any = yuv420_to_bgr(request.make_array("lores"), self.config.size)
            else:
                image = request.make_array("main")
            metadata = dict(request.get_metadata())
        except Exception:
            request.release()
            raise
        if not dual:
            request.release()
        self._count += 1
        # SensorTimestamp is nanoseconds on the kernel's monotonic clock: the time of the exposure.
        stamp = metadata.get("SensorTimestamp")
        timestamp = stamp / 1e9 if isinstance(stamp, (int, float)) else time.monotonic()
        frame_id = f"pi-{self._session}-{self._count:06d}"
        if dual:
            # Keep this frame's request (its full picture) until the next frame replaces it.
            self._let_go()
            self._held, self._held_frame = request, (frame_id, timestamp, metadata)
        return image, timestamp, frame_id, metadata

    def full_frame(self, frame: Frame) -> Frame | None:
        """The full-resolution picture taken with ``frame`` (the main stream of the same
        request), or ``None`` when ``frame`` is not the latest frame read or there is no full
        stream (``PiCameraConfig.full_size``).

        :raises CameraError: when the camera fails to give it.
        """
        if self._held is None or self._held_frame is None or self._held_frame[0] != frame.frame_id:
            return None
        assert self.config.full_size is not None
        frame_id, timestamp, metadata = self._held_frame
        try:
            image = self._held.make_array("main")
        except Exception as exc:
            raise CameraError(f"the Pi camera gave no full-resolution picture: {exc}") from exc
        try:
            full = normalise(image, self.config.full_size, what=f"{self.name} full frame {frame_id}")
        except FrameError as exc:
            raise CameraError(str(exc)) from exc
        return Frame(full, timestamp, frame_id, metadata)

    def _let_go(self) -> None:
        """Give the held request back to the camera."""
        held, self._held, self._held_frame = self._held, None, None
        if held is not None:
            held.release()

    def _release(self) -> None:
        self._let_go()
        camera, self._camera = self._camera, None
        if camera is not None:
            try:
                camera.stop()
            finally:
                camera.close()


def check_streams(config: PiCameraConfig) -> None:
    """Refuse stream sizes picamera2 cannot pair: a lores stream larger than the main one, or
    of another shape (the ISP scales both from one field of view: another shape would stretch).

    :raises ValueError: naming the sizes.
    """
    width, height = config.size
    if width <= 0 or height <= 0:
        raise ValueError(f"PiCameraConfig.size must be positive, got {config.size}")
    if config.full_size is None:
        return
    full_w, full_h = config.full_size
    if full_w < width or full_h < height:
        raise ValueError(f"PiCameraConfig.full_size {config.full_size} must be at least size {config.size}")
    if abs(full_w * height - full_h * width) > 0.01 * full_w * height:
        raise ValueError(f"PiCameraConfig.size {config.size} must have the shape of full_size {config.full_size} "
                         f"(width / height {full_w / full_h:.3f}, got {width / height:.3f})")


def yuv420_to_bgr(array: Any, size: tuple[int, int]) -> Image:
    """A picamera2 ``YUV420`` array (``height * 3 / 2`` rows of the stride's width: the Y plane,
    then U and V, two of their rows to each row) as BGR uint8 of ``size`` (the stride's padding
    cropped off).

    :raises FrameError: for an array of another shape or type.
    """
    width, height = size
    if not isinstance(array, np.ndarray) or array.dtype != np.uint8 or array.ndim != 2:
        raise FrameError(f"lores frame: expected a 2-D uint8 YUV420 array, got {getattr(array, 'shape', type(array).__name__)}")
    rows, stride = array.shape
    if rows != height * 3 // 2 or stride < width or height % 2 or stride % 2:
        raise FrameError(f"lores frame: expected a YUV420 array of {height * 3 // 2} rows and at least "
                         f"{width} columns for {width}x{height}, got {array.shape}")
    bgr = cv2.cvtColor(np.ascontiguousarray(array), cv2.COLOR_YUV2BGR_I420)
    result: Image = np.ascontiguousarray(bgr[:height, :width])
    return result
