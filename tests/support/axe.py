"""axe-core (vendored in tests/vendor, MPL-2.0, for the tests only) run inside a page of the viewer.

The script is evaluated through the DevTools protocol (page.evaluate), which the viewer's
Content-Security-Policy does not govern, so the page's own policy stays as served."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

AXE = Path(__file__).resolve().parent.parent / "vendor" / "axe-core-4.14.1.min.js"
SEVERE = ("serious", "critical")

RUN = """async () => {
    const result = await axe.run(document, {resultTypes: ["violations"]});
    return result.violations.map((v) => ({
        id: v.id, impact: v.impact, help: v.help,
        nodes: v.nodes.map((n) => ({target: n.target.join(" "), summary: n.failureSummary})).slice(0, 8),
        count: v.nodes.length,
    }));
}"""


@cache
def axe_source() -> str:
    return AXE.read_text(encoding="utf-8")


def violations(page: Any) -> list[dict[str, Any]]:
    """Every axe-core violation on the page as it is now: id, impact, help, count, the first nodes."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(axe_source() + "\n;0")
    return page.evaluate(RUN)


def severe(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The serious and critical ones."""
    return [v for v in found if v["impact"] in SEVERE]
