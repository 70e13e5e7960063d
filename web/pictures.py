"""The pictures the tablets get: the ruled-on frame with its numbered markers, a question's crop.

Pure functions of a frame, the last read and the rules' state: ``TableService`` picks the frame
and the read, these draw and encode them. ``table_legend`` names each read object as the
options name it (``web.legend``), ``picture_layout`` says where its marker lies for the tablet,
``overlay_picture`` draws them on the frame and ``crop_picture`` cuts out a question's objects.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import cv2

from hardware.frames import Image
from referee.core import State
from referee.table import item_to_json
from vision.overlay import MarkerParams, draw_markers, place_markers
from vision.types import TableObservation
from web.legend import LegendEntry, legend

OVERLAY_QUALITY = 80
"""JPEG quality of the whole picture (sent to every tablet after every ruling)."""

CROP_QUALITY = 90
"""JPEG quality of a question's crop (small, and looked at closely)."""


def encode_jpeg(image: Image, quality: int) -> bytes:
    """``image`` as JPEG at ``quality``; ``b""`` where OpenCV cannot encode it."""
    ok, encoded = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    return encoded.tobytes() if ok else b""


def table_legend(state: State, made: set[str], observation: TableObservation) -> list[LegendEntry]:
    """The legend of the read ``observation``: each object named as the options name it
    (``web.legend``), the forced moves in ``made`` shown as done."""
    zones = {zone: [item_to_json(i) for i in items] for zone, items in state.zones().items()}
    moves = [{**m.to_json(), "done": str(m) in made} for m in state.forced_moves()]
    seats = range(len(state.game.players))
    locked = [str(d) for seat in seats for d in state.locked(seat)] if hasattr(state, "locked") else []
    return legend(observation.objects, zones, moves, locked)


def overlay_picture(image: Image, observation: TableObservation, entries: Sequence[LegendEntry]) -> Image:
    """``image`` with each read object outlined and numbered as its legend entry says."""
    return draw_markers(image, observation, [entry.marker() for entry in entries])


def picture_layout(observation: TableObservation, entries: Sequence[LegendEntry]) -> dict[str, Any]:
    """What the picture shows besides the frame, for the tablet: the legend of its numbered
    markers, and where the markers and the objects lie in it (frame pixels)."""
    boxes = [o.bbox for o in observation.objects]
    markers = place_markers(boxes, [e.mark for e in entries], observation.frame_size, MarkerParams())
    return {"legend": [e.to_json() for e in entries], "markers": [list(b) for b in markers],
            "objects": [[int(x), int(y), int(x + w), int(y + h)] for x, y, w, h in boxes],
            "size": list(observation.frame_size)}


def crop_picture(image: Image, observation: TableObservation, refs: Sequence[int], margin: int = 24) -> bytes:
    """The picture of the objects ``refs`` of ``observation`` (read from ``image``) as JPEG, for
    a question; ``b""`` when one is unknown. Where it shows several, each is marked with the
    face read for it."""
    if not refs or not all(0 <= r < len(observation.objects) for r in refs):
        return b""
    objects = [observation.objects[r] for r in refs]
    x0 = min(o.bbox[0] for o in objects)
    y0 = min(o.bbox[1] for o in objects)
    x1 = max(o.bbox[0] + o.bbox[2] for o in objects)
    y1 = max(o.bbox[1] + o.bbox[3] for o in objects)
    height, width = image.shape[:2]
    left, top = max(0, x0 - margin), max(0, y0 - margin)
    crop: cv2.typing.MatLike = image[top:min(height, y1 + margin), left:min(width, x1 + margin)].copy()
    if crop.size == 0:
        return b""
    if len(objects) > 1:
        # Large enough to check each face against its mark on a tablet.
        zoom = max(1.0, min(3.0, 640.0 / max(crop.shape[:2])))
        crop = cv2.resize(crop, None, fx=zoom, fy=zoom, interpolation=cv2.INTER_CUBIC)
        for obj in objects:
            x, y, w, h = ((v - off) * zoom for v, off in zip(obj.bbox, (left, top, 0, 0)))
            cv2.rectangle(crop, (int(x), int(y)), (int(x + w), int(y + h)), (0, 200, 255), 2)
            label, at = str(obj.guess), (int(x), max(24, int(y) - 6))
            cv2.putText(crop, label, at, cv2.FONT_HERSHEY_SIMPLEX, 0.9, (0, 0, 0), 5, cv2.LINE_AA)
            cv2.putText(crop, label, at, cv2.FONT_HERSHEY_SIMPLEX, 0.9, (255, 255, 255), 2, cv2.LINE_AA)
    ok, encoded = cv2.imencode(".jpg", crop, [cv2.IMWRITE_JPEG_QUALITY, CROP_QUALITY])
    return encoded.tobytes() if ok else b""
