"""The drawing conventions of every diagram (the viewer's, the exports', the compliance report's):
node shapes per kind, edge styles per status (used solid black with the symbol count,
declared-unused dashed blue, hidden solid red, missing dotted grey), the legend, and the outline
and fill of each licence class, sober enough to print; what an exported diagram's title block says."""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Any

from .. import __version__

KINDS = {"executable": "box", "library": "ellipse", "kernel-module": "hexagon", "other-elf": "note"}
BLUE, RED, GREY = "#1f4fbf", "#c8201e", "#8c8c8c"
EDGE_STYLES = {
    "used": {"color": "black", "style": "solid", "fontcolor": "black"},
    "declared-unused": {"color": BLUE, "style": "dashed", "fontcolor": BLUE},
    "hidden": {"color": RED, "style": "solid", "fontcolor": RED, "penwidth": "1.4"},
    "missing": {"color": GREY, "style": "dotted", "fontcolor": GREY},
}
MISSING_NODE = {"shape": "ellipse", "style": "dashed", "color": GREY, "fontcolor": GREY}
UNKNOWN_STYLE = {"color": GREY, "style": "solid", "fontcolor": GREY}
COUNTED = ("used", "hidden")  # statuses whose edges are labelled with the symbol count
LEGEND = [
    ("used", "used (N symbols)"),
    ("declared-unused", "declared-unused"),
    ("hidden", "hidden"),
    ("missing", "missing"),
]
# licence classes (docs/report.md): outline and fill, sober enough to print; the legend's names
LICENCE_STYLES = {
    "gpl": {"color": "#9c3d00", "fillcolor": "#fbe0cc"},
    "lgpl": {"color": "#7a6500", "fillcolor": "#fbf1c4"},
    "permissive": {"color": "#2f6b2f", "fillcolor": "#dcefd9"},
    "incompatible": {"color": "#6b2c91", "fillcolor": "#eadcf2"},
    "unknown": {"color": "#4d4d4d", "fillcolor": "#eeeeee"},
}
LICENCE_NAMES = {
    "gpl": "GPL",
    "lgpl": "LGPL / linking exception",
    "permissive": "permissive",
    "incompatible": "incompatible",
    "unknown": "unknown",
}
UNKNOWN_LICENCE = "licence unknown"
HIGHLIGHT_PENWIDTH = "3.2"


@dataclass(frozen=True)
class TitleBlock:
    """What the title block of an exported diagram says."""

    firmware_name: str
    firmware_sha256: str
    path: str
    date: str
    version: str

    @classmethod
    def today(cls, firmware: dict[str, Any], graph: dict[str, Any], asked: str) -> TitleBlock:
        """The title block of ``graph`` (a file's dependency graph) of ``firmware`` (a row of the
        ``firmware`` query), dated today; ``asked`` is the path the user gave."""
        return cls(
            firmware_name=str(firmware.get("name") or ""),
            firmware_sha256=str(firmware.get("sha256") or firmware["id"]),
            path=str(graph.get("root") or asked),
            date=datetime.date.today().isoformat(),
            version=__version__,
        )
