"""``referee markers``: print the play area of a game (corner markers and zone outlines) at true scale.

The sheet is the game's default layout (``vision.layouts.default_layout``) cut into pages of A4
or Letter paper: first an overview page (not to scale) with the page map and how to lay it out,
then the pages at true scale. A PDF holds every page; with ``--out NAME.png`` each page is a PNG
(``NAME-p1.png``, ...) that records its resolution, so printing "actual size" keeps the scale.

OpenCV and numpy are imported when the command runs, not when the command line starts.
"""

from __future__ import annotations

import argparse
import math
import struct
import sys
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    from vision.layouts import Layout

PAPERS = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}
"""Paper sizes in millimetres (portrait)."""
MARGIN_MM = 10.0
"""Unprinted border on every page: printers cannot print to the edge, and labels go here."""
MM_PER_INCH = 25.4


def add_parser(commands: Any) -> None:
    """Register the ``markers`` subcommand."""
    markers = commands.add_parser("markers", help="print a game's corner markers and zones at true scale (PDF or PNG)")
    markers.add_argument("game", help="seven-pennies, sevens, pennywise, flip or pennies-from-heaven")
    markers.add_argument("--players", required=True, help="how many players (3), or their names in seating order (Ann,Bo,Cy)")
    markers.add_argument("--paper", choices=sorted(PAPERS), default="a4", help="paper size (default a4)")
    markers.add_argument("--out", help="output file, .pdf or .png (default markers-GAME-Np.pdf)")
    markers.add_argument("--dpi", type=int, default=300, help="resolution of the pages (default 300)")
    markers.set_defaults(run=run_markers)


@dataclass(frozen=True)
class Page:
    """One printed page: its picture, and which part of the table it shows (``None`` for the overview)."""

    image: NDArray[np.uint8]
    """BGR uint8, covering the whole paper at the sheet's dpi."""
    paper_mm: tuple[float, float]
    """Width and height of the paper as printed (landscape when wider)."""
    window_mm: tuple[float, float, float, float] | None
    """``x0, y0, x1, y1`` of the table shown, or ``None`` for the overview page."""
    name: str
    """``overview`` or the page's grid name, e.g. ``B2`` (row B, column 2)."""


def run_markers(args: argparse.Namespace) -> int:
    """Run ``referee markers``; returns the exit status (0, or 2 for bad arguments)."""
    from vision.layouts import default_layout, players_from_text

    players = players_from_text(str(args.players))
    if not 72 <= args.dpi <= 1200:
        print(f"referee: --dpi must be between 72 and 1200, not {args.dpi}", file=sys.stderr)
        return 2
    try:
        layout = default_layout(args.game, players)
    except ValueError as error:
        print(f"referee: {error}", file=sys.stderr)
        return 2
    out = Path(args.out) if args.out else Path(f"markers-{layout.game}-{len(layout.players)}p.pdf")
    if out.suffix.lower() not in (".pdf", ".png"):
        print(f"referee: --out must end in .pdf or .png, not {out.name!r}", file=sys.stderr)
        return 2
    pages = sheet_pages(layout, args.paper, args.dpi)
    try:
        written = write_pdf(pages, out, args.dpi) if out.suffix.lower() == ".pdf" else write_pngs(pages, out, args.dpi)
    except OSError as error:
        print(f"referee: cannot write {out}: {error.strerror or error}", file=sys.stderr)
        return 2
    width, height = layout.table_size_mm
    tiles = len(pages) - 1
    print(f"{layout.game}, {len(layout.players)} players: a {width:.0f} x {height:.0f} mm play area on {tiles} "
          f"{args.paper} page{'s' if tiles != 1 else ''} plus an overview; zones: {', '.join(layout.zone_ids)}")
    for path in written:
        print(f"wrote {path}")
    print("Print at 100% (actual size, no 'fit to page'); the bar on each page must measure 100 mm.")
    return 0


# -- pages -------------------------------------------------------------------------------------


def page_grid(table_mm: tuple[float, float], paper_mm: tuple[float, float]) -> tuple[tuple[float, float], int, int]:
    """Paper orientation and grid (columns, rows) that cover the table with the fewest pages."""
    width, height = table_mm
    best: tuple[int, tuple[float, float], int, int] | None = None
    for paper in (paper_mm, (paper_mm[1], paper_mm[0])):
        cw, ch = paper[0] - 2 * MARGIN_MM, paper[1] - 2 * MARGIN_MM
        cols, rows = math.ceil(width / cw - 1e-9), math.ceil(height / ch - 1e-9)
        if best is None or cols * rows < best[0]:
            best = (cols * rows, paper, cols, rows)
    assert best is not None
    return best[1], best[2], best[3]


def tile_windows(layout: Layout, paper: str) -> tuple[tuple[float, float], int, int, list[tuple[float, float, float, float]]]:
    """Paper orientation, grid (columns, rows) and each page's window on the table (``x0, y0, x1, y1`` mm).

    The tiles are equal, not full pages and a sliver: every page is then mostly table, and a
    tile edge never runs through a corner marker (tiles are far wider than a marker and its margin).

    :raises ValueError: for an unknown paper size.
    """
    if paper not in PAPERS:
        raise ValueError(f"paper must be one of {', '.join(PAPERS)}, not {paper!r}")
    paper_mm, cols, rows = page_grid(layout.table_size_mm, PAPERS[paper])
    width, height = layout.table_size_mm
    cw, ch = width / cols, height / rows
    windows = [(col * cw, row * ch, (col + 1) * cw, (row + 1) * ch) for row in range(rows) for col in range(cols)]
    return paper_mm, cols, rows, windows


def sheet_pages(layout: Layout, paper: str, dpi: int) -> list[Page]:
    """The overview page and the true-scale pages of a layout.

    :raises ValueError: for an unknown paper size.
    """
    import numpy as np

    from vision.markers import render_table

    paper_mm, cols, rows, windows = tile_windows(layout, paper)
    px_per_mm = dpi / MM_PER_INCH
    width, height = layout.table_size_mm
    cw, ch = width / cols, height / rows
    pages = [_overview(layout, PAPERS[paper], px_per_mm, cols, rows, cw, ch)]
    for index, window in enumerate(windows):
        row, col = divmod(index, cols)
        image = _blank(paper_mm, px_per_mm)
        part = render_table(layout, px_per_mm, window)
        # Whole pixels from the paper's edge, so the scale is exact and pages join exactly.
        x0 = int(round(MARGIN_MM * px_per_mm))
        image[x0:x0 + part.shape[0], x0:x0 + part.shape[1]] = part
        name = _page_name(row, col)
        _decorate(image, layout, px_per_mm, name, row, col, rows, cols, window)
        pages.append(Page(np.ascontiguousarray(image), paper_mm, window, name))
    return pages


def _page_name(row: int, col: int) -> str:
    return f"{chr(ord('A') + row)}{col + 1}"


def _blank(paper_mm: tuple[float, float], px_per_mm: float) -> NDArray[np.uint8]:
    import numpy as np

    return np.full((int(round(paper_mm[1] * px_per_mm)), int(round(paper_mm[0] * px_per_mm)), 3), 255, np.uint8)


def _write(image: NDArray[np.uint8], text: str, x_mm: float, y_mm: float, height_mm: float, px_per_mm: float,
           colour: tuple[int, int, int] = (40, 40, 40), centred: bool = False) -> None:
    """Text with its baseline at ``y_mm`` (left edge at ``x_mm``, or centred on it)."""
    import cv2

    font = cv2.FONT_HERSHEY_SIMPLEX
    scale = height_mm * px_per_mm / 22.0
    thick = max(1, round(height_mm * px_per_mm / 10.0))
    x = x_mm * px_per_mm
    if centred:
        x -= cv2.getTextSize(text, font, scale, thick)[0][0] / 2.0
    cv2.putText(image, text, (int(round(x)), int(round(y_mm * px_per_mm))), font, scale, colour, thick, cv2.LINE_AA)


def _write_vertical(image: NDArray[np.uint8], text: str, x_mm: float, y_mm: float, height_mm: float, px_per_mm: float) -> None:
    """Text reading upwards, centred on ``(x_mm, y_mm)`` (for the narrow side margins)."""
    import cv2
    import numpy as np

    font = cv2.FONT_HERSHEY_SIMPLEX
    scale = height_mm * px_per_mm / 22.0
    thick = max(1, round(height_mm * px_per_mm / 10.0))
    (tw, th), base = cv2.getTextSize(text, font, scale, thick)
    strip = np.full((th + base + 4, tw + 4, 3), 255, np.uint8)
    cv2.putText(strip, text, (2, th + 2), font, scale, (40, 40, 40), thick, cv2.LINE_AA)
    strip = np.asarray(cv2.rotate(strip, cv2.ROTATE_90_COUNTERCLOCKWISE), dtype=np.uint8)
    h, w = strip.shape[:2]
    x0 = int(round(x_mm * px_per_mm - w / 2.0))
    y0 = int(round(y_mm * px_per_mm - h / 2.0))
    region = image[y0:y0 + h, x0:x0 + w]
    np.minimum(region, strip[: region.shape[0], : region.shape[1]], out=region)


def _dashed(image: NDArray[np.uint8], a: tuple[float, float], b: tuple[float, float], px_per_mm: float) -> None:
    """A thin dashed grey line between two points in paper mm: where pages are cut and joined."""
    import cv2

    length = math.hypot(b[0] - a[0], b[1] - a[1])
    dashes = max(1, int(length / 6.0))
    for i in range(dashes):
        t0, t1 = i / dashes, (i + 0.5) / dashes
        p0 = (a[0] + (b[0] - a[0]) * t0, a[1] + (b[1] - a[1]) * t0)
        p1 = (a[0] + (b[0] - a[0]) * t1, a[1] + (b[1] - a[1]) * t1)
        cv2.line(image, (round(p0[0] * px_per_mm), round(p0[1] * px_per_mm)), (round(p1[0] * px_per_mm), round(p1[1] * px_per_mm)),
                 (120, 120, 120), max(1, round(0.3 * px_per_mm)), cv2.LINE_AA)


def _decorate(image: NDArray[np.uint8], layout: Layout, px_per_mm: float, name: str, row: int, col: int, rows: int,
              cols: int, window: tuple[float, float, float, float]) -> None:
    """Title, scale bar, and cut/join lines with the neighbours' names, in the page's margins."""
    import cv2

    m = MARGIN_MM
    w_mm, h_mm = window[2] - window[0], window[3] - window[1]
    title = f"{layout.game} ({len(layout.players)} players): page {name} of {rows} x {cols}, true scale"
    _write(image, title, m, m - 2.5, 3.5, px_per_mm)
    # 100 mm scale bar under the printed area: a check that the printer kept the scale.
    bar_y = m + h_mm + 3.0
    x0, x1 = m, m + 100.0
    cv2.rectangle(image, (round(x0 * px_per_mm), round(bar_y * px_per_mm)), (round(x1 * px_per_mm), round((bar_y + 1.5) * px_per_mm)),
                  (0, 0, 0), -1)
    for tick in range(0, 101, 10):
        tx = round((x0 + tick) * px_per_mm)
        cv2.line(image, (tx, round((bar_y - 1.0) * px_per_mm)), (tx, round((bar_y + 2.5) * px_per_mm)), (0, 0, 0), max(1, round(0.2 * px_per_mm)))
    _write(image, "100 mm", x1 + 2.0, bar_y + 2.0, 3.0, px_per_mm)
    # Joins: cut along the dashed line on the left and top, lay the page over its neighbour's line.
    if col > 0:
        _dashed(image, (m, m - 2.0), (m, m + h_mm + 2.0), px_per_mm)
        _write_vertical(image, f"cut here, lay over {_page_name(row, col - 1)}", m - 5.0, m + h_mm / 2.0, 2.5, px_per_mm)
    if col < cols - 1:
        _dashed(image, (m + w_mm, m - 2.0), (m + w_mm, m + h_mm + 2.0), px_per_mm)
        _write_vertical(image, f"page {_page_name(row, col + 1)} goes here", m + w_mm + 5.0, m + h_mm / 2.0, 2.5, px_per_mm)
    if row > 0:
        _dashed(image, (m - 2.0, m), (m + w_mm + 2.0, m), px_per_mm)
        _write(image, f"cut here, lay over {_page_name(row - 1, col)}", m + w_mm - 30.0, m - 2.5, 2.5, px_per_mm, centred=True)
    if row < rows - 1:
        _dashed(image, (m - 2.0, m + h_mm), (m + w_mm + 2.0, m + h_mm), px_per_mm)
        _write(image, f"page {_page_name(row + 1, col)} goes here", m + w_mm - 14.0, m + h_mm + 5.0, 2.5, px_per_mm, centred=True)


def _overview(layout: Layout, paper_mm: tuple[float, float], px_per_mm: float, cols: int, rows: int, cw: float,
              ch: float) -> Page:
    """The first page: the whole play area shrunk to fit, the page grid over it, and instructions."""
    import cv2
    import numpy as np

    from vision.markers import SheetStyle, render_table

    image = _blank(paper_mm, px_per_mm)
    m = MARGIN_MM
    width, height = layout.table_size_mm
    usable_w = paper_mm[0] - 2 * m
    fit = min(usable_w / width, (paper_mm[1] * 0.55) / height)
    small_ppm = px_per_mm * fit
    # Drawn at a larger label size, since the overview is shrunk.
    picture = render_table(layout, small_ppm, style=SheetStyle(label_mm=8.0 / fit * 0.5, outline_mm=2.0 / fit * 0.4))
    top = m + 22.0
    x0, y0 = int(round(m * px_per_mm)), int(round(top * px_per_mm))
    image[y0:y0 + picture.shape[0], x0:x0 + picture.shape[1]] = picture
    for row in range(rows):
        for col in range(cols):
            gx0, gy0 = m + col * cw * fit, top + row * ch * fit
            gx1, gy1 = m + min(width, (col + 1) * cw) * fit, top + min(height, (row + 1) * ch) * fit
            cv2.rectangle(image, (round(gx0 * px_per_mm), round(gy0 * px_per_mm)), (round(gx1 * px_per_mm), round(gy1 * px_per_mm)),
                          (150, 150, 255), max(1, round(0.4 * px_per_mm)), cv2.LINE_AA)
            _write(image, _page_name(row, col), (gx0 + gx1) / 2.0, (gy0 + gy1) / 2.0 + 12.0, 6.0, px_per_mm, (120, 120, 240),
                   centred=True)
    _write(image, f"{layout.game}: table layout for {len(layout.players)} players", m, m + 6.0, 6.0, px_per_mm, (0, 0, 0))
    _write(image, "Overview, NOT to scale. The pages after this one are at true scale.", m, m + 14.0, 3.5, px_per_mm)
    spec = layout.markers
    lines = [
        f"Play area {width:.0f} x {height:.0f} mm on {rows * cols} pages ({rows} row{'s' if rows > 1 else ''} A.. x {cols} column{'s' if cols > 1 else ''} 1..).",
        "1. Print at 100% / actual size (no 'fit to page'). Each page's bar must measure 100 mm.",
        "2. Lay the pages out as in the grid above: cut each page along its dashed line on the left",
        "   and top, lay it over its neighbour up to that neighbour's dashed line, and tape it.",
        f"3. The four ArUco markers ({spec.dictionary}, ids {', '.join(str(i) for i in spec.ids)}; {spec.size_mm:.0f} mm) mark the",
        "   corners: keep them flat, uncovered and in the camera's view. Keep the white around them.",
        "4. Zones: " + ", ".join(layout.zone_ids) + ".",
        "   Objects count in the zone their centre lies in; keep them inside the outlines.",
        "5. Player 1 sits at the bottom edge; seats go round clockwise seen from above.",
    ]
    y = top + height * fit + 12.0
    for line in lines:
        _write(image, line, m, y, 3.4, px_per_mm)
        y += 6.0
    return Page(np.ascontiguousarray(image), paper_mm, None, "overview")


# -- files -------------------------------------------------------------------------------------


def write_pdf(pages: list[Page], path: Path, dpi: int) -> list[Path]:
    """Write the pages as one PDF, each page one lossless RGB image at true size (standard library only)."""
    objects: list[bytes] = []

    def add(body: bytes) -> int:
        objects.append(body)
        return len(objects)

    catalog = add(b"")  # filled in below, once the page ids are known
    pages_id = add(b"")
    page_ids = []
    for page in pages:
        height, width = page.image.shape[:2]
        rgb = page.image[:, :, ::-1].tobytes()
        data = zlib.compress(rgb, 6)
        image_id = add(
            b"<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceRGB /BitsPerComponent 8 "
            b"/Filter /FlateDecode /Length %d >>\nstream\n" % (width, height, len(data)) + data + b"\nendstream"
        )
        w_pt, h_pt = page.paper_mm[0] / MM_PER_INCH * 72.0, page.paper_mm[1] / MM_PER_INCH * 72.0
        content = b"q %.4f 0 0 %.4f 0 0 cm /Im0 Do Q" % (w_pt, h_pt)
        content_id = add(b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream")
        page_ids.append(add(
            b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 %.4f %.4f] /Resources << /XObject << /Im0 %d 0 R >> >> "
            b"/Contents %d 0 R >>" % (pages_id, w_pt, h_pt, image_id, content_id)
        ))
    objects[catalog - 1] = b"<< /Type /Catalog /Pages %d 0 R >>" % pages_id
    kids = b" ".join(b"%d 0 R" % i for i in page_ids)
    objects[pages_id - 1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, len(page_ids))
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    out += b"trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, catalog, xref)
    path.write_bytes(bytes(out))
    return [path]


def write_pngs(pages: list[Page], path: Path, dpi: int) -> list[Path]:
    """Write each page as ``NAME-pN.png`` with its resolution recorded (a pHYs chunk), so it prints at true size."""
    import cv2

    written = []
    for number, page in enumerate(pages, start=1):
        ok, data = cv2.imencode(".png", page.image, [cv2.IMWRITE_PNG_COMPRESSION, 6])
        if not ok:
            raise OSError(f"cannot encode page {number} as PNG")
        target = path.with_name(f"{path.stem}-p{number}{path.suffix}")
        target.write_bytes(with_png_dpi(data.tobytes(), dpi))
        written.append(target)
    return written


def with_png_dpi(png: bytes, dpi: int) -> bytes:
    """The PNG with a pHYs chunk saying ``dpi`` (as pixels per metre), inserted after IHDR."""
    signature = b"\x89PNG\r\n\x1a\n"
    if not png.startswith(signature):
        raise ValueError("not a PNG")
    ihdr_end = 8 + 4 + 4 + 13 + 4  # signature, length, type, IHDR data, CRC
    ppm = int(round(dpi / 0.0254))
    body = b"pHYs" + struct.pack(">IIB", ppm, ppm, 1)
    chunk = struct.pack(">I", 9) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)
    return png[:ihdr_end] + chunk + png[ihdr_end:]
