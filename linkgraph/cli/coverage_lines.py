"""The licence coverage as the command line says it (docs/licences.md, "Coverage"): the statement,
then the modules to review, one path a line, escaped for a terminal, and how many of them are
vendor code."""

from __future__ import annotations

from ..loader.report.licence_coverage import TO_REVIEW
from ..loader.report.rows import Row
from ..loader.store.printable import visible


def coverage_lines(coverage: Row, limit: int | None = None) -> list[str]:
    """``coverage`` (``licence_coverage``) as lines: its statement, under "To review:" each module
    with what was found and whose code it is (the first ``limit`` when given, with how to list the
    others), then how many are vendor code and how many of unknown origin."""
    lines = [coverage["statement"] + "."]
    entries = coverage["to_review"]
    if not entries:
        return lines
    lines.append(f"{TO_REVIEW}:")
    for entry in entries[:limit]:
        static = ", statically linked" if entry["static"] else ""
        whose = f"; vendor code: {visible(entry['origin']['name'])}" if entry["origin"] else ""
        lines.append(
            f"  {visible(entry['path'])}  ({entry['kind']}{static}; {visible(entry['licence_source'])}{whose})"
        )
    left = len(entries) - len(entries[:limit])
    if left:
        lines.append(f"  … {left} more: `linkgraph query licence-to-review` lists them all")
    lines.append(coverage["origin_statement"] + ".")
    return lines
