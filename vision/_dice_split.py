"""The fixed split of ../shared/data/dice-rune55 into a trained part and a held-out part.

Shared by ``tools/train_dice.py``, ``benchmarks/dice_bench.py`` and the tests, so the
model never learns from a photo that is measured as held-out. The publisher augmented
some photos several times (``rune55_num_00000_2ea49e25.jpg`` and ``..._5a76e47d.jpg`` are
one photo), so the split hashes the source name without the trailing 8-hex suffix:
all copies of one photo fall on the same side.
"""

from __future__ import annotations

import hashlib
import re

HELD_OUT_ONE_IN = 5
"""About one source photo in this many is held out from training."""

_SUFFIX = re.compile(r"_[0-9a-f]{8}\.(jpg|jpeg|png)$", re.IGNORECASE)


def source_key(image_name: str) -> str:
    """The publisher's photo name: the file name without the augmentation hash.

    The ``rune55_i_i_*`` photos carry no name of their own, only the hash, so for them
    the whole file name is the key.
    """
    key = _SUFFIX.sub("", image_name)
    return image_name if key == "rune55_i_i" else key


def is_held_out(image_name: str) -> bool:
    """Whether a photo belongs to the held-out (never trained on) part."""
    digest = hashlib.md5(source_key(image_name).encode("utf-8")).digest()
    return digest[0] % HELD_OUT_ONE_IN == 0


def is_validation(image_name: str) -> bool:
    """Whether a photo (or a fixtures dev scene) is kept out of training to calibrate confidence on.

    About one source photo in ``HELD_OUT_ONE_IN``, disjoint from the held-out part: the
    models never learn from it, and ``vision.dice`` fits its confidence threshold on it,
    so the held-out part stays untouched for measuring.
    """
    digest = hashlib.md5(source_key(image_name).encode("utf-8")).digest()
    return digest[0] % HELD_OUT_ONE_IN == 1


def group_of(image_name: str) -> str:
    """The photo's group: ``colour_tray``, ``grey_closeup`` or ``grey_oblique``."""
    if image_name.startswith("rune55_pxl_"):
        return "colour_tray"
    if image_name.startswith("rune55_num_"):
        return "grey_closeup"
    return "grey_oblique"
