"""The graph's words as the pages show them: statuses, licence classes and kinds with their colours,
handed to the scripts (``/static/vocabulary.js``, served by ``pages``) and the style sheets
(``/static/vocabulary.css``, and the compliance report's inline CSS) from the looks of
``drawing_style``, the one place they are declared. The scripts import ``VOCABULARY`` from it; no
colour or status name is written twice.
"""

from __future__ import annotations

import json
from typing import Any

from .drawing_style import (
    DLOPEN_EDGE,
    DLOPEN_LOOK,
    EDGE_LOOKS,
    KIND_LOOKS,
    LICENCE_LOOKS,
    MISSING_KIND,
    STATUS_LOOKS,
    SYMLINK_KIND,
    StatusLook,
)
from .source_style import source_vocabulary

DASHES = {"solid": [], "dashed": [6, 4], "dotted": [2, 3]}  # canvas line dashes of each line style


def _edge_look(name: str, look: StatusLook) -> dict[str, Any]:
    return {
        "name": name,
        "color": look.colour,
        "line": look.line,
        "dash": DASHES[look.line],
        "label": name,
        "help": look.help,
        "width": float(look.penwidth),
        "arrowhead": look.arrowhead,
        "backward": look.backward,
    }


def vocabulary() -> dict[str, Any]:
    """The statuses, licence classes and kinds in their order, with names, colours and explanations
    (``backward``: an edge whose target loads its source, an upcall, which the pages never list or
    follow as a dependency of its source); ``laterEdges``: the edges that are no start-up status
    (dlopen), drawn beside them."""
    return {
        "statuses": [_edge_look(status.value, look) for status, look in STATUS_LOOKS.items()],
        "laterEdges": [_edge_look(DLOPEN_EDGE, DLOPEN_LOOK)],
        "licenceClasses": [
            {
                "name": cls.value,
                "color": look.dot,
                "outline": look.outline,
                "fill": look.fill,
                "label": look.label,
                "help": look.help,
            }
            for cls, look in LICENCE_LOOKS.items()
        ],
        "kinds": [
            {"name": str(kind), "color": look.colour, "short": look.short, "module": kind != SYMLINK_KIND}
            for kind, look in KIND_LOOKS.items()
        ],
        "sources": source_vocabulary(),
    }


def css_colour(colour: str) -> str:
    """A colour for a style sheet; it comes from ``drawing_style``, never from a firmware."""
    assert all(c.isalnum() or c == "#" for c in colour), colour
    return colour


READABLE_CONTRAST = 4.5  # WCAG AA for text: what a status word needs against the page's white


def _luminance(rgb: tuple[int, int, int]) -> float:
    """WCAG's relative luminance of an sRGB colour."""
    linear = [c / 255 / 12.92 if c <= 10 else ((c / 255 + 0.055) / 1.055) ** 2.4 for c in rgb]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast_on_white(colour: str) -> float:
    """The contrast ratio of a ``#rrggbb`` colour against white."""
    rgb = (int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16))
    return 1.05 / (_luminance(rgb) + 0.05)


def text_colour(colour: str) -> str:
    """``colour`` for words on white: the drawing's colour, darkened (same hue) until it reads at
    4.5:1 (a missing edge's light grey is right for a dotted line, too light for its word)."""
    if not (colour.startswith("#") and len(colour) == 7):
        return colour  # a named colour of the drawing style (black)
    rgb = [int(colour[i : i + 2], 16) for i in (1, 3, 5)]
    shade = colour
    while contrast_on_white(shade) < READABLE_CONTRAST:
        rgb = [int(c * 0.95) for c in rgb]
        shade = "#" + "".join(f"{c:02x}" for c in rgb)
    return shade


def status_css() -> str:
    """The status words and legend lines, coloured (also the compliance report's inline CSS): the
    words in a shade that reads on white (``text_colour``), the lines in the drawing's colour."""
    rules = []
    for status, look in EDGE_LOOKS.items():
        colour = css_colour(look.colour)
        rules.append(f".status-{status} {{ color: {css_colour(text_colour(colour))}; }}")
        rules.append(f".line-{status} {{ border-top: 2px {look.line} {colour}; }}")
    return "\n".join(rules)


def licence_css(prefix: str) -> str:
    """A mark per licence class: ``.{prefix}-gpl`` in its outline and fill colours."""
    return "\n".join(
        f".{prefix}-{cls} {{ color: {css_colour(look.outline)}; border-color: {css_colour(look.outline)}; "
        f"background: {css_colour(look.fill)}; }}"
        for cls, look in LICENCE_LOOKS.items()
    )


def stylesheet() -> str:
    """``/static/vocabulary.css``: the variables and classes the viewer's own style.css builds on."""
    variables = [f"  --{status}: {css_colour(look.colour)};" for status, look in STATUS_LOOKS.items()]
    variables += [f"  --licence-{cls}: {css_colour(look.outline)};" for cls, look in LICENCE_LOOKS.items()]
    kinds = []
    for kind, look in KIND_LOOKS.items():
        kinds.append(f".kind-{kind} {{ color: {css_colour(look.colour)}; }}")
        if kind not in (MISSING_KIND, SYMLINK_KIND):
            kinds.append(f".dot-{kind} {{ background: {css_colour(look.colour)}; }}")
    return "\n".join([":root {", *variables, "}", status_css(), *kinds, licence_css("lclass"), ""])


def script() -> str:
    """``/static/vocabulary.js``: the module the viewer's scripts import ``VOCABULARY`` from."""
    return f"// generated from linkgraph's drawing conventions\nexport const VOCABULARY = {json.dumps(vocabulary())};\n"
