"""The shipped networks load on OpenCV's classic DNN engine and compute what the default engine does."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision._dnn import load_onnx

MODELS = Path(__file__).resolve().parents[2] / "vision" / "models"


@pytest.mark.parametrize(
    "name, shape",
    [("dice_reader.onnx", (3, 3, 40, 40)), ("dice_finder.onnx", (1, 3, 96, 128))],
)
def test_classic_engine_gives_the_default_engines_outputs(name: str, shape: tuple[int, ...]) -> None:
    x = np.random.default_rng(5).random(shape, dtype=np.float32)
    ours = load_onnx(MODELS / name)
    ours.setInput(x)
    got = np.asarray(ours.forward())
    default = cv2.dnn.readNetFromONNX(str(MODELS / name))
    default.setInput(x)
    want = np.asarray(default.forward())
    assert got.shape == want.shape
    assert np.abs(got - want).max() < 1e-4 * max(1.0, float(np.abs(want).max()))


def test_a_missing_model_file_is_an_error_naming_it(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="absent.onnx"):
        load_onnx(tmp_path / "absent.onnx")
