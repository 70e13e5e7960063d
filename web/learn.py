"""Learning this table (issue 5): the players throw the table's own coins and dice, confirm each
face on the tablet, and the live reader adapts to those coins and this light, and to the
table's kind and size of die (``vision.enrol``).

During play every throw teaches too: the faces the game took from it (read surely, answered
or corrected) are kept as the table's answers (:meth:`TableLearner.teach`,
``vision.adaptive``), which make later reads of the same objects sure where this table has
shown such reads right; a throw taken back (undo) is unlearned (:meth:`TableLearner.unlearn`).

The reader works without this step (the shipped model and colours); what it learns is kept in
small profile files beside the match log, so a restart keeps it. Learning again adds the new
confirmed coins and dice to those learned since the service started; after a restart it starts
a new profile from the next confirmed table.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from referee.errors import IllegalActionError, InvalidActionError
from vision.types import COIN_KINDS, DIE_FACES, DIE_KINDS

FACES = ("heads", "tails")


def profile_path(db: str | Path) -> Path:
    """Where the table's coin profile lives: beside the match log ``db``."""
    path = Path(db)
    return path.with_name(path.stem + "-table-profile.npz")


def dice_profile_path(coin_profile: Path) -> Path:
    """Where the table's dice profile lives: beside its coin profile."""
    return coin_profile.with_name(coin_profile.stem + "-dice.json")


def examples_path(coin_profile: Path) -> Path:
    """Where the table's answered objects (``vision.adaptive.TableExamples``) live: beside its
    coin profile."""
    return coin_profile.with_name(coin_profile.stem + "-answers.json")


class TableLearner:
    """The confirmed coins and dice of this table and the profiles learned from them.

    :raises ValueError: (from ``__init__``) for a profile file that cannot be read, naming it.
    """

    def __init__(self, path: Path | None, adapt_params: Any = None) -> None:
        from vision.adaptive import AdaptParams
        from vision.enrol import CoinProfile, DiceProfile

        self.path = path
        self.adapt_params = adapt_params if adapt_params is not None else AdaptParams()
        """When the table's answers make a read sure (``vision.adaptive.AdaptParams``)."""
        self.examples: list[tuple[Any, list[Any]]] = []
        self.dice_examples: list[tuple[float | None, list[Any]]] = []
        self.profile: CoinProfile | None = None
        self.dice_profile: DiceProfile | None = None
        from vision.adaptive import TableExamples

        self.answers = TableExamples()
        """Every object answered or confirmed during play, by throw: what makes this table's
        reads sure (``vision.adaptive``)."""
        if path is not None and path.is_file():
            self.profile = CoinProfile.load(path)
        if path is not None and dice_profile_path(path).is_file():
            self.dice_profile = DiceProfile.load(dice_profile_path(path))
        if path is not None and examples_path(path).is_file():
            self.answers = TableExamples.load(examples_path(path))

    @property
    def coins_learned(self) -> int:
        """How many confirmed coins the profile holds."""
        return 0 if self.profile is None else int(len(self.profile.kinds))

    @property
    def coins_outdated(self) -> bool:
        """Whether the coins were learned with another coin model than the shipped one (an
        update since): their faces are then not used, only their colours and sizes, until the
        players confirm a table again."""
        from vision.coins import profile_fits_model

        return self.profile is not None and len(self.profile.kinds) > 0 and not profile_fits_model(self.profile)

    @property
    def dice_learned(self) -> int:
        """How many confirmed dice the dice profile was learned from."""
        return 0 if self.dice_profile is None else self.dice_profile.dice

    def learn(self, image: Any, coins: list[Any], dice: list[Any] | None = None, mm_per_px: float | None = None) -> None:
        """Add a table's confirmed coins and dice (``Detection`` with the true face; ``mm_per_px``
        the frame's scale, for the dice's size) and learn again."""
        from vision.enrol import enrol_coins, enrol_dice

        # Learn from the new examples first: a throw that cannot be learned is not kept, so it
        # cannot spoil what is learned next.
        profile = enrol_coins([*self.examples, (image, coins)]) if coins else None
        dice_profile = enrol_dice([*self.dice_examples, (mm_per_px, dice)]) if dice else None
        if self.path is not None and (profile is not None or dice_profile is not None):
            self.path.parent.mkdir(parents=True, exist_ok=True)
        if profile is not None:
            self.examples.append((image, coins))
            self.profile = profile
            if self.path is not None:
                profile.save(self.path)
        if dice_profile is not None:
            self.dice_examples.append((mm_per_px, list(dice or ())))
            self.dice_profile = dice_profile
            if self.path is not None:
                dice_profile.save(dice_profile_path(self.path))

    def forget(self) -> None:
        """Back to the shipped defaults: the profiles, the answers and their files are dropped."""
        from vision.adaptive import TableExamples

        self.examples.clear()
        self.dice_examples.clear()
        self.profile = None
        self.dice_profile = None
        self.answers = TableExamples()
        if self.path is not None:
            for path in (self.path, dice_profile_path(self.path), examples_path(self.path)):
                if path.is_file():
                    path.unlink()

    def teach(self, frame_id: str, answered: list[tuple[Any, str, str | int]]) -> None:
        """The objects of the throw read on frame ``frame_id`` as the game took them: each read
        (``Detection``) with its true kind and face (read surely, answered or corrected). They
        replace what that throw taught before (a throw ruled again after an answer) and are
        used from the next read on (:meth:`adapt`)."""
        from vision.adaptive import examples_of

        self.answers.forget(frame_id)
        self.answers.add(frame_id, *examples_of(answered))
        self._save_answers()

    def unlearn(self, frame_id: str) -> int:
        """Forget what the throw read on ``frame_id`` taught (its ruling was taken back); how
        many objects that was."""
        gone = self.answers.forget(frame_id)
        if gone:
            self._save_answers()
        return gone

    def adapt(self, observation: Any, image: Any = None) -> Any:
        """``observation`` (read from ``image``) with the reads this table's answers prove sure
        made sure (``vision.adaptive.adapt``; the reader's vectors of the objects in ``image``
        let the table's look-alikes agree)."""
        from vision.adaptive import adapt, features_of

        return adapt(observation, self.answers, self.adapt_params,
                     None if image is None else features_of(image, observation))

    def _save_answers(self) -> None:
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.answers.save(examples_path(self.path))


def undone_frame(events: Any) -> str | None:
    """The frame of the camera action the last ``undo`` of the log ``events`` took back (``None``
    when the last undo took back a tablet's action, or there is none)."""
    applied: list[str | None] = []
    undone: list[str | None] = []
    for event in events:
        if event.kind == "action":
            applied.append(event.frame_id if event.actor == "camera" else None)
            undone.clear()
        elif event.kind == "undo" and applied:
            undone.append(applied.pop())
        elif event.kind == "redo" and undone:
            applied.append(undone.pop())
    return undone[-1] if undone else None


def _choices(kind: str) -> list[Any]:
    return list(FACES) if kind in COIN_KINDS else list(range(1, DIE_FACES[kind] + 1))


def objects_to_confirm(observation: Any) -> list[dict[str, Any]]:
    """The coins and dice of the last settled table's read, as the tablet lists them for
    confirming: each with the faces it can show (``choices``), its face where sure
    (``value``) and the face read, sure or not (``guess``), which the tablet offers first."""
    if observation is None:
        return []
    return [{"ref": ref, "kind": d.kind, "value": d.value, "guess": d.guess, "confidence": round(float(d.confidence), 3),
             "choices": _choices(d.kind), "crop_url": f"/api/crop/{ref}.jpg"}
            for ref, d in enumerate(observation.objects)
            if (d.kind in COIN_KINDS or d.kind in DIE_KINDS) and not d.flags]


def confirmed_objects(observation: Any, faces: Mapping[str, Any]) -> tuple[list[Any], list[Any]]:
    """The read's coins and dice with the faces the players gave (``{"ref": "heads" | "tails" |
    a die's face | null}``; one left out or given ``null`` is not learned).

    :raises InvalidActionError: for a ref that is no coin or die of the read, a face that the
        object cannot show, or no face at all.
    """
    listed = {str(c["ref"]): c for c in objects_to_confirm(observation)}
    coins: list[Any] = []
    dice: list[Any] = []
    for key, face in faces.items():
        item = listed.get(str(key))
        if item is None:
            raise InvalidActionError(
                f"{key!r} is no coin or die of the last read; they are {', '.join(listed) or 'none'}")
        if face is None:
            continue
        if item["kind"] in DIE_KINDS and isinstance(face, str) and face.isdigit():
            face = int(face)
        if face not in item["choices"] or isinstance(face, bool):
            what = "heads or tails" if item["kind"] in COIN_KINDS else f"1 to {DIE_FACES[item['kind']]}"
            raise InvalidActionError(f"the face of {item['kind']} {key} must be {what}, got {face!r}")
        confirmed = replace(observation.objects[item["ref"]], value=face, confidence=1.0)
        (coins if item["kind"] in COIN_KINDS else dice).append(confirmed)
    if not coins and not dice:
        raise InvalidActionError("no coin's or die's face was given: nothing to learn")
    return coins, dice


def learn_from_last_read(loop: Any, learner: TableLearner | None, faces: Mapping[str, Any]) -> int:
    """Learn the faces the players confirmed on the last settled table; the number of coins and
    dice learned.

    :raises IllegalActionError: when there is no camera reader to teach or no table read yet.
    :raises InvalidActionError: for bad refs or faces (``confirmed_objects``).
    """
    if learner is None:
        raise IllegalActionError("this table has no camera reader to teach (learning needs --read vision)")
    frame = loop.latest_read if loop is not None else None
    observation = loop.latest_observation if loop is not None else None
    if frame is None or observation is None:
        raise IllegalActionError("no settled table has been read yet: throw the coins and wait for the picture")
    coins, dice = confirmed_objects(observation, faces)
    calibration = getattr(getattr(loop, "read", None), "calibration", None)
    learner.learn(frame.image, coins, dice, getattr(calibration, "mm_per_px", None))
    # The confirmed faces are answers too: each with the read as it was, for the table's answers.
    reads = {(d.bbox, d.center): d for d in observation.objects}
    learner.teach(frame.frame_id, [(reads[(c.bbox, c.center)], c.kind, c.value) for c in [*coins, *dice]
                                   if (c.bbox, c.center) in reads])
    return len(coins) + len(dice)
