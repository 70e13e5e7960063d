"""The results vision hands to the rest of the referee."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

BBox = tuple[int, int, int, int]
"""x, y, width, height in pixels of the frame, top-left origin."""

CONFIDENT = 0.8
"""The one confidence contract of ``read_table``: a read at or above this is meant to be right
at least 99.5% of the time, and the referee acts only on such reads (``referee.reconcile``).
Each reader maps its own sure level onto it."""

NOT_FLAT_FLAGS = frozenset({"cocked", "on_edge", "stacked", "moving"})
"""Flags that say an object does not lie flat and still (G-3): the referee rules on such an
object's lie, never on its face, so its read carries no ``value`` (``referee.reconcile``
calls them unreadable)."""

COIN_KINDS = ("penny", "nickel", "dime", "quarter")
DIE_KINDS = ("d6", "d8")
DIE_FACES = {"d6": 6, "d8": 8}
"""How many faces each kind of die has (a die of kind ``dS`` shows 1 to S)."""


@dataclass(frozen=True)
class Detection:
    """One object found on the table.

    A face is ``"heads"``/``"tails"`` for a coin and the number up (``int``) for a die. In
    ``read_table``'s objects (see :meth:`gated`) ``value`` is the face only where the referee
    would rule on it, confidence at least :data:`CONFIDENT` and no flag of
    :data:`NOT_FLAT_FLAGS`, and ``None`` otherwise: unsure means unsure, never a guess. The
    reader's best guess, sure or not, is ``guess``: it is what a question shows the players
    ("Are these read right: ...?") and what they confirm.

    >>> unsure = Detection("d6", 4, (0, 0, 9, 9), 0.3).gated()
    >>> unsure.value, unsure.guess
    (None, 4)
    >>> Detection("d6", 4, (0, 0, 9, 9), 0.9, flags=("cocked",)).gated().value is None
    True
    >>> Detection("d6", 4, (0, 0, 9, 9), 0.9).gated().value
    4
    """

    kind: str
    """``penny``, ``nickel``, ``dime``, ``quarter``, ``d6`` or ``d8``."""
    value: str | int | None
    """The face up where the referee would rule on it; ``None`` when the read is unsure or the
    object unreadable (cocked, on edge). Inside the readers, before ``read_table`` gates it,
    the face each reader read."""
    bbox: BBox
    """Box in frame pixels."""
    confidence: float
    """How sure the read of ``value`` is, 0..1 (kind and value together)."""
    center: tuple[float, float] = (0.0, 0.0)
    """Centre in frame pixels."""
    position_mm: tuple[float, float] | None = None
    """Centre in table millimetres, when a calibration is known."""
    zone: str | None = None
    """The zone id the object lies in (``theatre``, ``gathered:Kevin``), or ``None``."""
    flags: tuple[str, ...] = ()
    """``cocked``, ``on_edge``, ``leaning``, ``stacked``, ``overlapping`` (a coin overlapping another
    more than flat coins can: one rests on the other), ``occluded``, ``moving``: reasons it was
    not read."""
    extra: dict[str, Any] = field(default_factory=dict, compare=False)
    """Measurements kept for debugging and learning (diameter in px or mm, colour, scores)."""
    guess: str | int | None = None
    """The reader's best guess of the face up, however unsure (``None``: it read no face at
    all). Always ``value`` where ``value`` is given: a detection made or changed with a
    ``value`` takes it as its guess too."""

    def __post_init__(self) -> None:
        if self.value is not None and self.guess != self.value:
            # A face given (read surely, remembered, answered) is the best guess there is.
            object.__setattr__(self, "guess", self.value)

    @property
    def sure(self) -> bool:
        """Whether the referee would rule on this read's face: confident, and lying flat and still."""
        return self.confidence >= CONFIDENT and not NOT_FLAT_FLAGS & set(self.flags)

    def gated(self) -> Detection:
        """This detection as ``read_table`` hands it on: its face kept as ``guess``, and as
        ``value`` only where it is :attr:`sure`."""
        if self.value is None or self.sure:
            return self
        return replace(self, value=None, guess=self.value)

    def to_json(self) -> dict[str, Any]:
        """The ``referee read --json`` form of one object."""
        return {
            "kind": self.kind,
            "value": self.value,
            "guess": self.guess,
            "zone": self.zone,
            "bbox": [int(v) for v in self.bbox],
            "confidence": round(float(self.confidence), 3),
            "position_mm": None if self.position_mm is None else [round(float(v), 1) for v in self.position_mm],
            "flags": list(self.flags),
        }


@dataclass(frozen=True)
class TableObservation:
    """Everything read from one frame."""

    objects: tuple[Detection, ...]
    frame_size: tuple[int, int]
    """Width, height of the frame read."""
    mm_per_px: float | None = None
    """The scale used: from the calibration, or estimated from the objects themselves."""
    notes: tuple[str, ...] = ()
    """Why something could not be read (no scale, glare, ...), in plain words."""

    def to_json(self) -> dict[str, Any]:
        """JSON-friendly form."""
        return {
            "objects": [obj.to_json() for obj in self.objects],
            "frame_size": list(self.frame_size),
            "mm_per_px": self.mm_per_px,
            "notes": list(self.notes),
        }
