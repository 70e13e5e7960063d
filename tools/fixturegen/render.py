"""Render one scene to JPEG bytes and its labels, with the renderer asked for."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np

from tools.fixturegen import blender_job, camera_fx, procedural
from tools.fixturegen.labels import compact
from tools.fixturegen.scene import Scene, frame_labels


def render_frame(scene: Scene, image_name: str, renderer: str, workdir: Path, plane: np.ndarray | None = None,
                 t: float | None = None, samples: int = 16) -> tuple[bytes, dict[str, Any], float]:
    """JPEG bytes, compact labels and the seconds it took, for ``scene`` drawn by ``renderer``
    (``procedural`` or ``blender``); camera effects are the same OpenCV code for both.

    :raises ValueError: for an unknown renderer.
    """
    start = time.monotonic()
    if renderer == "procedural":
        raw = procedural.render(scene, plane)
        gamma = True
    elif renderer == "blender":
        raw = blender_job.render(scene, workdir, samples=samples)
        gamma = False
    else:
        raise ValueError(f"unknown renderer {renderer!r}: use procedural or blender")
    rng = np.random.default_rng(scene.seed + 7)
    img = camera_fx.apply(raw, scene.camera, scene.effects, rng, gamma=gamma)
    data = camera_fx.encode_jpeg(img, scene.effects.jpeg)
    label = compact(frame_labels(scene, image_name, renderer, t))
    return data, label, time.monotonic() - start
