"""Records what the Pi camera sees as a new fixture game folder (frames + game.json).

Run on the Pi: python examples/pi_record.py OUT_FOLDER [SECONDS]
Then play: python -m web.cli serve --camera replay:OUT_FOLDER --game ... --players ...
"""

import sys
import time

from hardware.picamera import PiCameraSource
from hardware.recorder import Recorder

folder = sys.argv[1]
seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 60.0
with Recorder(PiCameraSource(), folder, {"camera": "pi"}) as recorder:
    end = time.monotonic() + seconds
    count = 0
    while time.monotonic() < end:
        recorder.read()
        count += 1
print(f"recorded {count} frames in {folder}")
