"""Small hand-written fakes for sources, clocks, cameras, settling and reading (no mocks)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from hardware.frames import BaseSource, CameraError
from vision.types import Detection, TableObservation


class FakeClock:
    """A clock that moves only when told to (or when something sleeps on it)."""

    def __init__(self, now: float = 100.0) -> None:
        self.now = now
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def scene(number: int, size: tuple[int, int] = (16, 12)) -> np.ndarray:
    """A tiny BGR frame whose pixels all hold ``number``: the fakes read the scene from it."""
    return np.full((size[1], size[0], 3), number, np.uint8)


class FakeSource(BaseSource):
    """Plays a list of items: an image is a frame, an exception is raised by ``read``.

    ``fail_opens`` makes the next ``start`` calls fail (a camera that is unplugged for a while).
    """

    name = "fake camera"

    def __init__(self, items: Sequence[Any], size: tuple[int, int] | None = None, clock: Callable[[], float] | None = None) -> None:
        super().__init__(size)
        self.items = list(items)
        self.position = 0
        self.fail_opens = 0
        self.opens = 0
        self._clock = clock
        self.t = 0.0

    def _open(self) -> None:
        if self.fail_opens:
            self.fail_opens -= 1
            raise CameraError("fake camera unplugged")
        self.opens += 1

    def _grab(self) -> tuple[Any, float, str, dict[str, Any]]:
        if self.position >= len(self.items):
            raise EOFError("no more fake frames")
        item = self.items[self.position]
        self.position += 1
        if isinstance(item, BaseException):
            raise item
        self.t += 0.1
        return item, self._clock() if self._clock else self.t, f"f{self.position:04d}", {}

    def _release(self) -> None:
        pass


class SceneSettle:
    """Settles when the same scene number has been seen ``still`` frames in a row, once per scene."""

    def __init__(self, still: int = 2) -> None:
        self.still = still
        self.last: int | None = None
        self.count = 0
        self.emitted: int | None = None

    def update(self, frame: np.ndarray, timestamp: float) -> Any:
        number = int(frame[0, 0, 0])
        self.count = self.count + 1 if number == self.last else 1
        self.last = number
        if self.count >= self.still and number != self.emitted and number != 0:
            self.emitted = number
            return True
        return None


def dice(zone: str, *faces: int | None, confidence: float = 0.97, flags: tuple[str, ...] = ()) -> list[Detection]:
    """Detections of d6 dice in ``zone``."""
    return [Detection("d6", face, (10 * i, 10, 8, 8), confidence, zone=zone, flags=flags) for i, face in enumerate(faces)]


class SceneReader:
    """Reads a scene frame by looking its number up in ``scenes``."""

    def __init__(self, scenes: dict[int, list[Detection]]) -> None:
        self.scenes = scenes
        self.calls = 0

    def __call__(self, image: np.ndarray) -> TableObservation:
        self.calls += 1
        objects = self.scenes[int(image[0, 0, 0])]
        return TableObservation(tuple(objects), (image.shape[1], image.shape[0]))


class FakeRequest:
    """picamera2's CompletedRequest: ``make_array``, ``get_metadata``, ``release``."""

    def __init__(self, camera: FakePicamera2) -> None:
        self.camera = camera
        self.released = False

    def make_array(self, name: str) -> np.ndarray:
        assert name == "main"
        width, height = self.camera.config["main"]["size"]
        # RGB888 is B, G, R in memory: a pure blue picture has 255 in channel 0.
        image = np.zeros((height, width, 3), np.uint8)
        image[:, :, 0] = 255
        return image

    def get_metadata(self) -> dict[str, Any]:
        return {"SensorTimestamp": 5_000_000_000 + self.camera.captured * 33_000_000, "ExposureTime": 12000}

    def release(self) -> None:
        self.released = True


class FakePicamera2:
    """The few parts of ``picamera2.Picamera2`` the Pi source uses, recording the calls."""

    instances: list[FakePicamera2] = []

    def __init__(self, camera_num: int = 0) -> None:
        self.camera_num = camera_num
        self.calls: list[str] = []
        self.controls: dict[str, Any] = {}
        self.config: dict[str, Any] = {}
        self.camera_controls = {"LensPosition": (0.0, 15.0, 1.0), "ExposureTime": (1, 66666, 20000)}
        self.captured = 0
        self.requests: list[FakeRequest] = []
        self.fail_capture = False
        FakePicamera2.instances.append(self)

    def create_video_configuration(self, main: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        self.calls.append("create_video_configuration")
        return {"main": dict(main), **kwargs}

    def configure(self, config: dict[str, Any]) -> None:
        self.calls.append("configure")
        self.config = config

    def start(self) -> None:
        self.calls.append("start")

    def set_controls(self, controls: dict[str, Any]) -> None:
        self.calls.append("set_controls")
        self.controls.update(controls)

    def capture_metadata(self) -> dict[str, Any]:
        self.calls.append("capture_metadata")
        return {"ExposureTime": 15000, "AnalogueGain": 2.5, "ColourGains": (1.8, 1.4), "SensorTimestamp": 1}

    def capture_request(self) -> FakeRequest:
        if self.fail_capture:
            raise RuntimeError("Camera frontend has timed out!")
        self.captured += 1
        request = FakeRequest(self)
        self.requests.append(request)
        return request

    def stop(self) -> None:
        self.calls.append("stop")

    def close(self) -> None:
        self.calls.append("close")
