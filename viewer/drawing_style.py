"""The drawing conventions of every diagram (the viewer's, the exports', the compliance report's):
node shapes per kind, edge styles per status (used solid black with the symbol count,
declared-unused dashed blue, hidden solid red, interposed dotted orange, upcall dotted magenta,
missing dotted grey; a dlopen edge dashed teal with an open arrowhead), the legend, and the outline
and fill of each licence class, sober enough to print; what an exported diagram's title block says."""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Any

from .. import __version__
from ..loader.licences.classes import LicenceClass
from ..loader.model import Kind, Status

MISSING_KIND = "missing"  # a soname no file satisfies, drawn like a module
SYMLINK_KIND = "symlink"  # an entry of the file tree
KERNEL_KIND = "kernel"  # the kernel itself, which kernel modules link to (docs/kernel.md)
GROUP_KIND = "group"  # a folded plugin family of a per-file diagram (graph_view)


@dataclass(frozen=True)
class StatusLook:
    """How the edges of one status are drawn and named, in every diagram and on every page."""

    colour: str
    line: str  # solid, dashed or dotted (a Graphviz style and a CSS border style)
    help: str
    legend: str  # the text beside the legend's sample line in a diagram
    counted: bool = False  # labelled with its symbol count
    backward: bool = False  # its target loads its source (an upcall): never a "depends on" of the source
    penwidth: str = "1"
    arrowhead: str = "normal"


@dataclass(frozen=True)
class LicenceLook:
    """How a module of one licence class is outlined and filled, marked and named."""

    outline: str
    fill: str
    dot: str  # the solid dot of the whole-firmware view
    label: str  # the short mark
    name: str  # the diagrams' legend
    help: str


@dataclass(frozen=True)
class KindLook:
    shape: str  # Graphviz node shape
    colour: str
    short: str  # the file tree's mark


BLUE, RED, GREY, ORANGE, MAGENTA = "#1f4fbf", "#c8201e", "#8c8c8c", "#b35c00", "#a1286e"
STATUS_LOOKS: dict[Status, StatusLook] = {
    Status.USED: StatusLook("black", "solid", "declared, and symbols bind to it", "used (N symbols)", counted=True),
    Status.DECLARED_UNUSED: StatusLook(
        BLUE,
        "dashed",
        "declared in DT_NEEDED: still loaded and its initialisation code runs, but no symbol of the declaring "
        "object binds to it",
        "declared-unused",
    ),
    Status.HIDDEN: StatusLook(
        RED, "solid", "not declared, yet symbols bind to it", "hidden", counted=True, penwidth="1.4"
    ),
    Status.INTERPOSED: StatusLook(
        ORANGE,
        "dotted",
        "not declared, and no dependency: the object or its own dependencies define these symbols too; this "
        "module only comes first in the lookup (it interposes them, as a program defining malloc)",
        "interposed (N symbols)",
        counted=True,
    ),
    Status.UPCALL: StatusLook(
        MAGENTA,
        "dotted",
        "not declared, and no dependency: an upcall, this module's own dependencies load the object, which calls "
        "back into it (as the C runtime calling a program's main); the dependency runs the other way",
        "upcall (N symbols)",
        counted=True,
        backward=True,
    ),
    Status.MISSING: StatusLook(GREY, "dotted", "declared, no file in the image satisfies it", "missing"),
}
LICENCE_LOOKS: dict[LicenceClass, LicenceLook] = {
    LicenceClass.GPL: LicenceLook(
        "#9c3d00",
        "#fbe0cc",
        "#d35400",
        "GPL",
        "GPL",
        "strong copyleft without a linking exception (GPL, AGPL): a program using it may be a derivative work",
    ),
    LicenceClass.LGPL: LicenceLook(
        "#7a6500",
        "#fbf1c4",
        "#c99a00",
        "LGPL",
        "LGPL / linking exception",
        "weak copyleft for dynamic linking: LGPL, or GPL with a linking exception (the GCC runtime)",
    ),
    LicenceClass.PERMISSIVE: LicenceLook(
        "#2f6b2f",
        "#dcefd9",
        "#2e8b3a",
        "permissive",
        "permissive",
        "free and GPL-compatible (MIT, BSD, ISC, Apache-2.0, …)",
    ),
    LicenceClass.INCOMPATIBLE: LicenceLook(
        "#6b2c91",
        "#eadcf2",
        "#7b3fa0",
        "incompatible",
        "incompatible",
        "proprietary or not GPL-compatible (LicenseRef-Proprietary, OpenSSL, …)",
    ),
    LicenceClass.UNKNOWN: LicenceLook(
        "#4d4d4d",
        "#eeeeee",
        "#a0a0a0",
        "unknown",
        "unknown",
        "no licence fact, or one linkgraph does not classify",
    ),
}
# a dlopen edge (docs/dlopen.md): what a module may load later, beside the start-up statuses
DLOPEN_EDGE = "dlopen"
DLOPEN_LOOK = StatusLook(
    "#00838f",
    "dashed",
    "may be loaded later with dlopen (declared by a note, named, or matched by a pattern): no start-up dependency",
    "dlopen",
    penwidth="1.4",
    arrowhead="empty",
)
KIND_LOOKS: dict[str, KindLook] = {
    Kind.EXECUTABLE: KindLook("box", "#00695c", "exe"),
    Kind.LIBRARY: KindLook("ellipse", "#37474f", "lib"),
    Kind.KERNEL_MODULE: KindLook("hexagon", "#8d6e63", "ko"),
    Kind.OTHER_ELF: KindLook("note", "#9e9e9e", "elf"),
    SYMLINK_KIND: KindLook("none", "#6a4c93", "link"),
    MISSING_KIND: KindLook("ellipse", GREY, "missing"),
    KERNEL_KIND: KindLook("box3d", "#4e342e", "kernel"),
    GROUP_KIND: KindLook("folder", "#37474f", "group"),
}

# the Graphviz attributes derived from the looks above
KINDS = {kind.value: KIND_LOOKS[kind].shape for kind in Kind} | {GROUP_KIND: KIND_LOOKS[GROUP_KIND].shape}
EDGE_LOOKS: dict[str, StatusLook] = {**{s.value: look for s, look in STATUS_LOOKS.items()}, DLOPEN_EDGE: DLOPEN_LOOK}
EDGE_STYLES: dict[str, dict[str, str]] = {
    status: {"color": look.colour, "style": look.line, "fontcolor": look.colour}
    | ({"penwidth": look.penwidth} if look.penwidth != "1" else {})
    | ({"arrowhead": look.arrowhead} if look.arrowhead != "normal" else {})
    for status, look in EDGE_LOOKS.items()
}
MISSING_NODE = {"shape": "ellipse", "style": "dashed", "color": GREY, "fontcolor": GREY}
UNKNOWN_STYLE = {"color": GREY, "style": "solid", "fontcolor": GREY}
COUNTED = tuple(status.value for status, look in STATUS_LOOKS.items() if look.counted)
LEGEND = [(status, look.legend) for status, look in EDGE_LOOKS.items()]
LICENCE_STYLES = {cls.value: {"color": look.outline, "fillcolor": look.fill} for cls, look in LICENCE_LOOKS.items()}
LICENCE_NAMES = {cls.value: look.name for cls, look in LICENCE_LOOKS.items()}
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
