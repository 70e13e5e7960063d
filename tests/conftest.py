"""What every test package shares: where the repository and the shared material lie.

The labelled real photos (``../shared/data``) and ``RULES.md`` are kept beside the
repository, never in it (as in CI's clean clone). Test modules take these paths from here
(``from tests.conftest import SHARED_DATA``) rather than rebuilding them; a test that needs
the photos asks for the ``shared_data`` fixture, which fails, never skips, when they are
missing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
"""The repository's root folder."""

SHARED = REPO.parent / "shared"
"""The shared material beside the repository: ``RULES.md``, ``DESIGN.md``, ``data/``."""

SHARED_DATA = SHARED / "data"
"""The labelled real photos: ``coins-mmr``, ``dice-rune55``, ``cards-cadyze``."""

COINS_MMR = SHARED_DATA / "coins-mmr"
"""46 photos of US coins on grey cloth, labelled coin by coin."""

DICE_RUNE55 = SHARED_DATA / "dice-rune55"
"""290 photos of six-sided dice (colour trays, grey close-ups and oblique shots), labelled die by die."""

CARDS_CADYZE = SHARED_DATA / "cards-cadyze"
"""150 photos of playing cards: no coin and no die in any."""


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """``SHARED_DATA``, failing the test (not skipping it) when the photos are not there."""
    if not SHARED_DATA.is_dir():
        pytest.fail(f"the shared photos are missing: {SHARED_DATA} (check out ../shared beside the repository)")
    return SHARED_DATA
