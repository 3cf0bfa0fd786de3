"""The per-file dependency diagram as Graphviz DOT, and its rendering to SVG, PDF or PNG.

``to_dot(graph, title)`` turns the graph JSON of docs/viewer.md into DOT in the drawing conventions of
the viewer: used = solid black with the symbol count, declared-unused = dashed blue, hidden = solid red
with the symbol count, missing = dotted grey to a grey dashed "missing" node. Executables are boxes,
libraries ellipses, kernel modules hexagons, other ELF files notes; the file asked for (``n0``) is
drawn bold. A module node that carries licence keys (``licence``, ``licence_class``: the graph JSON of
docs/viewer.md) shows its licence below its name ("GPL-2.0-only", or "licence unknown", in lines no
wider than the name or ``LICENCE_WIDTH`` characters) and is outlined and filled in the colours of its
licence class (``LICENCE_STYLES``: gpl, lgpl, permissive, incompatible, unknown; class
``licence-CLASS`` on its ``<g>``); graphs without licence keys are drawn as before. ``highlight`` (edge
ids, or ``(from, to)`` pairs of node ids or paths) draws some edges thicker (class ``highlight``), so
that a finding's path stands out. Below the graph, as on a drawing, sits one compact foot block (node
``id="legend"``, ``diagram_legend``): the edge statuses, the licence classes when any node has a
licence, and the title block when given; ``legend=False`` leaves it out (the viewer shows it as HTML
beside the drawing). A folded plugin family (``graph_view``, kind ``group``) is a folder shape whose
tooltip lists its members. ``render(dot, fmt, dpi)`` runs Graphviz's ``dot`` (``engine=PLACED``: the
modules where ``to_dot(positions=…)`` put them, the edges routed by ``neato -n2``).

In the SVG every element a browser looks for has a stable id and class: Graphviz (2.43 and later)
writes the DOT ``id`` and ``class`` attributes onto the ``<g>`` element and prefixes its own
``node`` / ``edge`` / ``cluster``, so a module is ``<g id="n0" class="node executable root">``, a
missing soname ``class="node missing"``, an edge ``<g id="e0" class="edge hidden">``; the ids are the
graph JSON's ``n…`` / ``e…`` (never firmware text). Tooltips (``<a xlink:title>``) give a module's
full path, an edge's ends, soname and its first ``TOOLTIP_SYMBOLS`` symbols ("… N more").

Every name is firmware text and hostile until shown otherwise: ``dot_text`` makes it safe.
"""

from __future__ import annotations

import shutil
import subprocess
from typing import Any

from ..loader.errors import DiagramError
from ..loader.report.analysis import UNDECLARED
from .diagram_legend import foot_block
from .dot_text import Html, attrs, display_text, html_text, label_text, shorten
from .drawing_style import (
    COUNTED,
    EDGE_STYLES,
    HIGHLIGHT_PENWIDTH,
    KINDS,
    LICENCE_NAMES,
    LICENCE_STYLES,
    MISSING_NODE,
    UNKNOWN_LICENCE,
    UNKNOWN_STYLE,
    TitleBlock,
)
from .graph_view import GROUP_KIND
from .source_style import NO_SOURCE_MARK, NO_SOURCE_PERIPHERIES, no_source

TOOLTIP_SYMBOLS = 20
RENDER_TIMEOUT = 120
FORMATS = ("svg", "pdf", "png")
LAYERED = ("dot",)
PLACED = ("neato", "-n2")  # the modules where to_dot(positions=…) put them, the edges routed

LICENCE_POINTS = 10  # the licence line's size (the module's name: 11)
LICENCE_WIDTH = 20  # characters a licence line may hold when the module's name is shorter

_IDENTIFIER_DIGITS = 9


def wrapped(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width`` characters, broken at spaces (a longer word alone); text
    with runs of spaces or spaces at its ends stays one line (Graphviz would change those spaces)."""
    if "  " in text or text != text.strip(" "):
        return [text]
    lines: list[str] = []
    for word in text.split(" "):
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines


def _identifier(raw: Any, prefix: str, index: int) -> str:
    """The graph JSON's id when it is of the form n12 / e7, else one made from the position."""
    text = str(raw)
    digits = text[1:]
    if text[:1] == prefix and digits.isascii() and digits.isdigit() and len(digits) <= _IDENTIFIER_DIGITS:
        return text
    return f"{prefix}{index}"


def _symbol_lines(symbols: list[Any], count: int) -> list[str]:
    lines = [display_text(s) for s in symbols[:TOOLTIP_SYMBOLS]]
    if count > len(lines):
        lines.append(f"… {count - len(lines)} more")
    return lines


def licence_of(node: dict[str, Any]) -> tuple[str, str] | None:
    """(licence class, licence text) of a module node, or None for a missing soname or a node without
    licence keys (a graph from before licences)."""
    if node.get("missing") or not ("licence" in node or "licence_class" in node):
        return None
    klass = node.get("licence_class")
    return (klass if klass in LICENCE_STYLES else "unknown"), display_text(node.get("licence") or UNKNOWN_LICENCE)


def _node_statement(node: dict[str, Any], name: str, at: tuple[float, float] | None = None) -> str:
    missing = bool(node.get("missing"))
    kind = "missing" if missing else node["kind"] if node.get("kind") in KINDS else "other-elf"
    root = name == "n0"
    text = html_text(label_text(node.get("label") or node.get("path") or node.get("soname") or "?"))
    text = f"<b>{text}</b>" if root else text
    classes = [kind, "root"] if root else [kind]
    licence = licence_of(node)
    if missing:
        tip = [f"missing: {display_text(node.get('label') or node.get('soname'))}", "no file in the image satisfies it"]
        looks = dict(MISSING_NODE)
    elif kind == GROUP_KIND:
        members = [display_text(m) for m in node.get("members") or []]
        tip = [f"{len(members)} libraries in {display_text(node.get('folder'))}", *members[:TOOLTIP_SYMBOLS]]
        tip += [f"… {len(members) - TOOLTIP_SYMBOLS} more"] if len(members) > TOOLTIP_SYMBOLS else []
        looks = {"shape": KINDS[kind], "penwidth": "1"}
    else:
        tip = [display_text(node.get("path") or node.get("label")), kind]
        tip += [f"soname {display_text(node['soname'])}"] if node.get("soname") else []
        looks = {"shape": KINDS[kind], "penwidth": "2.2" if root else "1"}
    if licence is not None:
        klass, shown = licence
        tip.append(f"licence {shown} ({LICENCE_NAMES[klass]})")
        lines = wrapped(shorten(shown), max(LICENCE_WIDTH, len(label_text(node.get("label") or ""))))
        text += f'<br/><font point-size="{LICENCE_POINTS}">{"<br/>".join(html_text(t) for t in lines)}</font>'
        classes.append(f"licence-{klass}")
        looks.update(style="filled", **LICENCE_STYLES[klass])
    lacking = no_source(node)
    if lacking is not None:  # a mark in words and a double outline, never colour alone
        tip.append(f"{NO_SOURCE_MARK} in the release: {display_text(lacking)}")
        mark = html_text(f"{NO_SOURCE_MARK} ({display_text(lacking)})")
        text += f'<br/><font point-size="{LICENCE_POINTS}"><i>{mark}</i></font>'
        classes.append("no-source")
        looks["peripheries"] = NO_SOURCE_PERIPHERIES
    if at is not None:  # placed (diagram_fit): x,y in points, fixed
        looks["pos"] = f"{at[0]:.2f},{at[1]:.2f}!"
    return (
        f"  {name} "
        + attrs(id=name, **{"class": " ".join(classes)}, tooltip="\n".join(tip), label=Html(text), **looks)
        + ";"
    )


def _edge_statement(
    edge: dict[str, Any], name: str, tail: str, head: str, shown: dict[str, str], highlighted: bool = False
) -> str:
    status = edge["status"] if edge.get("status") in EDGE_STYLES else "unknown"
    symbols = list(edge.get("symbols") or [])
    count = int(edge["count"]) if edge.get("count") is not None else len(symbols)
    tip = [f"{status}: {shown[tail]} → {shown[head]}"]
    if edge.get("soname"):
        soname = display_text(edge["soname"])
        tip.append(f"soname {soname} (not declared)" if status in UNDECLARED else f"DT_NEEDED {soname}")
    if symbols or count:
        tip += [f"{count} symbol{'' if count == 1 else 's'}:", *_symbol_lines(symbols, count)]
    label = {"label": Html(str(count))} if status in COUNTED else {}
    style = dict(EDGE_STYLES.get(status, UNKNOWN_STYLE))
    if highlighted:
        style.update(penwidth=HIGHLIGHT_PENWIDTH, arrowsize="1")
    css = f"{status} highlight" if highlighted else status
    return f"  {tail} -> {head} " + attrs(id=name, **{"class": css}, tooltip="\n".join(tip), **label, **style) + ";"


def _highlighted(edge: dict[str, Any], ends: tuple[Any, Any], highlight: set[Any]) -> bool:
    """Whether ``highlight`` names the edge: by its id, or as (from, to) of node ids or of paths."""
    return (
        str(edge.get("id")) in highlight
        or (str(edge.get("from")), str(edge.get("to"))) in highlight
        or ends in highlight
    )


def to_dot(
    graph: dict[str, Any],
    title: TitleBlock | None = None,
    highlight: set[Any] | None = None,
    legend: bool = True,
    positions: dict[str, tuple[float, float]] | None = None,
) -> str:
    """The DOT source of the per-file diagram of ``graph`` (the graph JSON of docs/viewer.md); the edges
    ``highlight`` names (ids, or (from, to) pairs of node ids or paths) are drawn thicker; ``legend``
    False leaves out the foot block (legend and title block: the viewer shows them beside the drawing).
    ``positions`` (DOT node name -> x, y in points: ``diagram_fit``) places the modules, for
    ``render(…, engine=PLACED)``, which routes the edges around them."""
    names: dict[str, str] = {}  # graph JSON id -> DOT node name
    shown: dict[str, str] = {}  # DOT node name -> what tooltips call it
    paths: dict[str, Any] = {}  # graph JSON id -> path (a missing soname: its label)
    body: list[str] = []
    licences = sources = False
    for index, node in enumerate(graph.get("nodes") or []):
        name = _identifier(node.get("id"), "n", index)
        names[str(node.get("id"))] = name
        paths[str(node.get("id"))] = node.get("path") or node.get("label")
        shown[name] = display_text(node.get("path") or node.get("label") or node.get("soname"))
        licences = licences or licence_of(node) is not None
        sources = sources or no_source(node) is not None
        body.append(_node_statement(node, name, (positions or {}).get(name)))
    for index, edge in enumerate(graph.get("edges") or []):
        tail, head = names.get(str(edge.get("from"))), names.get(str(edge.get("to")))
        if tail and head:
            thick = bool(highlight) and _highlighted(
                edge, (paths.get(str(edge.get("from"))), paths.get(str(edge.get("to")))), highlight or set()
            )
            body.append(_edge_statement(edge, _identifier(edge.get("id"), "e", index), tail, head, shown, thick))
    header = [
        "digraph linkgraph {",
        '  graph [id="diagram" class="linkgraph" rankdir=TB newrank=true nodesep=0.35 ranksep=0.55 '
        'fontname="Helvetica" fontsize=11' + (" splines=true" if positions else "") + "];",
        '  node [fontname="Helvetica" fontsize=11 height=0.35 margin="0.12,0.04"];',
        '  edge [fontname="Helvetica" fontsize=10 arrowsize=0.7];',
    ]
    if not legend:
        return "\n".join([*header, *body, "}"]) + "\n"
    # the legend (and title block) below every module, as on a drawing
    foot = [foot_block(licences, title, sources)]
    foot += [f"  {name} -> legend [style=invis weight=0];" for name in shown]
    return "\n".join([*header, *foot, *body, "}"]) + "\n"


def render(dot_source: str, fmt: str, dpi: int | None = None, engine: tuple[str, ...] = LAYERED) -> bytes:
    """``dot_source`` rendered by Graphviz as ``svg``, ``pdf`` or ``png`` (``dpi``: a PNG's resolution,
    Graphviz's default 96 when None; ``engine``: Graphviz's layered layout, or ``PLACED`` for modules
    placed by ``to_dot(positions=…)``), or as Graphviz's ``plain`` text (sizes and places); ``plain+svg``
    gives both from one layout, one after the other (the text ends with a line ``stop``)."""
    formats = fmt.split("+")
    if not set(formats) <= {*FORMATS, "plain"}:
        raise DiagramError(f"no diagram format {fmt!r}: choose one of {', '.join(FORMATS)}")
    dot = shutil.which(engine[0])
    if dot is None:
        raise DiagramError(
            "Graphviz is not installed (no `dot` program): install graphviz "
            "(`bash scripts/setup.sh` installs it, or `apt-get install graphviz`)"
        )
    try:
        proc = subprocess.run(
            [dot, *engine[1:], *(f"-T{f}" for f in formats), *([f"-Gdpi={int(dpi)}"] if dpi and fmt == "png" else [])],
            input=dot_source.encode("utf-8", "backslashreplace"),
            capture_output=True,
            timeout=RENDER_TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        raise DiagramError(f"Graphviz took longer than {RENDER_TIMEOUT} s to draw the diagram") from exc
    except OSError as exc:
        raise DiagramError(f"cannot run Graphviz ({dot}): {exc}") from exc
    if proc.returncode != 0 or not proc.stdout:
        message = proc.stderr.decode("utf-8", "replace").strip() or f"exit status {proc.returncode}"
        raise DiagramError(f"Graphviz could not draw the diagram: {message}")
    return proc.stdout
