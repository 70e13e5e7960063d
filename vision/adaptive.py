"""This table's own answers make the reader's confidence: a read is sure where, on this table,
reads like it have been right.

The shipped readers' confidence is calibrated over many tables, cameras and lights. On one
table under one fixed camera it is often too timid: on dice photos with no known scale the
reads that are right sit at 0.72 to 0.80, just under :data:`vision.types.CONFIDENT`, and the
players are asked about dice the reader had right. Every answer the players give is a label
of exactly these objects in exactly this light, and says whether the read it answers was
right. :class:`TableExamples` keeps, for each answered object, the read's best guess and its
score as they were *before* that answer was learned, so the record is prequential: every
example measures the reader on an object it had not learned from.

:func:`adapt` then makes an unsure read sure where, among this table's examples of that kind
of object read at least as surely, the best guess was right nearly always
(:attr:`AdaptParams.wrong_share`) and there are enough of them (:attr:`AdaptParams.support`).
The best guess itself is never changed, only whether it is trusted: the confidence stays
honest because it is measured on this table's objects not yet learned from.

>>> from vision.types import Detection, TableObservation
>>> examples = TableExamples()
>>> for n in range(70):
...     examples.add(f"f{n}", Example("d6", 3, 3, 0.75, "d6", agreed=True, feature=(1.0, 0.0)))
>>> unsure = Detection("d6", 3, (0, 0, 20, 20), 0.76)
>>> read = adapt(TableObservation((unsure,), (100, 100)), examples, features=[(0.9, 0.1)])
>>> read.objects[0].confidence >= CONFIDENT
True
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from vision.types import COIN_KINDS, CONFIDENT, DIE_FACES, Detection, TableObservation


@dataclass(frozen=True)
class AdaptParams:
    """When this table's examples make an unsure read sure."""

    wrong_share: float = 0.002
    """The largest share of wrong guesses among the table's examples read at least as surely as
    a read, for that read to be made sure (below ``1 / wrong_share`` examples: none wrong)."""
    support: int = 60
    """The fewest examples of the read's kind at least as sure as it: fewer prove nothing."""
    floor: float = 0.7
    """No read under this confidence is made sure, however many examples there are: the
    reader must lean towards its guess (the shipped readers' right reads that the gate misses
    on one table mostly sit from 0.72 up; from 0.5, one more wrong die in 963)."""
    neighbours: int = 9
    """How many of the table's most alike examples (by the reader's own vector of the object:
    ``features``) must all show the read's guess for the read to count as *agreed*: agreed reads
    are made sure from the level their own kind of example proves, which is lower where the
    table's look-alikes and the reader seldom agree on a wrong face."""
    agreed_only: bool = True
    """Make sure only reads the table's look-alikes agree with (:func:`agrees`). Off, a read
    that they do not agree with may be made sure from the level all examples prove: on the
    game-night dice that ruled 1 point more and wrong on 2 more dice in 963."""


@dataclass(frozen=True)
class Example:
    """One answered object: its true kind and face, and the read's best guess and score as they
    were before the answer was learned."""

    kind: str
    """The object's true kind."""
    value: str | int
    """Its true face."""
    guess: str | int | None
    """The read's likelier face (``None``: it named none)."""
    score: float
    """The read's confidence (on the shared scale of ``read_table``)."""
    guessed_kind: str = ""
    """The kind the read gave it (empty: the true kind)."""
    agreed: bool = False
    """Whether the table's most alike examples all showed the guess when it was read."""
    feature: tuple[float, ...] = ()
    """The reader's vector of the object (a unit vector; empty where none was made)."""

    @property
    def right(self) -> bool:
        """Whether the read's guess was the truth, kind and face."""
        return self.guess == self.value and (self.guessed_kind or self.kind) == self.kind

    def to_json(self) -> dict[str, Any]:
        """The example as stored in the table's file."""
        return {"kind": self.kind, "value": self.value, "guess": self.guess, "score": round(self.score, 4),
                "guessed_kind": self.guessed_kind, "agreed": self.agreed,
                "feature": [round(v, 4) for v in self.feature]}


def best_guess(det: Detection) -> str | int | None:
    """A read's likelier face, also where it named none (a coin's ``p_heads``)."""
    if det.value is not None:
        return det.value
    p_heads = det.extra.get("p_heads")
    if det.kind in COIN_KINDS and isinstance(p_heads, (int, float)):
        return "heads" if p_heads >= 0.5 else "tails"
    return None


def example_of(read: Detection, kind: str, value: str | int) -> Example:
    """The example an answer makes of the read ``read`` of an object that is a ``kind`` showing
    ``value``. A read that :func:`adapt` made sure is recorded as it was read before
    (``extra["cold_confidence"]``), so the record measures the reader unhelped."""
    score = read.extra.get("cold_confidence", read.confidence)
    feature = read.extra.get("table_feature")
    return Example(kind, value, best_guess(read), float(score), read.kind, bool(read.extra.get("table_agreed", False)),
                   () if feature is None else tuple(float(v) for v in feature))


@dataclass
class TableExamples:
    """The table's answered objects, each tagged with the frame (throw) it was answered on, so
    that an answer taken back is unlearned with its throw."""

    by_frame: dict[str, list[Example]] = field(default_factory=dict)

    def add(self, frame: str, *examples: Example) -> None:
        """Learn the answers of one throw (added to those of the same frame)."""
        self.by_frame.setdefault(frame, []).extend(examples)

    def forget(self, frame: str) -> int:
        """Unlearn the answers of a throw; how many there were."""
        return len(self.by_frame.pop(frame, []))

    def all(self) -> list[Example]:
        """Every example, oldest throw first (a copy: an undo on another thread may forget a
        throw meanwhile)."""
        return [e for examples in list(self.by_frame.values()) for e in list(examples)]

    def __len__(self) -> int:
        return sum(len(v) for v in self.by_frame.values())

    def sure_from(self, kind: str, params: AdaptParams = AdaptParams(), agreed: bool = False) -> float | None:
        """The lowest confidence at which, on this table, reads of ``kind`` have been right
        nearly always (see :class:`AdaptParams`); ``None`` where the examples prove no level.
        With ``agreed``, among the reads the table's look-alikes agreed with only."""
        rows = sorted(((e.score, e.right) for e in self.all()
                       if (e.guessed_kind or e.kind) == kind and e.guess is not None and (e.agreed or not agreed)),
                      key=lambda r: (r[0], not r[1]), reverse=True)
        level, wrong = None, 0
        for n, (score, right) in enumerate(rows, 1):
            wrong += int(not right)
            if score < params.floor:
                break
            if n >= params.support and wrong <= params.wrong_share * n:
                level = score
        return level

    def save(self, path: str | Path) -> None:
        """Write the examples as JSON (a file a person can read)."""
        data = {"version": 1, "throws": [{"frame": f, "examples": [e.to_json() for e in v]}
                                         for f, v in self.by_frame.items()]}
        Path(path).write_text(json.dumps(data))

    @classmethod
    def load(cls, path: str | Path) -> TableExamples:
        """Read examples written by :meth:`save`.

        :raises ValueError: naming the bad field.
        :raises FileNotFoundError: if there is no such file.
        """
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise ValueError(f"table examples {path}: not JSON ({exc})") from None
        throws = data.get("throws") if isinstance(data, dict) else None
        if not isinstance(throws, list):
            raise ValueError(f"table examples {path}: field 'throws' must be a list")
        out = cls()
        for n, throw in enumerate(throws):
            if not isinstance(throw, dict) or not isinstance(throw.get("frame"), str) or not isinstance(throw.get("examples"), list):
                raise ValueError(f"table examples {path}: throw {n} needs a 'frame' and a list of 'examples'")
            for e in throw["examples"]:
                try:
                    example = Example(str(e["kind"]), e["value"], e["guess"], float(e["score"]), str(e.get("guessed_kind", "")),
                                      bool(e.get("agreed", False)), tuple(float(v) for v in e.get("feature", ())))
                except (KeyError, TypeError, ValueError):
                    raise ValueError(f"table examples {path}: throw {n} has an example without kind, value, guess and score") from None
                if example.kind not in COIN_KINDS and example.kind not in DIE_FACES:
                    raise ValueError(f"table examples {path}: throw {n}: {example.kind!r} is no coin or die kind")
                out.add(throw["frame"], example)
        return out


def agrees(feature: Any, guess: str | int, kind: str, examples: list[Example], params: AdaptParams = AdaptParams()) -> bool:
    """Whether the ``params.neighbours`` examples of ``kind`` most like ``feature`` all show
    ``guess`` (False with fewer such examples)."""
    alike = [e for e in examples if (e.guessed_kind or e.kind) == kind and len(e.feature) == len(feature)]
    if len(alike) < params.neighbours or not len(feature):
        return False
    vectors = np.asarray([e.feature for e in alike], np.float64)
    nearest = np.argsort(-(vectors @ np.asarray(feature, np.float64)))[: params.neighbours]
    return all(alike[int(i)].value == guess for i in nearest)


def adapt(observation: TableObservation, examples: TableExamples, params: AdaptParams = AdaptParams(),
          features: Sequence[Any] | None = None) -> TableObservation:
    """``observation`` with each unsure read made sure where this table's examples show reads of
    its kind at least as sure as it have been right nearly always (``extra["table_sure_from"]``
    says from which confidence). ``features`` (one vector or ``None`` per object, as
    :func:`features_of` makes them) let the table's look-alikes agree with a read
    (:func:`agrees`): an agreed read is sure from the level the agreed examples prove.

    Every read gets ``extra["table_agreed"]`` and ``extra["table_feature"]`` for the example its
    answer will make. Flagged reads (cocked, on edge) and reads with no guess are left as read;
    the guess is never changed."""
    everything = examples.all()
    levels: dict[tuple[str, bool], float | None] = {}
    objects = []
    for n, det in enumerate(observation.objects):
        guess = best_guess(det)
        feature = None if features is None else features[n]
        agreed = feature is not None and guess is not None and agrees(feature, guess, det.kind, everything, params)
        extra = {**det.extra, "table_agreed": agreed, "table_feature": feature}
        if det.confidence >= CONFIDENT or det.flags or guess is None:
            objects.append(replace(det, extra=extra))
            continue
        level = None
        if params.agreed_only:
            strata: tuple[bool, ...] = (True,) if agreed else ()
        else:
            strata = (False, True) if agreed else (False,)
        for stratum in strata:
            if (det.kind, stratum) not in levels:
                levels[(det.kind, stratum)] = examples.sure_from(det.kind, params, stratum)
            found = levels[(det.kind, stratum)]
            if found is not None and (level is None or found < level):
                level = found
        if level is None or det.confidence < level:
            objects.append(replace(det, extra=extra))
            continue
        extra.update(table_sure_from=round(level, 4), cold_confidence=det.confidence)
        objects.append(replace(det, value=guess, confidence=CONFIDENT, extra=extra))
    return replace(observation, objects=tuple(objects))


def features_of(frame: Any, observation: TableObservation) -> list[Any]:
    """The reader's own vector of each object of ``observation`` read from ``frame``: a coin's
    appearance embedding (``extra["embedding"]``), a die's reader hidden layer
    (``vision.dice_embedding``); ``None`` for other objects."""
    out: list[Any] = [None] * len(observation.objects)
    dice = [n for n, d in enumerate(observation.objects) if d.kind == "d6" and not d.flags]
    for n, d in enumerate(observation.objects):
        embedding = d.extra.get("embedding")
        if d.kind in COIN_KINDS and embedding is not None:
            vector = np.asarray(embedding, np.float64).ravel()
            out[n] = vector / (np.linalg.norm(vector) + 1e-9)
    if dice:
        from vision.dice_embedding import dice_embeddings

        try:
            vectors = dice_embeddings(frame, [observation.objects[n].bbox for n in dice])
        except (FileNotFoundError, ValueError):
            return out  # no reader model: no look-alikes, the plain level still applies
        for n, vector in zip(dice, vectors):
            out[n] = vector
    return out


def examples_of(pairs: Iterable[tuple[Detection, str, str | int]]) -> list[Example]:
    """The examples of some answered reads: each read with the object's true kind and face."""
    return [example_of(read, kind, value) for read, kind, value in pairs]
