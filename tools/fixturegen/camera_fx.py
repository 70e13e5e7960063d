"""Camera effects applied to either renderer's output: lens distortion, white balance, vignette,
defocus, sensor noise and JPEG."""

from __future__ import annotations

import functools

import cv2
import numpy as np

from tools.fixturegen.geometry import Camera
from tools.fixturegen.scene import Effects


@functools.lru_cache(maxsize=8)
def _distort_maps(width: int, height: int, fx: float, fy: float, cx: float, cy: float, dist: tuple[float, ...]) -> tuple[np.ndarray, np.ndarray]:
    """For every pixel of the distorted picture, where it comes from in the undistorted one."""
    k1, k2, p1, p2, k3 = dist
    if p1 or p2:
        raise ValueError("only radial distortion (k1, k2, k3) is supported")
    ys, xs = np.mgrid[0:height, 0:width].astype(np.float64)
    xd = (xs - cx) / fx
    yd = (ys - cy) / fy
    xu, yu = xd.copy(), yd.copy()
    # Invert x_d = x_u * (1 + k1 r^2 + k2 r^4 + k3 r^6) by fixed-point iteration (small k).
    for _ in range(20):
        r2 = xu * xu + yu * yu
        radial = 1 + k1 * r2 + k2 * r2 * r2 + k3 * r2 ** 3
        xu, yu = xd / radial, yd / radial
    return (xu * fx + cx).astype(np.float32), (yu * fy + cy).astype(np.float32)


def distort(img: np.ndarray, cam: Camera) -> np.ndarray:
    """Apply the camera's lens distortion to an undistorted rendering."""
    if not any(cam.dist):
        return img
    mx, my = _distort_maps(cam.width, cam.height, cam.fx, cam.fy, cam.cx, cam.cy, tuple(cam.dist))
    return cv2.remap(img, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def apply(img: np.ndarray, cam: Camera, fx: Effects, rng: np.random.Generator, gamma: bool = True) -> np.ndarray:
    """Distortion, white balance and gain, vignette, defocus, shot and read noise; uint8 BGR.

    ``gamma``: lift the procedural renderer's linear-looking output (Blender's is already sRGB).
    """
    out = distort(img.astype(np.float32), cam)
    out = out * np.array(fx.white_balance, np.float32)[None, None, :] * fx.gain
    h, w = out.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    r2 = ((xx - w / 2) ** 2 + (yy - h / 2) ** 2) / ((w / 2) ** 2 + (h / 2) ** 2)
    out *= (1 - fx.vignette * r2)[:, :, None]
    if fx.blur > 0:
        out = cv2.GaussianBlur(out, (0, 0), fx.blur)
    out = np.clip(out, 0, 1)
    # Gamma to display, then noise in display space (shot noise grows with brightness).
    if gamma:
        out = out ** (1 / 1.15)
    noise = rng.normal(0, 1, out.shape).astype(np.float32)
    out = out + noise * (fx.noise * np.sqrt(out + 0.02) + fx.noise * 0.3)
    return np.clip(out * 255 + 0.5, 0, 255).astype(np.uint8)


def encode_jpeg(img: np.ndarray, quality: int) -> bytes:
    """JPEG bytes at ``quality``.

    :raises RuntimeError: when OpenCV cannot encode the image.
    """
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    return buf.tobytes()
