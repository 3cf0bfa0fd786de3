"""The diff written out: as text (aligned tables, for a terminal or a pipe) and as one
self-contained HTML page (no script, no outside resource)."""

from __future__ import annotations

import html
from typing import Any, TextIO

from ..store.printable import visible
from .tables import Table, tables


def _heading(diff: dict[str, Any]) -> str:
    old, new = diff["old"], diff["new"]
    return f"{visible(old['name'])} ({old['sha256'][:12]}) -> {visible(new['name'])} ({new['sha256'][:12]})"


def write_text(diff: dict[str, Any], out: TextIO) -> None:
    """Every table, with its row count; an empty one as just its title and ``(none)``."""
    out.write(f"linkgraph diff: {_heading(diff)}\n")
    matched = diff["matched"]
    out.write(f"modules matched: {matched['by_path']} by path, {matched['by_soname']} by soname\n")
    for table in tables(diff):
        out.write(f"\n{table.title} ({len(table.rows)})\n")
        if not table.rows:
            out.write("  (none)\n")
            continue
        widths = [max(len(c), *(len(r[i]) for r in table.rows)) for i, c in enumerate(table.columns)]
        for cells in (table.columns, *table.rows):
            out.write("  " + "  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)).rstrip() + "\n")


_STYLE = (
    "body{font-family:sans-serif;margin:1.5em}table{border-collapse:collapse;margin-bottom:1.2em}"
    "th,td{border:1px solid #bbb;padding:2px 6px;text-align:left;vertical-align:top;font-size:90%}"
    "th{background:#eee}td{font-family:monospace}.none{color:#777}"
)


def table_html(table: Table) -> str:
    """One table as an HTML fragment (a heading, then the table or a line saying it is empty)."""
    esc = html.escape
    parts = [f"<h2>{esc(table.title)} ({len(table.rows)})</h2>"]
    if not table.rows:
        parts.append('<p class="none">none</p>')
        return "\n".join(parts)
    parts.append("<table><thead><tr>" + "".join(f"<th>{esc(c)}</th>" for c in table.columns) + "</tr></thead><tbody>")
    parts.extend("<tr>" + "".join(f"<td>{esc(c)}</td>" for c in row) + "</tr>" for row in table.rows)
    parts.append("</tbody></table>")
    return "\n".join(parts)


def write_html(diff: dict[str, Any], out: TextIO) -> None:
    """The whole diff as one HTML page; every firmware-given text escaped."""
    title = html.escape(f"linkgraph diff: {_heading(diff)}")
    out.write(
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">"
        f"<title>{title}</title><style>{_STYLE}</style></head><body>\n<h1>{title}</h1>\n"
    )
    for table in tables(diff):
        out.write(table_html(table) + "\n")
    out.write("</body></html>\n")
