"""The appearance model's read of coins (kind and face from a polar image), and whether a table's learned profile fits the model."""

from __future__ import annotations

import cv2
import numpy as np

from vision._coin_geometry import Circle, polar_grid, polar_samples
from vision._coin_model import ModelMeta, ModelOutput, load_model
from vision.coins.params import CoinParams

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from vision.coin_profile import CoinProfile


def profile_fits_model(profile: CoinProfile, params: CoinParams = CoinParams()) -> bool:
    """Whether ``profile``'s learned coins can vote with the coin model of ``params`` (they
    were learned with it); when not, ``find_coins`` uses the profile's colours and sizes only.

    :raises FileNotFoundError: if the coin model is missing.
    """
    model = load_model(params.model_dir)
    return profile.exemplars_fit(model.meta.fingerprint, model.embedding_size)


def appearance(
    frame: np.ndarray,
    circles: list[Circle],
    params: CoinParams = CoinParams(),
    gray: np.ndarray | None = None,
    whole: bool = True,
) -> tuple[ModelOutput, ModelMeta]:
    """The appearance model's kind, face and embedding for each circle (polar images of the grey
    frame). With ``whole`` false a model that comes in two halves runs its second only for the
    coins its first leaves in doubt: the same kinds, nearly the same faces, in less time, but
    embeddings not for enrolment (``vision._coin_model.CoinModel.run``)."""
    model = load_model(params.model_dir)
    meta = model.meta
    if gray is None:
        gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    grid = polar_grid(meta.n_radii, meta.n_angles, meta.pad, meta.inner, meta.outer)
    polar = polar_samples(gray, [(c.x, c.y, c.r) for c in circles], grid, meta.base_radius, meta.normalise)
    return model.run(polar, whole), meta
