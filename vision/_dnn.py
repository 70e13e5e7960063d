"""Loading the shipped ONNX networks with OpenCV's DNN module, the one runtime they need."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt


def load_onnx(path: Path) -> cv2.dnn.Net:
    """The network in the ONNX file ``path``, on OpenCV's classic DNN engine where there is a choice.

    OpenCV 5 reads ONNX with a new graph engine by default; on these small convolutional
    networks the classic engine gives the same outputs (within 1e-5) in 15 to 30% less time
    on one core (``docs/benchmarks/speed.md``). OpenCV 4 has only the classic engine.

    :raises FileNotFoundError: naming ``path`` when there is no such file.
    """
    if not path.is_file():
        raise FileNotFoundError(f"network file missing: {path}")
    engine = getattr(cv2.dnn, "ENGINE_CLASSIC", None)
    if engine is None:
        return cv2.dnn.readNetFromONNX(str(path))
    return cv2.dnn.readNetFromONNX(str(path), engine=engine)


def softmax(logits: npt.NDArray[np.floating]) -> npt.NDArray[np.floating]:
    """Row-wise softmax of a network's logits (rows x classes), in their own dtype.

    >>> softmax(np.array([[0.0, 0.0], [0.0, np.log(3.0)]])).round(2).tolist()
    [[0.5, 0.5], [0.25, 0.75]]
    """
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    out: npt.NDArray[np.floating] = e / e.sum(axis=1, keepdims=True)
    return out
