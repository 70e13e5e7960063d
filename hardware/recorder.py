"""Record what a source sees as a new fixture game: frames, timestamps and the confirmed reads.

``Recorder`` wraps any source and is a source itself: every frame read through it is written
to ``<folder>/frames/<id>.jpg`` and listed in ``<folder>/game.json`` with its timestamp, in the
same format ``ReplaySource`` plays back. The referee adds labels (the reads it confirmed) and
the tablet's decisions as they happen, so a real table's game becomes a fixture to test with.
``game.json`` is rewritten atomically every ``flush_every`` frames and at close, so a killed
process leaves a playable (if shorter) recording.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from types import TracebackType
from typing import Any

from hardware.frames import CameraError, Frame, FrameSource


class Recorder:
    """A source that writes every frame it passes on (see the module docstring)."""

    def __init__(
        self,
        source: FrameSource,
        folder: str | Path,
        info: dict[str, Any] | None = None,
        jpeg_quality: int = 92,
        flush_every: int = 30,
    ) -> None:
        self.source = source
        self.folder = Path(folder)
        if (self.folder / "game.json").exists():
            raise CameraError(f"record: {self.folder} already holds a recording; choose a new folder")
        self.jpeg_quality = jpeg_quality
        self.flush_every = flush_every
        self.data: dict[str, Any] = {**(info or {}), "frames": [], "decisions": [], "rulings": []}
        """What ``game.json`` will hold: the caller's ``info`` (game, players, options) and the lists."""
        self._by_id: dict[str, dict[str, Any]] = {}

    def start(self) -> None:
        """Start the wrapped source and make the folder."""
        (self.folder / "frames").mkdir(parents=True, exist_ok=True)
        self.source.start()

    def read(self) -> Frame:
        """Read a frame from the wrapped source and write it down."""
        import cv2

        frame = self.source.read()
        name = f"frames/{frame.frame_id}.jpg"
        ok, encoded = cv2.imencode(".jpg", frame.image, [cv2.IMWRITE_JPEG_QUALITY, self.jpeg_quality])
        if not ok:
            raise CameraError(f"record: frame {frame.frame_id} could not be encoded")
        encoded.tofile(self.folder / name)
        entry: dict[str, Any] = {"id": frame.frame_id, "file": name, "t": round(frame.timestamp, 6)}
        self.data["frames"].append(entry)
        self._by_id[frame.frame_id] = entry
        if len(self.data["frames"]) % self.flush_every == 0:
            self.flush()
        return frame

    def label(self, frame_id: str, labels: list[dict[str, Any]]) -> None:
        """Attach the confirmed read of frame ``frame_id`` (one dict per object).

        :raises KeyError: for a frame this recorder has not written.
        """
        try:
            self._by_id[frame_id]["labels"] = labels
        except KeyError:
            raise KeyError(f"record: frame {frame_id!r} was not recorded here") from None

    def decision(self, action: str, after_frame: str | None) -> None:
        """Note a decision taken on the tablet (``keep``, ``gather``) after frame ``after_frame``."""
        self.data["decisions"].append({"action": action, "after_frame": after_frame})

    def ruling(self, kind: str, text: str, frame_id: str | None) -> None:
        """Note the ruling the referee made, for the fixture's expected rulings."""
        self.data["rulings"].append({"kind": kind, "text": text, "frame": frame_id})

    def flush(self) -> None:
        """Write ``game.json`` atomically (a temporary file renamed over the old one)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        temporary = self.folder / "game.json.tmp"
        temporary.write_text(json.dumps(self.data, indent=1), encoding="utf-8")
        os.replace(temporary, self.folder / "game.json")

    def stop(self) -> None:
        """Stop the wrapped source and write ``game.json``."""
        self.source.stop()
        self.flush()

    def close(self) -> None:
        """Close the wrapped source and write ``game.json``."""
        self.source.close()
        self.flush()

    def __enter__(self) -> Recorder:
        self.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None) -> None:
        self.close()
