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

    def __init__(self, items: Sequence[Any], size: tuple[int, int] | None = None, clock: Callable[[], float] | None = None,
                 prefix: str = "f") -> None:
        super().__init__(size)
        self.items = list(items)
        self.position = 0
        self.fail_opens = 0
        self.opens = 0
        self._clock = clock
        self.t = 0.0
        self.prefix = prefix

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
        return item, self._clock() if self._clock else self.t, f"{self.prefix}{self.position:04d}", {}

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


def bgr_to_yuv420(image: np.ndarray, stride: int | None = None) -> np.ndarray:
    """A BGR picture as picamera2 gives a ``YUV420`` stream: ``height * 3 / 2`` rows, each
    ``stride`` wide (padded past the width, as the ISP's alignment pads it)."""
    import cv2

    height, width = image.shape[:2]
    stride = stride or width
    padded = np.zeros((height, stride, 3), np.uint8)
    padded[:, :width] = image
    padded[:, width:] = image[:, -1:]
    return np.asarray(cv2.cvtColor(padded, cv2.COLOR_BGR2YUV_I420), np.uint8)


class DualStreamRequest(FakeRequest):
    """A request of a camera with a full-resolution ``main`` and a ``lores`` stream: both show
    the same picture, the lores one shrunk to its size as YUV420."""

    def __init__(self, camera: DualStreamPicamera2, picture: np.ndarray) -> None:
        super().__init__(camera)
        self.picture = picture
        self.made: list[str] = []

    def make_array(self, name: str) -> np.ndarray:
        import cv2

        assert not self.released, "a released request's buffers are the camera's again"
        self.made.append(name)
        config = self.camera.config
        if name == "main":
            assert (self.picture.shape[1], self.picture.shape[0]) == tuple(config["main"]["size"])
            return self.picture.copy()
        assert name == "lores" and config["lores"]["format"] == "YUV420"
        width, height = config["lores"]["size"]
        small = cv2.resize(self.picture, (width, height), interpolation=cv2.INTER_AREA)
        return bgr_to_yuv420(small, stride=(width + 63) // 64 * 64)


class DualStreamPicamera2(FakePicamera2):
    """A Pi camera serving ``pictures`` (BGR, at the main stream's full size) one request each,
    on both streams; the last picture repeats."""

    def __init__(self, pictures: Sequence[np.ndarray], camera_num: int = 0) -> None:
        super().__init__(camera_num)
        self.pictures = list(pictures)

    def create_video_configuration(self, main: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        self.calls.append("create_video_configuration")
        return {"main": dict(main), **{k: dict(v) if isinstance(v, dict) else v for k, v in kwargs.items()}}

    def capture_request(self) -> FakeRequest:
        if self.fail_capture:
            raise RuntimeError("Camera frontend has timed out!")
        picture = self.pictures[min(self.captured, len(self.pictures) - 1)]
        self.captured += 1
        request = DualStreamRequest(self, picture)
        self.requests.append(request)
        return request


class StillSettle:
    """Settles once the same picture has been seen ``still`` frames in a row, once per picture;
    remembers the size of every frame it was shown."""

    def __init__(self, still: int = 2) -> None:
        self.still = still
        self.last: np.ndarray | None = None
        self.count = 0
        self.emitted = False
        self.sizes: set[tuple[int, int]] = set()

    def update(self, frame: np.ndarray, timestamp: float) -> Any:
        self.sizes.add((frame.shape[1], frame.shape[0]))
        same = self.last is not None and self.last.shape == frame.shape and bool(np.array_equal(self.last, frame))
        if not same:
            self.count, self.emitted = 0, False
        self.last = frame
        self.count += 1
        if self.count >= self.still and not self.emitted:
            self.emitted = True
            return True
        return None


def table_picture(dice_faces: Sequence[int], seed: int, size: tuple[int, int] = (320, 240)) -> np.ndarray:
    """A plain green table with one white square per die, at positions fixed by ``seed``."""
    import cv2

    rng = np.random.default_rng(seed)
    image = np.zeros((size[1], size[0], 3), np.uint8)
    image[:] = (40, 110, 40)
    for face in dice_faces:
        x, y = int(rng.integers(30, size[0] - 40)), int(rng.integers(30, size[1] - 40))
        cv2.rectangle(image, (x, y), (x + 14, y + 14), (235, 235, 235), -1)
        cv2.putText(image, str(face), (x + 3, y + 12), cv2.FONT_HERSHEY_PLAIN, 0.8, (0, 0, 0), 1)
    return image


SEVENS_SCENES: list[tuple[list[dict[str, Any]], list[dict[str, Any]]]] = []
"""Filled by ``write_replay_game``: each throw's labels and the decisions after it."""


def write_replay_game(folder: Any, hold: int = 6, moving: int = 3) -> dict[str, Any]:
    """A recorded game of Sevens (2 players, 1 round) in the fixtures' format, with labels.

    Ann and Bo roll for first (Ann 36, Bo 6), Ann rolls 1 2 4 6 3 3 and keeps 5 (SV-4.2,
    SV-4.4), Bo rolls six dice with one unsure die that the players say shows 2, and keeps 12.
    Expected: Bo wins 12 to 5.
    """
    import json
    from pathlib import Path

    import cv2

    folder = Path(folder)
    (folder / "frames").mkdir(parents=True)
    throws: list[tuple[list[int], float | None]] = [
        ([6, 6, 6, 6, 6, 6], None), ([1, 1, 1, 1, 1, 1], None), ([1, 2, 4, 6, 3, 3], None), ([2, 2, 2, 2, 2, 2], 0.5),
    ]
    frames: list[dict[str, Any]] = []
    decisions: list[dict[str, Any]] = []
    t = 0.0
    count = 0
    for number, (faces, unsure) in enumerate(throws):
        labels = [{"kind": "d6", "value": face, "zone": "theatre", "confidence": 0.97} for face in faces]
        if unsure is not None:
            labels[-1]["confidence"] = unsure
        for step in range(moving + hold):
            if step < moving:
                image = table_picture(faces, 1000 + count)  # dice still rolling: they jump about
            else:
                image = table_picture(faces, number)
            name = f"frames/{count:04d}.png"
            cv2.imwrite(str(folder / name), image)
            frames.append({"id": f"{count:04d}", "file": name, "t": round(t, 3), "labels": labels})
            count += 1
            t += 0.1
        if number == 2:
            decisions.append({"action": "keep", "after_frame": frames[-1]["id"]})
        if number == 3:
            decisions.append({"answer": "2"})
            decisions.append({"action": "keep"})
    game = {"game": "sevens", "players": ["Ann", "Bo"], "options": {"sv.rounds": "1"}, "frames": frames,
            "decisions": decisions, "expected": {"scores": {"Ann": 5, "Bo": 12}, "winners": ["Bo"],
                         "rulings": ["chance", "chance", "chance", "question", "chance"]}}
    (folder / "game.json").write_text(json.dumps(game, indent=1))
    return game
