"""Image files turned into frames safely: too large refused before decoding, truncated or
corrupt named as such.

A 3 MB JPEG can hold 16000x12000 pixels: decoded, that is over half a gigabyte, more than a
Pi can spare. So the size is read from the file's header first (JPEG, PNG, BMP, GIF, WebP)
and a picture over ``MAX_PIXELS`` is refused without being decoded. A JPEG that stops before
its end-of-image marker (a copy cut short, a card pulled out mid-write) would decode to a
picture whose lower part is grey, and read as a table with nothing on it; it is refused too.
"""

from __future__ import annotations

import struct
from typing import Any

import numpy as np

MAX_PIXELS = 40_000_000
"""The largest picture decoded (40 megapixels, e.g. 8000x5000): above any camera the referee
uses; a larger photo should be scaled down first."""


class ImageFileError(ValueError):
    """An image file that cannot become a frame: not a picture, truncated, or too large."""


def decode_image(data: bytes | np.ndarray[Any, Any], name: str, max_pixels: int = MAX_PIXELS) -> np.ndarray[Any, Any]:
    """The picture in ``data`` (a file's bytes) as a BGR ``uint8`` frame.

    :raises ImageFileError: naming ``name`` and what is wrong: empty, over ``max_pixels``
        (checked before decoding where the header tells), a truncated JPEG, or not a picture.
    """
    import cv2

    raw = data.tobytes() if isinstance(data, np.ndarray) else bytes(data)
    if not raw:
        raise ImageFileError(f"{name} is empty")
    if raw.startswith(b"\xff\xd8"):
        size = _jpeg_size_if_complete(raw, name)
    else:
        size = header_size(raw)
    if size is not None:
        _check_pixels(size, name, max_pixels)
    image = cv2.imdecode(np.frombuffer(raw, dtype=np.uint8), cv2.IMREAD_COLOR)
    if image is None:
        raise ImageFileError(f"{name} is corrupt or not a picture OpenCV can decode")
    _check_pixels((image.shape[1], image.shape[0]), name, max_pixels)
    return np.asarray(image)


def header_size(raw: bytes) -> tuple[int, int] | None:
    """(width, height) from the header of a JPEG, PNG, BMP, GIF or WebP file; ``None`` for
    another format or a header too short to tell."""
    if raw.startswith(b"\xff\xd8"):
        try:
            return _jpeg_size_if_complete(raw, "")
        except ImageFileError:
            return None
    if raw.startswith(b"\x89PNG\r\n\x1a\n") and len(raw) >= 24 and raw[12:16] == b"IHDR":
        width, height = struct.unpack(">II", raw[16:24])
        return int(width), int(height)
    if raw.startswith(b"BM") and len(raw) >= 26:
        width, height = struct.unpack("<ii", raw[18:26])
        return abs(int(width)), abs(int(height))
    if raw[:6] in (b"GIF87a", b"GIF89a") and len(raw) >= 10:
        width, height = struct.unpack("<HH", raw[6:10])
        return int(width), int(height)
    if raw.startswith(b"RIFF") and raw[8:12] == b"WEBP" and len(raw) >= 30:
        return _webp_size(raw)
    return None


def _webp_size(raw: bytes) -> tuple[int, int] | None:
    chunk = raw[12:16]
    if chunk == b"VP8X":
        width = 1 + int.from_bytes(raw[24:27], "little")
        height = 1 + int.from_bytes(raw[27:30], "little")
        return width, height
    if chunk == b"VP8 ":
        width, height = struct.unpack("<HH", raw[26:30])
        return int(width) & 0x3FFF, int(height) & 0x3FFF
    if chunk == b"VP8L" and len(raw) >= 25:
        bits = int.from_bytes(raw[21:25], "little")
        return 1 + (bits & 0x3FFF), 1 + ((bits >> 14) & 0x3FFF)
    return None


_SOF_MARKERS = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}
"""Start-of-frame markers (the ones that carry the picture's size); C4, C8, CC are others."""


def _jpeg_size_if_complete(raw: bytes, name: str) -> tuple[int, int] | None:
    """The size in a JPEG's first start-of-frame, after checking the file runs to its
    end-of-image marker (segments are skipped by their lengths, so an embedded thumbnail's
    markers are not mistaken for the picture's).

    :raises ImageFileError: for a JPEG cut short or whose segments do not add up.
    """
    size: tuple[int, int] | None = None
    position = 2
    end = len(raw)
    while True:
        if position + 2 > end:
            raise ImageFileError(f"{name} is a truncated JPEG: it ends before its end-of-image marker")
        if raw[position] != 0xFF:
            raise ImageFileError(f"{name} is a corrupt JPEG: no marker at byte {position}")
        marker = raw[position + 1]
        if marker == 0xFF:  # fill byte before a marker
            position += 1
            continue
        if marker == 0xD9:
            return size
        if marker == 0x01 or 0xD0 <= marker <= 0xD7:  # markers without a length
            position += 2
            continue
        if position + 4 > end:
            raise ImageFileError(f"{name} is a truncated JPEG: it ends before its end-of-image marker")
        length = int.from_bytes(raw[position + 2:position + 4], "big")
        if length < 2:
            raise ImageFileError(f"{name} is a corrupt JPEG: a segment of length {length} at byte {position}")
        if marker in _SOF_MARKERS and size is None and position + 9 <= end:
            height, width = struct.unpack(">HH", raw[position + 5:position + 9])
            size = (int(width), int(height))
        if position + 2 + length > end:
            raise ImageFileError(f"{name} is a corrupt or truncated JPEG: the segment at byte {position} runs past its end")
        position += 2 + length
        if marker == 0xDA:
            position = _end_of_scan(raw, position)


def _end_of_scan(raw: bytes, position: int) -> int:
    """Where the entropy-coded data that starts at ``position`` ends: at the first marker other
    than a stuffed 0xFF00 or a restart marker (or at the end of the file)."""
    while True:
        found = raw.find(b"\xff", position)
        if found < 0 or found + 1 >= len(raw):
            return len(raw)
        following = raw[found + 1]
        if following == 0x00 or 0xD0 <= following <= 0xD7 or following == 0xFF:
            position = found + 1 if following == 0xFF else found + 2
            continue
        return found


def _check_pixels(size: tuple[int, int], name: str, max_pixels: int) -> None:
    width, height = size
    if width * height > max_pixels:
        raise ImageFileError(f"{name} is {width}x{height} pixels ({width * height / 1e6:.0f} megapixels), over the limit "
                             f"of {max_pixels / 1e6:.0f} megapixels: scale it down first")
