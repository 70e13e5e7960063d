"""The referee's eyes: pure functions over BGR uint8 frames (numpy and OpenCV only).

``vision.read_table(frame, calibration=None)`` is the one entry point (``vision.read``).
Nothing here opens a camera, shows a window or knows the rules of any game.
"""

from __future__ import annotations

from typing import Any

__all__ = ["read_table"]


def __getattr__(name: str) -> Any:
    # Loaded on first use, so importing the package stays cheap (the models load with it).
    if name == "read_table":
        from vision.read import read_table

        return read_table
    raise AttributeError(f"module 'vision' has no attribute {name!r}")
