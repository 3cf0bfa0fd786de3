"""How a module's source status (docs/sources.md) looks on every surface: its colour on the whole
view's canvas, its words and explanation, and the mark of a module without source (``prebuilt`` or
``absent``) in the per-program graph: a line of text below its name and a double outline, so that
it never rests on colour alone. Declared once here; the scripts read it from ``vocabulary``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..loader.report.source_view import WITHOUT_SOURCE
from ..loader.sources.model import SourceStatus


@dataclass(frozen=True)
class SourceLook:
    colour: str  # the whole view's node colour (contrasting with white: the legend's words use it too)
    label: str
    help: str


SOURCE_LOOKS: dict[SourceStatus, SourceLook] = {
    SourceStatus.SOURCE: SourceLook(
        "#2e7d32", "source", "built from a source folder of the release (its folder, package and version shown)"
    ),
    SourceStatus.PREBUILT: SourceLook(
        "#c25400", "prebuilt", "the release holds the binary (or a blob of it) but no source for it"
    ),
    SourceStatus.ABSENT: SourceLook("#b71c1c", "absent", "nothing of it is in the release"),
    SourceStatus.NOT_REQUIRED: SourceLook(
        "#546e7a", "not-required", "its licence asks for no source, and the release holds none"
    ),
}
NOT_CHECKED = SourceLook("#9e9e9e", "not checked", "no source status: a missing library, or the kernel")
NO_SOURCE_MARK = "no source"  # the words below a module's name in the per-program graph
NO_SOURCE_LEGEND = "no source in the release (prebuilt or absent)"
NO_SOURCE_PERIPHERIES = "2"  # the double outline of such a module


def no_source(node: dict[str, Any]) -> str | None:
    """The source status of a graph node that has no source in the release, else None."""
    status = node.get("source_status")
    return str(status) if status in WITHOUT_SOURCE and not node.get("missing") else None


def source_vocabulary() -> dict[str, Any]:
    """The statuses in their order with colours and words, and the mark of a module without source."""
    return {
        "statuses": [
            {"name": status.value, "color": look.colour, "label": look.label, "help": look.help}
            for status, look in SOURCE_LOOKS.items()
        ],
        "notChecked": {"color": NOT_CHECKED.colour, "label": NOT_CHECKED.label, "help": NOT_CHECKED.help},
        "withoutSource": list(WITHOUT_SOURCE),
        "mark": NO_SOURCE_MARK,
        "markLegend": NO_SOURCE_LEGEND,
    }
