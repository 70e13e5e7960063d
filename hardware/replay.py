"""Replay a recorded game (a ``fixtures/games/<name>/`` folder) as a frame source.

A game folder holds ``game.json`` and the frame images it lists (fixtures/README.md). Each
entry of its ``frames`` list names an image file (``image``, or ``file`` as the recorder
writes it), its timestamp in seconds (``t``) and optionally an ``id`` (else the file's stem)
and its labelled objects (``objects``, or ``labels``); the labels travel in the frame's metadata. The source plays the frames
in order, either in real time (sleeping so that frame ``k`` comes ``t_k - t_0`` after the
first) or as fast as possible, and raises ``EOFError`` after the last one.
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


@dataclass(frozen=True)
class ReplayFrame:
    """One entry of a recorded game's frame list."""

    path: Path
    timestamp: float
    frame_id: str
    labels: Any = None


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
        frames.append(ReplayFrame(folder / name, float(stamp), frame_id, entry.get("labels", entry.get("objects"))))
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
    ) -> None:
        super().__init__(size)
        self.folder = Path(folder)
        self.game = load_game_file(self.folder)
        """The whole ``game.json`` (players, options, decisions and expected rulings too)."""
        self.frames = frame_list(self.folder, self.game)
        self.realtime = realtime
        self._clock = clock
        self._sleep = sleep
        self._position = 0
        self._origin: tuple[float, float] | None = None

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

    def index_of(self, frame_id: str) -> int:
        """The index of the frame called ``frame_id``.

        :raises KeyError: for an id not in this game.
        """
        for index, frame in enumerate(self.frames):
            if frame.frame_id == frame_id:
                return index
        raise KeyError(f"replay: no frame {frame_id!r} in {self.folder}")

    def _open(self) -> None:
        self._origin = None

    def _grab(self) -> tuple[Any, float, str, dict[str, Any]]:
        import cv2

        if self._position >= len(self.frames):
            raise EOFError(f"replay: {self.folder} has no more frames")
        entry = self.frames[self._position]
        self._position += 1
        if self.realtime:
            now = self._clock()
            if self._origin is None:
                self._origin = (now, entry.timestamp)
            due = self._origin[0] + (entry.timestamp - self._origin[1])
            if due > now:
                self._sleep(due - now)
        raw = np.fromfile(entry.path, dtype=np.uint8) if entry.path.is_file() else None
        if raw is None:
            raise FrameError(f"replay: frame {entry.frame_id} ({entry.path}) is missing")
        image = cv2.imdecode(raw, cv2.IMREAD_COLOR) if raw.size else None
        if image is None:
            raise FrameError(f"replay: frame {entry.frame_id} ({entry.path.name}) is corrupt or not an image")
        return image, entry.timestamp, entry.frame_id, {"labels": entry.labels, "index": self._position - 1}

    def _release(self) -> None:
        self._origin = None
