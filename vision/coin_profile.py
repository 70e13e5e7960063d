"""A table's learned coins (:class:`CoinProfile`): the exemplars, colours and sizes enrolment
learned, which the coin reader applies, and their ``.npz`` file.

Its own module so that the coin reader (``vision.coins``) and enrolment (``vision.enrol``),
which makes profiles by reading coins, both use it without importing each other.
"""

from __future__ import annotations

import json
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from vision._coin_geometry import APPEARANCE_KINDS

ColourModel = dict[str, list[tuple[float, float, float, float, float]]]


def _profile_fields(path: str | Path) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
    """The embeddings, kinds, faces and header of a coin profile file (:meth:`CoinProfile.save`).

    :raises ValueError: for a file that is no ``.npz`` archive, or lacks a field (named).
    :raises FileNotFoundError: if there is no such file.
    """
    # Opened here, not by NumPy: NumPy leaves a file it cannot read open.
    with open(path, "rb") as handle:
        try:
            archive = np.load(handle, allow_pickle=False)
        except (ValueError, EOFError, zipfile.BadZipFile):
            # Not an .npy or .npz file at all (NumPy then takes it for a pickle, and refuses it).
            raise ValueError(f"coin profile {path}: not a profile file (.npz)") from None
        if not isinstance(archive, np.lib.npyio.NpzFile):
            raise ValueError(f"coin profile {path}: not a profile file (.npz), a single array")
        with archive as data:
            for name in ("embeddings", "kinds", "faces", "header"):
                if name not in data:
                    raise ValueError(f"coin profile {path}: missing field {name!r}")
            header = json.loads(str(data["header"]))
            if not isinstance(header, dict):
                raise ValueError(f"coin profile {path}: field 'header' must be a JSON object")
            return (np.asarray(data["embeddings"], np.float32), np.asarray(data["kinds"], np.int64),
                    np.asarray(data["faces"], np.int64), header)


@dataclass(frozen=True)
class CoinProfile:
    """What was learned of one table's coins; pass it to ``find_coins``/``read_table``."""

    embeddings: np.ndarray
    """M x D unit rows: the appearance model's embedding of each confirmed coin."""
    kinds: np.ndarray
    """M kind indices into ``APPEARANCE_KINDS``."""
    faces: np.ndarray
    """M face indices (0 heads, 1 tails), -1 where the players did not confirm a face."""
    colours: ColourModel = field(default_factory=dict)
    """Per kind colour mixture (weight, mean a, mean b, sd a, sd b) relative to the printed
    table's white where its markers were seen, else to the table (on a strongly coloured table,
    partly to neutral grey): ``vision.coins.against_table``."""
    size_factor: dict[str, float] = field(default_factory=dict)
    """Per kind: measured diameter over true diameter on this camera (1.0 when unknown)."""
    neighbours: int = 5
    """How many exemplars vote for each coin."""
    sharpness: float = 20.0
    """How fast an exemplar's vote falls with distance (cosine similarity x sharpness)."""
    weight: float = 1.0
    """How strongly the exemplars' vote counts against the shipped model."""
    model: str = ""
    """The fingerprint of the coin model the exemplars were learned with
    (``ModelMeta.fingerprint``; empty in profiles written before it was recorded)."""

    def exemplars_fit(self, fingerprint: str, dim: int) -> bool:
        """Whether the exemplars can vote with the coin model ``fingerprint`` whose embeddings
        have ``dim`` values: another model's embeddings mean nothing to it (a newer shipped
        model, say), so its reads are then used alone; colours and sizes still apply."""
        if self.model:
            return self.model == fingerprint
        return self.embeddings.ndim == 2 and self.embeddings.shape[1] == dim

    def size_factors(self) -> np.ndarray:
        """Per-kind size corrections in ``APPEARANCE_KINDS`` order."""
        return np.array([self.size_factor.get(k, 1.0) for k in APPEARANCE_KINDS], np.float64)

    def adapt(self, embedding: np.ndarray, kind_prob: np.ndarray, face_prob: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Kind and face probabilities corrected by the nearest confirmed coins.

        The exemplars' weighted votes (smoothed, so a few votes never give certainty) are
        multiplied into the model's probabilities. A coin unlike every exemplar gets
        near-equal votes and keeps the model's read.
        """
        if len(self.embeddings) == 0 or len(embedding) == 0:
            return kind_prob, face_prob
        sims = embedding @ self.embeddings.T
        k = min(self.neighbours, sims.shape[1])
        nearest = np.argsort(-sims, axis=1)[:, :k]
        kind_out = kind_prob.astype(np.float64).copy()
        face_out = face_prob.astype(np.float64).copy()
        for i in range(len(embedding)):
            idx = nearest[i]
            w = np.exp(self.sharpness * (sims[i, idx] - 1.0))
            kv = np.full(len(APPEARANCE_KINDS), 0.5)
            np.add.at(kv, self.kinds[idx], w)
            fv = np.full(2, 0.5)
            known = self.faces[idx] >= 0
            np.add.at(fv, self.faces[idx][known], w[known])
            kind_out[i] *= (kv / kv.sum()) ** self.weight
            face_out[i] *= (fv / fv.sum()) ** self.weight
        kind_out /= kind_out.sum(axis=1, keepdims=True)
        face_out /= face_out.sum(axis=1, keepdims=True)
        return kind_out, face_out

    def save(self, path: str | Path) -> None:
        """Write the profile as ``.npz`` (arrays plus a JSON header)."""
        header = {
            "version": 1,
            "colours": self.colours,
            "size_factor": self.size_factor,
            "neighbours": self.neighbours,
            "sharpness": self.sharpness,
            "weight": self.weight,
            "model": self.model,
        }
        with open(path, "wb") as fh:
            np.savez_compressed(
                fh,
                embeddings=self.embeddings.astype(np.float32),
                kinds=self.kinds.astype(np.int16),
                faces=self.faces.astype(np.int8),
                header=np.array(json.dumps(header)),
            )

    @classmethod
    def load(cls, path: str | Path) -> CoinProfile:
        """Read a profile written by :meth:`save`.

        :raises ValueError: naming the missing or bad field.
        :raises FileNotFoundError: if there is no such file.
        """
        emb, kinds, faces, header = _profile_fields(path)
        if emb.ndim != 2 or len(kinds) != len(emb) or len(faces) != len(emb):
            raise ValueError(f"coin profile {path}: embeddings, kinds and faces must have one row per coin")
        if len(kinds) and (kinds.min() < 0 or kinds.max() >= len(APPEARANCE_KINDS)):
            raise ValueError(f"coin profile {path}: field 'kinds' out of range")
        if len(faces) and (faces.min() < -1 or faces.max() > 1):
            raise ValueError(f"coin profile {path}: field 'faces' must be -1, 0 or 1")
        colours = header.get("colours", {})
        if not isinstance(colours, dict) or any(k not in APPEARANCE_KINDS for k in colours):
            raise ValueError(f"coin profile {path}: field 'colours' must map coin kinds to mixtures")
        return cls(
            embeddings=emb,
            kinds=kinds,
            faces=faces,
            colours={k: [tuple(float(x) for x in comp) for comp in v] for k, v in colours.items()},  # type: ignore[misc]
            size_factor={str(k): float(v) for k, v in header.get("size_factor", {}).items()},
            neighbours=int(header.get("neighbours", 5)),
            sharpness=float(header.get("sharpness", 20.0)),
            weight=float(header.get("weight", 1.0)),
            model=str(header.get("model", "")),
        )
