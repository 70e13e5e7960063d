"""The printed markers and ``referee markers``: true scale, pages that join, files that open."""

from __future__ import annotations

import re
import struct
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.layouts import default_layout
from vision.markers import MarkerSpec, SheetStyle, detect_markers, marker_image, render_table
from web.cli import main
from web.markers_cli import MARGIN_MM, page_grid, sheet_pages, tile_windows, with_png_dpi


def test_marker_corners_lie_where_the_spec_says() -> None:
    spec = MarkerSpec()
    table = (560.0, 480.0)
    assert spec.origin_mm(0, table) == (8.0, 8.0)
    assert spec.origin_mm(2, table) == (512.0, 432.0)
    assert spec.corners_mm(1, table).tolist() == [[512, 8], [552, 8], [552, 48], [512, 48]]
    assert spec.corner_of(3) == "bottom-left"
    assert spec.reserved_mm() == 56.0


def test_the_drawn_table_has_its_markers_at_true_scale() -> None:
    layout = default_layout("seven-pennies", 2)
    px_per_mm = 4.0
    image = render_table(layout, px_per_mm)
    assert image.shape == (480 * 4, 560 * 4, 3)
    found = detect_markers(image, layout.markers)
    assert sorted(found) == [0, 1, 2, 3]
    for marker_id, quad in found.items():
        # Corner pixels are found at pixel centres: mm = (px + 0.5) / scale.
        mm = (quad + 0.5) / px_per_mm
        assert np.allclose(mm, layout.markers.corners_mm(marker_id, layout.table_size_mm), atol=0.3)
    # The black square is exactly the marker, cell for cell.
    x0, y0 = (int(v * px_per_mm) for v in layout.markers.origin_mm(0, layout.table_size_mm))
    side = int(layout.markers.size_mm * px_per_mm)
    cells = cv2.resize(image[y0:y0 + side, x0:x0 + side, 0], (6, 6), interpolation=cv2.INTER_AREA)
    assert np.array_equal(cells > 128, marker_image(0, 6) > 128)


def test_a_window_is_the_same_as_the_part_of_the_whole() -> None:
    layout = default_layout("flip", 2)
    plain = SheetStyle(labels=False)  # names go in the middle of each page's part of a zone
    whole = render_table(layout, 2.0, style=plain)
    part = render_table(layout, 2.0, (100.0, 50.0, 300.0, 250.0), plain)
    assert part.shape == (400, 400, 3)
    same = np.mean(np.all(part == whole[100:500, 200:600], axis=2))
    assert same > 0.995  # only anti-aliased line edges may differ
    with pytest.raises(ValueError, match="cannot draw window"):
        render_table(layout, 2.0, (10.0, 10.0, 5.0, 20.0))


def test_marker_image_bad_input() -> None:
    with pytest.raises(ValueError, match="marker id must be in 0..49"):
        marker_image(50, 60)
    with pytest.raises(ValueError, match="at least 6 pixels"):
        marker_image(1, 5)


# -- pages -------------------------------------------------------------------------------------


def test_page_grid_picks_the_orientation_with_fewest_pages() -> None:
    paper, cols, rows = page_grid((560.0, 480.0), (210.0, 297.0))
    assert (cols, rows) == (3, 2) and paper == (210.0, 297.0)
    paper, cols, rows = page_grid((500.0, 180.0), (210.0, 297.0))
    assert paper == (297.0, 210.0) and (cols, rows) == (2, 1)


@pytest.mark.parametrize("paper, size", [("a4", (210.0, 297.0)), ("letter", (215.9, 279.4))])
def test_pages_tile_the_table_at_true_scale(paper: str, size: tuple[float, float]) -> None:
    layout = default_layout("flip", 2)
    dpi = 100
    pages = sheet_pages(layout, paper, dpi)
    assert pages[0].name == "overview" and pages[0].window_mm is None
    tiles = pages[1:]
    ppm = dpi / 25.4
    for page in tiles:
        assert sorted(page.paper_mm) == sorted(size)
        assert page.image.shape[:2] == (round(page.paper_mm[1] * ppm), round(page.paper_mm[0] * ppm))
    # The windows cover the table exactly once.
    area = sum((p.window_mm[2] - p.window_mm[0]) * (p.window_mm[3] - p.window_mm[1]) for p in tiles if p.window_mm)
    assert area == pytest.approx(500.0 * 400.0)
    # Every marker is on some page, whole, at its place on that page.
    seen = set()
    for page in tiles:
        assert page.window_mm is not None
        for marker_id, quad in detect_markers(page.image, layout.markers).items():
            seen.add(marker_id)
            expected = layout.markers.corners_mm(marker_id, layout.table_size_mm) - page.window_mm[:2] + MARGIN_MM
            assert np.allclose((quad + 0.5) / ppm, expected, atol=0.5)
    assert seen == {0, 1, 2, 3}


def test_pages_for_a_big_table() -> None:
    layout = default_layout("pennies-from-heaven", 4)
    pages = sheet_pages(layout, "a4", 50)
    names = [p.name for p in pages]
    assert names[0] == "overview" and names[1] == "A1"
    assert len(pages) - 1 == 16 or len(pages) - 1 == 15
    with pytest.raises(ValueError, match="paper must be one of"):
        sheet_pages(layout, "a3", 50)


def test_png_resolution_chunk() -> None:
    ok, data = cv2.imencode(".png", np.zeros((4, 4, 3), np.uint8))
    png = with_png_dpi(data.tobytes(), 300)
    at = png.index(b"pHYs")
    x, y, unit = struct.unpack(">IIB", png[at + 4:at + 13])
    assert (x, y, unit) == (11811, 11811, 1)
    assert struct.unpack(">I", png[at + 13:at + 17])[0] == zlib.crc32(png[at:at + 13]) & 0xFFFFFFFF
    assert cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR).shape == (4, 4, 3)
    with pytest.raises(ValueError, match="not a PNG"):
        with_png_dpi(b"GIF89a", 300)


# -- the command -------------------------------------------------------------------------------


def test_referee_markers_writes_a_pdf(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "sheet.pdf"
    assert main(["markers", "sevens", "--players", "3", "--paper", "letter", "--out", str(out), "--dpi", "72"]) == 0
    printed = capsys.readouterr().out
    assert "sevens, 3 players: a 500 x 400 mm play area on" in printed and "theatre, aside" in printed
    data = out.read_bytes()
    assert data.startswith(b"%PDF-1.4") and data.rstrip().endswith(b"%%EOF")
    # The cross-reference table points at each object.
    xref_at = int(re.search(rb"startxref\n(\d+)", data).group(1))  # type: ignore[union-attr]
    assert data[xref_at:xref_at + 4] == b"xref"
    count = int(re.search(rb"xref\n0 (\d+)", data).group(1))  # type: ignore[union-attr]
    offsets = re.findall(rb"(\d{10}) 00000 n", data)
    assert len(offsets) == count - 1
    for number, offset in enumerate(offsets, start=1):
        assert data[int(offset):].startswith(b"%d 0 obj" % number)
    # Pages are Letter (612 x 792 points, either way up), each with one image that decodes.
    pages = re.findall(rb"/MediaBox \[0 0 ([\d.]+) ([\d.]+)\]", data)
    assert pages and all(sorted((round(float(w)), round(float(h)))) == [612, 792] for w, h in pages)
    first = re.search(rb"/Width (\d+) /Height (\d+) .*?/Length (\d+) >>\nstream\n", data)
    assert first is not None
    width, height, length = (int(v) for v in first.groups())
    pixels = zlib.decompress(data[first.end():first.end() + length])
    assert len(pixels) == width * height * 3


def test_referee_markers_writes_pngs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "sp.png"
    assert main(["markers", "seven-pennies", "--players", "Ann,Bo", "--out", str(out), "--dpi", "72"]) == 0
    written = sorted(tmp_path.glob("sp-p*.png"))
    assert len(written) == 7  # the overview and 3 x 2 pages of A4
    page = cv2.imread(str(written[1]))
    assert page.shape[:2] == (round(297 * 72 / 25.4), round(210 * 72 / 25.4))
    assert "gathered:Ann" in capsys.readouterr().out


@pytest.mark.parametrize(
    "args, message",
    [
        (["markers", "chess", "--players", "2"], "no default table layout for game 'chess'"),
        (["markers", "flip", "--players", "3"], "flip is laid out for exactly 2 players, not 3"),
        (["markers", "flip", "--players", "2", "--out", "x.svg"], "--out must end in .pdf or .png"),
        (["markers", "flip", "--players", "2", "--dpi", "20"], "--dpi must be between 72 and 1200"),
    ],
)
def test_referee_markers_bad_arguments(args: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(args) == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize("paper", ["a4", "letter"])
@pytest.mark.parametrize("game, players", [("seven-pennies", 2), ("seven-pennies", 8), ("sevens", 2), ("pennywise", 6),
                                           ("flip", 2), ("pennies-from-heaven", 6)])
def test_no_page_edge_runs_through_a_marker(game: str, players: int, paper: str) -> None:
    layout = default_layout(game, players)
    paper_mm, cols, rows, windows = tile_windows(layout, paper)
    printable = (paper_mm[0] - 2 * MARGIN_MM, paper_mm[1] - 2 * MARGIN_MM)
    for x0, y0, x1, y1 in windows:
        assert x1 - x0 <= printable[0] + 1e-9 and y1 - y0 <= printable[1] + 1e-9
        assert x1 - x0 > 0.6 * printable[0] or cols == 1  # no sliver pages
    spec = layout.markers
    for marker_id in spec.ids:
        mx, my = spec.origin_mm(marker_id, layout.table_size_mm)
        # The marker and its white margin lie whole on one page.
        box = (mx - spec.margin_mm, my - spec.margin_mm, mx + spec.size_mm + spec.margin_mm, my + spec.size_mm + spec.margin_mm)
        assert any(w[0] <= box[0] and box[2] <= w[2] and w[1] <= box[1] and box[3] <= w[3] for w in windows), marker_id


@pytest.mark.parametrize("scale", [0.5, 1.0, 2.0])
@pytest.mark.parametrize("light", ["plain", "dark", "gradient"])
def test_markers_of_any_size_and_light_are_found_without_the_widest_threshold_window(scale: float, light: str) -> None:
    """``DetectParams.threshold_window_max_px``: the adaptive threshold at 3 and 13 px (not 23 as
    well) finds the four corner markers of a held-back scene at half, its own and twice its size
    (markers about 35 to 160 px), in dim light and under a strong gradient, where they lie, and
    places their corners as the three windows do."""
    import json

    from vision.markers import DetectParams

    folder = Path(__file__).resolve().parents[2] / "fixtures" / "scenes" / "test"
    entry = next(e for e in json.loads((folder / "labels.json").read_text()) if len(e.get("markers", {})) == 4)
    frame = cv2.imread(str(folder / entry["image"]))
    frame = cv2.resize(frame, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR)
    if light == "dark":
        frame = (frame * 0.4).astype(np.uint8)
    elif light == "gradient":
        frame = np.clip(frame * np.linspace(0.35, 1.1, frame.shape[1])[None, :, None], 0, 255).astype(np.uint8)
    found = detect_markers(frame)
    assert DetectParams().threshold_window_max_px < 23
    assert sorted(found) == [0, 1, 2, 3]
    three_windows = detect_markers(frame, params=DetectParams(threshold_window_max_px=23))
    for marker_id, quad in found.items():
        truth = np.array(entry["markers"][str(marker_id)]["px"]) * scale
        assert np.abs(quad - truth).max() < 1.5 * max(1.0, scale)
        assert np.abs(quad - three_windows[marker_id]).max() < 0.25


@pytest.mark.parametrize("window", [2, 0, -5])
def test_threshold_window_must_be_at_least_3_px(window: int) -> None:
    from vision.markers import DetectParams

    with pytest.raises(ValueError, match="threshold_window_max_px"):
        DetectParams(threshold_window_max_px=window)
