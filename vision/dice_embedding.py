"""What the dice reader sees in a die: its network's last hidden layer, as a vector to compare
one table's dice by (``vision.adaptive``).

The shipped reader (``models/dice_reader.onnx``) names a die's face from a 64-value hidden
layer. OpenCV's network returns only a model's declared outputs, so the model is loaded here
with that layer declared an output too: its ONNX bytes get one more graph output (a small
edit of the protobuf, no other dependency). Each die is read at four quarter turns and the
layer averaged, as the reader averages its logits, so the vector barely depends on how the die
lies.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from vision._dice_net import crop_patch, reader_input

HIDDEN = "/f/f.12/Relu_output_0"
"""The reader's last hidden layer (after its ReLU), 64 values."""

MODEL = Path(__file__).resolve().parent / "models" / "dice_reader.onnx"


def _varint(data: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, at


def _encode_varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _field(number: int, body: bytes) -> bytes:
    """A length-delimited protobuf field."""
    return _encode_varint(number << 3 | 2) + _encode_varint(len(body)) + body


def with_output(model: bytes, name: str) -> bytes:
    """The ONNX ``model`` with the tensor ``name`` declared one more graph output (float).

    :raises ValueError: for bytes that are no ONNX model (no graph field).
    """
    out = bytearray()
    at, found = 0, False
    while at < len(model):
        key, body_at = _varint(model, at)
        number, wire = key >> 3, key & 7
        if wire == 0:
            _, end = _varint(model, body_at)
        elif wire == 2:
            length, start = _varint(model, body_at)
            end = start + length
        elif wire == 1:
            end = body_at + 8
        elif wire == 5:
            end = body_at + 4
        else:
            raise ValueError(f"not an ONNX model: protobuf wire type {wire}")
        if number == 7 and wire == 2:  # ModelProto.graph
            graph = model[start:end]
            float_tensor = _field(1, b"\x08\x01")  # TypeProto.tensor_type {elem_type: FLOAT}
            output = _field(1, name.encode()) + _field(2, float_tensor)  # ValueInfoProto
            out += _field(7, graph + _field(12, output))  # GraphProto.output
            found = True
        else:
            out += model[at:end]
        at = end
    if not found:
        raise ValueError("not an ONNX model: no graph")
    return bytes(out)


@functools.lru_cache(maxsize=2)
def _net(model: Path) -> tuple[cv2.dnn.Net, float, int]:
    import json

    meta = json.loads(model.with_suffix(".json").read_text())
    net = cv2.dnn.readNetFromONNX(np.frombuffer(with_output(model.read_bytes(), HIDDEN), np.uint8))
    return net, float(meta.get("crop_scale", 1.3)), int(meta.get("crop_size", 40))


def dice_embeddings(frame: npt.NDArray[np.uint8], boxes: Sequence[tuple[int, int, int, int]],
                    model: Path = MODEL) -> npt.NDArray[np.float32]:
    """One unit vector (N x 64) per die box (x, y, width, height in frame pixels): the reader's
    hidden layer, averaged over the die's four quarter turns.

    :raises FileNotFoundError: when the model is missing.
    """
    if not boxes:
        return np.zeros((0, 64), np.float32)
    net, crop_scale, crop_size = _net(model)
    patches = [crop_patch(frame, x + w / 2.0, y + h / 2.0, crop_scale * max(w, h), size=crop_size)
               for x, y, w, h in boxes]
    turned = [np.ascontiguousarray(np.rot90(p, k)) for k in range(4) for p in patches]
    net.setInput(reader_input(turned))
    names = list(net.getUnconnectedOutLayersNames())
    hidden = net.forward(names)[names.index(HIDDEN)]
    mean = np.asarray(hidden, np.float32).reshape(4, len(boxes), -1).mean(axis=0)
    out: npt.NDArray[np.float32] = mean / (np.linalg.norm(mean, axis=1, keepdims=True) + 1e-6)
    return out
