"""Writing label files: one JSON object per frame, in the format of ``../shared/data/README.md``
(``image``, ``source``, ``objects`` with ``kind``, ``value``, ``bbox``) extended with what the
referee needs. ``fixtures/README.md`` documents every field."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np

FORMAT = "table-referee-fixture/1"


def simplify_outline(points: list[list[float]], tolerance: float = 0.4) -> list[list[float]]:
    """Fewer outline vertices, within ``tolerance`` pixels of the exact convex outline."""
    arr = np.array(points, np.float32).reshape(-1, 1, 2)
    approx = cv2.approxPolyDP(arr, tolerance, True).reshape(-1, 2)
    return np.round(approx.astype(float), 1).tolist()


def compact(label: dict[str, Any]) -> dict[str, Any]:
    """The label as committed: outlines simplified."""
    out = dict(label)
    out["objects"] = [dict(o, outline=simplify_outline(o["outline"])) for o in label["objects"]]
    return out


def write_json(path: Path, data: Any) -> None:
    """Write JSON with one list item per line where lists hold frames (small diffs, readable)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, list):
        body = "[\n" + ",\n".join(json.dumps(item, separators=(",", ":")) for item in data) + "\n]\n"
    else:
        frames = data.get("frames") if isinstance(data, dict) else None
        if isinstance(frames, list):
            head = {k: v for k, v in data.items() if k != "frames"}
            text = json.dumps(head, indent=1)[:-2]
            body = text + ',\n "frames": [\n' + ",\n".join(json.dumps(f, separators=(",", ":")) for f in frames) + "\n ]\n}\n"
        else:
            body = json.dumps(data, indent=1) + "\n"
    path.write_text(body)
