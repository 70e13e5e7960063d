"""A table's calibration (``Calibration``: frame pixels to table millimetres, its zones) and its file, read back with every field checked and a bad one named (``load_calibration``)."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from vision.calibration.common import CalibrationError, FORMAT, MAX_DISTORTION, Matrix3, SOURCES, VERSION
from vision.calibration.geometry import _apply, _as_matrix3, _inv
from vision.calibration.lens import Lens, _centre_scale, _local_scale
from vision.markers import MarkerSpec
from vision.zones import Zone, check_zones, zone_of


@dataclass(frozen=True)
class Calibration:
    """How frame pixels map onto the table, and the table's zones.

    ``read_table`` uses :attr:`mm_per_px`, :meth:`image_to_table` and :meth:`zone_of`.
    """

    homography: Matrix3
    """3 x 3 homography from (undistorted, see :attr:`distortion`) frame pixels to table millimetres,
    normalised so ``h[2][2] == 1``."""
    table_size_mm: tuple[float, float]
    """Width and height of the play area in millimetres."""
    zones: tuple[Zone, ...]
    """The zones, polygons in table millimetres."""
    mm_per_px: float
    """Millimetres per pixel at the centre of the table (the scale for telling coins apart)."""
    markers: MarkerSpec | None = None
    """The corner markers used, or ``None`` for a manual calibration."""
    frame_size: tuple[int, int] | None = None
    """Width and height of the frames it was made from, when known."""
    source: str = "markers"
    """``markers``, ``manual`` or ``tracked`` (see :data:`SOURCES`)."""
    game: str = ""
    """The layout's game, when made from a default layout (information only)."""
    distortion: float = 0.0
    """Radial lens distortion ``k`` (see :class:`Lens`); 0 for a lens taken as perfect."""

    def __post_init__(self) -> None:
        check_zones(self.zones)
        if self.distortion and self.frame_size is None:
            raise CalibrationError("a lens distortion needs the frame_size it was measured on")

    @property
    def lens(self) -> Lens:
        """The lens model: where undistorted pixels lie in the frame."""
        return Lens.for_frame(self.distortion, self.frame_size)

    @property
    def marker_ids(self) -> tuple[int, int, int, int] | None:
        """The corner marker ids (top-left, top-right, bottom-right, bottom-left), or ``None``."""
        return None if self.markers is None else self.markers.ids

    @property
    def matrix(self) -> NDArray[np.float64]:
        """The homography as a 3 x 3 array (a copy)."""
        return np.array(self.homography, dtype=np.float64)

    @property
    def inverse(self) -> NDArray[np.float64]:
        """The inverse homography (table mm to pixels) as a 3 x 3 array."""
        return _inv(self.matrix)

    def image_to_table(self, points: NDArray[np.float64] | Sequence[Sequence[float]]) -> NDArray[np.float64]:
        """Map ``N x 2`` frame pixels to ``N x 2`` table millimetres."""
        return _apply(self.matrix, self.lens.undistort(points))

    def table_to_image(self, points: NDArray[np.float64] | Sequence[Sequence[float]]) -> NDArray[np.float64]:
        """Map ``N x 2`` table millimetres to ``N x 2`` frame pixels."""
        return self.lens.distort(_apply(self.inverse, points))

    def zone_of(self, point_mm: tuple[float, float]) -> str | None:
        """The id of the zone holding a point in table mm, or ``None`` outside every zone."""
        return zone_of(self.zones, point_mm)

    def zone(self, zone_id: str) -> Zone:
        """The zone called ``zone_id``.

        :raises KeyError: naming the known zones.
        """
        for zone in self.zones:
            if zone.id == zone_id:
                return zone
        raise KeyError(f"no zone {zone_id!r}; the zones are {', '.join(z.id for z in self.zones)}")

    def mm_per_px_at(self, point_px: tuple[float, float]) -> float:
        """Millimetres per pixel around one point of the frame (a tilted camera's scale varies)."""
        return _local_scale(self.matrix, self.lens, point_px)

    def zone_outline_px(self, zone_id: str) -> NDArray[np.float64]:
        """A zone's outline in frame pixels (``N x 2``), for drawing and masking."""
        return self.table_to_image(np.array(self.zone(zone_id).polygon, dtype=np.float64))

    def table_outline_px(self) -> NDArray[np.float64]:
        """The play area's four corners in frame pixels (TL, TR, BR, BL)."""
        width, height = self.table_size_mm
        return self.table_to_image(np.array([(0, 0), (width, 0), (width, height), (0, height)], dtype=np.float64))

    def with_zones(self, zones: Sequence[Zone]) -> Calibration:
        """The same camera geometry with another zone map (another game or player names)."""
        return replace(self, zones=tuple(zones))

    def with_homography(self, matrix: NDArray[np.float64], source: str = "tracked") -> Calibration:
        """The same table seen through a new homography (after the camera moved)."""
        return replace(
            self,
            homography=_as_matrix3(matrix),
            mm_per_px=_centre_scale(matrix, self.lens, self.table_size_mm),
            source=source,
        )

    def to_json(self) -> dict[str, Any]:
        """The file form: plain JSON types, numbers rounded to what matters."""
        return {
            "format": FORMAT,
            "version": VERSION,
            "source": self.source,
            "game": self.game,
            "frame_size": None if self.frame_size is None else list(self.frame_size),
            "table_size_mm": [round(float(v), 2) for v in self.table_size_mm],
            "mm_per_px": round(float(self.mm_per_px), 6),
            "homography": [[float(f"{v:.10g}") for v in row] for row in self.homography],
            "distortion": float(f"{self.distortion:.6g}"),
            "markers": None if self.markers is None else self.markers.to_json(),
            "zones": [zone.to_json() for zone in self.zones],
        }

    @classmethod
    def from_json(cls, data: Any) -> Calibration:
        """Build a calibration from its file form, checking every field.

        :raises CalibrationError: naming the first bad field and what was wrong with it.
        """
        return _from_json(data)

    def save(self, path: str | Path) -> None:
        """Write the calibration as an indented JSON file."""
        text = json.dumps(self.to_json(), indent=2)
        Path(path).write_text(_compact_numbers(text) + "\n", encoding="utf-8")


def load_calibration(path: str | Path) -> Calibration:
    """Read a calibration file written by :meth:`Calibration.save` (or by hand).

    :raises CalibrationError: for a missing file, bad JSON, or a bad field (named, with the path).
    """
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except OSError as error:
        raise CalibrationError(f"{file}: cannot read calibration file: {error.strerror or error}") from None
    except UnicodeDecodeError:
        raise CalibrationError(f"{file}: not a calibration file (not UTF-8 text; a picture given by mistake?)") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise CalibrationError(f"{file}: not JSON (line {error.lineno}, column {error.colno}: {error.msg})") from None
    try:
        return _from_json(data)
    except CalibrationError as error:
        raise CalibrationError(f"{file}: {error}") from None


def _check_size(size: Any, name: str) -> tuple[float, float]:
    if (
        not isinstance(size, (list, tuple))
        or len(size) != 2
        or not all(_is_number(v) and 0 < float(v) < 10_000 for v in size)
    ):
        raise CalibrationError(f"field {name!r} must be [width, height] in mm, both between 0 and 10000, not {size!r}")
    return float(size[0]), float(size[1])


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _from_json(data: Any) -> Calibration:
    if not isinstance(data, dict):
        raise CalibrationError(f"a calibration must be a JSON object, not {type(data).__name__}")
    if data.get("format") != FORMAT:
        raise CalibrationError(f"field 'format' must be {FORMAT!r}, not {data.get('format')!r}")
    if data.get("version") != VERSION:
        raise CalibrationError(f"field 'version' must be {VERSION}, not {data.get('version')!r}")
    known = {"format", "version", "source", "game", "frame_size", "table_size_mm", "mm_per_px", "homography", "distortion",
             "markers", "zones"}
    unknown = sorted(set(data) - known)
    if unknown:
        raise CalibrationError(f"unknown field {unknown[0]!r}; the fields are: {', '.join(sorted(known))}")
    for required in ("table_size_mm", "homography", "mm_per_px", "zones"):
        if required not in data:
            raise CalibrationError(f"field {required!r} is missing")
    source = data.get("source", "markers")
    if source not in SOURCES:
        raise CalibrationError(f"field 'source' must be one of {', '.join(SOURCES)}, not {source!r}")
    game = data.get("game", "")
    if not isinstance(game, str):
        raise CalibrationError(f"field 'game' must be a string, not {game!r}")
    table_size = _check_size(data["table_size_mm"], "table_size_mm")
    frame_size_raw = data.get("frame_size")
    frame_size: tuple[int, int] | None = None
    if frame_size_raw is not None:
        if (
            not isinstance(frame_size_raw, list)
            or len(frame_size_raw) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) and 0 < v <= 100_000 for v in frame_size_raw)
        ):
            raise CalibrationError(f"field 'frame_size' must be [width, height] in whole pixels, not {frame_size_raw!r}")
        frame_size = (frame_size_raw[0], frame_size_raw[1])
    rows = data["homography"]
    if not (isinstance(rows, list) and len(rows) == 3 and all(isinstance(r, list) and len(r) == 3 and all(_is_number(v) for v in r) for r in rows)):
        raise CalibrationError("field 'homography' must be 3 rows of 3 finite numbers")
    matrix = np.array(rows, dtype=np.float64)
    if abs(matrix[2, 2]) < 1e-12 or abs(np.linalg.det(matrix)) < 1e-15:
        raise CalibrationError("field 'homography' is singular: it maps the frame onto a line")
    matrix = matrix / matrix[2, 2]
    centre = np.array([[table_size[0] / 2.0, table_size[1] / 2.0]])
    inverse = np.linalg.inv(matrix)
    if float((inverse @ np.array([centre[0, 0], centre[0, 1], 1.0]))[2]) <= 0:
        raise CalibrationError("field 'homography' puts the table behind the camera")
    distortion = data.get("distortion", 0.0)
    if not _is_number(distortion) or abs(distortion) > MAX_DISTORTION:
        raise CalibrationError(
            f"field 'distortion' must be a number between -{MAX_DISTORTION} and {MAX_DISTORTION}, not {distortion!r}"
        )
    if distortion and frame_size is None:
        raise CalibrationError("field 'frame_size' is needed when 'distortion' is not 0")
    lens = Lens.for_frame(float(distortion), frame_size)
    mm_per_px = data["mm_per_px"]
    if not _is_number(mm_per_px) or not 0 < mm_per_px < 1000:
        raise CalibrationError(f"field 'mm_per_px' must be a positive number, not {mm_per_px!r}")
    expected_scale = _centre_scale(matrix, lens, table_size)
    if abs(mm_per_px - expected_scale) > 0.05 * expected_scale:
        raise CalibrationError(
            f"field 'mm_per_px' is {mm_per_px:g} but the homography gives {expected_scale:.4g} at the table's centre"
        )
    markers = _markers_from_json(data.get("markers"))
    zones_raw = data["zones"]
    if not isinstance(zones_raw, list):
        raise CalibrationError("field 'zones' must be a list of {\"id\": ..., \"polygon\": [[x, y], ...]}")
    zones: list[Zone] = []
    for index, item in enumerate(zones_raw):
        where = f"zones[{index}]"
        if not isinstance(item, dict) or set(item) != {"id", "polygon"}:
            raise CalibrationError(f"field '{where}' must be an object with exactly 'id' and 'polygon'")
        polygon = item["polygon"]
        if not isinstance(polygon, list) or not all(
            isinstance(p, list) and len(p) == 2 and all(_is_number(v) for v in p) for p in polygon
        ):
            raise CalibrationError(f"field '{where}.polygon' must be a list of [x, y] points in mm")
        try:
            zones.append(Zone(item["id"], tuple((float(p[0]), float(p[1])) for p in polygon)))
        except ValueError as error:
            raise CalibrationError(f"field '{where}': {error}") from None
    try:
        check_zones(zones)
    except ValueError as error:
        raise CalibrationError(f"field 'zones': {error}") from None
    return Calibration(
        homography=_as_matrix3(matrix),
        table_size_mm=table_size,
        zones=tuple(zones),
        mm_per_px=float(mm_per_px),
        markers=markers,
        frame_size=frame_size,
        source=source,
        game=game,
        distortion=float(distortion),
    )


def _markers_from_json(raw: Any) -> MarkerSpec | None:
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise CalibrationError("field 'markers' must be an object (dictionary, ids, size_mm, margin_mm) or null")
    unknown = sorted(set(raw) - {"dictionary", "ids", "size_mm", "margin_mm"})
    if unknown:
        raise CalibrationError(f"unknown field 'markers.{unknown[0]}'")
    ids = raw.get("ids", [0, 1, 2, 3])
    if not isinstance(ids, list) or len(ids) != 4 or not all(isinstance(v, int) and not isinstance(v, bool) for v in ids):
        raise CalibrationError(f"field 'markers.ids' must be 4 whole numbers, not {ids!r}")
    for key in ("size_mm", "margin_mm"):
        if key in raw and not _is_number(raw[key]):
            raise CalibrationError(f"field 'markers.{key}' must be a number, not {raw[key]!r}")
    try:
        return MarkerSpec(
            ids=(ids[0], ids[1], ids[2], ids[3]),
            size_mm=float(raw.get("size_mm", MarkerSpec.size_mm)),
            margin_mm=float(raw.get("margin_mm", MarkerSpec.margin_mm)),
            dictionary=str(raw.get("dictionary", MarkerSpec.dictionary)),
        )
    except ValueError as error:
        name, _, rest = str(error).partition(" ")
        raise CalibrationError(f"field '{name}' {rest}" if name.startswith("markers.") else f"field 'markers': {error}") from None


def _compact_numbers(text: str) -> str:
    """Put short lists of numbers (points, rows, sizes) on one line, so the file stays readable."""
    numbers = re.compile(r"\[\s*(-?[\d.eE+-]+(?:,\s*-?[\d.eE+-]+)*)\s*\]")
    text = numbers.sub(lambda m: "[" + ", ".join(part.strip() for part in m.group(1).split(",")) + "]", text)
    # Then a list of such lists (a polygon, the homography's rows) on one line too.
    points = re.compile(r"\[\s*(\[[^\[\]\n]*\](?:,\s*\[[^\[\]\n]*\])*)\s*\]")
    return points.sub(lambda m: "[" + re.sub(r",\s+\[", ", [", m.group(1)) + "]", text)
