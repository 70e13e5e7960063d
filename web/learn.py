"""Learning this table (issue 5): the players throw the table's own coins, confirm each face on
the tablet, and the live reader adapts to those coins and this light (``vision.enrol``).

The reader works without this step (the shipped model and colours); what it learns is kept in
a small profile file beside the match log, so a restart keeps it. Learning again adds the new
confirmed coins to those learned since the service started; after a restart it starts a new
profile from the next confirmed table.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from referee.errors import IllegalActionError, InvalidActionError
from vision.types import COIN_KINDS

FACES = ("heads", "tails")


def profile_path(db: str | Path) -> Path:
    """Where the table's coin profile lives: beside the match log ``db``."""
    path = Path(db)
    return path.with_name(path.stem + "-table-profile.npz")


class TableLearner:
    """The confirmed coins of this table and the coin profile learned from them.

    :raises ValueError: (from ``__init__``) for a profile file that cannot be read, naming it.
    """

    def __init__(self, path: Path | None) -> None:
        from vision.enrol import CoinProfile

        self.path = path
        self.examples: list[tuple[Any, list[Any]]] = []
        self.profile: CoinProfile | None = None
        if path is not None and path.is_file():
            self.profile = CoinProfile.load(path)

    @property
    def coins_learned(self) -> int:
        """How many confirmed coins the profile holds."""
        return 0 if self.profile is None else int(len(self.profile.kinds))

    def learn(self, image: Any, coins: list[Any]) -> None:
        """Add a table's confirmed coins (``Detection`` with the true face) and learn again."""
        from vision.enrol import enrol_coins

        self.examples.append((image, coins))
        self.profile = enrol_coins(self.examples)
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.profile.save(self.path)

    def forget(self) -> None:
        """Back to the shipped defaults: the profile and its file are dropped."""
        self.examples.clear()
        self.profile = None
        if self.path is not None and self.path.is_file():
            self.path.unlink()


def coins_to_confirm(observation: Any) -> list[dict[str, Any]]:
    """The coins of the last settled table's read, as the tablet lists them for confirming."""
    if observation is None:
        return []
    return [{"ref": ref, "kind": d.kind, "value": d.value, "confidence": round(float(d.confidence), 3),
             "crop_url": f"/api/crop/{ref}.jpg"}
            for ref, d in enumerate(observation.objects) if d.kind in COIN_KINDS and not d.flags]


def confirmed_coins(observation: Any, faces: Mapping[str, Any]) -> list[Any]:
    """The read's coins with the faces the players gave (``{"ref": "heads" | "tails" | null}``;
    a coin left out or given ``null`` is not learned).

    :raises InvalidActionError: for a ref that is no coin of the read or a face that is no face.
    """
    coins = {str(c["ref"]): c["ref"] for c in coins_to_confirm(observation)}
    out = []
    for key, face in faces.items():
        if str(key) not in coins:
            raise InvalidActionError(f"{key!r} is no coin of the last read; the coins are {', '.join(coins) or 'none'}")
        if face is None:
            continue
        if face not in FACES:
            raise InvalidActionError(f"the face of coin {key} must be heads or tails, got {face!r}")
        out.append(replace(observation.objects[coins[str(key)]], value=face, confidence=1.0))
    if not out:
        raise InvalidActionError("no coin's face was given: nothing to learn")
    return out


def learn_from_last_read(loop: Any, learner: TableLearner | None, faces: Mapping[str, Any]) -> int:
    """Learn the faces the players confirmed on the last settled table; the number of coins learned.

    :raises IllegalActionError: when there is no camera reader to teach or no table read yet.
    :raises InvalidActionError: for bad refs or faces (``confirmed_coins``).
    """
    if learner is None:
        raise IllegalActionError("this table has no camera reader to teach (learning needs --read vision)")
    frame = loop.latest_read if loop is not None else None
    observation = loop.latest_observation if loop is not None else None
    if frame is None or observation is None:
        raise IllegalActionError("no settled table has been read yet: throw the coins and wait for the picture")
    coins = confirmed_coins(observation, faces)
    learner.learn(frame.image, coins)
    return len(coins)
