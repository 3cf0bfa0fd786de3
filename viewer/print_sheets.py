"""A drawing printed on pages of a standard size with no text below ``MIN_TEXT_PT``, split over
several pages when one would shrink it: the layout shared by the diagram PDF (``diagram_export``)
and the compliance report's widest finding diagrams (``finding_diagram``).

No text of a printed drawing is smaller than ``MIN_TEXT_PT`` (8 pt: Graphviz's smallest text, 9 pt,
scaled by at least ``MIN_SCALE``). A drawing that fits on one page that way fills it: landscape when
that shows it larger (a drawing wider than tall), scaled to the margins (a small one enlarged at most
``MAX_ENLARGE`` times). A larger one is split over the fewest pages that keep its text at that size
(``page_layout``: a grid of parts cut between the modules, ``print_cuts``; each page captioned with
its row and column, ``sheets_html``), in the orientation that needs fewer.
"""

from __future__ import annotations

import base64
import html
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from .diagram_legend import FOOT_FONT
from .print_crop import svg_part
from .print_cuts import Box, cuts

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
    of ``columns`` by ``rows`` parts, cut at ``x_cuts`` and ``y_cuts``, in pt of the drawing as
    drawn; 1 by 1 when it fits on one page). ``blank``: the parts (row * columns + column) that hold
    no module and no label, left out."""

    landscape: bool
    scale: float
    x_cuts: tuple[float, ...] = ()
    y_cuts: tuple[float, ...] = ()
    blank: frozenset[int] = frozenset()

    @property
    def columns(self) -> int:
        return len(self.x_cuts) + 1

    @property
    def rows(self) -> int:
        return len(self.y_cuts) + 1

    @property
    def pages(self) -> int:
        return self.columns * self.rows - len(self.blank)

    @property
    def printed(self) -> list[int]:
        """The parts printed, in reading order (row * columns + column)."""
        return [i for i in range(self.columns * self.rows) if i not in self.blank]


def svg_size(svg: bytes) -> tuple[float, float]:
    """(width, height) in pt of a Graphviz SVG (0, 0 when it does not say)."""
    found = re.search(rb'<svg[^>]*?\swidth="([0-9.]+)pt"[^>]*?\sheight="([0-9.]+)pt"', svg[:4000])
    return (float(found.group(1)), float(found.group(2))) if found else (0.0, 0.0)


def _sheets(size: tuple[float, float], room: tuple[float, float], landscape: bool, boxes: Sequence[Box]) -> Sheets:
    width, height = max(size[0], 1.0), max(size[1], 1.0)
    fit = min(room[0] / width, (room[1] - SLACK_PT) / height)
    if fit >= MIN_SCALE:
        return Sheets(landscape, min(fit, MAX_ENLARGE))
    room_h = room[1] - CAPTION_ROOM_PT - SLACK_PT
    columns = math.ceil(width * MIN_SCALE / room[0] - 1e-9)
    rows = math.ceil(height * MIN_SCALE / room_h - 1e-9)
    most = min(columns * room[0] / width, rows * room_h / height)
    options = [_split(size, (room[0], room_h), landscape, boxes, scale) for scale in {most, MIN_SCALE}]
    return min(options, key=lambda s: (s.pages, -s.scale))


def _split(
    size: tuple[float, float], room: tuple[float, float], landscape: bool, boxes: Sequence[Box], scale: float
) -> Sheets:
    """``size`` at ``scale`` in parts of at most ``room`` each, cut between ``boxes`` (print_cuts), the
    parts that hold none of them left out (when boxes are known)."""
    x_cuts = cuts(size[0], room[0] / scale, [(b[0], b[2]) for b in boxes])
    y_cuts = cuts(size[1], room[1] / scale, [(b[1], b[3]) for b in boxes])
    xs, ys = (0.0, *x_cuts, size[0]), (0.0, *y_cuts, size[1])
    blank = frozenset(
        row * len(xs[1:]) + column
        for row in range(len(ys) - 1)
        for column in range(len(xs) - 1)
        if boxes
        and not any(
            b[0] < xs[column + 1] and b[2] > xs[column] and b[1] < ys[row + 1] and b[3] > ys[row] for b in boxes
        )
    )
    return Sheets(landscape, scale, tuple(x_cuts), tuple(y_cuts), blank)


def page_layout(size: tuple[float, float], page: PageSize, boxes: Sequence[Box] = ()) -> Sheets:
    """How a drawing of ``size`` (pt) is printed on ``page``: on one page, in the orientation that shows it
    larger, when its smallest text stays at least ``MIN_TEXT_PT`` there; else split over the fewest
    pages (then the larger scale) that keep every text at least that size, cut between ``boxes`` (the
    drawing's modules and labels, ``print_cuts.drawing_boxes``)."""
    short, long = page.portrait_pt
    margin = 2 * MARGIN_MM * MM_PT
    options = [
        _sheets(
            size, (long - margin, short - margin) if landscape else (short - margin, long - margin), landscape, boxes
        )
        for landscape in (True, False)
    ]
    return min(options, key=lambda s: (s.pages, -s.scale))


def _sheet_html(
    source: str | bytes, title: str, sheets: Sheets, size: tuple[float, float], page: int, index: int
) -> str:
    """One page of a drawing split over several: its caption and its part (``index``) of the drawing,
    cut out of the whole image at URL ``source``, or drawn alone from the Graphviz SVG ``source``."""
    row, column = divmod(index, sheets.columns)
    xs, ys = (0.0, *sheets.x_cuts, size[0]), (0.0, *sheets.y_cuts, size[1])
    left, top = xs[column] * sheets.scale, ys[row] * sheets.scale
    part_w, part_h = (xs[column + 1] - xs[column]) * sheets.scale, (ys[row + 1] - ys[row]) * sheets.scale
    caption = (
        f"{html.escape(title)}: page {page} of {sheets.pages} "
        f"(row {row + 1} of {sheets.rows}, column {column + 1} of {sheets.columns})"
    )
    if isinstance(source, bytes):  # this part alone: the page draws only what it shows
        part = svg_part(source, (xs[column], ys[row], xs[column + 1], ys[row + 1]))
        url = "data:image/svg+xml;base64," + base64.b64encode(part).decode("ascii")
        place = f"left: 0; top: 0; width: {part_w:.2f}pt; height: {part_h:.2f}pt"
    else:
        url = source
        place = (
            f"left: {-left:.2f}pt; top: {-top:.2f}pt; "
            f"width: {size[0] * sheets.scale:.2f}pt; height: {size[1] * sheets.scale:.2f}pt"
        )
    orientation = "landscape" if sheets.landscape else "portrait"
    return (
        f'<section class="sheet {orientation}"><p class="caption">{caption}</p>'
        f'<div class="part" style="width: {part_w:.2f}pt; height: {part_h:.2f}pt">'
        f'<img src="{url}" alt="" style="{place}"></div></section>'
    )


def _lead_first(sheets: Sheets, size: tuple[float, float], lead: Box | None) -> list[int]:
    """The parts printed, the one holding the centre of ``lead`` (the drawn program) first, then the
    others in reading order."""
    order = sheets.printed
    if lead is None:
        return order
    x, y = (lead[0] + lead[2]) / 2, (lead[1] + lead[3]) / 2
    column = sum(cut <= x for cut in sheets.x_cuts)
    row = sum(cut <= y for cut in sheets.y_cuts)
    first = row * sheets.columns + column
    return [first, *(i for i in order if i != first)] if first in order else order


def sheets_html(
    source: str | bytes, title: str, sheets: Sheets, size: tuple[float, float], lead: Box | None = None
) -> str:
    """The pages of a drawing of ``size`` (pt) split as ``sheets`` says, one ``section.sheet`` each
    (``SHEET_CSS``), captioned with ``title`` (escaped here) and their place. ``source`` is the image's
    URL (each page shows its part of the whole image) or the Graphviz SVG itself (each page draws its
    part alone, ``print_crop``); the part holding ``lead`` (a box of the drawing) is printed first."""
    return "".join(
        _sheet_html(source, title, sheets, size, n, i) for n, i in enumerate(_lead_first(sheets, size, lead), 1)
    )


def named_pages_css(page: PageSize = PageSize.A4) -> str:
    """``SHEET_CSS`` and the named pages a document's split drawings are printed on (``page`` in either
    orientation, with ``page_layout``'s margins), for a document whose other pages are set otherwise."""
    return SHEET_CSS + "".join(
        f"@page sheet-{o} {{ size: {page.value} {o}; margin: {MARGIN_MM}mm; }}\n.sheet.{o} {{ page: sheet-{o}; }}\n"
        for o in ("landscape", "portrait")
    )
