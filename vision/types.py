"""The results vision hands to the rest of the referee."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

BBox = tuple[int, int, int, int]
"""x, y, width, height in pixels of the frame, top-left origin."""

CONFIDENT = 0.8
"""The one confidence contract of ``read_table``: a read at or above this is meant to be right
at least 99.5% of the time, and the referee acts only on such reads (``referee.reconcile``).
Each reader maps its own sure level onto it."""

COIN_KINDS = ("penny", "nickel", "dime", "quarter")
DIE_KINDS = ("d6", "d8")
DIE_FACES = {"d6": 6, "d8": 8}
"""How many faces each kind of die has (a die of kind ``dS`` shows 1 to S)."""


@dataclass(frozen=True)
class Detection:
    """One object found on the table.

    ``value`` is ``"heads"``/``"tails"`` for a coin, the face up (``int``) for a die, or
    ``None`` when the read is unsure: unsure means unsure, never a guess.
    """

    kind: str
    """``penny``, ``nickel``, ``dime``, ``quarter``, ``d6`` or ``d8``."""
    value: str | int | None
    """The face up, or ``None`` when unsure or unreadable (cocked, on edge)."""
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

    def to_json(self) -> dict[str, Any]:
        """The ``referee read --json`` form of one object."""
        return {
            "kind": self.kind,
            "value": self.value,
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
