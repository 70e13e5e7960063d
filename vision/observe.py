"""One settled table, observed: the one call the live loop makes into vision for a throw.

``observe`` reads the settled frame (with the loop's reader: ``web.camera_reader.VisionReader``
or a test's fake), reads each object's face again from the full-resolution picture when there
is one, gives an untouched object the face known on the last table (``vision.memory``), and,
when the table then looks wrong, looks again more closely (the reader's ``second_look``). The
loop hands the result on to the rules and never comes back into vision for this throw.

What the rules concluded that vision must know at the next throw travels as data into the
next call: the faces known on the table ruled on (``LastTable``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from vision.full_resolution import read_faces_closer
from vision.memory import recall, remember
from vision.types import Detection, TableObservation

Image = npt.NDArray[np.uint8]

ReadCloser = Callable[[TableObservation, Any], TableObservation]
"""Reads an observation's faces again from the full-resolution picture."""


class TableReader(Protocol):
    """What ``observe`` reads with: a settled image in, an observation out. A reader may also
    have ``second_look`` (read again, more closely), ``read_closer`` (its own full-resolution
    read)."""

    def __call__(self, image: Any, /) -> TableObservation:
        """The read of one settled image."""


@dataclass(frozen=True)
class LastTable:
    """The faces known on the last table the rules ruled on (read with confidence or answered),
    and the frame that showed them: at the next settle an untouched one is not asked about again."""

    known: tuple[tuple[Detection, str | int], ...] = ()
    image: Image | None = None


def observe(
    image: Image,
    read: TableReader,
    *,
    full: Image | None = None,
    last: LastTable = LastTable(),
    looks_right: Callable[[TableObservation], bool] | None = None,
) -> TableObservation:
    """The observation of the settled ``image`` the rules rule on (see the module docstring).

    ``full``: the same moment at the sensor's resolution, or ``None``. ``last``: what the last
    table ruled on showed. ``looks_right``: whether the rules would accept the table
    if every face read were right; where it says no, the reader's ``second_look`` is kept
    only if the table then looks right. A frame the reader cannot make sense of is an
    observation with no objects and a note saying why (a question for the players, not a crash).
    """
    memory = remember(last.known, last.image) if last.image is not None and last.known else []
    try:
        observation = _read_closer(read, read(image), full)
    except (ValueError, ArithmeticError) as exc:
        observation = TableObservation((), (int(image.shape[1]), int(image.shape[0])), notes=(f"unreadable frame: {exc}",))
    observation = recall(observation, image, memory)
    second_look = getattr(read, "second_look", None)
    if second_look is None or looks_right is None or looks_right(observation):
        return observation
    try:
        closer = recall(_read_closer(read, second_look(image), full), image, memory)
    except (ValueError, ArithmeticError):
        return observation
    return closer if looks_right(closer) else observation


def _read_closer(read: TableReader, observation: TableObservation, full: Image | None) -> TableObservation:
    """The read with each object's face read again from the full-resolution picture, when
    there is one (the reader's ``read_closer``, else ``vision.full_resolution``'s)."""
    if full is None or not observation.objects:
        return observation
    read_closer: ReadCloser = getattr(read, "read_closer", read_faces_closer)
    try:
        return read_closer(observation, full)
    except (ValueError, ArithmeticError) as exc:
        # A full picture that cannot be read closer leaves the small frame's read as it is.
        return replace(observation, notes=(*observation.notes, f"faces not read from the full picture: {exc}"))
