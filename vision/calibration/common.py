"""What every part of calibration shares: the calibration file's format and version, how a calibration was made, and its error."""

from __future__ import annotations


FORMAT = "table-referee calibration"
"""The ``format`` field of a calibration file."""
VERSION = 1
"""The ``version`` field of a calibration file this code writes and reads."""
SOURCES = ("markers", "manual", "tracked")
"""How a calibration was made: found markers, corners given by hand, or corrected while playing."""

Matrix3 = tuple[tuple[float, float, float], tuple[float, float, float], tuple[float, float, float]]


MAX_DISTORTION = 0.09
"""The strongest lens distortion modelled: beyond it the model cannot be undone at the frame's corners."""


class CalibrationError(ValueError):
    """A calibration could not be made, or a calibration file is wrong (the message names the field)."""
