"""The picture's legend: every object read, named as the tablet's options name it.

The camera sees an object's kind, face and zone; the rules name some objects more closely
(FLIP's dice by number, FL-1.4). :func:`legend` gives each object of the last read a short
marker text, a name a player finds in the options ("die 9", "penny"), the face read and its
state: ``forced`` (a forced move takes it now), ``locked`` (FLIP's locked dice, FL-4.1),
``gathered`` (waiting in a Gathering Area) or ``unsure`` (not read). The picture draws the
markers (``vision.overlay.draw_markers``) and the tablet lists the legend beside it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from vision.overlay import Marker
from vision.types import DIE_KINDS, Detection
from vision.zones import zone_title

SURE = 0.8
"""Confidence from which a read is drawn as sure (as ``vision.overlay.OverlayParams.sure``)."""

READING_ROW_PX = 80.0
"""Objects whose centres lie within about this many pixels up or down count as one row."""

DIE_NAME = "die"
"""What the options call a die (``Flip die 9``, ``Tap B's die 10``)."""


@dataclass(frozen=True)
class LegendEntry:
    """One object of the picture as the legend lists it."""

    mark: str
    """The marker's text on the picture."""
    name: str
    """The object as the options name it: ``die 9``, ``die``, ``penny``."""
    read: str
    """The face read: ``6``, ``heads``, ``?``."""
    zone: str
    """The zone's title (``Theatre``, ``Area: A``), or ``""`` outside every zone."""
    state: str = ""
    """``""``, ``forced``, ``locked``, ``gathered`` or ``unsure``."""

    def marker(self) -> Marker:
        """The marker drawn on the picture for this entry."""
        return Marker(self.mark, self.state)

    def to_json(self) -> dict[str, str]:
        """The tablet's form of the entry."""
        return {"mark": self.mark, "name": self.name, "read": self.read, "zone": self.zone, "state": self.state}


def legend(objects: Sequence[Detection], zones: Mapping[str, Sequence[Mapping[str, Any]]],
           forced_moves: Iterable[Mapping[str, Any]] = (), locked: Iterable[str] = (),
           sure: float = SURE) -> list[LegendEntry]:
    """The legend of ``objects`` (one entry each, in their order) given what the rules hold:
    ``zones`` as a state's view has them (items with ``kind``, ``value`` and, where the rules
    track the object, ``id``), its ``forced_moves`` not yet done, and the ids ``locked``. A read
    less confident than ``sure`` is ``unsure`` (the referee asks about it rather than guess)."""
    idents = _idents(objects, zones)
    forced = _forced(objects, forced_moves)
    locked_ids = set(locked)
    # Untracked objects are numbered in reading order: by rows of about a marker's height, then
    # left to right, so the numbers run across the picture as a player reads it.
    untracked = sorted((i for i in range(len(objects)) if i not in idents),
                       key=lambda i: (round(objects[i].center[1] / READING_ROW_PX), objects[i].center[0]))
    numbers = {index: str(n) for n, index in enumerate(untracked, start=1)}
    entries = []
    for index, obj in enumerate(objects):
        ident = idents.get(index)
        is_die = obj.kind in DIE_KINDS
        if ident is not None:
            mark, name = ident, f"{DIE_NAME} {ident}" if is_die else f"{obj.kind} {ident}"
        else:
            mark, name = numbers[index], DIE_NAME if is_die else obj.kind
        # An unsure read shows the face the question asks about, marked as a question.
        read = str(obj.value) if obj.value is not None else ("?" if obj.guess is None else f"{obj.guess}?")
        if obj.value is None or obj.flags or obj.confidence < sure:
            state = "unsure"
        elif index in forced:
            state = "forced"
        elif ident is not None and ident in locked_ids:
            state = "locked"
        elif (obj.zone or "").startswith("gathered:"):
            state = "gathered"
        else:
            state = ""
        entries.append(LegendEntry(mark, name, read, zone_title(obj.zone) if obj.zone else "", state))
    return entries


def _idents(objects: Sequence[Detection], zones: Mapping[str, Sequence[Mapping[str, Any]]]) -> dict[int, str]:
    """Each object's id where the rules track identity: within a zone the objects of a face take
    that face's ids (lowest id leftmost), and any left over take the zone's remaining ids. Dice
    of equal face in one area are interchangeable to the camera, as to the rules at the roll."""
    found: dict[int, str] = {}
    for zone, items in zones.items():
        tracked = [item for item in items if item.get("id") is not None]
        if not tracked:
            continue
        here = sorted((i for i, o in enumerate(objects) if o.zone == zone), key=lambda i: objects[i].center[0])
        free = sorted(tracked, key=lambda item: _id_key(str(item["id"])))
        for index in here:
            same = next((item for item in free if item.get("value") == objects[index].guess), None)
            if same is not None:
                found[index] = str(same["id"])
                free.remove(same)
        for index in here:
            if index not in found and free:
                found[index] = str(free.pop(0)["id"])
    return found


def _id_key(ident: str) -> tuple[int, str]:
    return (int(ident), "") if ident.isdigit() else (1 << 30, ident)


def _forced(objects: Sequence[Detection], moves: Iterable[Mapping[str, Any]]) -> set[int]:
    """The objects a forced move not yet made takes: in the move's source zone, of an item's kind
    and face (a face the rules do not care about matches any), one object per item."""
    taken: set[int] = set()
    for move in moves:
        if move.get("done"):
            continue
        for item in move.get("items", []):
            for index, obj in enumerate(objects):
                if index in taken or obj.zone != move.get("from") or obj.kind != item.get("kind"):
                    continue
                if item.get("value") is not None and item.get("value") != obj.guess:
                    continue
                taken.add(index)
                break
    return taken
