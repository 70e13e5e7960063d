"""Hand a scene to Blender Cycles: write the job (poses, camera, textures), run the ``bpy``
venv on it, read the picture back.

Blender is optional: :func:`blender_python` finds it (``/work/bpyenv`` or ``$FIXTUREGEN_BPY``);
without it the generator draws every scene with the procedural renderer.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from tools.fixturegen import textures
from tools.fixturegen.geometry import COIN_SIZES, D6_FACES, D8_FACES
from tools.fixturegen.scene import PLANE_MARGIN, TABLE_H, TABLE_W, Scene, plane_image

SCRIPT = Path(__file__).with_name("blender_render.py")


def blender_python() -> str | None:
    """The Python that can ``import bpy``, or ``None``."""
    cand = os.environ.get("FIXTUREGEN_BPY", "/work/bpyenv/bin/python")
    return cand if Path(cand).exists() else None


def _save(path: Path, img: np.ndarray) -> str:
    cv2.imwrite(str(path), np.clip(img * 255 + 0.5, 0, 255).astype(np.uint8))
    return str(path)


def _coin_atlas(workdir: Path, kind: str, heads_design: str, tails_design: str) -> str:
    path = workdir / f"coin_{kind}_{heads_design}_{tails_design}.png"
    if not path.exists():
        h1, _ = textures.coin_face(kind, "heads", heads_design)
        h2, _ = textures.coin_face(kind, "tails", tails_design)
        atlas = np.concatenate([h1, h2], axis=1)
        atlas[-8:, :] = 0.15  # the rim's strip of the atlas: flat
        _save(path, atlas)
    return str(path)


def _d6_atlas(workdir: Path, colour: str, pips: str) -> tuple[str, list[tuple[int, tuple[float, ...]]]]:
    faces = sorted(D6_FACES.items())
    path = workdir / f"d6_{colour}_{pips}.png"
    if not path.exists():
        tiles = [textures.die_face("d6", v, colour, pips) for v, _ in faces]
        atlas = np.concatenate([np.concatenate(tiles[0:3], 1), np.concatenate(tiles[3:6], 1)], 0)
        _save(path, atlas)
    return str(path), [(v, tuple(float(x) for x in n)) for v, n in faces]


def _d8_atlas(workdir: Path, colour: str) -> tuple[str, list[tuple[int, tuple[float, ...]]]]:
    faces = sorted(D8_FACES.items())
    path = workdir / f"d8_{colour}.png"
    if not path.exists():
        tiles = [textures.die_face("d8", v, colour, "round") for v, _ in faces]
        atlas = np.concatenate([np.concatenate(tiles[0:4], 1), np.concatenate(tiles[4:8], 1)], 0)
        _save(path, atlas)
    return str(path), [(v, tuple(float(x) for x in n)) for v, n in faces]


def _rgb(bgr: tuple[float, float, float]) -> list[float]:
    # sRGB-ish albedo -> linear for Blender's colour inputs
    return [float(c) ** 2.2 for c in (bgr[2], bgr[1], bgr[0])]


def write_job(scene: Scene, workdir: Path, samples: int) -> Path:
    """Write ``job.json`` and its textures for ``scene`` into ``workdir``."""
    workdir.mkdir(parents=True, exist_ok=True)
    plane_path = _save(workdir / f"plane_{scene.name}.png", plane_image(scene))
    things: list[dict[str, Any]] = []
    for th in scene.things:
        base = {"rot": th.rot.tolist(), "pos": th.pos.tolist(), "size": th.size}
        if th.kind in COIN_SIZES:
            designs = {f: textures.design_for(th.kind, f, th.style.get("design")) for f in ("heads", "tails")}
            base.update(shape="coin", thickness=th.style["thickness"], metal_rgb=_rgb(textures.METALS[th.style["metal"]]),
                        height_atlas=_coin_atlas(workdir, th.kind, designs["heads"], designs["tails"]))
        elif th.kind == "d6":
            atlas, faces = _d6_atlas(workdir, th.style["colour"], th.style["pips"])
            base.update(shape="d6", atlas=atlas, faces=faces)
        else:
            atlas, faces = _d8_atlas(workdir, th.style["colour"])
            base.update(shape="d8", atlas=atlas, faces=faces)
        things.append(base)
    lt = scene.lighting
    job = {
        "samples": samples,
        "threads": 2,
        "camera": scene.camera.to_json(),
        "plane_image": plane_path,
        "plane_extent_mm": [-PLANE_MARGIN, -PLANE_MARGIN, TABLE_W + PLANE_MARGIN, TABLE_H + PLANE_MARGIN],
        "things": things,
        "hand": None if scene.hand is None else {"parts": scene.hand.to_json()["parts"], "skin_rgb": _rgb(scene.hand.skin)},
        "lighting": {"direction": list(lt.direction), "softness": lt.softness, "key": lt.key, "ambient": lt.ambient,
                     "tint_rgb": [lt.tint[2], lt.tint[1], lt.tint[0]]},
    }
    path = workdir / f"job_{scene.name}.json"
    path.write_text(json.dumps(job))
    return path


def render(scene: Scene, workdir: Path, samples: int = 24, timeout: float = 1800) -> np.ndarray:
    """Render ``scene`` with Cycles; BGR float 0..1 (undistorted, no camera effects).

    :raises RuntimeError: when no ``bpy`` Python is available or Blender fails.
    """
    py = blender_python()
    if py is None:
        raise RuntimeError("no Blender Python found: pip install 'bpy==4.2.*' into /work/bpyenv or set FIXTUREGEN_BPY")
    job = write_job(scene, workdir, samples)
    out = workdir / f"render_{scene.name}.png"
    proc = subprocess.run([py, str(SCRIPT), str(job), str(out)], capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0 or not out.exists():
        raise RuntimeError(f"Blender failed on {scene.name}: {proc.stderr[-2000:]}{proc.stdout[-1000:]}")
    img = cv2.imread(str(out), cv2.IMREAD_COLOR)
    if img is None:
        raise RuntimeError(f"cannot read Blender output {out}")
    return img.astype(np.float32) / 255.0


if __name__ == "__main__":  # pragma: no cover - manual check
    print(blender_python(), file=sys.stderr)
