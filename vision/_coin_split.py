"""The fixed split of ../shared/data/coins-mmr: photos the coin model never learns from.

Photos of coins-mmr come in groups of the same coins (a pair is one set of coins photographed
heads-up and then flipped), so whole groups are held out, never one photo of a pair.
"""

from __future__ import annotations

HELD_OUT: frozenset[str] = frozenset(
    f"mmr_{n}.jpg" for n in (195, 197, 52, 53, 60, 61, 66, 67, 75, 76, 81, 82)
)
"""12 photos (182 coins): measured, never trained on."""


def is_held_out(image: str) -> bool:
    """Whether a coins-mmr photo (file name) is in the held-out part."""
    return image.rsplit("/", 1)[-1] in HELD_OUT
