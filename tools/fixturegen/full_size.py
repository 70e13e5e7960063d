"""Scenes rendered at a camera sensor's full resolution: the same scene, the same field of view,
more pixels (a Pi camera's ``main`` stream beside the small ``lores`` one the referee settles on).

Rendered on demand by the benchmarks (``benchmarks/full_resolution_bench.py``), never
committed: a 3840x2880 JPEG is about 1 MB, and the procedural renderer draws one in about 10 s.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from tools.fixturegen.geometry import Camera
from tools.fixturegen.render import render_frame
from tools.fixturegen.scene import Scene
from tools.fixturegen.scenes import sample_scene


def scaled_camera(camera: Camera, factor: float) -> Camera:
    """``camera`` with ``factor`` times as many pixels along each side over the same field of view.

    :raises ValueError: for a factor that is not positive.
    """
    if not factor > 0:
        raise ValueError(f"the factor must be positive, got {factor!r}")
    return dataclasses.replace(
        camera, width=int(round(camera.width * factor)), height=int(round(camera.height * factor)),
        fx=camera.fx * factor, fy=camera.fy * factor, cx=camera.cx * factor, cy=camera.cy * factor,
    )


def scene_at(scene: Scene, factor: float) -> Scene:
    """``scene`` seen by its camera with ``factor`` times the pixels (labels follow: boxes in its pixels)."""
    return dataclasses.replace(scene, camera=scaled_camera(scene.camera, factor))


def render_full_size(index: int, split: str, seed: int, factor: float, workdir: Path) -> tuple[bytes, dict[str, Any]]:
    """JPEG bytes and labels of scene ``index`` of ``split`` (as ``python -m tools.fixturegen``
    samples it with ``seed``), drawn procedurally at ``factor`` times its camera's size."""
    scene = scene_at(sample_scene(index, split, seed, ()), factor)
    data, labels, _seconds = render_frame(scene, f"{scene.name}.jpg", "procedural", workdir)
    return data, labels
