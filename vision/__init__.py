"""The referee's eyes: pure functions over BGR uint8 frames (numpy and OpenCV only).

``read_table(frame, calibration=None)`` is the one entry point; it lives in ``vision.read``.
Nothing here opens a camera, shows a window or knows the rules of any game.
"""
