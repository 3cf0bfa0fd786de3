"""A drawing printed on pages of a standard size with no text below ``MIN_TEXT_PT``, split over
several pages when one would shrink it: the layout shared by the diagram PDF (``diagram_export``)
and the compliance report's widest finding diagrams (``finding_diagram``).

No text of a printed drawing is smaller than ``MIN_TEXT_PT`` (8 pt: Graphviz's smallest text, 9 pt,
scaled by at least ``MIN_SCALE``). A drawing that fits on one page that way fills it: landscape when
that shows it larger (a drawing wider than tall), scaled to the margins (a small one enlarged at most
``MAX_ENLARGE`` times). A larger one is split over the fewest pages that keep its text at that size
(``page_layout``: a grid of equal parts, each page captioned with its row and column, ``sheets_html``),
in the orientation that needs fewer.
"""

from __future__ import annotations

import html
import math
import re
from dataclasses import dataclass
from enum import StrEnum

from .diagram_legend import FOOT_FONT

MARGIN_MM = 10
MAX_ENLARGE = 3.0  # a small drawing is enlarged to fill the page, up to three times
MIN_TEXT_PT = 8.0  # no printed text smaller
SMALLEST_FONT_PT = float(FOOT_FONT)  # Graphviz's smallest text: the foot block, a node's licence line
MIN_SCALE = MIN_TEXT_PT / SMALLEST_FONT_PT
CAPTION_PT = 9.0  # the caption line of a sheet of a drawing split over several pages
CAPTION_ROOM_PT = 16.0
SLACK_PT = 2.0  # so that rounding never pushes a part onto a page of its own
MM_PT = 72 / 25.4
# the parts of a split drawing (``sheets_html``): each on a page of its own, cut out of the whole image
SHEET_CSS = f"""
.sheet {{ break-after: page; margin: 0; padding: 0; }}
.sheet:last-child {{ break-after: auto; }}
.sheet .caption {{ font: {CAPTION_PT}pt/1 "DejaVu Sans", sans-serif; color: #444; margin: 0;
  height: {CAPTION_ROOM_PT}pt; }}
.sheet .part {{ position: relative; overflow: hidden; margin: 0 auto; }}
.sheet .part img {{ position: absolute; display: block; max-width: none; margin: 0; }}
"""


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
    orientation = "landscape" if sheets.landscape else "portrait"
    return (
        f'<section class="sheet {orientation}"><p class="caption">{caption}</p>'
        f'<div class="part" style="width: {part_w:.2f}pt; height: {part_h:.2f}pt">'
        f'<img src="{source}" alt="" style="left: {-column * part_w:.2f}pt; top: {-row * part_h:.2f}pt; '
        f'width: {drawn[0]:.2f}pt; height: {drawn[1]:.2f}pt">'
        "</div></section>"
    )


def sheets_html(source: str, title: str, sheets: Sheets, size: tuple[float, float]) -> str:
    """The pages of a drawing of ``size`` (pt, the image at URL ``source``) split as ``sheets`` says, one
    ``section.sheet`` each (``SHEET_CSS``), captioned with ``title`` (escaped here) and their place."""
    drawn = (size[0] * sheets.scale, size[1] * sheets.scale)
    return "".join(_sheet_html(source, title, sheets, drawn, i) for i in range(sheets.pages))


def named_pages_css(page: PageSize = PageSize.A4) -> str:
    """``SHEET_CSS`` and the named pages a document's split drawings are printed on (``page`` in either
    orientation, with ``page_layout``'s margins), for a document whose other pages are set otherwise."""
    return SHEET_CSS + "".join(
        f"@page sheet-{o} {{ size: {page.value} {o}; margin: {MARGIN_MM}mm; }}\n.sheet.{o} {{ page: sheet-{o}; }}\n"
        for o in ("landscape", "portrait")
    )
