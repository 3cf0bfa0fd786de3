"""A per-file diagram exported for people outside the viewer: SVG, PNG at a chosen resolution, and
PDF on one standard page.

* SVG and PNG are Graphviz's own, with the foot block (legend and title block, ``diagram_legend``).
  A PNG is drawn at ``DEFAULT_DPI`` (twice Graphviz's 96 dpi, so that ``libgcc_s.so.1`` keeps its
  underscore) unless another resolution is asked for (``DPI_RANGE``).
* The PDF is printed on pages of a standard size (``PageSize``: A4 by default, or US Letter), and no
  text of it is smaller than ``MIN_TEXT_PT`` (8 pt): one page filled by the drawing, or several
  pages each holding a part of it (``print_sheets``). It is laid out by WeasyPrint around
  Graphviz's SVG, so its text stays text.
"""

from __future__ import annotations

import base64
import html
from typing import Any

from ..loader.errors import DiagramError
from .compliance_render import pdf_from_html
from .diagram import render, to_dot
from .drawing_style import TitleBlock
from .print_crop import root_box
from .print_cuts import drawing_boxes
from .print_sheets import MARGIN_MM, SHEET_CSS, PageSize, page_layout, sheets_html, svg_size

DEFAULT_DPI = 192
DPI_RANGE = (36, 600)


def pdf_page(svg: bytes, page: PageSize, title: str) -> bytes:
    """The PDF of ``svg`` (a Graphviz SVG) on pages of size ``page``: one page showing it as large as fits,
    or several pages each showing one part of it when one page would set its text below ``MIN_TEXT_PT``
    (the part that holds the program first)."""
    width, height = svg_size(svg)
    sheets = page_layout((width, height), page, drawing_boxes(svg))
    drawn = (width * sheets.scale, height * sheets.scale)
    if sheets.pages == 1:
        source = "data:image/svg+xml;base64," + base64.b64encode(svg).decode("ascii")
        body = f'<img class="whole" src="{source}" alt="">'
    else:  # each page draws its part alone, the program's part first
        body = sheets_html(svg, title, sheets, (width, height), root_box(svg))
    document = f"""<!doctype html><html><head><meta charset="utf-8"><title>{html.escape(title)}</title><style>
@page {{ size: {page.value} {"landscape" if sheets.landscape else "portrait"}; margin: {MARGIN_MM}mm; }}
html, body {{ margin: 0; padding: 0; }}
img {{ display: block; width: {drawn[0]:.2f}pt; height: {drawn[1]:.2f}pt; }}
img.whole {{ margin: 0 auto; }}
{SHEET_CSS}
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
