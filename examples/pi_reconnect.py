"""Shows the camera being lost and found again: unplug the ribbon (power off first!) or the USB
webcam while this runs, and watch it wait with backoff and carry on.

Run: python examples/pi_reconnect.py [pi|webcam:N]
"""

import sys

from hardware import open_source
from hardware.reconnect import ReconnectingSource

source = ReconnectingSource(open_source(sys.argv[1] if len(sys.argv) > 1 else "pi"), on_status=print)
with source:
    for number in range(10_000):
        frame = source.read()
        if number % 30 == 0:
            print(frame.frame_id, frame.size)
