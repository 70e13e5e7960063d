"""Image files become frames safely (issue 54): a picture over the pixel limit is refused
before it is decoded, a truncated JPEG is named as such instead of reading as an empty table."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

import hardware.image_file as image_file
from hardware.image_file import MAX_PIXELS, ImageFileError, decode_image, header_size

SCENE = Path(__file__).resolve().parents[2] / "fixtures" / "scenes" / "dev" / "dev_0125.jpg"


def huge_jpeg(width: int = 16000, height: int = 12000) -> bytes:
    """A real JPEG whose start-of-frame says ``width`` x ``height`` (the 3 MB bomb's header)."""
    raw = bytearray(SCENE.read_bytes())
    sof = raw.index(b"\xff\xc0")
    raw[sof + 5:sof + 9] = struct.pack(">HH", height, width)
    return bytes(raw)


def png_header(width: int, height: int) -> bytes:
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR" + ihdr + struct.pack(">I", zlib.crc32(b"IHDR" + ihdr))


def test_a_good_jpeg_decodes_as_opencv_would() -> None:
    raw = SCENE.read_bytes()
    image = decode_image(raw, SCENE.name)
    assert np.array_equal(image, cv2.imdecode(np.frombuffer(raw, np.uint8), cv2.IMREAD_COLOR))
    assert header_size(raw) == (image.shape[1], image.shape[0])


def test_a_picture_over_the_pixel_limit_is_refused_before_it_is_decoded(monkeypatch: pytest.MonkeyPatch) -> None:
    def never(*_: Any) -> None:
        raise AssertionError("decoded although the header says it is too large")

    monkeypatch.setattr(cv2, "imdecode", never)
    for raw in (huge_jpeg(), png_header(16000, 12000)):
        with pytest.raises(ImageFileError, match=r"bomb is 16000x12000 pixels \(192 megapixels\), over the limit of 40 megapixels"):
            decode_image(raw, "bomb")
    assert MAX_PIXELS == 40_000_000


def test_the_limit_holds_for_a_format_whose_header_is_not_read() -> None:
    ok, tiff = cv2.imencode(".tiff", np.zeros((30, 40, 3), np.uint8))
    assert ok and header_size(tiff.tobytes()) is None
    with pytest.raises(ImageFileError, match="40x30 pixels"):
        decode_image(tiff.tobytes(), "small.tiff", max_pixels=1000)


def test_a_truncated_jpeg_is_named_as_such() -> None:
    raw = SCENE.read_bytes()
    with pytest.raises(ImageFileError, match="cut.jpg is a truncated JPEG"):
        decode_image(raw[: len(raw) // 2], "cut.jpg")  # in the picture's data
    with pytest.raises(ImageFileError, match="truncated JPEG"):
        decode_image(raw[:300], "cut.jpg")  # inside the headers


def test_a_jpeg_with_garbage_in_its_data_is_named_corrupt_where_opencv_decodes_it() -> None:
    raw = bytearray(SCENE.read_bytes())
    raw[len(raw) // 2:len(raw) // 2 + 64] = bytes(range(192, 256))  # stray markers in the coded data
    assert cv2.imdecode(np.frombuffer(bytes(raw), np.uint8), cv2.IMREAD_COLOR) is not None, "OpenCV alone decodes it"
    with pytest.raises(ImageFileError, match="bad.jpg is a corrupt (or truncated )?JPEG"):
        decode_image(bytes(raw), "bad.jpg")


def test_not_a_picture_or_empty_is_named() -> None:
    with pytest.raises(ImageFileError, match="x.jpg is corrupt or not a picture"):
        decode_image(b"this is not a picture", "x.jpg")
    with pytest.raises(ImageFileError, match="x.jpg is empty"):
        decode_image(b"", "x.jpg")
    with pytest.raises(ImageFileError, match="corrupt JPEG"):
        decode_image(b"\xff\xd8\x00\x00\x00\x00", "x.jpg")


@pytest.mark.parametrize("extension", [".png", ".bmp", ".webp", ".jpg"])
def test_header_sizes_match_what_opencv_writes(extension: str) -> None:
    ok, encoded = cv2.imencode(extension, np.full((37, 53, 3), 128, np.uint8))
    assert ok and header_size(encoded.tobytes()) == (53, 37)


def test_gif_and_lossless_webp_headers() -> None:
    assert header_size(b"GIF89a" + struct.pack("<HH", 640, 480) + b"\x00" * 8) == (640, 480)
    ok, lossless = cv2.imencode(".webp", np.zeros((21, 34, 3), np.uint8), [cv2.IMWRITE_WEBP_QUALITY, 101])
    assert ok and header_size(lossless.tobytes()) == (34, 21)
    assert image_file.header_size(b"RIFF\x00\x00\x00\x00WEBPVP8X" + b"\x00" * 8 + (1999).to_bytes(3, "little")
                                  + (2999).to_bytes(3, "little")) == (2000, 3000)
