"""Loading the shipped ONNX networks with OpenCV's DNN module, the one runtime they need."""

from __future__ import annotations

from pathlib import Path

import cv2


def load_onnx(path: Path) -> cv2.dnn.Net:
    """The network in the ONNX file ``path``, on OpenCV's classic DNN engine where there is a choice.

    OpenCV 5 reads ONNX with a new graph engine by default; on these small convolutional
    networks the classic engine gives the same outputs (within 1e-5) in 15 to 30% less time
    on one core (``BENCHMARKS.md``). OpenCV 4 has only the classic engine.

    :raises FileNotFoundError: naming ``path`` when there is no such file.
    """
    if not path.is_file():
        raise FileNotFoundError(f"network file missing: {path}")
    engine = getattr(cv2.dnn, "ENGINE_CLASSIC", None)
    if engine is None:
        return cv2.dnn.readNetFromONNX(str(path))
    return cv2.dnn.readNetFromONNX(str(path), engine=engine)
