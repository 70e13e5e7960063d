"""The full-resolution capture path: a small stream settles, the sensor's full picture of the
same moment is what the faces are read from (``hardware.picamera``, ``web.loop``,
``vision.full_resolution``), with a fake Pi camera that serves both streams."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from hardware.frames import CameraError, Frame, FrameError, FullResolutionSource
from hardware.picamera import PiCameraConfig, PiCameraSource, yuv420_to_bgr
from tests.hardware.fakes import (
    DualStreamPicamera2,
    DualStreamRequest,
    FakePicamera2,
    StillSettle,
    bgr_to_yuv420,
)
from vision.types import Detection, TableObservation
from web.loop import TableLoop
from web.recording import replay_layout
from web.store import MatchStore

ROOT = Path(__file__).resolve().parents[2]
SP_T1 = ROOT / "fixtures" / "games" / "sp_t1"


def picture(seed: int, size: tuple[int, int] = (320, 240)) -> np.ndarray:
    """A picture with broad patches of colour (they survive shrinking and YUV's colour halving)."""
    rng = np.random.default_rng(seed)
    small = rng.integers(0, 255, (6, 8, 3), dtype=np.uint8)
    return np.asarray(cv2.resize(small, size, interpolation=cv2.INTER_NEAREST), np.uint8)


def dual_source(pictures: list[np.ndarray], size: tuple[int, int], full: tuple[int, int]) -> tuple[PiCameraSource, list[DualStreamPicamera2]]:
    cameras: list[DualStreamPicamera2] = []

    def factory(camera_num: int) -> DualStreamPicamera2:
        cameras.append(DualStreamPicamera2(pictures, camera_num))
        return cameras[-1]

    config = PiCameraConfig(size=size, full_size=full, settle_s=0)
    return PiCameraSource(config, factory=factory, sleep=lambda s: None), cameras


def test_the_pi_source_reads_the_lores_stream_and_keeps_the_full_picture_of_the_latest_frame() -> None:
    pictures = [picture(1), picture(2)]
    source, cameras = dual_source(pictures, (160, 120), (320, 240))
    assert isinstance(source, FullResolutionSource)
    with source:
        config = cameras[0].config
        assert config["main"] == {"size": (320, 240), "format": "RGB888"}
        assert config["lores"] == {"size": (160, 120), "format": "YUV420"}
        first = source.read()
        assert first.size == (160, 120)
        shrunk = cv2.resize(pictures[0], (160, 120), interpolation=cv2.INTER_AREA)
        assert np.abs(first.image.astype(int) - shrunk).mean() < 6  # YUV420's rounding and halved colour
        full = source.full_frame(first)
        assert full is not None and (full.frame_id, full.timestamp) == (first.frame_id, first.timestamp)
        assert np.array_equal(full.image, pictures[0])
        second = source.read()
        requests = cameras[0].requests
        assert requests[0].released and not requests[1].released  # only the latest is held
        assert source.full_frame(first) is None  # gone with the next frame
        again = source.full_frame(second)
        assert again is not None and np.array_equal(again.image, pictures[1])
    assert all(r.released for r in requests)  # stop gives the held request back


def test_one_stream_has_no_full_picture() -> None:
    source = PiCameraSource(PiCameraConfig(size=(8, 6), settle_s=0), factory=FakePicamera2, sleep=lambda s: None)
    with source:
        frame = source.read()
        assert source.full_frame(frame) is None
        assert FakePicamera2.instances[-1].requests[-1].released


def test_stream_sizes_that_cannot_pair_are_refused() -> None:
    with pytest.raises(ValueError, match="shape of full_size"):
        PiCameraSource(PiCameraConfig(size=(1280, 960), full_size=(4608, 2592)))
    with pytest.raises(ValueError, match="at least size"):
        PiCameraSource(PiCameraConfig(size=(1280, 720), full_size=(640, 360)))
    PiCameraSource(PiCameraConfig(size=(1152, 648), full_size=(4608, 2592)))  # Camera Module 3's 16:9


def test_lores_arrays_are_converted_and_bad_ones_refused() -> None:
    image = picture(3, (64, 48))
    padded = bgr_to_yuv420(image, stride=128)
    assert padded.shape == (72, 128)
    back = yuv420_to_bgr(padded, (64, 48))
    assert back.shape == (48, 64, 3) and np.abs(back.astype(int) - image).mean() < 6
    with pytest.raises(FrameError, match="YUV420 array of 72 rows"):
        yuv420_to_bgr(padded[:70], (64, 48))
    with pytest.raises(FrameError, match="2-D uint8"):
        yuv420_to_bgr(image, (64, 48))


def test_a_failed_full_capture_is_a_camera_error() -> None:
    source, cameras = dual_source([picture(4)], (160, 120), (320, 240))
    with source:
        frame = source.read()
        request = cameras[0].requests[-1]
        assert isinstance(request, DualStreamRequest)
        request.picture = picture(5, (100, 100))  # not the main stream's size
        with pytest.raises((CameraError, AssertionError)):
            source.full_frame(frame)


class SizeReader:
    """Reads every frame as six sure dice showing 2; its ``read_closer`` reads 5s from a full picture."""

    def __init__(self) -> None:
        self.read_sizes: list[tuple[int, int]] = []
        self.closer_sizes: list[tuple[int, int]] = []

    def __call__(self, image: np.ndarray) -> TableObservation:
        self.read_sizes.append((image.shape[1], image.shape[0]))
        dice = tuple(Detection("d6", 2, (10 * i, 10, 8, 8), 0.99, center=(10 * i + 4.0, 14.0), zone="theatre")
                     for i in range(6))
        return TableObservation(dice, (image.shape[1], image.shape[0]))

    def read_closer(self, observation: TableObservation, full: np.ndarray) -> TableObservation:
        from dataclasses import replace

        self.closer_sizes.append((full.shape[1], full.shape[0]))
        return replace(observation, objects=tuple(replace(d, value=5) for d in observation.objects))


def test_the_loop_settles_on_the_small_stream_and_reads_faces_from_the_full_one(tmp_path: Path) -> None:
    store = MatchStore(tmp_path / "m.db")
    match = store.open(store.create("sevens", ["Ann", "Bo"], {"sv.rounds": 1}))
    source, cameras = dual_source([picture(6)], (160, 120), (320, 240))
    settle, reader = StillSettle(), SizeReader()
    source.start()
    loop = TableLoop(source, match, settle, reader)
    results = [loop.step() for _ in range(3)]
    source.close()
    assert settle.sizes == {(160, 120)}
    assert reader.read_sizes == [(160, 120)] and reader.closer_sizes == [(320, 240)]
    assert [r.text for r in results if r is not None] == ["roll 5 5 5 5 5 5"]  # SV-2.2's order roll, as read closer
    assert loop.latest_observation is not None and loop.latest_observation.objects[0].value == 5
    assert loop.latest_read is not None and loop.latest_read.size == (160, 120)  # pictures stay small


def test_without_a_full_picture_the_loop_reads_the_small_frame_as_before(tmp_path: Path) -> None:
    store = MatchStore(tmp_path / "m.db")
    match = store.open(store.create("sevens", ["Ann", "Bo"], {"sv.rounds": 1}))
    source = PiCameraSource(PiCameraConfig(size=(16, 12), settle_s=0), factory=FakePicamera2, sleep=lambda s: None)
    reader = SizeReader()
    source.start()
    loop = TableLoop(source, match, StillSettle(), reader)
    [loop.step() for _ in range(3)]
    source.close()
    assert reader.closer_sizes == [] and loop.latest_observation is not None
    assert loop.latest_observation.objects[0].value == 2


def fixture_frame(index: int) -> np.ndarray:
    image = cv2.imread(str(SP_T1 / f"{index:04d}.jpg"))
    assert image is not None, f"fixture frame missing: {SP_T1 / f'{index:04d}.jpg'}"
    return np.asarray(image, np.uint8)


def test_a_throw_is_refereed_from_the_full_picture_of_a_camera_serving_both_streams(tmp_path: Path) -> None:
    """SP-3.1: Jess's throw of sp_t1 (3H 4T), its 1280x960 frame served as the sensor's full
    picture beside a 640x480 lores stream: the live reader settles and finds the pennies on the
    small stream, reads their faces from the full picture, and the throw is applied."""
    from hardware.replay import ReplaySource
    from web.service import VisionReader, create_match

    layout = replay_layout(ReplaySource(SP_T1, realtime=False))
    store = MatchStore(tmp_path / "m.db")
    match = create_match(store, "seven_pennies", ["Jess", "Kevin"], {}, first="Jess")
    setup, throw = fixture_frame(0), fixture_frame(5)
    source, cameras = dual_source([setup] * 3 + [throw] * 3, (640, 480), (1280, 960))
    settle = StillSettle()
    reader = VisionReader(layout, kinds=frozenset({"penny"}))
    source.start()
    loop = TableLoop(source, match, settle, reader)
    results = [loop.step() for _ in range(6)]
    source.close()
    ruled = [r for r in results if r is not None]
    assert settle.sizes == {(640, 480)}
    assert [r.kind for r in ruled] == ["confirmed", "chance"], [r.text for r in ruled]
    assert ruled[1].text == "throw 3H 4T"
    observation = loop.latest_observation
    assert observation is not None and observation.frame_size == (640, 480)
    read_full = [d for d in observation.objects if d.extra.get("full_resolution")]
    assert len(read_full) >= 6, observation.objects
    made = [name for request in cameras[0].requests if isinstance(request, DualStreamRequest) for name in request.made]
    assert made.count("main") == 2  # one full picture per settle, never for a moving frame


def test_pi_with_a_size_names_the_full_resolution_stream() -> None:
    from hardware.sources import open_source, parse_camera

    assert parse_camera("pi").full_size is None
    assert parse_camera("pi:4608x2592").full_size == (4608, 2592)
    source = open_source("pi:4608x2592")
    assert isinstance(source, PiCameraSource)
    assert (source.config.full_size, source.config.size) == ((4608, 2592), (1280, 720))
    assert open_source("pi:4056x3040").config.size == (1280, 960)  # type: ignore[attr-defined]
    for bad in ("pi:4608", "pi:x2592", "pi:4608x", "pi:8x8"):
        with pytest.raises(ValueError, match="pi:WIDTHxHEIGHT"):
            parse_camera(bad)


class BrokenCloserReader(SizeReader):
    """A reader whose closer read refuses the full picture."""

    def read_closer(self, observation: TableObservation, full: np.ndarray) -> TableObservation:
        raise ValueError("the full picture has another shape")


def test_a_full_picture_that_cannot_be_read_closer_leaves_the_small_read(tmp_path: Path) -> None:
    store = MatchStore(tmp_path / "m.db")
    match = store.open(store.create("sevens", ["Ann", "Bo"], {"sv.rounds": 1}))
    source, _ = dual_source([picture(7)], (160, 120), (320, 240))
    source.start()
    loop = TableLoop(source, match, StillSettle(), BrokenCloserReader())
    results = [loop.step() for _ in range(3)]
    source.close()
    assert [r.text for r in results if r is not None] == ["roll 2 2 2 2 2 2"]
    assert loop.latest_observation is not None
    assert "faces not read from the full picture: the full picture has another shape" in loop.latest_observation.notes


def test_a_reconnecting_camera_passes_the_full_picture_through_and_none_while_lost() -> None:
    """``serve`` wraps every live camera in reconnection: the full picture must still reach the
    loop through it."""
    from hardware.reconnect import ReconnectingSource

    pictures = [picture(5), picture(6)]
    inner, _ = dual_source(pictures, (160, 120), (320, 240))
    source = ReconnectingSource(inner, retry_first_start=False)
    with source:
        frame = source.read()
        full = source.full_frame(frame)
        assert full is not None and full.frame_id == frame.frame_id and np.array_equal(full.image, pictures[0])
        source.connected = False  # as after a read that lost the camera
        assert source.full_frame(frame) is None
