"""A USB webcam through OpenCV's ``VideoCapture``."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from hardware.frames import BaseSource, CameraError


class WebcamSource(BaseSource):
    """Frames from webcam ``index`` (``/dev/video<index>``), BGR uint8 at ``size``.

    The size asked for is requested from the driver; a webcam that delivers another size is
    resized at the edge so that everything downstream sees the configured size. ``capture``
    makes the capture object (``cv2.VideoCapture`` by default, a fake in tests).
    """

    name = "webcam"

    def __init__(
        self,
        index: int = 0,
        size: tuple[int, int] = (1280, 960),
        capture: Callable[[int], Any] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(size)
        self.index = index
        self._capture_factory = capture
        self._clock = clock
        self._capture: Any = None
        self._count = 0
        self._session = ""

    def _open(self) -> None:
        import cv2

        factory = self._capture_factory or cv2.VideoCapture
        capture = factory(self.index)
        if not capture.isOpened():
            capture.release()
            raise CameraError(f"webcam {self.index} could not be opened (is it plugged in? /dev/video{self.index})")
        assert self.size is not None
        capture.set(cv2.CAP_PROP_FRAME_WIDTH, self.size[0])
        capture.set(cv2.CAP_PROP_FRAME_HEIGHT, self.size[1])
        self._capture = capture
        # Frame ids stay unique across restarts (the match log keys camera events by them).
        self._session = time.strftime("%Y%m%d%H%M%S")
        self._count = 0

    def _grab(self) -> tuple[Any, float, str, dict[str, Any]]:
        import cv2

        ok, image = self._capture.read()
        if not ok or image is None:
            # OpenCV reports an unplugged camera only as failed reads.
            raise CameraError(f"webcam {self.index} delivered no frame (unplugged?)")
        assert self.size is not None
        if image.ndim >= 2 and (image.shape[1], image.shape[0]) != tuple(self.size) and image.size:
            image = cv2.resize(image, self.size, interpolation=cv2.INTER_AREA)
        self._count += 1
        return image, self._clock(), f"cam{self.index}-{self._session}-{self._count:06d}", {}

    def _release(self) -> None:
        capture, self._capture = self._capture, None
        if capture is not None:
            capture.release()
