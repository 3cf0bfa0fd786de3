"""Firmware text made safe for Graphviz: what a label shows, and how labels, tooltips and
attribute lists are written in DOT.

Every name is firmware text and hostile until shown otherwise. Graphviz decodes entities in HTML
labels and then expands ``\\N``, ``\\G``, ``\\E``… and turns ``\\\\`` into ``\\`` in them, so a label
is ``html.escape``d and its backslashes doubled. A tooltip (an escString) goes through two
unescaping passes, so each backslash is written four times, quotes as ``\\"``, ``&`` as ``&amp;`` and
line breaks as ``\\n``. Characters Graphviz would drop or XML cannot carry (control and format
characters, lone surrogates, non-characters) are shown as ``\\xNN`` / ``\\uNNNN`` (``display_text``);
labels longer than ``LABEL_LIMIT`` are cut in the middle with "…" (the tooltip has the whole text).
Graphviz writes the second of two adjacent spaces as a no-break space (U+00A0) so that viewers keep
it; otherwise the SVG's ``<text>`` elements hold exactly the displayed label.
"""

from __future__ import annotations

import html
import unicodedata
from typing import Any

LABEL_LIMIT = 40


def display_text(text: Any) -> str:
    """``text`` as it is shown: control and format characters, lone surrogates and non-characters
    become visible ``\\xNN`` / ``\\uNNNN`` escapes (bytes smuggled in as surrogate escapes: ``\\xNN``)."""
    text = str(text if text is not None else "")
    if text.isprintable():  # no control, format, separator (but space), surrogate or unassigned character
        return text
    out = []
    for char in text:
        code = ord(char)
        if 0xDC80 <= code <= 0xDCFF:  # an undecodable byte (surrogateescape)
            out.append(f"\\x{code - 0xDC00:02x}")
        elif unicodedata.category(char) in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp") or (code & 0xFFFE) == 0xFFFE:
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")
        else:
            out.append(char)
    return "".join(out)


def shorten(text: str, limit: int = LABEL_LIMIT) -> str:
    """``text`` cut in the middle with "…" when longer than ``limit`` characters."""
    if len(text) <= limit:
        return text
    head = limit // 2
    tail = limit - 1 - head
    return text[:head] + "…" + (text[-tail:] if tail else "")


def label_text(text: Any, limit: int = LABEL_LIMIT) -> str:
    """What a label shows for ``text``: displayable, shortened."""
    return shorten(display_text(text), limit)


class Html(str):
    """An attribute value written as an HTML-like label (already escaped)."""


def html_text(text: str) -> str:
    """Text for inside an HTML-like label: entities, and backslashes doubled against \\N-style expansion."""
    return html.escape(text, quote=True).replace("\\", "\\\\")


def _quoted(text: str) -> str:
    """A DOT double-quoted escString that Graphviz shows as ``text`` (also in tooltips, which it unescapes
    twice and whose entities it decodes)."""
    text = text.replace("\\", "\\\\\\\\").replace('"', '\\"').replace("&", "&amp;")
    return '"' + text.replace("\r", "").replace("\n", "\\n") + '"'


def attrs(**attrs: str) -> str:
    """A DOT attribute list: ``Html`` values as HTML-like labels, every other value quoted."""
    return (
        "["
        + " ".join(
            f"{key}=<{value}>" if isinstance(value, Html) else f"{key}={_quoted(value)}" for key, value in attrs.items()
        )
        + "]"
    )
