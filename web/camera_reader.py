"""The camera-reading adapters the live loop calls on a settled frame.

``VisionReader`` reads with ``vision.read.read_table`` and keeps the table's calibration (found
from the corner markers, then followed); ``LabelReader`` takes a replayed frame's recorded
labels as the read. ``make_reader`` picks one by the name ``--read`` gives, and
``kinds_in_play`` says which kinds of object the game puts on the table, so the reader looks
for those only.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from hardware.frames import Frame, FrameSource, Image
from hardware.replay import ReplaySource
from referee.core import State
from referee.errors import ConfigError
from vision import calibration as camera_geometry  # calibrate and track looked up at each call: replaceable
from vision.calibration import Calibration, CalibrationError
from vision.dice import DiceParams
from vision.full_resolution import read_faces_closer
from vision.layouts import Layout
from vision.marker_watch import MarkerWatch
from vision.play_area import in_play_area, without_spots
from vision.read import params_for_kinds, params_for_scale, read_table
from vision.types import COIN_KINDS, DIE_KINDS, Detection, TableObservation
from web.learn import TableLearner
from web.loop import Reader

__all__ = ["CAMERA_KINDS", "SECOND_LOOK_DIE_SCORE", "LabelReader", "VisionReader", "in_play_area", "kinds_in_play",
           "make_reader", "without_spots"]

CAMERA_KINDS = frozenset((*COIN_KINDS, *DIE_KINDS))
"""The kinds of object the camera reads: only their moves wait for it (G-2)."""

SECOND_LOOK_DIE_SCORE = 0.15
"""The dice finder's lowest score on a second look (``VisionReader.second_look``; the first look
takes ``vision.dice.DiceParams.det_threshold_scaled``, 0.25 at a known scale). On dice-rune55,
0.2 instead of 0.3 finds 0.3 points more dice at 2.4 points less precision: worth it only where
the table looks wrong."""


def kinds_in_play(state: State) -> frozenset[str]:
    """Every kind of object the match's table can hold: what lies in its zones (objects are
    conserved, G-2) and what comes from a supply (``State.supplied_kinds``: T.K.O.'s nickels)."""
    kinds: set[str] = {item.kind for items in state.zones().values() for item in items}
    supplied: frozenset[str] = state.supplied_kinds()
    return frozenset(kinds) | supplied


def make_reader(
    kind: str, source: FrameSource | None, calibration: Calibration | None = None, layout: Layout | None = None,
    kinds: frozenset[str] | None = None,
    learner: TableLearner | None = None,
) -> Reader:
    """The reader ``--read`` names: ``vision`` (a :class:`VisionReader`) or ``labels``.

    ``labels`` takes a replayed frame's recorded labels as the read: it exercises the loop, the
    rules and the log on a recording without depending on vision's accuracy. ``layout`` is the
    table the vision reader calibrates itself on when no ``calibration`` is given; ``kinds``
    the kinds of object it looks for (``None``: all); ``learner`` what it learned of this
    table's coins (``web.learn.TableLearner``).

    :raises ConfigError: for another name, or ``labels`` without a replay.
    """
    if kind == "vision":
        return VisionReader(layout, calibration, kinds=kinds, learner=learner)
    if kind == "labels":
        if not isinstance(source, ReplaySource):
            raise ConfigError("--read labels needs a replayed game (--camera replay:PATH)")
        return LabelReader(source)
    raise ConfigError(f"--read must be vision or labels, got {kind!r}")


class VisionReader:
    """Reads settled frames with ``vision.read.read_table``, keeping the table's calibration.

    Without a calibration it calibrates itself from the corner markers of ``layout`` (the
    table's: a replay's own, else the game's default layout that ``referee markers`` printed),
    trying the first frames until the markers are found (``observe``, at most once per
    ``retry_s``). Once calibrated it follows the camera with ``vision.calibration.track`` on
    every settled frame and every ``track_s`` between: a bumped camera is corrected, or, when
    it cannot be, recalibrated or reported in ``status`` (shown as the loop's status).

    With a calibration, what lies outside the play area or on a corner marker is not a coin or
    a die on the table (the markers' squares, the sheet's edge): it is left out of the read.
    """

    def __init__(
        self,
        layout: Layout | None = None,
        calibration: Calibration | None = None,
        retry_s: float = 1.0,
        track_s: float = 2.0,
        kinds: frozenset[str] | None = None,
        learner: TableLearner | None = None,
    ) -> None:
        self.layout = layout
        self.calibration = calibration
        self.learner = learner
        """What this table's coins taught the reader (``web.learn.TableLearner``), or ``None``."""
        self.nothing_at: list[tuple[str, float, float, float]] = []
        """Spots (kind, x mm, y mm, radius mm) where the players said a read object is not there
        (a printed letter taken for a die): reads of that kind there are left out from then on."""
        self.kinds = kinds
        """The kinds of object the game puts on the table (``kinds_in_play``); ``None``: all.
        A coin game's table is not searched for dice, nor a dice game's for coins."""
        self.retry_s = retry_s
        self.track_s = track_s
        self.status = "" if calibration is not None or layout is None else "calibrating: looking for the corner markers"
        """The calibration's state in words: empty when all is well."""
        self.on_status: Callable[[str], None] = lambda text: None
        self._last_try = float("-inf")
        self._watch = MarkerWatch()

    def _set_status(self, text: str) -> None:
        if text != self.status:
            self.status = text
            self.on_status(text)

    def observe(self, frame: Frame) -> None:
        """Every frame: calibrate until the markers are found, then follow the camera now and then."""
        if frame.timestamp - self._last_try < (self.retry_s if self.calibration is None else self.track_s):
            return
        self._last_try = frame.timestamp
        self._follow(frame.image)

    def _follow(self, image: Image) -> None:
        if self.calibration is None:
            if self.layout is None:
                return
            try:
                self.calibration = camera_geometry.calibrate(image, self.layout)
            except CalibrationError as exc:
                self._set_status(f"not calibrated: {exc}")
                return
            self._set_status("")
            return
        if self._watch.unchanged(image, self.calibration):
            return  # the markers look as when last followed: following again would change nothing
        result = camera_geometry.track(self.calibration, image)
        if result.ok:
            self.calibration = result.calibration
            self._set_status("")
        elif result.status == "moved":
            if self.layout is not None:
                try:
                    self.calibration = camera_geometry.calibrate(image, self.layout)
                    self._set_status("")
                    self._watch.remember(image, self.calibration)
                    return
                except CalibrationError:
                    pass
            # Reading on with the old geometry would put objects in the wrong zones: say so.
            self._set_status(f"camera moved: {result.message}")
        self._watch.remember(image, self.calibration)
        # "unseen" (a hand over the markers) and "no_markers" (a manual calibration): keep it.

    def __call__(self, image: Image) -> TableObservation:
        """Read one settled frame (see the class docstring)."""
        return self._read(image, closely=False)

    def second_look(self, image: Image) -> TableObservation:
        """Read the frame again, taking fainter dice candidates (``SECOND_LOOK_DIE_SCORE``):
        the loop asks for it when the first read makes the table look wrong. The camera was
        followed on the first read of this frame, so it is not followed again."""
        return self._read(image, closely=True)

    def _read(self, image: Image, closely: bool) -> TableObservation:
        if not closely:
            self._follow(image)
        calibration = self.calibration
        if calibration is not None and self.status.startswith("camera moved"):
            calibration = None  # no zones rather than wrong zones: reconcile asks for the table to be checked
        params = params_for_scale(calibration.mm_per_px if calibration is not None else None, image.shape[1], image.shape[0])
        if self.kinds is not None:
            # Only the game's objects the camera reads (a game of cards: none, nothing looked for).
            params = params_for_kinds(params, self.kinds & CAMERA_KINDS)
        if closely:
            params = replace(params, dice=replace(params.dice or DiceParams(), det_threshold=SECOND_LOOK_DIE_SCORE,
                                                  det_threshold_scaled=SECOND_LOOK_DIE_SCORE))
        profile = self.learner.profile if self.learner is not None else None
        dice_profile = self.learner.dice_profile if self.learner is not None else None
        if dice_profile is not None:
            params = replace(params, dice=dice_profile.dice_params(params.dice or DiceParams()))
        observation = read_table(image, calibration, params, profile)
        if self.learner is not None and hasattr(self.learner, "adapt"):
            observation = self.learner.adapt(observation, image)  # sure where this table's answers prove it
        if calibration is not None:
            observation = in_play_area(observation, calibration)
        if self.nothing_at:
            observation = without_spots(observation, self.nothing_at)
        return observation

    def read_closer(self, observation: TableObservation, full: Image) -> TableObservation:
        """``observation`` with each object's face read again from ``full``, the same moment at
        the sensor's resolution (``vision.full_resolution``), for the kinds in play only."""
        return read_faces_closer(observation, full, kinds=self.kinds)

    def not_there(self, detection: Detection) -> None:
        """The players said ``detection`` is no coin or die: leave such reads there out from now on."""
        if detection.position_mm is None or self.calibration is None:
            return
        radius = max(5.0, 0.6 * max(detection.bbox[2], detection.bbox[3]) * float(self.calibration.mm_per_px))
        self.nothing_at.append((detection.kind, float(detection.position_mm[0]), float(detection.position_mm[1]), radius))


class LabelReader:
    """Reads a replayed frame by its recorded labels (see ``make_reader``)."""

    def __init__(self, source: ReplaySource) -> None:
        self.source = source

    def __call__(self, image: Image) -> TableObservation:
        """The frame the replay showed last, read as its labels say (each gated like a read)."""
        position = self.source.position - 1
        entry = self.source.frames[position]
        labels = entry.labels or []
        objects = []
        for label in labels if isinstance(labels, list) else labels.get("objects", []):
            bbox = tuple(int(v) for v in label.get("bbox", (0, 0, 0, 0)))
            read = Detection(str(label["kind"]), label.get("value"), bbox,  # type: ignore[arg-type]
                             float(label.get("confidence", 1.0)), zone=label.get("zone"),
                             flags=tuple(label.get("flags", ())))
            objects.append(read.gated())  # a label's confidence below the gate makes an unsure read
        height, width = image.shape[:2]
        return TableObservation(tuple(objects), (width, height))
