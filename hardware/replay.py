"""Replay a recorded game (a ``fixtures/games/<name>/`` folder) as a frame source.

A game folder holds ``game.json`` and the frame images it lists (fixtures/README.md). Each
entry of its ``frames`` list names an image file (``image``, or ``file`` as the recorder
writes it), its timestamp in seconds (``t``) and optionally an ``id`` (else the file's stem)
and its labelled objects (``objects``, or ``labels``); the labels travel in the frame's metadata. The source plays the frames
in order, either in real time (sleeping so that frame ``k`` comes ``t_k - t_0`` after the
first) or as fast as possible, and raises ``EOFError`` after the last one.

Rendered fixture games hold key frames only (the hand over the coins, the coins in the air,
the table after each move). A camera sees a still table for as long as it lasts, so a replay
of key frames holds each settled one, repeated at ``hold_fps`` frames a second with the key
frame's id, until the next key frame's time: the settle detector then sees a table stay still
as it would live. A key frame of a passing moment is shown once. Recordings made by the ``Recorder`` are streams already and are not held.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from hardware.frames import BaseSource, CameraError, FrameError
from hardware.image_file import ImageFileError, decode_image

KEY_FRAME_FORMAT = "table-referee-fixture"
"""``game.json`` formats whose frames are rendered key frames, held when replayed."""
DEFAULT_HOLD_FPS = 10.0
"""The camera rate key frames are held at."""


@dataclass(frozen=True)
class ReplayFrame:
    """One entry of a recorded game's frame list."""

    path: Path
    timestamp: float
    frame_id: str
    labels: Any = None
    settled: bool = True
    """False for a key frame of a passing moment (a hand in view, objects in the air)."""


def load_game_file(folder: Path) -> dict[str, Any]:
    """``game.json`` of a recorded game.

    :raises CameraError: when the folder or its ``game.json`` is missing or not valid JSON.
    """
    path = folder / "game.json"
    if not folder.is_dir():
        raise CameraError(f"replay: {folder} is not a folder (give a fixtures/games/<name> folder)")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CameraError(f"replay: {path} is missing") from None
    except json.JSONDecodeError as exc:
        raise CameraError(f"replay: {path} is not valid JSON: {exc}") from None
    except UnicodeDecodeError:
        raise CameraError(f"replay: {path} is not valid JSON (not UTF-8 text)") from None
    if not isinstance(data, dict) or not isinstance(data.get("frames"), list):
        raise CameraError(f"replay: {path} has no 'frames' list")
    return data


def frame_list(folder: Path, data: dict[str, Any]) -> list[ReplayFrame]:
    """The frames of a recorded game, in order.

    :raises CameraError: naming the first entry without a file or timestamp, or with time going back.
    """
    frames: list[ReplayFrame] = []
    last = float("-inf")
    for number, entry in enumerate(data["frames"]):
        if not isinstance(entry, dict):
            raise CameraError(f"replay: frame {number} of {folder}/game.json is not an object")
        name = entry.get("file", entry.get("image", entry.get("path")))
        stamp = entry.get("t", entry.get("timestamp"))
        if not isinstance(name, str) or not isinstance(stamp, (int, float)):
            raise CameraError(f"replay: frame {number} of {folder}/game.json needs 'file' (a path) and 't' (seconds)")
        if stamp < last:
            raise CameraError(f"replay: frame {number} of {folder}/game.json goes back in time ({stamp} < {last})")
        last = float(stamp)
        frame_id = str(entry.get("id", entry.get("frame_id", Path(name).stem)))
        # Labels: ``objects`` in the fixtures' format (fixtures/README.md), ``labels`` from a Recorder.
        labels = entry.get("labels", entry.get("objects"))
        moving = isinstance(labels, list) and any("moving" in (obj.get("flags") or ()) for obj in labels if isinstance(obj, dict))
        settled = bool(entry.get("settled", True)) and not entry.get("hand_in_view") and not moving
        frames.append(ReplayFrame(folder / name, float(stamp), frame_id, labels, settled))
    return frames


class ReplaySource(BaseSource):
    """Frames of a recorded game, in real time (``realtime=True``) or as fast as possible.

    ``start_after`` skips every frame up to and including the one with that id (resuming a
    match); ``clock`` and ``sleep`` are injectable for tests.
    """

    name = "replay"

    def __init__(
        self,
        folder: str | Path,
        realtime: bool = False,
        size: tuple[int, int] | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
        hold_fps: float | None = None,
    ) -> None:
        super().__init__(size)
        self.folder = Path(folder)
        self.game = load_game_file(self.folder)
        """The whole ``game.json`` as read, raw: what it means (game, players, options,
        decisions, the table) is ``web.recording``'s to say."""
        self.frames = frame_list(self.folder, self.game)
        self.realtime = realtime
        key_frames = str(self.game.get("format", "")).startswith(KEY_FRAME_FORMAT)
        self.hold_fps = (DEFAULT_HOLD_FPS if key_frames else 0.0) if hold_fps is None else hold_fps
        """Frames a second each key frame is held at; 0 plays every frame once."""
        self.last_timestamp = float("-inf")
        """The recorded time of the last frame read (a held frame's own time)."""
        self._held: tuple[Any, int] | None = None
        """The key frame being held (decoded image, repeats already given)."""
        self._clock = clock
        self._sleep = sleep
        self._position = 0
        self._origin: tuple[float, float] | None = None
        self._catch_up: int | None = None

    @property
    def position(self) -> int:
        """The index of the next frame to read."""
        return self._position

    def seek(self, index: int) -> None:
        """Make frame ``index`` the next one read (real-time pacing restarts from it)."""
        if not 0 <= index <= len(self.frames):
            raise ValueError(f"replay: frame index {index} is outside 0..{len(self.frames)}")
        self._position = index
        self._origin = None
        self._held = None

    def index_of(self, frame_id: str) -> int:
        """The index of the frame called ``frame_id``.

        :raises KeyError: for an id not in this game.
        """
        for index, frame in enumerate(self.frames):
            if frame.frame_id == frame_id:
                return index
        raise KeyError(f"replay: no frame {frame_id!r} in {self.folder}")

    def skip_ahead_to(self, frame_id: str) -> None:
        """Deliver every frame up to and including ``frame_id`` at once, without real-time
        pacing (a resumed match catches up with the frames it already ruled on); pacing
        restarts from the frame after it.

        :raises KeyError: for an id not in this game.
        """
        self._catch_up = self.index_of(frame_id)

    def _open(self) -> None:
        self._origin = None

    def _grab(self) -> tuple[Any, float, str, dict[str, Any]]:
        if self._held is not None:
            image, given = self._held
            entry = self.frames[self._position - 1]
            if given < self._repeats(self._position - 1):
                self._held = (image, given + 1)
                stamp = entry.timestamp + given / self.hold_fps
                self._pace(stamp, self._position - 1)
                self.last_timestamp = stamp
                return image.copy(), stamp, entry.frame_id, {"labels": entry.labels, "index": self._position - 1}
            self._held = None
        if self._position >= len(self.frames):
            raise EOFError(f"replay: {self.folder} has no more frames")
        entry = self.frames[self._position]
        self._position += 1
        self._pace(entry.timestamp, self._position - 1)
        self.last_timestamp = entry.timestamp
        image = self._decode(entry)
        if self.hold_fps > 0:
            self._held = (image, 1)
        return image, entry.timestamp, entry.frame_id, {"labels": entry.labels, "index": self._position - 1}

    def _repeats(self, index: int) -> int:
        """How many frames key frame ``index`` stands for at ``hold_fps`` (at least one).

        Only a settled key frame is held: a key frame of a passing moment (a hand reaching in,
        coins in the air) stands for frames that all differ, so it is shown once.
        """
        if not self.frames[index].settled:
            return 1
        start = self.frames[index].timestamp
        end = self.frames[index + 1].timestamp if index + 1 < len(self.frames) else start + 1.0
        return max(1, round((end - start) * self.hold_fps))

    def _pace(self, stamp: float, index: int) -> None:
        """In real time, sleep until ``stamp`` is due (measured from the first frame read, or
        from the first after a catch-up: see ``skip_ahead_to``)."""
        if not self.realtime:
            return
        if self._catch_up is not None:
            if index <= self._catch_up:
                return
            self._catch_up = None
            self._origin = None
        now = self._clock()
        if self._origin is None:
            self._origin = (now, stamp)
        due = self._origin[0] + (stamp - self._origin[1])
        if due > now:
            self._sleep(due - now)

    @staticmethod
    def _decode(entry: ReplayFrame) -> Any:
        """The frame's picture; a missing, truncated, corrupt or oversized file is a ``FrameError``
        (the loop skips that frame and says why)."""
        raw = np.fromfile(entry.path, dtype=np.uint8) if entry.path.is_file() else None
        if raw is None:
            raise FrameError(f"replay: frame {entry.frame_id} ({entry.path}) is missing")
        try:
            return decode_image(raw, entry.path.name)
        except ImageFileError as exc:
            raise FrameError(f"replay: frame {entry.frame_id}: {exc}") from exc

    def _release(self) -> None:
        self._origin = None
        self._held = None
