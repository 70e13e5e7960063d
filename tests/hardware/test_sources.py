"""Frame sources: lifecycle, normalising at the edge, the Pi camera against a fake, webcam, replay, recorder."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from hardware import CameraError, FrameError, normalise, open_source, parse_camera
from hardware.picamera import PiCameraConfig, PiCameraSource
from hardware.reconnect import ReconnectingSource
from hardware.recorder import Recorder
from hardware.replay import ReplaySource
from hardware.webcam import WebcamSource
from tests.hardware.fakes import FakeClock, FakePicamera2, FakeSource, scene


def test_read_before_start_and_after_close_raise_camera_error() -> None:
    source = FakeSource([scene(1)])
    with pytest.raises(CameraError, match="not started"):
        source.read()
    with source:
        assert source.read().image[0, 0, 0] == 1
    with pytest.raises(CameraError, match="closed"):
        source.read()
    with pytest.raises(CameraError, match="closed"):
        source.start()


@pytest.mark.parametrize(
    ("image", "message"),
    [
        ("not an image", "expected a numpy image, got str"),
        (np.zeros((0, 0, 3), np.uint8), "empty"),
        (np.zeros((12, 16, 3), np.float32), "8-bit"),
        (np.zeros((12, 16, 2), np.uint8), "h x w x 3"),
        (np.zeros((10, 16, 3), np.uint8), "expected 16x12, got 16x10"),
    ],
)
def test_bad_frames_are_named(image: object, message: str) -> None:
    with pytest.raises(FrameError, match=message):
        normalise(image, (16, 12))


def test_grey_and_padded_frames_become_bgr() -> None:
    assert normalise(np.zeros((4, 5), np.uint8)).shape == (4, 5, 3)
    padded = np.zeros((4, 5, 4), np.uint8)
    padded[:, :, 0] = 7
    out = normalise(padded)
    assert out.shape == (4, 5, 3) and out[0, 0, 0] == 7


def test_pi_camera_configures_locks_exposure_and_focus_and_yields_bgr() -> None:
    clock = FakeClock()
    source = PiCameraSource(PiCameraConfig(size=(64, 48), settle_s=1.0), factory=FakePicamera2, sleep=clock.sleep)
    with source:
        frame = source.read()
        camera = FakePicamera2.instances[-1]
        assert camera.config["main"] == {"size": (64, 48), "format": "RGB888"}
        assert camera.calls[:3] == ["create_video_configuration", "configure", "start"]
        # Auto exposure ran for settle_s, then exposure, gain and white balance were frozen.
        assert clock.sleeps == [1.0]
        assert camera.controls["AeEnable"] is False and camera.controls["AwbEnable"] is False
        assert camera.controls["ExposureTime"] == 15000 and camera.controls["AnalogueGain"] == 2.5
        assert camera.controls["ColourGains"] == (1.8, 1.4)
        assert camera.controls["AfMode"] == 0 and camera.controls["LensPosition"] == 1.5
        # RGB888 is BGR in memory: blue stays in channel 0, no conversion.
        assert frame.image.shape == (48, 64, 3) and frame.image[0, 0].tolist() == [255, 0, 0]
        assert frame.timestamp == pytest.approx(5.033) and frame.frame_id.startswith("pi-") and frame.frame_id.endswith("-000001")
        assert camera.requests[-1].released
    assert camera.calls[-2:] == ["stop", "close"]


def test_pi_camera_that_stops_delivering_is_a_camera_error() -> None:
    source = PiCameraSource(PiCameraConfig(size=(8, 6), settle_s=0), factory=FakePicamera2, sleep=lambda s: None)
    source.start()
    FakePicamera2.instances[-1].fail_capture = True
    with pytest.raises(CameraError, match="stopped delivering"):
        source.read()


def test_missing_picamera2_is_a_clear_error() -> None:
    with pytest.raises(CameraError, match="python3-picamera2"):
        PiCameraSource(PiCameraConfig(settle_s=0)).start()


class FakeCapture:
    """cv2.VideoCapture's shape: isOpened, set, read, release."""

    def __init__(self, index: int, frames: list[np.ndarray | None], opened: bool = True) -> None:
        self.index, self.frames, self.opened, self.released = index, frames, opened, False
        self.props: dict[int, float] = {}

    def isOpened(self) -> bool:  # noqa: N802 (OpenCV's name)
        return self.opened

    def set(self, prop: int, value: float) -> bool:
        self.props[prop] = value
        return True

    def read(self) -> tuple[bool, np.ndarray | None]:
        image = self.frames.pop(0) if self.frames else None
        return image is not None, image

    def release(self) -> None:
        self.released = True


def test_webcam_resizes_to_the_configured_size_and_reports_unplugging() -> None:
    capture = FakeCapture(1, [np.zeros((480, 640, 3), np.uint8)])
    source = WebcamSource(1, (320, 240), capture=lambda index: capture)
    with source:
        assert source.read().image.shape == (240, 320, 3)
        assert capture.props[cv2.CAP_PROP_FRAME_WIDTH] == 320
        with pytest.raises(CameraError, match="webcam 1 delivered no frame"):
            source.read()
    assert capture.released
    with pytest.raises(CameraError, match="could not be opened"):
        WebcamSource(3, capture=lambda index: FakeCapture(index, [], opened=False)).start()


def write_game(folder: Path, count: int = 3, broken: int | None = None) -> Path:
    (folder / "frames").mkdir(parents=True)
    frames = []
    for i in range(count):
        name = f"frames/{i:04d}.png"
        if i == broken:
            (folder / name).write_bytes(b"not a png")
        else:
            cv2.imwrite(str(folder / name), scene(i + 1))
        frames.append({"file": name, "t": 0.5 * i, "labels": [{"kind": "d6", "value": i + 1, "zone": "theatre"}]})
    (folder / "game.json").write_text(json.dumps({"game": "sevens", "frames": frames}))
    return folder


def test_replay_plays_frames_in_real_time_then_ends(tmp_path: Path) -> None:
    clock = FakeClock()
    with ReplaySource(write_game(tmp_path / "g"), realtime=True, clock=clock, sleep=clock.sleep) as source:
        ids = [source.read().frame_id for _ in range(3)]
        with pytest.raises(EOFError):
            source.read()
    assert ids == ["0000", "0001", "0002"]
    assert clock.sleeps == [pytest.approx(0.5), pytest.approx(0.5)]


def test_replay_as_fast_as_possible_seek_and_labels(tmp_path: Path) -> None:
    source = ReplaySource(write_game(tmp_path / "g"), realtime=False, sleep=lambda s: pytest.fail("slept"))
    source.start()
    source.seek(source.index_of("0001") + 1)
    frame = source.read()
    assert frame.frame_id == "0002" and frame.image[0, 0, 0] == 3 and frame.metadata["labels"][0]["value"] == 3


def test_replay_corrupt_frame_is_a_frame_error_and_the_next_one_reads(tmp_path: Path) -> None:
    with ReplaySource(write_game(tmp_path / "g", broken=1)) as source:
        source.read()
        with pytest.raises(FrameError, match="0001.*corrupt"):
            source.read()
        assert source.read().frame_id == "0002"


def test_replay_bad_folders_are_named(tmp_path: Path) -> None:
    with pytest.raises(CameraError, match="not a folder"):
        ReplaySource(tmp_path / "nowhere")
    (tmp_path / "g").mkdir()
    with pytest.raises(CameraError, match="game.json is missing"):
        ReplaySource(tmp_path / "g")
    (tmp_path / "g" / "game.json").write_text('{"frames": [{"file": "a.png"}]}')
    with pytest.raises(CameraError, match="needs 'file'.*and 't'"):
        ReplaySource(tmp_path / "g")
    (tmp_path / "g" / "game.json").write_bytes(b"\x89PNG\r\n\x1a\n\x00\xff")
    with pytest.raises(CameraError, match="game.json is not valid JSON \\(not UTF-8"):
        ReplaySource(tmp_path / "g")


def test_recorder_writes_a_replayable_fixture(tmp_path: Path) -> None:
    out = tmp_path / "rec"
    with Recorder(FakeSource([scene(10), scene(20)]), out, {"game": "sevens", "players": ["A", "B"]}) as recorder:
        first = recorder.read()
        recorder.label(first.frame_id, [{"kind": "d6", "value": 4, "zone": "theatre"}])
        recorder.decision("keep", first.frame_id)
        recorder.read()
    data = json.loads((out / "game.json").read_text())
    assert data["players"] == ["A", "B"] and data["decisions"] == [{"action": "keep", "after_frame": "f0001"}]
    with ReplaySource(out) as replay:
        again = replay.read()
        assert again.frame_id == "f0001" and again.metadata["labels"][0]["value"] == 4
        assert abs(int(again.image[0, 0, 0]) - 10) <= 2  # JPEG
    with pytest.raises(CameraError, match="already holds a recording"):
        Recorder(FakeSource([]), out)


def test_reconnecting_source_waits_with_backoff_and_loses_nothing() -> None:
    clock = FakeClock()
    inner = FakeSource([scene(1), CameraError("cable pulled"), scene(2)])
    statuses: list[str] = []
    source = ReconnectingSource(inner, statuses.append, first_delay=0.5, max_delay=2.0, sleep=clock.sleep)
    source.start()
    assert source.read().image[0, 0, 0] == 1
    inner.fail_opens = 3
    assert source.read().image[0, 0, 0] == 2
    assert clock.sleeps == [0.5, 1.0, 2.0]
    assert statuses[0].startswith("camera lost: cable pulled") and statuses[-1] == "camera connected"
    assert source.reconnects == 1


def test_parse_camera_names_the_accepted_forms(tmp_path: Path) -> None:
    assert parse_camera("webcam:2").index == 2 and parse_camera("pi").kind == "pi"
    assert parse_camera(f"replay:{tmp_path}").path == tmp_path
    for bad in ("usb", "webcam:x", "replay:", "pi:1"):
        with pytest.raises(ValueError, match="pi, webcam, webcam:N or replay:PATH"):
            parse_camera(bad)
    assert isinstance(open_source(f"replay:{write_game(tmp_path / 'g')}"), ReplaySource)
