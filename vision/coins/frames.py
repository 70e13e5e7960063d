"""Checking a frame for the coin reader, and the reduced views of it every step shares."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision._coin_geometry import work_image
from vision.coins.params import CoinParams


def validate_frame(frame: object) -> np.ndarray:
    """Check a frame is BGR uint8 H x W x 3 and return it.

    :raises ValueError: naming what is wrong.
    """
    if not isinstance(frame, np.ndarray):
        raise ValueError(f"frame must be a numpy array (BGR uint8 HxWx3), got {type(frame).__name__}")
    if frame.dtype != np.uint8:
        raise ValueError(f"frame must be uint8 (BGR), got dtype {frame.dtype}")
    if frame.ndim != 3 or frame.shape[2] != 3:
        raise ValueError(f"frame must be HxWx3 (BGR), got shape {frame.shape}")
    if frame.shape[0] < 16 or frame.shape[1] < 16:
        raise ValueError(f"frame is too small to read: {frame.shape[1]}x{frame.shape[0]} pixels")
    return frame


@dataclass(frozen=True)
class FrameViews:
    """The frame as the steps need it, computed once per read."""

    small: np.ndarray
    """BGR frame reduced to ``CoinParams.work_size``."""
    scale: float
    """``small`` pixels per frame pixel."""
    gray: np.ndarray
    """Full-resolution grey frame."""


def frame_views(frame: np.ndarray, params: CoinParams, gray: np.ndarray | None = None) -> FrameViews:
    """The reduced and grey views of a frame (``gray``: the frame in grey, when the caller has it)."""
    small, scale = work_image(frame, params.work_size)
    if gray is None:
        gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    elif gray.shape != frame.shape[:2] or gray.dtype != np.uint8:
        raise ValueError(f"gray must be the frame in grey, uint8 {frame.shape[:2]}, got {gray.dtype} {gray.shape}")
    return FrameViews(small, scale, gray)
