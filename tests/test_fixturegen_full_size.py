"""``tools.fixturegen.full_size``: the same scene seen with more pixels over the same field of view."""

from __future__ import annotations

import numpy as np
import pytest

from tools.fixturegen.full_size import scaled_camera, scene_at
from tools.fixturegen.scenes import sample_scene


def test_a_scaled_camera_sees_every_point_at_the_factor_times_its_pixels() -> None:
    scene = sample_scene(0, "dev", 2024, ())
    big = scene_at(scene, 3.0)
    assert (big.camera.width, big.camera.height) == (3 * scene.camera.width, 3 * scene.camera.height)
    points = np.array([[t.pos[0], t.pos[1], t.pos[2]] for t in scene.things], float)
    assert np.allclose(big.camera.project(points), 3.0 * scene.camera.project(points))
    assert big.things is scene.things and big.seed == scene.seed  # the same scene, labels and all


def test_a_factor_that_is_not_positive_is_refused() -> None:
    with pytest.raises(ValueError, match="positive"):
        scaled_camera(sample_scene(0, "dev", 2024, ()).camera, 0.0)
