"""The foot block of an exported diagram: one compact Graphviz node (``id="legend"``, class
``legend``) below every module, as on a drawing. Up to four columns side by side: the edge
statuses (a sample line in each status's colour and dashes, and its name), the licence classes
(a cell in each class's outline and fill; only when a node has a licence), the mark of a module
without source in the checked release (only when a node has it: viewer/source_style.py) and the title block
(firmware name and SHA-256, file, date, linkgraph version; only when given). The SHA-256 and long
paths are broken into short lines so that the block stays narrower than most graphs.

On screen the viewer shows the same key as HTML beside the drawing (``diagram.js``), and draws the
graph without this block.
"""

from __future__ import annotations

from .dot_text import Html, attrs, display_text, html_text
from .drawing_style import EDGE_LOOKS, LICENCE_NAMES, LICENCE_STYLES, TitleBlock
from .source_style import NO_SOURCE_LEGEND, NO_SOURCE_MARK

FOOT_WRAP = 32  # characters per line of a title-block value (a SHA-256 in two lines)
SAMPLE_WIDTH = 34  # pt, the sample line of a status
FOOT_FONT = "9"

_LINES = {"solid": "", "dashed": ' style="dashed"', "dotted": ' style="dotted"'}


def wrapped(text: str, width: int = FOOT_WRAP) -> str:
    """Title-block text, broken every ``width`` characters (the block shows it whole)."""
    shown = display_text(text)
    pieces = [shown[i : i + width] for i in range(0, len(shown), width)] or [""]
    return '<br align="left"/>'.join(html_text(piece) for piece in pieces)


def _statuses() -> str:
    rows = "".join(
        f'<tr><td width="{SAMPLE_WIDTH}" height="8" fixedsize="true" border="{2 if float(look.penwidth) > 1 else 1}" '
        f'sides="b" color="{look.colour}"{_LINES.get(look.line, "")}></td>'
        f'<td align="left"><font color="{look.colour}">{html_text(look.legend)}</font></td></tr>'
        for look in EDGE_LOOKS.values()
    )
    head = '<tr><td colspan="2" align="left"><b>Edges</b></td></tr>'
    return f'<table border="0" cellspacing="2" cellpadding="1">{head}{rows}</table>'


def _licences() -> str:
    rows = "".join(
        f'<tr><td width="{SAMPLE_WIDTH}" border="1" bgcolor="{style["fillcolor"]}" color="{style["color"]}"></td>'
        f'<td align="left">{html_text(LICENCE_NAMES[klass])}</td></tr>'
        for klass, style in LICENCE_STYLES.items()
    )
    return (
        '<table border="0" cellspacing="2" cellpadding="1">'
        f'<tr><td colspan="2" align="left"><b>{html_text("Licence class")}</b></td></tr>{rows}</table>'
    )


def _sources() -> str:
    """The mark of a module with no source in the checked release (docs/sources.md)."""
    return (
        '<table border="0" cellspacing="2" cellpadding="1">'
        f'<tr><td colspan="2" align="left"><b>{html_text("Source release")}</b></td></tr>'
        f'<tr><td width="{SAMPLE_WIDTH}" border="2"><i>{html_text(NO_SOURCE_MARK)}</i></td>'
        f'<td align="left">{html_text(NO_SOURCE_LEGEND)}</td></tr></table>'
    )


def _title(title: TitleBlock) -> str:
    rows = [("Firmware", title.firmware_name), ("SHA-256", title.firmware_sha256), ("File", title.path)]
    rows += [("Date", title.date)]
    cells = "".join(
        f'<tr><td align="left" valign="top"><b>{caption}</b></td>'
        f'<td align="left" balign="left">{wrapped(value)}</td></tr>'
        for caption, value in rows
    )
    cells += f'<tr><td align="left" colspan="2">{html_text("linkgraph " + display_text(title.version))}</td></tr>'
    return f'<table border="1" cellborder="0" cellspacing="0" cellpadding="2">{cells}</table>'


def foot_block(licences: bool, title: TitleBlock | None, sources: bool = False) -> str:
    """The DOT statement of the foot block (node ``legend``); ``sources``: a module without source is
    marked, and the mark is explained."""
    columns = [_statuses()]
    if licences:
        columns.append(_licences())
    if sources:
        columns.append(_sources())
    if title is not None:
        columns.append(_title(title))
    cells = "".join(f'<td valign="top">{column}</td>' for column in columns)
    table = f'<table border="0" cellborder="0" cellspacing="6" cellpadding="0"><tr>{cells}</tr></table>'
    looks = {"class": "legend" + (" title-block" if title is not None else "")}
    return "  legend " + attrs(id="legend", **looks, shape="plain", fontsize=FOOT_FONT, label=Html(table)) + ";"
