"""Deciding when a throw has come to rest: one settled frame per throw, never a moving one.

:class:`SettleDetector` watches a stream of frames. Each frame is shrunk and compared with the
one before (motion) and with the table as it last lay still (a hand, or anything large, that
has come in from the edge). Per zone it says ``moving``, ``hand`` or ``still``; once nothing has
moved and no hand has been in view for :attr:`SettleParams.still_frames` frames in a row, and
the table has not crept meanwhile, it yields a :class:`SettleEvent` with that frame, once, and
stays quiet until something moves again.

A hand is told from a coin by its size and by where it comes from, not by its colour alone: a
large changed blob that touches the frame's edge (an arm reaches in from outside), or any very
large changed blob, or a skin-coloured changed blob touching the edge. Copper pennies and wooden
tables are skin-coloured too, so colour only ever counts where the picture changed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.markers import as_u8

ZONE_STATES = ("moving", "hand", "still", "settled")
"""Per-zone states: something moves in it, a hand is over it, quiet but not yet settled, settled."""
TABLE_ZONE = "table"
"""The single zone watched when no calibration (no zone map) is given."""

Gray = NDArray[np.uint8]


class ZonedCalibration(Protocol):
    """What the detector needs of a calibration: zone outlines in pixels (duck-typed)."""

    @property
    def zones(self) -> Sequence[object]:
        """The zones (each with an ``id``)."""
        ...

    def zone_outline_px(self, zone_id: str) -> NDArray[np.float64]:
        """A zone's outline in frame pixels."""
        ...


@dataclass(frozen=True)
class SettleParams:
    """Thresholds of the settle detector (frames are first shrunk to ``work_width``)."""

    work_width: int = 320
    """Width the frames are shrunk to before anything else (speed, and noise averaging)."""
    blur_px: int = 3
    """Gaussian blur kernel at work scale (odd)."""
    diff_threshold: int = 6
    """Least grey-level change that counts as motion; raised automatically on noisy frames."""
    noise_factor: float = 5.0
    """The motion threshold is at least this many times the frame-to-frame noise (robust estimate)."""
    motion_min_px: int = 4
    """Changed pixels at work scale (after removing specks) that mean something moved."""
    still_frames: int = 3
    """Quiet frames in a row before the table counts as settled."""
    creep_px: int = 6
    """Changed pixels between the first and last quiet frame that mean something crept slowly."""
    hand_area: float = 0.015
    """A changed blob touching the frame's edge and covering this share of the frame is a hand."""
    big_area: float = 0.06
    """Any changed blob covering this share of the frame is a hand (or an arm), edge or not."""
    skin_area: float = 0.004
    """A changed skin-coloured blob touching the edge and covering this share is a hand."""
    edge_px: int = 2
    """Distance from the frame's edge (work scale) that counts as touching it."""
    change_min_px: int = 12
    """A settled table must differ from the last settled one by this many pixels to be a new throw."""
    lighting_share: float = 0.5
    """A change over more than this share of the frame is the light changing, not a hand."""
    absorb_s: float = 4.0
    """A 'hand' that has not moved at all for this long is taken as part of the table."""
    hand_grow_px: int = 3
    """Growth of a hand's blob when marking the zones it covers."""

    def __post_init__(self) -> None:
        if self.work_width < 32:
            raise ValueError(f"work_width must be at least 32 px, not {self.work_width}")
        if self.blur_px < 1 or self.blur_px % 2 == 0:
            raise ValueError(f"blur_px must be odd and positive, not {self.blur_px}")
        if self.still_frames < 1:
            raise ValueError(f"still_frames must be at least 1, not {self.still_frames}")
        for name in ("hand_area", "big_area", "skin_area", "lighting_share"):
            value = getattr(self, name)
            if not 0.0 < value <= 1.0:
                raise ValueError(f"{name} must be a share of the frame in (0, 1], not {value}")


@dataclass(frozen=True)
class SettleEvent:
    """A settled table: the frame to read, once per throw."""

    frame: NDArray[np.uint8]
    """A copy of the settled frame (BGR uint8, full size)."""
    timestamp: float
    """Its timestamp."""
    index: int
    """Its position in the stream (0 for the first frame given to the detector)."""
    quiet_frames: int
    """How many quiet frames led up to it."""
    changed_zones: tuple[str, ...]
    """Zones that look different from the previous settled table (all zones for the first)."""
    zone_states: dict[str, str] = field(default_factory=dict, compare=False)
    """Every zone's state at that frame (all ``settled``)."""


@dataclass
class _Frame:
    colour: NDArray[np.uint8]
    """The frame shrunk to the working size and blurred (BGR)."""


class SettleDetector:
    """Streaming settle detector: feed frames to :meth:`update`, act on the events it returns.

    >>> detector = SettleDetector()
    >>> still = np.full((120, 160, 3), 90, np.uint8)
    >>> [detector.update(still, t / 10) is not None for t in range(5)]
    [False, False, False, True, False]
    """

    def __init__(self, calibration: ZonedCalibration | None = None, params: SettleParams = SettleParams()) -> None:
        """Watch the zones of ``calibration`` (or the whole frame as one zone ``table``)."""
        self.params = params
        self.calibration = calibration
        self.zone_states: dict[str, str] = {}
        """The latest state of every zone."""
        self.state = "moving"
        """The table's latest state: ``moving``, ``hand``, ``still`` or ``settled``."""
        self.hand_in_view = False
        """Whether the latest frame shows a hand."""
        self._size: tuple[int, int] | None = None
        self._zone_masks: dict[str, NDArray[np.bool_]] = {}
        self._prev: _Frame | None = None
        self._anchor: _Frame | None = None
        self._background: _Frame | None = None
        self._last_settled: _Frame | None = None
        self._quiet = 0
        self._armed = True
        self._index = -1
        self._timestamp = -math.inf
        self._frozen_since: float | None = None

    def reset(self) -> None:
        """Forget everything seen (a new game, a moved camera)."""
        self.__init__(self.calibration, self.params)  # type: ignore[misc]

    def update(self, frame: NDArray[np.uint8], timestamp: float) -> SettleEvent | None:
        """Take the next frame; returns a :class:`SettleEvent` when this frame is the settled one.

        :raises ValueError: for a frame that is not BGR uint8, or a timestamp going backwards.
        """
        if frame.dtype != np.uint8 or frame.ndim != 3 or frame.shape[2] != 3:
            raise ValueError(f"frame must be BGR uint8 (H x W x 3), not {frame.dtype} {frame.shape}")
        if timestamp < self._timestamp:
            raise ValueError(f"timestamp {timestamp} is earlier than the last one ({self._timestamp})")
        self._timestamp = timestamp
        self._index += 1
        size = (frame.shape[1], frame.shape[0])
        if size != self._size:
            self._start(size)
        current = self._shrink(frame)
        prev = self._prev
        self._prev = current
        if prev is None:
            self._set_all("moving")
            self.state = "moving"
            return None

        p = self.params
        diff = _channel_max(as_u8(cv2.absdiff(current.colour, prev.colour)))
        threshold = self._threshold(diff)
        motion = self._clean(diff > threshold)
        moving = int(np.count_nonzero(motion)) >= p.motion_min_px

        hand_mask = self._hand(current, motion, threshold, timestamp)
        self.hand_in_view = hand_mask is not None
        if moving or self.hand_in_view:
            self._quiet = 0
            self._anchor = None
            self._armed = True
            self._zone_report(motion, hand_mask)
            self.state = "hand" if self.hand_in_view else "moving"
            return None

        if self._anchor is None:
            self._anchor = prev  # the last frame of the motion: creeping is measured from it
        self._quiet += 1
        if self._quiet < p.still_frames:
            self._set_all("still")
            self.state = "still"
            return None
        if not self._armed:
            if self._drifted(current, threshold):
                # Quiet frame to frame, yet no longer the settled table: something slid or fell
                # slowly (a coin toppling from its edge). Wait for it to settle again.
                self._armed = True
                self._quiet = 0
                self._anchor = None
                self._set_all("moving")
                self.state = "moving"
                return None
            self._set_all("settled")
            self.state = "settled"
            return None
        creep = self._clean(_channel_max(as_u8(cv2.absdiff(current.colour, self._anchor.colour))) > threshold)
        if int(np.count_nonzero(creep)) >= p.creep_px:
            # Each step was below the threshold but together they add up: still creeping.
            self._anchor = prev
            self._quiet = 1
            self._set_all("still")
            self.state = "still"
            return None

        self._set_all("settled")
        self.state = "settled"
        self._armed = False
        self._background = current
        changed = self._changed_zones(current, threshold)
        if self._last_settled is not None and not changed:
            return None  # a hand came and went without touching anything: not a new throw
        self._last_settled = current
        return SettleEvent(frame.copy(), timestamp, self._index, self._quiet, changed, dict(self.zone_states))

    # -- steps ------------------------------------------------------------------------------

    def _start(self, size: tuple[int, int]) -> None:
        self._size = size
        self._prev = self._anchor = self._background = self._last_settled = None
        self._quiet = 0
        self._armed = True
        self._frozen_since = None
        scale = self.params.work_width / size[0]
        work = (self.params.work_width, max(1, int(round(size[1] * scale))))
        self._work_size = work
        self._zone_masks = {}
        if self.calibration is None:
            self._zone_masks[TABLE_ZONE] = np.ones((work[1], work[0]), dtype=bool)
        else:
            # Zone outlines are in the pixels of the frames the calibration was made on.
            made_on = getattr(self.calibration, "frame_size", None)
            to_work = scale * (size[0] / made_on[0] if made_on else 1.0)
            for zone in self.calibration.zones:
                zone_id = str(getattr(zone, "id"))
                outline = self.calibration.zone_outline_px(zone_id) * to_work
                mask = np.zeros((work[1], work[0]), dtype=np.uint8)
                cv2.fillPoly(mask, [np.round(outline).astype(np.int32)], 1)
                self._zone_masks[zone_id] = mask.astype(bool)
        self.zone_states = {zone_id: "moving" for zone_id in self._zone_masks}

    def _shrink(self, frame: NDArray[np.uint8]) -> _Frame:
        small = frame
        # Halving with INTER_LINEAR averages 2 x 2 blocks exactly and is much faster than
        # INTER_AREA; the last step to the working size is an area average.
        while small.shape[1] >= 2 * self._work_size[0]:
            small = as_u8(cv2.resize(small, (small.shape[1] // 2, small.shape[0] // 2), interpolation=cv2.INTER_LINEAR))
        if (small.shape[1], small.shape[0]) != self._work_size:
            small = as_u8(cv2.resize(small, self._work_size, interpolation=cv2.INTER_AREA))
        k = self.params.blur_px
        small = as_u8(cv2.GaussianBlur(small, (k, k), 0)) if k > 1 else small
        return _Frame(small)

    def _threshold(self, diff: Gray) -> float:
        # The median change between two frames of a still table is the sensor noise; motion
        # touches far fewer than half the pixels, so the median ignores it.
        noise = float(np.median(diff))
        return max(float(self.params.diff_threshold), self.params.noise_factor * max(noise, 0.5))

    @staticmethod
    def _clean(mask: NDArray[np.bool_]) -> NDArray[np.uint8]:
        """Drop isolated specks of noise: keep changes at least 2 x 2 px."""
        m = mask.astype(np.uint8)
        return as_u8(cv2.morphologyEx(m, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8)))

    def _hand(self, current: _Frame, motion: NDArray[np.uint8], threshold: float, timestamp: float) -> NDArray[np.uint8] | None:
        """The mask of a hand in view, or ``None``."""
        p = self.params
        area = current.colour.shape[0] * current.colour.shape[1]
        changed = motion.copy()
        background = self._background
        if background is not None:
            # Colour change (largest over the channels) catches a hand as grey as the cloth.
            delta = _channel_max(as_u8(cv2.absdiff(current.colour, background.colour)))
            from_background = self._clean(delta > threshold * 1.5)
            if np.count_nonzero(from_background) > p.lighting_share * area:
                # The light changed, not a hand: take the new look as the table's.
                self._background = current
            else:
                changed = as_u8(cv2.bitwise_or(changed, from_background))
        if np.count_nonzero(changed) < min(p.skin_area, p.hand_area) * area:
            self._frozen_since = None
            return None  # too little changed for any hand: skip the blob analysis
        changed = as_u8(cv2.morphologyEx(changed, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8)))
        count, labels, stats, _centroids = cv2.connectedComponentsWithStats(changed, connectivity=8)
        if count <= 1:
            self._frozen_since = None
            return None
        skin = self._skin(current.colour)
        height, width = changed.shape
        e = p.edge_px
        hand = np.zeros_like(changed)
        for label in range(1, count):
            x, y, w, h, blob_area = (int(v) for v in stats[label])
            touches = x <= e or y <= e or x + w >= width - e or y + h >= height - e
            big = blob_area >= p.big_area * area
            large_from_edge = touches and blob_area >= p.hand_area * area
            skin_from_edge = False
            if touches and not (big or large_from_edge) and blob_area >= p.skin_area * area:
                blob = labels == label
                skin_from_edge = int(np.count_nonzero(skin[blob])) >= p.skin_area * area
            if big or large_from_edge or skin_from_edge:
                hand[labels == label] = 1
        if not np.any(hand):
            self._frozen_since = None
            return None
        if np.count_nonzero(motion & hand) == 0 and background is not None:
            # Seen only against the old table and perfectly still: a hand never stays frozen
            # for long, so after absorb_s it is something laid down at the edge (a score sheet).
            if self._frozen_since is None:
                self._frozen_since = timestamp
            elif timestamp - self._frozen_since >= p.absorb_s:
                self._background = current
                self._frozen_since = None
                return None
        else:
            self._frozen_since = None
        return hand

    @staticmethod
    def _skin(colour: NDArray[np.uint8]) -> NDArray[np.bool_]:
        """Skin-coloured pixels (a wide YCrCb box that covers light to dark skin)."""
        ycrcb = cv2.cvtColor(colour, cv2.COLOR_BGR2YCrCb)
        mask = cv2.inRange(ycrcb, (40, 135, 80), (250, 180, 130))
        return mask.astype(bool)

    def _zone_report(self, motion: NDArray[np.uint8], hand: NDArray[np.uint8] | None) -> None:
        p = self.params
        grown = None
        if hand is not None:
            k = 2 * p.hand_grow_px + 1
            grown = cv2.dilate(hand, np.ones((k, k), np.uint8)).astype(bool)
        moving = motion.astype(bool)
        for zone_id, mask in self._zone_masks.items():
            if grown is not None and np.any(grown & mask):
                self.zone_states[zone_id] = "hand"
            elif np.count_nonzero(moving & mask) >= max(1, p.motion_min_px // 2):
                self.zone_states[zone_id] = "moving"
            else:
                self.zone_states[zone_id] = "still"

    def _set_all(self, state: str) -> None:
        for zone_id in self._zone_masks:
            self.zone_states[zone_id] = state

    def _drifted(self, current: _Frame, threshold: float) -> bool:
        """Whether the table now differs from how it settled (checked while nothing moves)."""
        settled = self._background
        if settled is None:
            return False
        creep = self._clean(_channel_max(as_u8(cv2.absdiff(current.colour, settled.colour))) > threshold)
        return int(np.count_nonzero(creep)) >= self.params.creep_px

    def _changed_zones(self, current: _Frame, threshold: float) -> tuple[str, ...]:
        last = self._last_settled
        if last is None:
            return tuple(self._zone_masks)
        delta = _channel_max(as_u8(cv2.absdiff(current.colour, last.colour)))
        changed = self._clean(delta > threshold * 1.5).astype(bool)
        if int(np.count_nonzero(changed)) < self.params.change_min_px:
            return ()
        zones = tuple(z for z, mask in self._zone_masks.items() if np.count_nonzero(changed & mask) >= 3)
        return zones or ("outside",)  # something changed outside every zone (a coin off the table)


def _channel_max(image: NDArray[np.uint8]) -> Gray:
    """The largest of the three channels, per pixel (numpy's ``max(axis=2)`` is slow here)."""
    b, g, r = cv2.split(image)
    return as_u8(cv2.max(cv2.max(b, g), r))
