"""The Graphviz exports: the per-file diagram (DOT, SVG, PDF, PNG), ``linkgraph diagram``, and the
viewer's diagram and CSV downloads.

Hand-built graphs check the drawing conventions, the ids and classes a browser looks for, the legend,
the title block and the escaping of hostile names (rendered by the real Graphviz and read back with
xml.etree); the article fixture checks the whole way from a scan to the busybox picture.
"""

from __future__ import annotations

import csv
import io
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from conftest import linkgraph
from linkgraph.loader.errors import DiagramError
from linkgraph.viewer.diagram import LICENCE_WIDTH, render, to_dot
from linkgraph.viewer.dot_text import LABEL_LIMIT, display_text, label_text, shorten
from linkgraph.viewer.drawing_style import LICENCE_NAMES, LICENCE_STYLES, TitleBlock
from linkgraph.viewer.exports import analysis_csv, download_name, spreadsheet_safe
from linkgraph.viewer.print_cuts import drawing_boxes
from linkgraph.viewer.print_sheets import (
    MARGIN_MM,
    MAX_ENLARGE,
    MIN_SCALE,
    MIN_TEXT_PT,
    MM_PT,
    SMALLEST_FONT_PT,
    PageSize,
    page_layout,
    svg_size,
)
from support.article import APCFG, APLOG, BUSYBOX, NVRAM, UTIL
from support.graphs import edge

from linkgraph import __version__

SVG = "{http://www.w3.org/2000/svg}"
XLINK_TITLE = "{http://www.w3.org/1999/xlink}title"
BLUE, RED, GREY, ORANGE, MAGENTA = "#1f4fbf", "#c8201e", "#8c8c8c", "#b35c00", "#a1286e"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
TITLE = TitleBlock(
    firmware_name="TEW-636APB", firmware_sha256="ab" * 32, path="/bin/busybox", date="2025-12-03", version="9.8.7"
)

HOSTILE = [
    "<img src=x onerror=alert(1)>",
    "]]><script>alert(1)</script>",
    "<b>bold</b>",
    "quote\"and'apostrophe",
    "back\\slash\\",
    "\\",
    "\\N\\G\\E\\T\\H\\L\\l\\r\\n",
    '"]; evil [label="pwned"]; n0 -> evil; x="',
    "{}[];,=-><>",
    "&amp;&#65;&lt;",
    "\\xff\\xfe",
    "é漢字🙂",
    "x" * 1000,
]


def node(index: int, path: str | None, kind: str = "library", missing: bool = False) -> dict[str, Any]:
    label = path.rsplit("/", 1)[-1] if path and not missing else path
    return {
        "id": f"n{index}",
        "path": None if missing else path,
        "label": label,
        "kind": kind,
        "soname": None,
        "missing": missing,
    }


def sample_graph() -> dict[str, Any]:
    """busybox with one edge of every status, a kernel module and a missing soname."""
    nodes = [
        node(0, "/bin/busybox", "executable"),
        node(1, "/lib/libutility.so"),
        node(2, "/lib/libnvram.so"),
        node(3, "/lib/libapcfg.so"),
        node(4, "/lib/modules/wifi.ko", "kernel-module"),
        node(5, "libgone.so.1", missing=True),
    ]
    edges = [
        edge(0, 0, 1, "used", ["util_foo"]),
        edge(1, 0, 2, "declared-unused", []),
        edge(2, 0, 3, "used", ["apcfg_get", "apcfg_set"]),
        edge(3, 3, 1, "hidden", [f"s{i:02}" for i in range(25)]),
        edge(4, 0, 5, "missing", []),
        edge(5, 0, 4, "used", ["wifi_up"]),
    ]
    return {"firmware": {"id": "ab" * 32, "name": "TEW-636APB"}, "root": "/bin/busybox", "nodes": nodes, "edges": edges}


def svg_of(graph: dict[str, Any], title: TitleBlock | None = TITLE, highlight: set[Any] | None = None) -> ET.Element:
    return ET.fromstring(render(to_dot(graph, title, highlight), "svg"))


def by_id(svg: ET.Element) -> dict[str, ET.Element]:
    return {el.get("id"): el for el in svg.iter() if el.get("id")}


def classes(element: ET.Element) -> set[str]:
    return set((element.get("class") or "").split())


def texts(element: ET.Element) -> list[str]:
    """The <text> elements' strings (Graphviz keeps a second adjacent space as U+00A0)."""
    return ["".join(t.itertext()).replace("\xa0", " ") for t in element.iter(f"{SVG}text")]


def tooltip(element: ET.Element) -> str:
    return next(a.get(XLINK_TITLE) for a in element.iter(f"{SVG}a"))


def stroke_of(group: ET.Element) -> tuple[str | None, str | None]:
    """Colour and dash pattern of an edge's line."""
    path = next(group.iter(f"{SVG}path"))
    return path.get("stroke"), path.get("stroke-dasharray")


def edge_ends(group: ET.Element) -> tuple[str, str]:
    tail, _, head = group.find(f"{SVG}title").text.partition("->")
    return tail, head


# --- drawing conventions ---------------------------------------------------------------------------


def test_every_status_is_drawn_in_its_style() -> None:
    ids = by_id(svg_of(sample_graph()))
    expected = {
        "e0": ("used", "black", None, ["1"]),
        "e1": ("declared-unused", BLUE, "5,2", []),
        "e2": ("used", "black", None, ["2"]),
        "e3": ("hidden", RED, None, ["25"]),
        "e4": ("missing", GREY, "1,5", []),
    }
    for edge_id, (status, colour, dashes, label) in expected.items():
        group = ids[edge_id]
        assert classes(group) == {"edge", status}, edge_id
        assert stroke_of(group) == (colour, dashes), edge_id
        assert texts(group) == label, edge_id
    assert edge_ends(ids["e3"]) == ("n3", "n1")


def test_nodes_have_ids_classes_and_shapes() -> None:
    ids = by_id(svg_of(sample_graph()))
    assert classes(ids["n0"]) == {"node", "executable", "root"}
    assert ids["n0"].find(f".//{SVG}polygon") is not None  # a box
    assert next(ids["n0"].iter(f"{SVG}text")).get("font-weight") == "bold"
    assert classes(ids["n1"]) == {"node", "library"} and ids["n1"].find(f".//{SVG}ellipse") is not None
    hexagon = ids["n4"].find(f".//{SVG}polygon")
    assert classes(ids["n4"]) == {"node", "kernel-module"} and len(hexagon.get("points").split()) == 7
    missing = ids["n5"].find(f".//{SVG}ellipse")
    assert classes(ids["n5"]) == {"node", "missing"}
    assert (missing.get("stroke"), missing.get("stroke-dasharray")) == (GREY, "5,2")
    assert texts(ids["n5"]) == ["libgone.so.1"]
    # the ids are the graph JSON's, and nothing else a browser would look for is made up
    wanted = {f"n{i}" for i in range(6)} | {f"e{i}" for i in range(6)}
    assert wanted <= set(ids)


def test_tooltips_give_the_path_and_the_symbols() -> None:
    ids = by_id(svg_of(sample_graph()))
    assert tooltip(ids["n3"]).split("\n") == ["/lib/libapcfg.so", "library"]
    assert tooltip(ids["n5"]).startswith("missing: libgone.so.1")
    lines = tooltip(ids["e3"]).split("\n")
    assert lines[0] == "hidden: /lib/libapcfg.so → /lib/libutility.so"
    assert lines[2:] == ["25 symbols:", *[f"s{i:02}" for i in range(20)], "… 5 more"]
    assert tooltip(ids["e2"]).split("\n")[-3:] == ["2 symbols:", "apcfg_get", "apcfg_set"]


def legend_lines(legend: ET.Element) -> dict[str, tuple[str | None, str | None]]:
    """The foot block's status samples: the text beside each, and its line's (stroke, dashes)."""
    lines = list(legend.iter(f"{SVG}polyline"))
    names = {
        "used (N symbols)",
        "declared-unused",
        "hidden",
        "interposed (N symbols)",
        "upcall (N symbols)",
        "missing",
        "dlopen",
    }
    words = [t for t in texts(legend) if t in names]
    return {word: (line.get("stroke"), line.get("stroke-dasharray")) for word, line in zip(words, lines, strict=False)}


def test_the_foot_block_has_one_sample_line_per_status() -> None:
    ids = by_id(svg_of(sample_graph(), title=None))
    legend = ids["legend"]
    assert classes(legend) == {"node", "legend"}  # no title block unless asked for
    assert texts(legend)[0] == "Edges" and "SHA-256" not in texts(legend)
    assert legend_lines(legend) == {
        "used (N symbols)": ("black", None),
        "declared-unused": (BLUE, "5,2"),
        "hidden": (RED, None),
        "interposed (N symbols)": (ORANGE, "1,5"),
        "upcall (N symbols)": (MAGENTA, "1,5"),
        "missing": (GREY, "1,5"),
        "dlopen": ("#00838f", "5,2"),
    }
    # below every module
    bottom = max(float(t.get("y")) for i, g in ids.items() if i.startswith("n") for t in g.iter(f"{SVG}text"))
    assert min(float(t.get("y")) for t in legend.iter(f"{SVG}text")) > bottom


def title_rows(legend: ET.Element) -> dict[str, str]:
    """The title block's rows (caption -> the value's lines joined), and ``version`` its last line."""
    words = texts(legend)
    words = words[words.index("Firmware") :]
    captions = [i for i, w in enumerate(words) if w in ("Firmware", "SHA-256", "File", "Date")]
    rows = {words[i]: "".join(words[i + 1 : j]) for i, j in zip(captions, [*captions[1:], len(words) - 1], strict=True)}
    return rows | {"version": words[-1]}


def test_title_block() -> None:
    ids = by_id(svg_of(sample_graph()))
    block = ids["legend"]
    assert classes(block) == {"node", "legend", "title-block"}
    words = texts(block)
    start = words.index("Firmware")
    assert words[start:] == [
        "Firmware",
        "TEW-636APB",
        "SHA-256",
        "ab" * 16,  # the SHA-256 in two lines, so that the block stays narrow
        "ab" * 16,
        "File",
        "/bin/busybox",
        "Date",
        "2025-12-03",
        "linkgraph 9.8.7",
    ]


def test_the_foot_block_is_narrower_than_before() -> None:
    """Statuses, licence classes and title block side by side fit in about 600 pt (they were 1,000)."""
    svg = svg_of(licensed_graph())
    legend = by_id(svg)["legend"]
    xs = [
        float(p)
        for poly in legend.iter(f"{SVG}polygon")
        for pt in poly.get("points").split()
        for p in pt.split(",")[:1]
    ]
    assert max(xs) - min(xs) < 620, max(xs) - min(xs)


def test_without_the_legend_only_the_graph_is_drawn() -> None:
    ids = by_id(render_svg(to_dot(licensed_graph(), TITLE, legend=False)))
    assert "legend" not in ids and {"n0", "e0"} <= set(ids)


def render_svg(dot: str) -> ET.Element:
    return ET.fromstring(render(dot, "svg"))


def test_a_graph_without_edges_still_draws() -> None:
    ids = by_id(svg_of({"nodes": [node(0, "/bin/static", "executable")], "edges": []}))
    assert texts(ids["n0"]) == ["static"] and "title-block" in classes(ids["legend"])


# --- licences and highlighted edges ---------------------------------------------------------------


def licensed_graph() -> dict[str, Any]:
    """The sample graph with a licence on every module (one of each class, one without a fact)."""
    graph = sample_graph()
    facts = [
        ("GPL-2.0-only", "gpl"),
        (None, "unknown"),
        ("LicenseRef-Proprietary", "incompatible"),
        ("LGPL-2.1-or-later", "lgpl"),
        ("MIT", "permissive"),
    ]
    for node_, (licence, klass) in zip(graph["nodes"], facts, strict=False):
        node_.update(licence=licence, licence_class=klass)
    graph["nodes"][5].update(licence=None, licence_class=None)  # a missing soname has none
    return graph


def shape_of(group: ET.Element) -> ET.Element:
    return next(el for el in group.iter() if el.tag in (f"{SVG}ellipse", f"{SVG}polygon"))


def test_licences_are_shown_on_the_nodes_and_coloured_by_class() -> None:
    ids = by_id(svg_of(licensed_graph()))
    expected = {
        "n0": ("gpl", "GPL-2.0-only"),
        "n1": ("unknown", "licence unknown"),
        "n2": ("incompatible", "LicenseRef-Proprietary"),
        "n3": ("lgpl", "LGPL-2.1-or-later"),
        "n4": ("permissive", "MIT"),
    }
    for node_id, (klass, text) in expected.items():
        group = ids[node_id]
        assert f"licence-{klass}" in classes(group), node_id
        assert texts(group)[1:] == [text], node_id
        shape = shape_of(group)
        assert (shape.get("fill"), shape.get("stroke")) == (
            LICENCE_STYLES[klass]["fillcolor"],
            LICENCE_STYLES[klass]["color"],
        ), node_id
    assert texts(ids["n0"])[0] == "busybox" and classes(ids["n0"]) == {"node", "executable", "root", "licence-gpl"}
    assert tooltip(ids["n2"]).split("\n")[-1] == "licence LicenseRef-Proprietary (incompatible)"
    # a missing soname has no licence line and keeps its grey dashes
    assert texts(ids["n5"]) == ["libgone.so.1"] and classes(ids["n5"]) == {"node", "missing"}
    assert shape_of(ids["n5"]).get("fill") == "none"


def test_the_legend_has_a_licence_key_only_when_there_are_licences() -> None:
    ids = by_id(svg_of(licensed_graph()))
    key = texts(ids["legend"])
    start = key.index("Licence class")
    assert key[start + 1 : start + 1 + len(LICENCE_NAMES)] == list(LICENCE_NAMES.values())
    fills = {p.get("fill") for p in ids["legend"].iter(f"{SVG}polygon")}
    assert {s["fillcolor"] for s in LICENCE_STYLES.values()} <= fills
    assert "Licence class" not in texts(by_id(svg_of(sample_graph()))["legend"])  # a graph from before licences
    assert "Firmware" in key  # the title block still comes with it


def test_graphs_without_licence_keys_are_drawn_as_before() -> None:
    ids = by_id(svg_of(sample_graph()))
    assert texts(ids["n1"]) == ["libutility.so"] and shape_of(ids["n1"]).get("fill") == "none"
    assert texts(ids["n0"]) == ["busybox"]


def test_long_unknown_and_hostile_licences() -> None:
    graph = sample_graph()
    graph["nodes"][1].update(
        licence="GPL-3.0-or-later WITH GCC-exception-3.1 AND LicenseRef-" + "x" * 80, licence_class="lgpl"
    )
    graph["nodes"][2].update(licence=HOSTILE[0], licence_class="<script>")
    graph["nodes"][3].update(licence_class="unknown")  # no licence key at all: still a licence node
    ids = by_id(svg_of(graph))
    lines = texts(ids["n1"])[1:]  # the licence, cut in the middle and wrapped at spaces
    assert " ".join(lines) == shorten(graph["nodes"][1]["licence"]) and len(" ".join(lines)) == LABEL_LIMIT
    assert len(lines) > 1 and all(len(line) <= LICENCE_WIDTH or " " not in line for line in lines), lines
    assert " ".join(texts(ids["n2"])[1:]) == HOSTILE[0] and "licence-unknown" in classes(ids["n2"])
    assert texts(ids["n3"])[1] == "licence unknown"
    assert b"<img" not in render(to_dot(graph), "svg")


def test_highlighted_edges_are_thicker() -> None:
    graph = licensed_graph()
    for highlight in (
        {"e0", "e3"},
        {("n0", "n1"), ("n3", "n1")},
        {("/bin/busybox", "/lib/libutility.so"), ("/lib/libapcfg.so", "/lib/libutility.so")},
    ):
        ids = by_id(svg_of(graph, highlight=highlight))
        for edge_id in ("e0", "e3"):
            assert "highlight" in classes(ids[edge_id]), (highlight, edge_id)
            assert float(next(ids[edge_id].iter(f"{SVG}path")).get("stroke-width")) >= 3, highlight
            assert stroke_of(ids[edge_id])[0] == ("black" if edge_id == "e0" else RED)
        for edge_id in ("e1", "e2", "e4", "e5"):
            assert "highlight" not in classes(ids[edge_id])
            assert float(next(ids[edge_id].iter(f"{SVG}path")).get("stroke-width") or 1) < 2
    assert "highlight" not in render(to_dot(graph), "svg").decode()


# --- hostile names ---------------------------------------------------------------------------------


def hostile_graph() -> dict[str, Any]:
    nodes = [node(0, "/bin/" + HOSTILE[0], "executable")]
    nodes += [
        {"id": f"n{i}", "path": f"/lib/{name}", "label": name, "kind": "library", "soname": name, "missing": False}
        for i, name in enumerate(HOSTILE[1:], 1)
    ]
    nodes.append(
        {"id": f"n{len(HOSTILE)}", "path": None, "label": HOSTILE[7], "kind": "", "soname": HOSTILE[7], "missing": True}
    )
    edges = [
        {
            "id": f"e{i}",
            "from": "n0",
            "to": f"n{i}",
            "status": "hidden" if i % 2 else "used",
            "soname": name,
            "symbols": [name, name + "2"],
            "count": 2,
        }
        for i, name in enumerate(HOSTILE)
    ]
    return {"nodes": nodes, "edges": edges}


HOSTILE_TITLE = TitleBlock(
    firmware_name=HOSTILE[0], firmware_sha256=HOSTILE[7], path=HOSTILE[6], date=HOSTILE[4], version=HOSTILE[1]
)


def test_hostile_names_are_only_text() -> None:
    svg = svg_of(hostile_graph(), HOSTILE_TITLE)
    allowed = {"svg", "g", "title", "a", "text", "path", "polygon", "polyline", "ellipse"}
    for element in svg.iter():
        assert element.tag.removeprefix(SVG) in allowed, element.tag
        assert not [name for name in element.attrib if name.lower().startswith("on")], element.attrib
    raw = render(to_dot(hostile_graph(), HOSTILE_TITLE), "svg")
    assert b"<img" not in raw and b"<script" not in raw and b"<b>" not in raw
    # no node or edge that the graph does not have (the "evil" node of the DOT injection)
    ids = by_id(svg)
    groups = {i for i, el in ids.items() if {"node", "edge"} & classes(el) and "legend" not in classes(el)}
    assert groups == {f"n{i}" for i in range(len(HOSTILE) + 1)} | {f"e{i}" for i in range(len(HOSTILE))}


def test_hostile_names_render_exactly() -> None:
    svg = svg_of(hostile_graph(), HOSTILE_TITLE)
    ids = by_id(svg)
    for index, name in enumerate(HOSTILE):
        if index:  # n0 is /bin/<img…>, labelled with its base name
            expected = name if len(name) <= LABEL_LIMIT else shorten(name)
            assert texts(ids[f"n{index}"]) == [expected], name
            assert tooltip(ids[f"n{index}"]).split("\n")[0] == f"/lib/{name}", name
            assert tooltip(ids[f"e{index}"]).split("\n")[-2:] == [name, name + "2"], name
    assert texts(ids["n0"]) == [HOSTILE[0]]
    assert texts(ids[f"n{len(HOSTILE)}"]) == [shorten(HOSTILE[7])]  # a missing soname, 41 characters long
    assert title_rows(ids["legend"]) == {
        "Firmware": HOSTILE[0],
        "SHA-256": HOSTILE[7],
        "File": HOSTILE[6],
        "Date": HOSTILE[4],
        "version": f"linkgraph {HOSTILE[1]}",
    }


def test_long_names_are_cut_in_the_middle_and_whole_in_the_tooltip() -> None:
    ids = by_id(svg_of(hostile_graph()))
    long_index = HOSTILE.index("x" * 1000)
    shown = texts(ids[f"n{long_index}"])[0]
    assert len(shown) == LABEL_LIMIT and shown == "x" * 20 + "…" + "x" * 19
    assert tooltip(ids[f"n{long_index}"]).split("\n")[0] == "/lib/" + "x" * 1000
    assert shorten("abcdefghij", 5) == "ab…ij" and shorten("abc", 5) == "abc"


def test_invisible_and_undecodable_characters_are_shown_escaped() -> None:
    names = ["new\nline", "tab\there", "nul\x00", "bidi\u202eevil", "byte\udcff", "zero\u200bwidth", "\ufffe"]
    assert [display_text(n) for n in names] == [
        "new\\x0aline",
        "tab\\x09here",
        "nul\\x00",
        "bidi\\u202eevil",
        "byte\\xff",
        "zero\\u200bwidth",
        "\\ufffe",
    ]
    graph = {
        "nodes": [node(0, "/bin/a", "executable")]
        + [
            {"id": f"n{i}", "path": f"/lib/{n}", "label": n, "kind": "library", "soname": None, "missing": False}
            for i, n in enumerate(names, 1)
        ],
        "edges": [],
    }
    ids = by_id(svg_of(graph))
    for index, name in enumerate(names, 1):
        assert texts(ids[f"n{index}"]) == [label_text(name)]
        assert tooltip(ids[f"n{index}"]).split("\n")[0] == "/lib/" + display_text(name)


# --- rendering -------------------------------------------------------------------------------------


def test_pdf_renders(tmp_path: Path) -> None:
    pdf = render(to_dot(hostile_graph(), HOSTILE_TITLE), "pdf")
    assert pdf.startswith(b"%PDF-")
    assert_pdf_rasterizes(pdf, tmp_path)


def assert_pdf_rasterizes(pdf: bytes, folder: Path) -> None:
    (folder / "d.pdf").write_bytes(pdf)
    subprocess.run(
        ["pdftoppm", "-png", "-r", "50", "-f", "1", "-l", "1", str(folder / "d.pdf"), str(folder / "page")],
        check=True,
        capture_output=True,
        timeout=120,
    )
    pages = list(folder.glob("page*.png"))
    assert len(pages) == 1 and pages[0].stat().st_size > 1000
    assert pages[0].read_bytes().startswith(PNG_MAGIC)


def test_png_renders() -> None:
    png = render(to_dot(sample_graph(), TITLE), "png")
    assert png.startswith(PNG_MAGIC) and len(png) > 1000


def test_graphviz_refusing_the_dot_is_a_diagram_error() -> None:
    with pytest.raises(DiagramError, match=r"Graphviz could not draw the diagram: .*syntax error"):
        render("digraph {", "svg")
    with pytest.raises(DiagramError, match="no diagram format"):
        render(to_dot(sample_graph()), "gif")


def test_without_graphviz_the_error_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(DiagramError, match=r"install graphviz.*scripts/setup\.sh"):
        render(to_dot(sample_graph()), "svg")


# --- the CSV export and download names -------------------------------------------------------------


def test_csv_rows_and_formula_injection() -> None:
    found = {
        "module": {"path": "/lib/libapcfg.so"},
        "declared": [
            {
                "soname": "libnvram.so",
                "position": 0,
                "to": "/lib/libnvram.so",
                "status": "used",
                "symbols": ["nvram_get"],
            }
        ],
        "used": [{"soname": "libnvram.so", "to": "/lib/libnvram.so", "symbols": ["nvram_get"]}],
        "declared_unused": [],
        "hidden": [{"soname": '=HYPERLINK("http://x")', "to": "/lib/libutility.so", "symbols": ["+a", "b"]}],
        "missing": [{"soname": "@SUM(1)"}],
        "used_by": [{"module": "/bin/busybox", "status": "used", "symbols": ["-x"]}],
        "unresolved": [{"symbol": "util_bar", "version": "V1", "weak": False, "executables": ["/bin/busybox"]}],
        "duplicates": [
            {
                "symbol": "dup_fn",
                "providers": ["/lib/a.so", "/lib/b.so"],
                "chosen": "/lib/a.so",
                "executables": ["/usr/bin/t"],
            }
        ],
    }
    rows = list(csv.reader(io.StringIO(analysis_csv(found))))
    assert rows[0] == ["section", "from", "to", "soname", "status", "symbols", "executables"]
    assert rows[1:] == [
        ["declared", "/lib/libapcfg.so", "/lib/libnvram.so", "libnvram.so", "used", "nvram_get", ""],
        ["used", "/lib/libapcfg.so", "/lib/libnvram.so", "libnvram.so", "used", "nvram_get", ""],
        ["hidden", "/lib/libapcfg.so", "/lib/libutility.so", '\'=HYPERLINK("http://x")', "hidden", "'+a b", ""],
        ["missing", "/lib/libapcfg.so", "", "'@SUM(1)", "missing", "", ""],
        ["used-by", "/bin/busybox", "/lib/libapcfg.so", "", "used", "'-x", ""],
        ["unresolved", "/lib/libapcfg.so", "", "", "strong", "util_bar@V1", "/bin/busybox"],
        ["duplicate", "/lib/a.so", "", "", "chosen", "dup_fn", "/usr/bin/t"],
        ["duplicate", "/lib/b.so", "", "", "interposed", "dup_fn", "/usr/bin/t"],
    ]
    assert [spreadsheet_safe(v) for v in ["\tx", "\rx", "a=b", None]] == ["\\x09x", "\\x0dx", "a=b", ""]


def test_download_names_are_sanitised() -> None:
    assert download_name("/bin/busybox", ".pdf") == "busybox.pdf"
    assert download_name('/lib/a"b;\r\nc d.so', ".png") == "a_b_c_d.so.png"
    assert download_name("/..", ".svg") == "file.svg"
    assert download_name("/lib/é.so", "-analysis.csv") == "_.so-analysis.csv"


# --- end to end: the article's busybox -------------------------------------------------------------


# article_db and client: the article scanned into a LadybugDB and Flask's test client on it
# (tests/support/viewer_client.py)


def test_cli_draws_the_article_picture(article_db: Path, tmp_path: Path) -> None:
    out = tmp_path / "busybox.svg"
    proc = linkgraph("diagram", BUSYBOX, "--db", str(article_db), "-o", str(out))
    assert proc.returncode == 0 and proc.stdout == ""
    assert proc.stderr.startswith(f"{BUSYBOX}: ") and str(out) in proc.stderr
    svg = ET.fromstring(out.read_bytes())
    ids = by_id(svg)
    path_of = {
        i: tooltip(el).split("\n")[0]
        for i, el in ids.items()
        if "node" in classes(el) and not {"legend", "title-block"} & classes(el)
    }
    assert path_of["n0"] == BUSYBOX and classes(ids["n0"]) == {"node", "executable", "root", "licence-gpl"}
    assert texts(ids["n0"]) == ["busybox", "GPL-2.0-only"]  # the knowledge base knows busybox
    utility = next(i for i, p in path_of.items() if p == UTIL)
    assert texts(ids[utility]) == ["libutility.so", "licence unknown"] and "licence-unknown" in classes(ids[utility])
    assert "Licence class" in texts(ids["legend"])
    edges = {
        (path_of[a], path_of[b]): el
        for el in ids.values()
        if "edge" in classes(el) and "legend" not in classes(el)
        for a, b in [edge_ends(el)]
    }

    def drawn(tail: str, head: str) -> tuple[set[str], tuple[str | None, str | None], list[str]]:
        group = edges[(tail, head)]
        return classes(group), stroke_of(group), texts(group)

    assert drawn(BUSYBOX, UTIL) == ({"edge", "used"}, ("black", None), ["1"])
    assert drawn(BUSYBOX, APCFG) == ({"edge", "used"}, ("black", None), ["1"])
    assert drawn(BUSYBOX, NVRAM) == ({"edge", "declared-unused"}, (BLUE, "5,2"), [])
    assert drawn(BUSYBOX, APLOG) == ({"edge", "declared-unused"}, (BLUE, "5,2"), [])
    assert drawn(APCFG, UTIL) == ({"edge", "hidden"}, (RED, None), ["1"])
    assert drawn(APCFG, APLOG) == ({"edge", "hidden"}, (RED, None), ["1"])
    assert tooltip(edges[(APCFG, UTIL)]).split("\n")[-1] == "util_bar"
    block = title_rows(ids["legend"])
    assert block["Firmware"] == "root" and block["File"] == BUSYBOX
    assert block["version"] == f"linkgraph {__version__}" and len(block["SHA-256"]) == 64


def test_cli_pdf_png_dot_and_stdout(article_db: Path, tmp_path: Path) -> None:
    linkgraph("diagram", "/bin/sh", "--db", str(article_db), "-o", str(tmp_path / "busybox.pdf"))
    assert_pdf_rasterizes((tmp_path / "busybox.pdf").read_bytes(), tmp_path)
    linkgraph("diagram", BUSYBOX, "--db", str(article_db), "-o", str(tmp_path / "x.img"), "--format", "png")
    assert (tmp_path / "x.img").read_bytes().startswith(PNG_MAGIC)
    dot = linkgraph("diagram", BUSYBOX, "--db", str(article_db), "-o", "-", "--format", "dot").stdout
    assert dot.startswith("digraph linkgraph {") and 'id="legend"' in dot
    svg = linkgraph("diagram", BUSYBOX, "--db", str(article_db), "-o", "-").stdout
    assert ET.fromstring(svg.encode()).tag == f"{SVG}svg"


def test_cli_unknown_file_is_a_one_line_error(article_db: Path, tmp_path: Path) -> None:
    proc = linkgraph("diagram", "/bin/nothing", "--db", str(article_db), "-o", str(tmp_path / "x.svg"), check=False)
    assert proc.returncode == 2 and not (tmp_path / "x.svg").exists()
    assert proc.stderr.count("\n") == 1 and "/bin/nothing" in proc.stderr
    proc = linkgraph("diagram", BUSYBOX, "--db", str(article_db), "-o", str(tmp_path / "x.gif"), check=False)
    assert proc.returncode == 2 and "--format" in proc.stderr


def test_viewer_downloads(client: Any, tmp_path: Path) -> None:
    fw = client.get("/api/firmware").get_json()[0]["id"]
    svg = client.get(f"/api/firmware/{fw}/diagram.svg", query_string={"path": BUSYBOX})
    assert svg.status_code == 200 and svg.mimetype == "image/svg+xml"
    assert by_id(ET.fromstring(svg.data))["n0"] is not None
    assert "default-src 'none'" in svg.headers["Content-Security-Policy"]
    pdf = client.get(f"/api/firmware/{fw[:12]}/diagram.pdf", query_string={"path": BUSYBOX})
    assert pdf.status_code == 200 and pdf.mimetype == "application/pdf"
    assert pdf.headers["Content-Disposition"] == 'attachment; filename="busybox.pdf"'
    assert_pdf_rasterizes(pdf.data, tmp_path)
    png = client.get(f"/api/firmware/{fw}/diagram.png", query_string={"path": BUSYBOX})
    assert png.mimetype == "image/png" and png.data.startswith(PNG_MAGIC)
    assert client.get(f"/api/firmware/{fw}/diagram.gif", query_string={"path": BUSYBOX}).status_code == 404
    assert client.get(f"/api/firmware/{fw}/diagram.svg").status_code == 400
    missing = client.get(f"/api/firmware/{fw}/diagram.svg", query_string={"path": "/nope"})
    assert missing.status_code == 404 and "/nope" in missing.get_json()["error"]
    assert client.get("/api/firmware/0000/diagram.svg", query_string={"path": BUSYBOX}).status_code == 404


def test_viewer_csv(client: Any) -> None:
    fw = client.get("/api/firmware").get_json()[0]["id"]
    answer = client.get(f"/api/firmware/{fw}/analysis.csv", query_string={"path": APCFG})
    assert answer.status_code == 200 and answer.mimetype == "text/csv"
    assert answer.headers["Content-Disposition"] == 'attachment; filename="libapcfg.so-analysis.csv"'
    rows = list(csv.DictReader(io.StringIO(answer.get_data(as_text=True))))
    hidden = {(r["to"], r["symbols"]) for r in rows if r["section"] == "hidden"}
    assert hidden == {(UTIL, "util_bar"), (APLOG, "aplog_write")}
    assert {(r["from"], r["status"]) for r in rows if r["section"] == "used-by"} == {(BUSYBOX, "used")}
    assert client.get(f"/api/firmware/{fw}/analysis.csv").status_code == 400


# --- exports: standard pages, resolution ------------------------------------------------------------


def pdf_pages(pdf: bytes, folder: Path) -> list[str]:
    """pdfinfo's "Page size" of each page (poppler-utils, installed by scripts/setup.sh)."""
    (folder / "p.pdf").write_bytes(pdf)
    out = subprocess.run(
        ["pdfinfo", "-f", "1", "-l", "99", str(folder / "p.pdf")], check=True, capture_output=True, text=True
    ).stdout
    return [line.split(":", 1)[1].strip() for line in out.splitlines() if line.startswith("Page") and "size" in line]


def png_size(png: bytes) -> tuple[int, int]:
    assert png.startswith(PNG_MAGIC) and png[12:16] == b"IHDR"
    return int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")


def test_cli_pdf_is_one_standard_page_and_png_twice_the_resolution(article_db: Path, tmp_path: Path) -> None:
    a4 = tmp_path / "a4.pdf"
    linkgraph("diagram", BUSYBOX, "--db", str(article_db), "-o", str(a4))
    linkgraph("diagram", BUSYBOX, "--db", str(article_db), "-o", str(tmp_path / "drawn.svg"))
    svg_of_busybox = (tmp_path / "drawn.svg").read_bytes()
    # A4 in the orientation that shows busybox's drawing larger, on as few pages as keep its text >= 8 pt
    sheets = page_layout(svg_size(svg_of_busybox), PageSize.A4, drawing_boxes(svg_of_busybox))
    sizes = [p.split(" pts")[0] for p in pdf_pages(a4.read_bytes(), tmp_path)]
    assert set(sizes) == {"841.89 x 595.276" if sheets.landscape else "595.276 x 841.89"}
    assert len(sizes) == sheets.pages
    text = subprocess.run(["pdftotext", str(a4), "-"], check=True, capture_output=True, text=True).stdout
    assert "libgcc_s.so.1" in text and "busybox" in text and "declared-unused" in text  # text, not pictures
    letter = tmp_path / "letter.pdf"
    linkgraph("diagram", BUSYBOX, "--db", str(article_db), "-o", str(letter), "--page", "letter")
    on_letter = page_layout(svg_size(svg_of_busybox), PageSize.LETTER, drawing_boxes(svg_of_busybox))
    assert {p.split(" pts")[0] for p in pdf_pages(letter.read_bytes(), tmp_path)} == {
        "792 x 612" if on_letter.landscape else "612 x 792"
    }

    svg = tmp_path / "b.svg"
    linkgraph("diagram", BUSYBOX, "--db", str(article_db), "-o", str(svg))
    root = ET.fromstring(svg.read_bytes())
    width_pt, height_pt = (float(root.get(k).removesuffix("pt")) for k in ("width", "height"))
    for dpi, args in ((192, []), (300, ["--dpi", "300"])):
        png = tmp_path / f"b{dpi}.png"
        linkgraph("diagram", BUSYBOX, "--db", str(article_db), "-o", str(png), *args)
        w, h = png_size(png.read_bytes())
        assert abs(w - width_pt * dpi / 72) <= 2 and abs(h - height_pt * dpi / 72) <= 2, (dpi, w, h)
    proc = linkgraph("diagram", BUSYBOX, "--db", str(article_db), "-o", str(png), "--dpi", "5", check=False)
    assert proc.returncode == 2 and "--dpi" in proc.stderr


def test_page_layout_turns_wide_drawings_to_landscape() -> None:
    assert page_layout((1200, 500), PageSize.A4).landscape is True
    assert page_layout((300, 900), PageSize.A4).landscape is False
    small = page_layout((100, 50), PageSize.LETTER)
    assert small.landscape and small.pages == 1 and small.scale == MAX_ENLARGE  # enlarged to fill, not without end


def test_page_layout_splits_rather_than_shrinking_text_below_8_pt() -> None:
    # minidlna's drawing on the D-Link root: 3219 x 1028 pt; on one A4 page its 9 pt text would print at 2.2 pt
    sheets = page_layout((3219, 1028), PageSize.A4)
    assert sheets.pages > 1 and sheets.scale * SMALLEST_FONT_PT >= MIN_TEXT_PT
    # the fewest pages: one fewer column or row would need a smaller scale than 8 pt text allows
    short, long = PageSize.A4.portrait_pt
    room = (long, short) if sheets.landscape else (short, long)
    room_w = room[0] - 2 * MARGIN_MM * MM_PT
    assert (sheets.columns - 1) * room_w / 3219 < MIN_SCALE
    just_fits = page_layout((700, 480), PageSize.A4)
    assert just_fits.pages == 1 and just_fits.scale >= MIN_SCALE


def test_viewer_diagram_options(client: Any, tmp_path: Path) -> None:
    fw = client.get("/api/firmware").get_json()[0]["id"]
    screen = client.get(f"/api/firmware/{fw}/diagram.svg", query_string={"path": BUSYBOX, "view": "screen"})
    ids = by_id(ET.fromstring(screen.data))
    assert "n0" in ids and "legend" not in ids  # the viewer shows legend and title block as HTML
    assert "legend" in by_id(ET.fromstring(client.get(f"/api/firmware/{fw}/diagram.svg?path={BUSYBOX}").data))
    letter = client.get(f"/api/firmware/{fw}/diagram.pdf", query_string={"path": BUSYBOX, "page": "letter"})
    drawn = client.get(f"/api/firmware/{fw}/diagram.svg?path={BUSYBOX}").data
    landscape = page_layout(svg_size(drawn), PageSize.LETTER, drawing_boxes(drawn)).landscape
    assert {p.split(" pts")[0] for p in pdf_pages(letter.data, tmp_path)} == {"792 x 612" if landscape else "612 x 792"}
    assert client.get(f"/api/firmware/{fw}/diagram.pdf?path={BUSYBOX}&page=a3").status_code == 400
    assert client.get(f"/api/firmware/{fw}/diagram.png?path={BUSYBOX}&dpi=99999").status_code == 400
    small = png_size(client.get(f"/api/firmware/{fw}/diagram.png?path={BUSYBOX}&dpi=96").data)
    large = png_size(client.get(f"/api/firmware/{fw}/diagram.png?path={BUSYBOX}").data)
    assert abs(large[0] - 2 * small[0]) <= 2 and abs(large[1] - 2 * small[1]) <= 2, (small, large)
    # direct only: busybox and what it declares; the JSON the viewer maps the drawing with
    whole = client.get(f"/api/firmware/{fw}/diagram.json?path={BUSYBOX}").get_json()
    direct = client.get(f"/api/firmware/{fw}/diagram.json?path={BUSYBOX}&direct=1").get_json()
    assert {e["from"] for e in direct["edges"]} == {"n0"} and len(direct["edges"]) < len(whole["edges"])
    assert {n["id"] for n in direct["nodes"]} == {"n0"} | {e["to"] for e in direct["edges"]}
    drawn = by_id(ET.fromstring(client.get(f"/api/firmware/{fw}/diagram.svg?path={BUSYBOX}&direct=1").data))
    assert {i for i in drawn if i.startswith("e")} == {e["id"] for e in direct["edges"]}


def test_cli_direct_only(article_db: Path) -> None:
    whole = linkgraph("diagram", BUSYBOX, "--db", str(article_db), "-o", "-", "--format", "dot").stdout
    direct = linkgraph("diagram", BUSYBOX, "--db", str(article_db), "-o", "-", "--format", "dot", "--direct").stdout
    edges = [line.split()[0] for line in direct.splitlines() if " -> " in line and "style=invis" not in line]
    assert edges and set(edges) == {"n0"}  # busybox's own edges
    assert len(edges) < sum(1 for line in whole.splitlines() if " -> " in line and "style=invis" not in line)
