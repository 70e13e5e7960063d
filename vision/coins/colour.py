"""Coins' colours: the default metal colours, their likelihood, and colour against the table or the printed white."""

from __future__ import annotations

import numpy as np

from vision._coin_geometry import APPEARANCE_KINDS


# Colour of each kind relative to the table, (a*, b*) mean and spread in OpenCV's 8-bit Lab.
# Pennies are a mixture: bright copper, and old pennies gone dark brown (almost neutral).
# Silver coins spread along b* (blue to yellow) with the light's colour: under the rendered
# fixtures' tinted lamps they measure down to b* -8, where a narrower model (b* 4 +- 2.5) left
# both kinds' colour evidence at its floor, and a silver dime measured large was read as a
# penny. The wider model (chosen on the validation parts) keeps the evidence.
SILVER = (1.0, 0.0, 2.0, 2.0, 4.5)
DEFAULT_COLOURS: dict[str, list[tuple[float, float, float, float, float]]] = {
    # weight, mean a, mean b, sd a, sd b
    "penny": [(0.6, 10.0, 12.0, 5.0, 6.0), (0.25, 2.0, 3.0, 2.0, 3.0), (0.15, 18.0, 22.0, 12.0, 15.0)],
    "nickel": [SILVER],
    "dime": [SILVER],
    "quarter": [SILVER],
    "other": [(1.0, 4.5, 13.5, 2.5, 5.5)],
}


def colour_loglik(
    ab: np.ndarray, colours: dict[str, list[tuple[float, float, float, float, float]]], floor: float = -12.0
) -> np.ndarray:
    """N x kinds log-likelihood of each coin's relative (a*, b*) under each kind's colour.

    Floored so that a strange light can weaken, but never veto, the other evidence.
    """
    out = np.zeros((len(ab), len(APPEARANCE_KINDS)), np.float64)
    for j, kind in enumerate(APPEARANCE_KINDS):
        total = np.zeros(len(ab))
        for w, ma, mb, sa, sb in colours[kind]:
            z = ((ab[:, 0] - ma) / sa) ** 2 + ((ab[:, 1] - mb) / sb) ** 2
            total += w * np.exp(-0.5 * z) / (sa * sb)
        out[:, j] = np.maximum(np.log(total + 1e-12), floor)
    return out


def against_table(
    relative: np.ndarray, table: np.ndarray, table_chroma: float, white: np.ndarray | None = None
) -> tuple[np.ndarray, float]:
    """Coins' colour (N x Lab, relative to the table) as the colour evidence takes it, and how
    far that evidence is to be trusted (0..1).

    Where the printed table's ``white`` (Lab, ``vision.white_reference.printed_white``) is
    known, it is the reference, trusted fully: paper under the same light as the coins, whatever
    the cloth. Otherwise:

    A grey table is the white reference: colour relative to it survives a change of light. A
    table of strong colour is a poor one (a silver coin on green baize looks magenta against
    it), so on a table of chroma ``c`` the reference is the table only in part,
    ``t = 1 / (1 + (c / table_chroma) ** 2)``, and the rest neutral grey (the camera's own white
    balance), and the evidence is trusted ``t``. ``table_chroma`` 0: always relative, always trusted.

    >>> silver_on_green = np.array([[50.0, 43.0, -29.0]])  # relative to a green table
    >>> colour, trust = against_table(silver_on_green, np.array([123.0, 85.0, 158.0]), 15.0)
    >>> [round(float(v)) for v in colour[0, 1:]], round(trust, 2)
    ([3, -1], 0.08)
    >>> colour, trust = against_table(silver_on_green, np.array([123.0, 85.0, 158.0]), 15.0,
    ...                               white=np.array([200.0, 128.0, 127.0]))
    >>> [round(float(v)) for v in colour[0, 1:]], trust
    ([0, 2], 1.0)
    """
    if white is not None:
        out = np.array(relative, np.float64, copy=True)
        out[:, 1:] += np.asarray(table[1:], np.float64) - np.asarray(white[1:], np.float64)
        return out, 1.0
    if table_chroma <= 0:
        return relative, 1.0
    chroma = float(np.hypot(table[1] - 128.0, table[2] - 128.0))
    trust = 1.0 / (1.0 + (chroma / table_chroma) ** 2)
    out = np.array(relative, np.float64, copy=True)
    out[:, 1:] += (1.0 - trust) * (np.asarray(table[1:], np.float64) - 128.0)
    return out, trust
