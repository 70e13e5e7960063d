"""Overlays for the tablet: what was read, the zones, and the forced moves, drawn on a frame.

Every function takes a BGR uint8 frame and returns a new image; the input is never changed.
Sizes scale with the frame's height so the labels stay legible on a tablet: white text on a
dark box, thick outlines, one colour per meaning (sure read, unsure read, forced move).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.markers import as_u8, zone_colour
from vision.types import BBox, Detection, TableObservation
from vision.zones import zone_title

Image = NDArray[np.uint8]
Colour = tuple[int, int, int]


class ZoneMap(Protocol):
    """What the zone overlays need of a calibration (duck-typed)."""

    @property
    def zones(self) -> Sequence[object]:
        """The zones (each with ``id`` and ``polygon`` in table mm)."""
        ...

    def table_to_image(self, points: NDArray[np.float64]) -> NDArray[np.float64]:
        """Table millimetres to frame pixels."""
        ...


@dataclass(frozen=True)
class OverlayParams:
    """Sizes and colours of the overlays (sizes as shares of the frame's height)."""

    text: float = 0.03
    """Height of label text."""
    line: float = 0.005
    """Width of outlines."""
    zone_alpha: float = 0.15
    """Opacity of a zone's tint."""
    sure: float = 0.8
    """Confidence from which a read is drawn as sure."""
    sure_colour: Colour = (60, 200, 60)
    """Outline of a sure read (green)."""
    doubt_colour: Colour = (0, 200, 255)
    """Outline of a read with a value but low confidence (amber)."""
    unsure_colour: Colour = (40, 40, 230)
    """Outline of an object that could not be read (red)."""
    move_colour: Colour = (255, 0, 255)
    """Arrows and rings of forced moves (magenta: stands out on any cloth)."""
    highlight_colour: Colour = (0, 255, 255)
    """Outline of a highlighted zone (yellow)."""


@dataclass(frozen=True)
class ForcedMark:
    """One object that must move: where it is now (pixels) and the zone it must go to."""

    source: BBox | tuple[float, float]
    """The object's box ``(x, y, w, h)`` or centre ``(x, y)`` in frame pixels."""
    target: str
    """The zone id it must go to."""
    label: str = ""
    """Text by the arrow; by default ``"to <zone>"``."""

    @property
    def centre(self) -> tuple[float, float]:
        """The object's centre in pixels."""
        values = [float(v) for v in self.source]
        if len(values) == 4:
            return values[0] + values[2] / 2.0, values[1] + values[3] / 2.0
        return values[0], values[1]


def _sizes(frame: Image, params: OverlayParams) -> tuple[float, int]:
    height = frame.shape[0]
    return max(12.0, params.text * height), max(2, round(params.line * height))


def _check(frame: Image) -> Image:
    if frame.dtype != np.uint8 or frame.ndim != 3 or frame.shape[2] != 3:
        raise ValueError(f"frame must be BGR uint8 (H x W x 3), not {frame.dtype} {frame.shape}")
    return frame.copy()


Box = tuple[int, int, int, int]
"""A label's box in the image: x0, y0, x1, y1."""


def label(image: Image, text: str, anchor: tuple[float, float], height_px: float, colour: Colour = (255, 255, 255),
          centred: bool = True, taken: list[Box] | None = None) -> Box:
    """Write ``text`` on ``image`` in place: white on a dark box with a coloured edge, kept inside
    the frame; returns the box. With ``taken`` (the boxes of labels written before), a label that
    would cover one of them is raised above it (two coins read in one spot, one on the other,
    would print over each other), and its box is added to them."""
    font = cv2.FONT_HERSHEY_SIMPLEX
    scale = height_px / 22.0
    thick = max(1, round(height_px / 10.0))
    (tw, th), base = cv2.getTextSize(text, font, scale, thick)
    pad = max(2, round(height_px * 0.25))
    x = anchor[0] - tw / 2.0 if centred else anchor[0]
    y = anchor[1] + th / 2.0 if centred else anchor[1]
    h, w = image.shape[:2]
    x = min(max(pad, x), w - tw - pad)
    y = min(max(th + pad, y), h - base - pad)
    for _ in range(len(taken or ())):
        below = [b for b in taken or () if _overlap(b, (x - pad, y - th - pad, x + tw + pad, y + base + pad))]
        if not below:
            break
        # Just above the highest label in the way, or below the lowest if there is no room.
        above = min(b[1] for b in below) - base - pad - 1
        y = above if above - th - pad >= 0 else max(b[3] for b in below) + th + pad + 1
    # Never off the frame: where there is no free place left, labels overlap.
    y = min(max(th + pad, y), h - base - pad)
    x0, y0 = max(0, int(round(x - pad))), max(0, int(round(y - th - pad)))
    x1, y1 = int(round(x + tw + pad)), int(round(y + base + pad))
    box = image[y0:y1, x0:x1]
    image[y0:y1, x0:x1] = (box * 0.35).astype(np.uint8)  # darken, so the text reads on any cloth
    cv2.rectangle(image, (x0, y0), (x1, y1), colour, max(1, thick // 2), cv2.LINE_AA)
    cv2.putText(image, text, (int(round(x)), int(round(y))), font, scale, (255, 255, 255), thick, cv2.LINE_AA)
    if taken is not None:
        taken.append((x0, y0, x1, y1))
    return x0, y0, x1, y1


def _overlap(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    """Whether two boxes (x0, y0, x1, y1) overlap."""
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def describe(obj: Detection) -> str:
    """Short text for one object: ``"1c H"``, ``"25c T"``, ``"d6 5"``, ``"1c ? edge"``; an unsure
    read shows its guess (the ring's colour says how sure it is)."""
    coin = {"penny": "1c", "nickel": "5c", "dime": "10c", "quarter": "25c"}.get(obj.kind)
    name = coin if coin is not None else obj.kind
    face = obj.guess
    if face is None:
        value = "?"
    elif face in ("heads", "tails"):
        value = "H" if face == "heads" else "T"
    else:
        value = str(face)
    reasons = {"on_edge": "edge", "cocked": "cocked", "stacked": "stacked", "occluded": "hidden", "moving": "moving"}
    flags = " ".join(reasons.get(f, f) for f in obj.flags)
    return f"{name} {value}" + (f" {flags}" if flags else "")


def draw_observation(frame: Image, observation: TableObservation, params: OverlayParams = OverlayParams()) -> Image:
    """The frame with every object read: a ring (coin) or box (die) coloured by how sure the read is,
    and its value (``1c H``, ``d6 5``, ``?`` when unsure)."""
    image = _check(frame)
    text_px, line_px = _sizes(image, params)
    taken: list[Box] = []
    for obj in observation.objects:
        if obj.guess is None or obj.flags:
            colour = params.unsure_colour
        elif obj.confidence >= params.sure:
            colour = params.sure_colour
        else:
            colour = params.doubt_colour
        x, y, w, h = obj.bbox
        if obj.kind.startswith("d") and obj.kind[1:].isdigit():
            cv2.rectangle(image, (int(x), int(y)), (int(x + w), int(y + h)), colour, line_px, cv2.LINE_AA)
        else:
            centre = (int(round(x + w / 2.0)), int(round(y + h / 2.0)))
            cv2.circle(image, centre, int(round(max(w, h) / 2.0)) + line_px, colour, line_px, cv2.LINE_AA)
        label(image, describe(obj), (x + w / 2.0, y - text_px * 0.9), text_px * 0.8, colour, taken=taken)
    return image


def _zone_px(calibration: ZoneMap, zone: object) -> NDArray[np.int32]:
    polygon = np.array(getattr(zone, "polygon"), dtype=np.float64)
    return np.round(calibration.table_to_image(polygon)).astype(np.int32).reshape(-1, 1, 2)


def draw_zones(frame: Image, calibration: ZoneMap, highlight: Iterable[str] = (), params: OverlayParams = OverlayParams()) -> Image:
    """The frame with the zones tinted, outlined and named; zones in ``highlight`` outlined in yellow.

    :raises ValueError: for a highlighted zone the calibration does not have.
    """
    image = _check(frame)
    text_px, line_px = _sizes(image, params)
    zones = list(calibration.zones)
    ids = [str(getattr(z, "id")) for z in zones]
    wanted = set(highlight)
    unknown = wanted - set(ids)
    if unknown:
        raise ValueError(f"no zone {sorted(unknown)[0]!r} to highlight; the zones are {', '.join(ids)}")
    tint = image.copy()
    outlines = [_zone_px(calibration, z) for z in zones]
    for zone_id, outline in zip(ids, outlines):
        cv2.fillPoly(tint, [outline], zone_colour(zone_id), cv2.LINE_AA)
    image = as_u8(cv2.addWeighted(tint, params.zone_alpha, image, 1.0 - params.zone_alpha, 0.0))
    for zone_id, outline in zip(ids, outlines):
        colour = params.highlight_colour if zone_id in wanted else zone_colour(zone_id)
        cv2.polylines(image, [outline], True, colour, line_px * (2 if zone_id in wanted else 1), cv2.LINE_AA)
    for zone_id, zone, outline in zip(ids, zones, outlines):
        _zone_label(image, calibration, zone, zone_id, outline, text_px)
    return image


def _zone_label(image: Image, calibration: ZoneMap, zone: object, zone_id: str, outline: NDArray[np.int32],
                text_px: float) -> None:
    """Name a zone just inside its top edge, shrunk (or shortened to the owner's name) to fit."""
    polygon = np.array(getattr(zone, "polygon"), dtype=np.float64)
    x_mid = float((polygon[:, 0].min() + polygon[:, 0].max()) / 2.0)
    top = calibration.table_to_image(np.array([[x_mid, polygon[:, 1].min()]], dtype=np.float64))[0]
    _x, _y, width_px, height_px = cv2.boundingRect(outline)
    text = zone_title(zone_id)
    size = text_px
    font_scale_width = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, size / 22.0, max(1, round(size / 10.0)))[0][0]
    if font_scale_width > 0.9 * width_px:
        size = max(0.6 * text_px, size * 0.9 * width_px / font_scale_width)
        font_scale_width = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, size / 22.0, max(1, round(size / 10.0)))[0][0]
        if font_scale_width > 0.9 * width_px and ":" in zone_id:
            text = zone_id.partition(":")[2]
    anchor_y = top[1] + min(size * 1.1, height_px / 2.0)
    label(image, text, (float(top[0]), float(anchor_y)), size, zone_colour(zone_id))


def _centroid_px(calibration: ZoneMap, zone: object) -> tuple[float, float]:
    contour = np.array(getattr(zone, "polygon"), dtype=np.float32).reshape(-1, 1, 2)
    m = cv2.moments(contour)
    centre_mm = (m["m10"] / m["m00"], m["m01"] / m["m00"]) if m["m00"] else tuple(contour.reshape(-1, 2).mean(axis=0))
    px = calibration.table_to_image(np.array([centre_mm], dtype=np.float64))[0]
    return float(px[0]), float(px[1])


def draw_forced_moves(
    frame: Image,
    moves: Sequence[ForcedMark | tuple[BBox | tuple[float, float], str]],
    calibration: ZoneMap,
    highlight: Iterable[str] = (),
    params: OverlayParams = OverlayParams(),
) -> Image:
    """The frame with each object that must move ringed and an arrow to its target zone, the target
    zones (and those in ``highlight``) outlined in yellow. Draw it over :func:`draw_zones` and
    :func:`draw_observation` for the full picture.

    ``moves`` holds :class:`ForcedMark` or ``(box or centre, zone id)`` pairs.

    :raises ValueError: for a move to a zone the calibration does not have, or a malformed move.
    """
    image = _check(frame)
    marks = [m if isinstance(m, ForcedMark) else _as_mark(m) for m in moves]
    text_px, line_px = _sizes(image, params)
    zones = {str(getattr(z, "id")): z for z in calibration.zones}
    for zone_id in sorted({m.target for m in marks} | set(highlight)):
        if zone_id not in zones:
            raise ValueError(f"no zone {zone_id!r} on this table; the zones are {', '.join(zones)}")
        outline = _zone_px(calibration, zones[zone_id])
        cv2.polylines(image, [outline], True, (0, 0, 0), line_px * 2 + 2, cv2.LINE_AA)
        cv2.polylines(image, [outline], True, params.highlight_colour, line_px * 2, cv2.LINE_AA)
    ends: dict[str, list[tuple[float, float]]] = {}
    for mark in marks:
        start = mark.centre
        end = _nearest_inside(calibration, zones[mark.target], start, 1.5 * text_px)
        ends.setdefault(mark.target, []).append(end)
        size = [float(v) for v in mark.source]
        radius = max(text_px, max(size[2], size[3]) / 2.0 + line_px) if len(size) == 4 else text_px
        s = (int(round(start[0])), int(round(start[1])))
        e = (int(round(end[0])), int(round(end[1])))
        cv2.circle(image, s, int(round(radius)) + line_px, (0, 0, 0), line_px + 2, cv2.LINE_AA)
        cv2.circle(image, s, int(round(radius)) + line_px, params.move_colour, line_px, cv2.LINE_AA)
        length = float(np.hypot(e[0] - s[0], e[1] - s[1]))
        ring = radius + line_px
        if length > ring + text_px:
            # From the ring's edge, so the object itself stays in view.
            s = (int(round(start[0] + (e[0] - start[0]) * ring / length)), int(round(start[1] + (e[1] - start[1]) * ring / length)))
            tip = min(0.3, 2.0 * text_px / (length - ring))
            cv2.arrowedLine(image, s, e, (0, 0, 0), line_px * 2 + 2, cv2.LINE_AA, 0, tip)
            cv2.arrowedLine(image, s, e, params.move_colour, line_px * 2, cv2.LINE_AA, 0, tip)
        if mark.label:
            label(image, mark.label, (s[0] + (e[0] - s[0]) * 0.5, s[1] + (e[1] - s[1]) * 0.5), text_px, params.move_colour)
    # One label per target zone, where the arrows arrive: "6 to Balcony".
    for target, points in ends.items():
        unlabelled = sum(1 for m in marks if m.target == target and not m.label)
        if unlabelled:
            x = float(np.mean([p[0] for p in points]))
            y = float(np.mean([p[1] for p in points]))
            centre = _centroid_px(calibration, zones[target])
            # Just past the arrow heads, further into the zone.
            dx, dy = centre[0] - x, centre[1] - y
            norm = max(1.0, float(np.hypot(dx, dy)))
            spot = (x + dx / norm * text_px * 1.2, y + dy / norm * text_px * 1.2)
            label(image, f"{unlabelled} to {zone_title(target)}", spot, text_px, params.move_colour)
    return image


def _as_mark(move: object) -> ForcedMark:
    if not isinstance(move, (tuple, list)) or len(move) != 2 or not isinstance(move[1], str):
        raise ValueError(f"a forced move is (box or centre, zone id), not {move!r}")
    source = tuple(float(v) for v in move[0])
    if len(source) not in (2, 4):
        raise ValueError(f"a forced move's object is a box (x, y, w, h) or a centre (x, y), not {move[0]!r}")
    return ForcedMark(source, move[1])  # type: ignore[arg-type]


def _nearest_inside(calibration: ZoneMap, zone: object, start: tuple[float, float], inset: float) -> tuple[float, float]:
    """Where the arrow ends: the zone's nearest point to the object, ``inset`` pixels inside it
    (or the zone's centre for a zone too small for that), so arrows stay short and apart."""
    outline = calibration.table_to_image(np.array(getattr(zone, "polygon"), dtype=np.float64))
    contour = outline.astype(np.float32).reshape(-1, 1, 2)
    point = np.array(start, dtype=np.float64)
    if cv2.pointPolygonTest(contour, (float(point[0]), float(point[1])), True) >= inset:
        return float(point[0]), float(point[1])  # already well inside: the arrow is a ring only
    best, best_d, normal = outline[0], np.inf, np.zeros(2)
    for a, b in zip(outline, np.roll(outline, -1, axis=0)):
        ab = b - a
        t = float(np.clip(np.dot(point - a, ab) / max(float(np.dot(ab, ab)), 1e-9), 0.0, 1.0))
        q = a + t * ab
        d = float(np.hypot(*(point - q)))
        if d < best_d:
            best, best_d = q, d
            normal = np.array([-ab[1], ab[0]]) / max(float(np.hypot(*ab)), 1e-9)
    probe = best + normal
    if cv2.pointPolygonTest(contour, (float(probe[0]), float(probe[1])), False) < 0:
        normal = -normal  # point the normal into the zone
    end = best + normal * inset
    if cv2.pointPolygonTest(contour, (float(end[0]), float(end[1])), True) < 0.5 * inset:
        end = np.array(_centroid_px(calibration, zone))  # a zone too thin or odd for that: its middle
    return float(end[0]), float(end[1])


@dataclass(frozen=True)
class MarkerParams:
    """Sizes and colours of the numbered markers the tablet's legend explains."""

    height: float = 0.05
    """Height of a marker as a share of the frame's height (readable at arm's length on a tablet)."""
    min_height: float = 14.0
    """The smallest marker in pixels, however small the frame."""
    gap: float = 0.25
    """Space between an object and its marker, as a share of the marker's height."""
    colours: tuple[tuple[str, Colour], ...] = (
        ("", (60, 200, 60)),            # read surely: green
        ("unsure", (40, 40, 230)),      # not read: red
        ("forced", (255, 0, 255)),      # must move now: magenta
        ("locked", (255, 160, 40)),     # FLIP's locked dice: blue
        ("gathered", (0, 215, 255)),    # waiting in a player's Gathering Area: yellow
    )
    """The outline colour of each state an object may be in (BGR)."""

    def colour(self, state: str) -> Colour:
        """The colour of ``state`` (a state not listed is drawn as read surely)."""
        return dict(self.colours).get(state, self.colours[0][1])


@dataclass(frozen=True)
class Marker:
    """The marker of one object: its short text (a number, or FLIP's die id) and its state."""

    text: str
    """What the marker shows: ``"9"`` for FLIP's die 9, else the object's number in the legend."""
    state: str = ""
    """``""`` (read surely), ``unsure``, ``forced``, ``locked`` or ``gathered``."""


def marker_size(text: str, height_px: float) -> tuple[int, int]:
    """A marker's width and height in pixels: a round tag at least as wide as it is high."""
    font, scale, thick = cv2.FONT_HERSHEY_SIMPLEX, height_px / 40.0, max(2, round(height_px / 14.0))
    (tw, _th), _base = cv2.getTextSize(text, font, scale, thick)
    h = int(round(height_px))
    return max(h, tw + h // 2), h


def place_markers(boxes: Sequence[BBox], texts: Sequence[str], frame_size: tuple[int, int],
                  params: MarkerParams = MarkerParams()) -> list[Box]:
    """Where each object's marker goes (``x0, y0, x1, y1``): beside its object, never over an
    object or an earlier marker, inside the frame. Tried in turn: right, left, above, below and
    the corners, then the same twice as far out; where none is free (a crowded pile) the
    least-covering place is taken.

    :raises ValueError: when ``boxes`` and ``texts`` differ in length.
    """
    if len(boxes) != len(texts):
        raise ValueError(f"{len(boxes)} objects but {len(texts)} marker texts")
    width, height = frame_size
    h_px = max(params.min_height, params.height * height)
    gap = params.gap * h_px
    objects: list[Box] = [(int(x), int(y), int(x + w), int(y + h)) for x, y, w, h in boxes]
    placed: list[Box] = []
    for (x0, y0, x1, y1), text in zip(objects, texts):
        mw, mh = marker_size(text, h_px)
        cx, cy = (x0 + x1) / 2.0, (y0 + y1) / 2.0
        best: Box | None = None
        best_cover = np.inf
        for reach in (1.0, 2.2, 3.5):
            g = gap * reach + (reach - 1.0) * mh
            spots = [
                (x1 + g, cy - mh / 2), (x0 - g - mw, cy - mh / 2), (cx - mw / 2, y0 - g - mh), (cx - mw / 2, y1 + g),
                (x1 + g, y0 - g - mh), (x0 - g - mw, y0 - g - mh), (x1 + g, y1 + g), (x0 - g - mw, y1 + g),
            ]
            for sx, sy in spots:
                box = (int(round(sx)), int(round(sy)), int(round(sx + mw)), int(round(sy + mh)))
                if box[0] < 0 or box[1] < 0 or box[2] > width or box[3] > height:
                    continue
                cover = sum(_area(box, other) for other in objects + placed)
                if cover < best_cover:
                    best, best_cover = box, cover
                if cover == 0:
                    break
            if best_cover == 0:
                break
        if best is None:  # an object at the frame's edge: the marker clamped inside
            bx = int(min(max(0.0, x1 + gap), width - mw))
            by = int(min(max(0.0, cy - mh / 2), height - mh))
            best = (bx, by, bx + mw, by + mh)
        placed.append(best)
    return placed


def _area(a: Box, b: Box) -> int:
    """The area two boxes share."""
    return max(0, min(a[2], b[2]) - max(a[0], b[0])) * max(0, min(a[3], b[3]) - max(a[1], b[1]))


def draw_markers(frame: Image, observation: TableObservation, markers: Sequence[Marker],
                 params: MarkerParams = MarkerParams()) -> Image:
    """The frame with each object outlined in its state's colour and a numbered marker beside it,
    tied to it by a short line, at the places :func:`place_markers` gives. The tablet's legend
    names each number as the options name the object (``die 9``, ``penny heads``).

    :raises ValueError: for a frame that is not BGR uint8, or markers and objects differing in number.
    """
    image = _check(frame)
    objects = observation.objects
    if len(markers) != len(objects):
        raise ValueError(f"{len(objects)} objects but {len(markers)} markers")
    boxes = place_markers([o.bbox for o in objects], [m.text for m in markers], (image.shape[1], image.shape[0]), params)
    line = max(2, round(0.004 * image.shape[0]))
    for obj, marker in zip(objects, markers):
        colour = params.colour(marker.state)
        x, y, w, h = (int(v) for v in obj.bbox)
        if obj.kind.startswith("d") and obj.kind[1:].isdigit():
            cv2.rectangle(image, (x - line, y - line), (x + w + line, y + h + line), colour, line, cv2.LINE_AA)
        else:
            cv2.circle(image, (x + w // 2, y + h // 2), max(w, h) // 2 + line, colour, line, cv2.LINE_AA)
    for obj, marker, box in zip(objects, markers, boxes):
        colour = params.colour(marker.state)
        x, y, w, h = obj.bbox
        mx, my = (box[0] + box[2]) / 2.0, (box[1] + box[3]) / 2.0
        # The leader line, from the marker's edge to the object's edge: short, and off the object.
        ox, oy = min(max(mx, x), x + w), min(max(my, y), y + h)
        cv2.line(image, (int(mx), int(my)), (int(ox), int(oy)), colour, line, cv2.LINE_AA)
        _draw_marker(image, marker.text, box, colour)
    return image


def _draw_marker(image: Image, text: str, box: Box, colour: Colour) -> None:
    """A rounded dark tag with a coloured rim and the text in white, large."""
    x0, y0, x1, y1 = box
    h = y1 - y0
    r = h // 2
    rim = max(2, h // 10)
    for fill, inset in ((colour, 0), ((20, 20, 20), rim)):
        cv2.rectangle(image, (x0 + r, y0 + inset), (x1 - r, y1 - inset), fill, -1)
        cv2.circle(image, (x0 + r, y0 + r), max(1, r - inset), fill, -1, cv2.LINE_AA)
        cv2.circle(image, (x1 - r, y0 + r), max(1, r - inset), fill, -1, cv2.LINE_AA)
    font, scale, thick = cv2.FONT_HERSHEY_SIMPLEX, h / 40.0, max(2, round(h / 14.0))
    (tw, th), _base = cv2.getTextSize(text, font, scale, thick)
    origin = (int(round((x0 + x1 - tw) / 2.0)), int(round((y0 + y1 + th) / 2.0)))
    cv2.putText(image, text, origin, font, scale, (255, 255, 255), thick, cv2.LINE_AA)
