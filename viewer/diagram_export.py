"""A per-file diagram exported for people outside the viewer: SVG, PNG at a chosen resolution, and
PDF on one standard page.

* SVG and PNG are Graphviz's own, with the foot block (legend and title block, ``diagram_legend``).
  A PNG is drawn at ``DEFAULT_DPI`` (twice Graphviz's 96 dpi, so that ``libgcc_s.so.1`` keeps its
  underscore) unless another resolution is asked for (``DPI_RANGE``).
* The PDF is one page of a standard size (``PageSize``: A4 by default, or US Letter), landscape when
  that shows the drawing larger (a drawing wider than tall), the drawing scaled to fit inside the
  margins (a small one enlarged at most ``MAX_ENLARGE`` times). It is laid out by WeasyPrint around
  Graphviz's SVG, so its text stays text.
"""

from __future__ import annotations

import base64
import html
import re
from enum import StrEnum
from typing import Any

from ..loader.errors import DiagramError
from .compliance_render import pdf_from_html
from .diagram import render, to_dot
from .drawing_style import TitleBlock

DEFAULT_DPI = 192
DPI_RANGE = (36, 600)
MARGIN_MM = 10
MAX_ENLARGE = 1.5
MM_PT = 72 / 25.4


class PageSize(StrEnum):
    """A standard paper size for the PDF export."""

    A4 = "a4"
    LETTER = "letter"

    @property
    def portrait_pt(self) -> tuple[float, float]:
        """(width, height) in pt, portrait."""
        return (210 * MM_PT, 297 * MM_PT) if self is PageSize.A4 else (612.0, 792.0)


def svg_size(svg: bytes) -> tuple[float, float]:
    """(width, height) in pt of a Graphviz SVG (0, 0 when it does not say)."""
    found = re.search(rb'<svg[^>]*?\swidth="([0-9.]+)pt"[^>]*?\sheight="([0-9.]+)pt"', svg[:4000])
    return (float(found.group(1)), float(found.group(2))) if found else (0.0, 0.0)


def page_layout(size: tuple[float, float], page: PageSize) -> tuple[bool, float]:
    """(landscape, scale) of a drawing of ``size`` (pt) on ``page``: the orientation that shows it larger."""
    width, height = size
    short, long = page.portrait_pt
    margin = 2 * MARGIN_MM * MM_PT
    best: tuple[bool, float] = (False, 0.0)
    for landscape in (True, False):
        room_w, room_h = (long, short) if landscape else (short, long)
        scale = min((room_w - margin) / max(width, 1), (room_h - margin) / max(height, 1))
        if scale > best[1] + 1e-9:
            best = (landscape, scale)
    return best[0], min(best[1], MAX_ENLARGE)


def pdf_page(svg: bytes, page: PageSize, title: str) -> bytes:
    """One PDF page of size ``page`` showing ``svg`` (a Graphviz SVG) as large as fits."""
    width, height = svg_size(svg)
    landscape, scale = page_layout((width, height), page)
    source = "data:image/svg+xml;base64," + base64.b64encode(svg).decode("ascii")
    document = f"""<!doctype html><html><head><meta charset="utf-8"><title>{html.escape(title)}</title><style>
@page {{ size: {page.value} {"landscape" if landscape else "portrait"}; margin: {MARGIN_MM}mm; }}
html, body {{ margin: 0; padding: 0; }}
img {{ display: block; margin: 0 auto; width: {width * scale:.2f}pt; height: {height * scale:.2f}pt; }}
</style></head><body><img src="{source}" alt=""></body></html>"""
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
