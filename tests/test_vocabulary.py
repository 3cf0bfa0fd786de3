"""Statuses, licence classes and kinds are declared once (``Status``, ``LicenceClass``, ``Kind`` and
the looks of ``viewer.drawing_style``): the Cypher queries, the scripts and the style sheets use
exactly those words, and the scripts and style sheets get their colours from the one declaration."""

from __future__ import annotations

import json
import re
from importlib import resources
from typing import Any

from linkgraph.loader.licences.classes import LicenceClass, licence_class
from linkgraph.loader.model import Kind, Status
from linkgraph.loader.sources.model import SourceStatus
from linkgraph.viewer import drawing_style, vocabulary

CYPHER = resources.files("linkgraph.cypher")
STATIC = resources.files("linkgraph.viewer") / "static"
TEMPLATES = resources.files("linkgraph.viewer") / "templates"
COLOUR = re.compile(r"#[0-9a-fA-F]{6}\b")


def cypher_texts() -> dict[str, str]:
    return {f.name: f.read_text(encoding="utf-8") for f in CYPHER.iterdir() if f.name.endswith(".cypher")}


def literals_near(text: str, word: str) -> set[str]:
    """The values a query compares ``word`` with or sets it to: ``status = 'used'``, ``status IN
    ['used', 'hidden']``, ``{status: 'hidden'}``, ``status = CASE ... THEN 'used' ELSE ... END``."""
    code = "\n".join(line.split("//", 1)[0] for line in text.splitlines())
    pattern = rf"\b{word}\s*(?:=|:|IN\b)\s*(\[[^\]]*\]|'[^']*'|CASE\b.*?\bEND\b)"
    found: set[str] = set()
    for compared in re.findall(pattern, code, flags=re.DOTALL):
        found |= set(re.findall(r"'([^']*)'", compared))
    return found


def test_queries_use_only_the_declared_statuses_and_classes() -> None:
    statuses: set[str] = set()
    classes: set[str] = set()
    for name, text in cypher_texts().items():
        statuses |= literals_near(text, "status")
        classes |= literals_near(text, "licence_class")
        # an edge's status, or a module's source status in the release (the Source table's)
        assert literals_near(text, "status") <= set(Status) | set(SourceStatus), name
        assert literals_near(text, "licence_class") <= set(LicenceClass), name
    assert statuses - set(SourceStatus) == set(Status)  # every status is written by classify.cypher and read
    assert {"incompatible", "unknown"} <= classes


def test_licence_class_is_the_enum() -> None:
    assert licence_class("GPL-2.0-only") is LicenceClass.GPL
    assert licence_class("GPL-3.0-or-later WITH GCC-exception-3.1") is LicenceClass.LGPL
    assert licence_class("MIT OR GPL-2.0-only") is LicenceClass.PERMISSIVE
    assert licence_class(None) is LicenceClass.UNKNOWN


def test_every_word_has_a_look() -> None:
    assert list(drawing_style.STATUS_LOOKS) == list(Status)
    assert list(drawing_style.LICENCE_LOOKS) == list(LicenceClass)
    assert set(Kind) <= set(drawing_style.KIND_LOOKS)
    assert [s for s, _ in drawing_style.LEGEND] == [*Status, drawing_style.DLOPEN_EDGE]  # and dlopen edges


def test_the_scripts_get_the_vocabulary_from_the_viewer(client: Any) -> None:
    response = client.get("/static/vocabulary.js")
    assert response.status_code == 200 and response.mimetype == "text/javascript"
    prefix = "export const VOCABULARY = "
    line = next(li for li in response.get_data(as_text=True).splitlines() if li.startswith(prefix))
    served = json.loads(line[len(prefix) :].rstrip(";"))
    assert served == vocabulary.vocabulary()
    assert [s["name"] for s in served["statuses"]] == list(Status)
    assert [c["name"] for c in served["licenceClasses"]] == list(LicenceClass)
    assert [s["color"] for s in served["statuses"]] == [look.colour for look in drawing_style.STATUS_LOOKS.values()]
    css = client.get("/static/vocabulary.css").get_data(as_text=True)
    for status, look in drawing_style.STATUS_LOOKS.items():  # the word in a shade that reads on white
        assert f".status-{status} {{ color: {vocabulary.text_colour(look.colour)}; }}" in css
        assert f".line-{status} {{ border-top: 2px {look.line} {look.colour}; }}" in css
    for cls, look in drawing_style.LICENCE_LOOKS.items():
        assert f".lclass-{cls} {{ color: {look.outline};" in css


def test_no_script_or_style_sheet_writes_a_status_colour_or_list() -> None:
    """The colours of statuses, kinds and licence classes live only in drawing_style."""
    declared = {look.colour.lower() for look in drawing_style.STATUS_LOOKS.values()}
    declared |= {
        c.lower() for look in drawing_style.LICENCE_LOOKS.values() for c in (look.outline, look.fill, look.dot)
    }
    declared |= {look.colour.lower() for look in drawing_style.KIND_LOOKS.values()}
    for f in [*STATIC.iterdir(), *TEMPLATES.iterdir()]:
        if not f.name.endswith((".js", ".css", ".html")):
            continue
        text = f.read_text(encoding="utf-8")
        assert not {c.lower() for c in COLOUR.findall(text)} & declared, f.name
        assert '"declared-unused", "hidden"' not in text, f.name  # a list of the statuses written out


def _wcag_contrast_on_white(hex_colour: str) -> float:
    """WCAG 2's contrast ratio of #rrggbb against white, written out here as the standard gives it."""

    def channel(c: int) -> float:
        s = c / 255
        return s / 12.92 if s <= 0.04045 else ((s + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(int(hex_colour[i : i + 2], 16)) for i in (1, 3, 5))
    return 1.05 / (0.2126 * r + 0.7152 * g + 0.0722 * b + 0.05)


def test_status_words_read_on_white() -> None:
    """Every status word (the pages' and the HTML report's) at 4.5:1 or more: the missing edge's
    grey line (3.36:1) keeps its colour, its word a darker shade of it."""
    css = vocabulary.status_css()
    words = dict(re.findall(r"\.status-([a-z-]+) \{ color: (#[0-9a-f]{6}|black); \}", css))
    assert len(words) >= 7 and "missing" in words
    for status, colour in words.items():
        if colour != "black":
            assert _wcag_contrast_on_white(colour) >= 4.5, (status, colour)
    assert ".line-missing { border-top: 2px dotted #8c8c8c; }" in css
