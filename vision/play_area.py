"""Which reads lie on the table: inside the play area, off the corner markers, not where the
players said there is nothing. A reader with a calibration keeps only those."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from vision.calibration import Calibration
from vision.types import TableObservation


def in_play_area(observation: TableObservation, calibration: Calibration) -> TableObservation:
    """The observation without the objects that lie outside the play area or on a corner marker."""
    width, height = calibration.table_size_mm
    spec = calibration.markers
    squares = []
    if spec is not None:
        for marker_id in spec.ids:
            corners = spec.corners_mm(marker_id, calibration.table_size_mm)
            # The marker with its white quiet zone around it.
            squares.append((corners[:, 0].min() - spec.margin_mm, corners[:, 1].min() - spec.margin_mm,
                            corners[:, 0].max() + spec.margin_mm, corners[:, 1].max() + spec.margin_mm))
    kept = []
    for detection in observation.objects:
        if detection.position_mm is None:
            kept.append(detection)
            continue
        x, y = detection.position_mm
        off_table = not (0.0 <= x <= width and 0.0 <= y <= height)
        on_marker = any(x0 <= x <= x1 and y0 <= y <= y1 for x0, y0, x1, y1 in squares)
        if not (off_table or on_marker):
            kept.append(detection)
    left_out = len(observation.objects) - len(kept)
    if not left_out:
        return observation
    notes = (*observation.notes, f"{left_out} read(s) outside the play area or on a marker left out")
    return replace(observation, objects=tuple(kept), notes=notes)


def without_spots(observation: TableObservation, spots: Sequence[tuple[str, float, float, float]]) -> TableObservation:
    """The observation without reads of a kind at a spot where the players said there is none."""
    kept = [d for d in observation.objects if d.position_mm is None or not any(
        d.kind == kind and (d.position_mm[0] - x) ** 2 + (d.position_mm[1] - y) ** 2 <= r * r
        for kind, x, y, r in spots)]
    left_out = len(observation.objects) - len(kept)
    if not left_out:
        return observation
    notes = (*observation.notes, f"{left_out} read(s) where the players said there is nothing left out")
    return replace(observation, objects=tuple(kept), notes=notes)
