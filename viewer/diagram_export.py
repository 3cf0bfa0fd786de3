"""A per-file diagram exported for people outside the viewer: SVG, PNG at a chosen resolution, and
PDF on one standard page.

* SVG and PNG are Graphviz's own, with the foot block (legend and title block, ``diagram_legend``).
  A PNG is drawn at ``DEFAULT_DPI`` (twice Graphviz's 96 dpi, so that ``libgcc_s.so.1`` keeps its
  underscore) unless another resolution is asked for (``DPI_RANGE``).
* The PDF is printed on pages of a standard size (``PageSize``: A4 by default, or US Letter), and no
  text of it is smaller than ``MIN_TEXT_PT`` (8 pt: Graphviz's smallest text, 9 pt, scaled by at
  least ``MIN_SCALE``). A drawing that fits on one page that way fills it: landscape when that
  shows it larger (a drawing wider than tall), scaled to the margins (a small one enlarged at most
  ``MAX_ENLARGE`` times). A larger one is split over the fewest pages that keep its text at that
  size (``page_layout``: a grid of equal parts, each page captioned with its row and column), in
  the orientation that needs fewer. It is laid out by WeasyPrint around Graphviz's SVG, so its
  text stays text.
"""

from __future__ import annotations

import base64
import html
import math
import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from ..loader.errors import DiagramError
from .compliance_render import pdf_from_html
from .diagram import render, to_dot
from .diagram_legend import FOOT_FONT
from .drawing_style import TitleBlock

DEFAULT_DPI = 192
DPI_RANGE = (36, 600)
MARGIN_MM = 10
MAX_ENLARGE = 3.0  # a small drawing is enlarged to fill the page, up to three times
MIN_TEXT_PT = 8.0  # no printed text smaller
SMALLEST_FONT_PT = float(FOOT_FONT)  # Graphviz's smallest text: the foot block, a node's licence line
MIN_SCALE = MIN_TEXT_PT / SMALLEST_FONT_PT
CAPTION_PT = 9.0  # the caption line of a sheet of a drawing split over several pages
CAPTION_ROOM_PT = 16.0
SLACK_PT = 2.0  # so that rounding never pushes a part onto a page of its own
MM_PT = 72 / 25.4


class PageSize(StrEnum):
    """A standard paper size for the PDF export."""

    A4 = "a4"
    LETTER = "letter"

    @property
    def portrait_pt(self) -> tuple[float, float]:
        """(width, height) in pt, portrait."""
        return (210 * MM_PT, 297 * MM_PT) if self is PageSize.A4 else (612.0, 792.0)


@dataclass(frozen=True)
class Sheets:
    """How a drawing is printed: the orientation, its scale, and the pages it is split over (a grid
    of ``columns`` by ``rows`` equal parts; 1 by 1 when it fits on one page)."""

    landscape: bool
    scale: float
    columns: int = 1
    rows: int = 1

    @property
    def pages(self) -> int:
        return self.columns * self.rows


def svg_size(svg: bytes) -> tuple[float, float]:
    """(width, height) in pt of a Graphviz SVG (0, 0 when it does not say)."""
    found = re.search(rb'<svg[^>]*?\swidth="([0-9.]+)pt"[^>]*?\sheight="([0-9.]+)pt"', svg[:4000])
    return (float(found.group(1)), float(found.group(2))) if found else (0.0, 0.0)


def _sheets(size: tuple[float, float], room: tuple[float, float], landscape: bool) -> Sheets:
    width, height = max(size[0], 1.0), max(size[1], 1.0)
    fit = min(room[0] / width, (room[1] - SLACK_PT) / height)
    if fit >= MIN_SCALE:
        return Sheets(landscape, min(fit, MAX_ENLARGE))
    room_h = room[1] - CAPTION_ROOM_PT - SLACK_PT
    columns = math.ceil(width * MIN_SCALE / room[0] - 1e-9)
    rows = math.ceil(height * MIN_SCALE / room_h - 1e-9)
    return Sheets(landscape, min(columns * room[0] / width, rows * room_h / height), columns, rows)


def page_layout(size: tuple[float, float], page: PageSize) -> Sheets:
    """How a drawing of ``size`` (pt) is printed on ``page``: on one page, in the orientation that shows it
    larger, when its smallest text stays at least ``MIN_TEXT_PT`` there; else split over the fewest
    pages (then the larger scale) that keep every text at least that size."""
    short, long = page.portrait_pt
    margin = 2 * MARGIN_MM * MM_PT
    options = [
        _sheets(size, (long - margin, short - margin) if landscape else (short - margin, long - margin), landscape)
        for landscape in (True, False)
    ]
    return min(options, key=lambda s: (s.pages, -s.scale))


def _sheet_html(source: str, title: str, sheets: Sheets, drawn: tuple[float, float], index: int) -> str:
    """One page of a drawing split over several: its caption and its part of the drawing."""
    row, column = divmod(index, sheets.columns)
    part_w, part_h = drawn[0] / sheets.columns, drawn[1] / sheets.rows
    caption = (
        f"{html.escape(title)}: page {index + 1} of {sheets.pages} "
        f"(row {row + 1} of {sheets.rows}, column {column + 1} of {sheets.columns})"
    )
    return (
        f'<section class="sheet"><p class="caption">{caption}</p>'
        f'<div class="part" style="width: {part_w:.2f}pt; height: {part_h:.2f}pt">'
        f'<img src="{source}" alt="" style="left: {-column * part_w:.2f}pt; top: {-row * part_h:.2f}pt">'
        "</div></section>"
    )


def pdf_page(svg: bytes, page: PageSize, title: str) -> bytes:
    """The PDF of ``svg`` (a Graphviz SVG) on pages of size ``page``: one page showing it as large as fits,
    or several pages each showing one part of it when one page would set its text below ``MIN_TEXT_PT``."""
    width, height = svg_size(svg)
    sheets = page_layout((width, height), page)
    drawn = (width * sheets.scale, height * sheets.scale)
    source = "data:image/svg+xml;base64," + base64.b64encode(svg).decode("ascii")
    if sheets.pages == 1:
        body = f'<img class="whole" src="{source}" alt="">'
    else:
        body = "".join(_sheet_html(source, title, sheets, drawn, i) for i in range(sheets.pages))
    document = f"""<!doctype html><html><head><meta charset="utf-8"><title>{html.escape(title)}</title><style>
@page {{ size: {page.value} {"landscape" if sheets.landscape else "portrait"}; margin: {MARGIN_MM}mm; }}
html, body {{ margin: 0; padding: 0; }}
img {{ display: block; width: {drawn[0]:.2f}pt; height: {drawn[1]:.2f}pt; }}
img.whole {{ margin: 0 auto; }}
.sheet {{ break-after: page; }}
.sheet:last-child {{ break-after: auto; }}
.caption {{ font: {CAPTION_PT}pt/1 "DejaVu Sans", sans-serif; color: #444; height: {CAPTION_ROOM_PT}pt; margin: 0; }}
.part {{ position: relative; overflow: hidden; margin: 0 auto; }}
.part img {{ position: absolute; }}
</style></head><body>{body}</body></html>"""
    return pdf_from_html(document)


def check_dpi(dpi: Any) -> int:
    """``dpi`` as an int inside ``DPI_RANGE``, or a DiagramError saying what is allowed."""
    try:
        value = int(dpi)
    except (TypeError, ValueError):
        value = 0
    if not DPI_RANGE[0] <= value <= DPI_RANGE[1]:
        raise DiagramError(f"dpi {dpi!r}: give a whole number from {DPI_RANGE[0]} to {DPI_RANGE[1]}")
    return value


def export(
    graph: dict[str, Any],
    title: TitleBlock | None,
    fmt: str,
    page: PageSize = PageSize.A4,
    dpi: int = DEFAULT_DPI,
) -> bytes:
    """The diagram of ``graph`` (the graph JSON of docs/viewer.md) as ``svg``, ``png`` or ``pdf``."""
    source = to_dot(graph, title)
    if fmt == "pdf":
        return pdf_page(render(source, "svg"), page, title.path if title else "diagram")
    return render(source, fmt, check_dpi(dpi) if fmt == "png" else None)
