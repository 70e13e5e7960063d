"""Shows that the Pi camera opens, locks exposure and white balance, and delivers BGR frames.

Run on the Pi: python examples/pi_camera_check.py [OUT.jpg]
It prints the locked controls and the timing of ten frames, and saves the last frame.
"""

import sys
import time

import cv2

from hardware.picamera import PiCameraConfig, PiCameraSource

out = sys.argv[1] if len(sys.argv) > 1 else "pi_check.jpg"
with PiCameraSource(PiCameraConfig(size=(1280, 960))) as camera:
    print("locked:", camera.locked_controls)
    started = time.monotonic()
    for _ in range(10):
        frame = camera.read()
    elapsed = time.monotonic() - started
    print(f"10 frames in {elapsed:.2f} s ({10 / elapsed:.1f} fps), size {frame.size}, id {frame.frame_id}")
    print("exposure", frame.metadata.get("ExposureTime"), "gain", frame.metadata.get("AnalogueGain"),
          "colour gains", frame.metadata.get("ColourGains"))
    cv2.imwrite(out, frame.image)
    print("saved", out)
