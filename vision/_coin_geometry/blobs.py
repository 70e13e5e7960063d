"""Coins seen as ellipses: blobs unlike the table (``ellipse_blobs``) and tilted coins among them (``tilted_blobs``)."""

from __future__ import annotations

import cv2
import numpy as np

from vision._coin_geometry.circle import Circle
from vision._coin_geometry.samples import disc_mask
from vision._coin_geometry.table_colour import beyond_distance


def ellipse_blobs(
    lab: np.ndarray, table: np.ndarray, min_distance: float, min_area: float, left_out: np.ndarray | None = None
) -> list[tuple[float, float, float, float, float, float]]:
    """The patches of a Lab image unlike the table, each with the ellipse fitted to it.

    A pixel belongs to a patch when its colour differs from ``table`` by ``min_distance``
    (lightness counted half: shadows are darker but not differently coloured), and not to
    ``left_out`` (a uint8 mask, 255 where nothing is looked for). Patches under ``min_area``
    pixels and patches cut by the image's edge are left out. Returns (x, y, major, minor,
    angle of the major axis in degrees 0..180, fill: the patch's area over its ellipse's) in
    the image's pixels.
    """
    mask = cv2.morphologyEx(beyond_distance(lab, table, min_distance), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    if left_out is not None:
        mask[left_out > 0] = 0
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    out = []
    h, w = mask.shape[:2]
    for cnt in contours:
        area = cv2.contourArea(cnt)
        if len(cnt) < 5 or area < min_area:
            continue
        bx, by, bw, bh = cv2.boundingRect(cnt)
        if bx == 0 or by == 0 or bx + bw == w or by + bh == h:
            continue  # cut by the frame's edge: its shape is not the patch's (the table beyond the cloth)
        (x, y), (a, b), angle = cv2.fitEllipse(cnt)
        major, minor = max(a, b), min(a, b)
        if major <= 0:
            continue
        # OpenCV's angle turns the first axis from the x axis: the major axis's, in 0..180.
        turn = (angle if a >= b else angle + 90.0) % 180.0
        out.append((float(x), float(y), float(major), float(minor), float(turn), float(area / (np.pi * major * minor / 4.0))))
    return out


def tilted_blobs(
    lab: np.ndarray,
    table: np.ndarray,
    circles: list[Circle],
    scale: float,
    min_distance: float,
    min_area: float,
    max_ratio: float,
) -> list[tuple[float, float, float, float, float]]:
    """Coin-sized, elongated patches unlike the table and not explained by any round coin.

    A coin on its edge or leaning on something is seen as an ellipse or a bar, which the
    circle finder does not report. Returns (x, y, major, minor, angle of the major axis) in
    full-frame pixels for each patch (:func:`ellipse_blobs`) at least ``min_area`` pixels (work
    scale) whose colour differs from the table by ``min_distance`` and whose minor/major axis
    ratio is at most ``max_ratio``.
    """
    around_coins = disc_mask(lab.shape[:2], circles, scale, 1.15)
    out = []
    for x, y, major, minor, turn, fill in ellipse_blobs(lab, table, min_distance, min_area, around_coins):
        # A blob much fuller or emptier than its ellipse is not one coin.
        if minor / major > max_ratio or not 0.7 <= fill <= 1.15:
            continue
        out.append((x / scale, y / scale, major / scale, minor / scale, turn))
    return out
