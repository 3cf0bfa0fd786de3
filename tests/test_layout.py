"""The repository reads as the pipeline: one package per stage, imports that only go down the
stack, a read side free of the web framework, small modules. ``tools/`` holds the scripts that
rebuild the package's data files: small modules too, and never imported by the package.

The import graph is read from the sources (``ast``), at package granularity: an edge P -> Q for
every module of package P that imports a module of package Q. The packages must form a DAG.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
FOLDERS = {"linkgraph": "linkgraph", "loader": "linkgraph.loader", "viewer": "linkgraph.viewer",
           "cypher": "linkgraph.cypher"}  # fmt: skip
MAX_LINES = 300
WEB = ("flask", "werkzeug", "jinja2")
# the framework-free side: everything the CLI and the viewer share
FRAMEWORK_FREE = ("linkgraph.loader",)


def modules() -> dict[str, Path]:
    """Dotted name -> file, for every module of the installed packages."""
    out: dict[str, Path] = {}
    for folder, package in FOLDERS.items():
        for path in (REPO / folder).rglob("*.py"):
            parts = list(path.relative_to(REPO / folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join([package, *parts])] = path
    return out


def package_of(module: str, known: dict[str, Path]) -> str:
    """The package a module belongs to (itself, when it is a package's ``__init__``)."""
    return module if known[module].name == "__init__.py" else module.rsplit(".", 1)[0]


def imports_of(module: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The linkgraph modules (and third-party top-level names) ``module`` imports."""
    package = package_of(module, known)
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.add(target)
            found.update(f"{target}.{alias.name}" for alias in node.names if f"{target}.{alias.name}" in known)
    return found


def package_graph() -> dict[str, set[str]]:
    known = modules()
    graph: dict[str, set[str]] = {}
    for module, path in known.items():
        source = package_of(module, known)
        for target in imports_of(module, path, known) & known.keys():
            if (dest := package_of(target, known)) != source:
                graph.setdefault(source, set()).add(dest)
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph`` (iteratively, depth first), or None."""
    state: dict[str, int] = {}
    for start in sorted(graph):
        if state.get(start):
            continue
        stack = [(start, iter(sorted(graph.get(start, ()))))]
        path = [start]
        state[start] = 1
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                state[node] = 2
                stack.pop()
                path.pop()
            elif state.get(child) == 1:
                return [*path[path.index(child) :], child]
            elif not state.get(child):
                state[child] = 1
                stack.append((child, iter(sorted(graph.get(child, ())))))
                path.append(child)
    return None


def test_packages_import_each_other_without_a_cycle() -> None:
    graph = package_graph()
    assert "linkgraph.loader.elf" in graph  # the graph was read at all
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle between packages: " + " -> ".join(cycle or [])


def test_a_parent_package_does_not_import_its_stages() -> None:
    """``linkgraph.loader``'s own modules (errors, model, rootfs) are shared by every stage: they
    import none of them, so the stages only ever import down."""
    known = modules()
    for module, path in known.items():
        if package_of(module, known) == "linkgraph.loader":
            assert not {t for t in imports_of(module, path, known) if t.startswith("linkgraph.loader.")
                        and package_of(t, known) != "linkgraph.loader"}, module  # fmt: skip


def test_nothing_but_the_cli_imports_the_cli() -> None:
    known = modules()
    for module, path in known.items():
        if not module.startswith("linkgraph.cli"):
            assert not {t for t in imports_of(module, path, known) if t.startswith("linkgraph.cli")}, module


def test_the_read_side_and_the_pipeline_know_no_web_framework() -> None:
    known = modules()
    for module, path in known.items():
        if module.startswith(FRAMEWORK_FREE):
            web = {t for t in imports_of(module, path, known) if t.split(".")[0] in WEB}
            assert not web, f"{module} imports {web}"
            assert not {t for t in imports_of(module, path, known) if t.startswith("linkgraph.viewer")}, module


def test_no_module_is_over_the_limit() -> None:
    sizes = {str(p.relative_to(REPO)): len(p.read_text().splitlines()) for p in modules().values()}
    long = {path: n for path, n in sizes.items() if n > MAX_LINES}
    assert not long, f"modules over {MAX_LINES} lines: {long}"


def test_the_tools_are_small_and_the_package_never_imports_them() -> None:
    tools = REPO / "tools"
    own = {p.stem for p in tools.iterdir() if p.suffix == ".py" or (p / "__init__.py").exists()} | {"tools"}
    long = {
        str(p.relative_to(REPO)): n for p in tools.rglob("*.py") if (n := len(p.read_text().splitlines())) > MAX_LINES
    }
    assert not long, f"tools over {MAX_LINES} lines: {long}"
    known = modules()
    found = {m: t for m, path in known.items() for t in imports_of(m, path, known) if t.split(".")[0] in own}
    assert own > {"tools"} and not found, f"the package imports tools/: {found}"


CYPHER_START = re.compile(r"^\s*(MATCH|OPTIONAL MATCH|UNWIND|CREATE|MERGE|COPY|CALL|ALTER|DROP|WITH|RETURN)\s")


def test_no_cypher_text_outside_the_cypher_package() -> None:
    """Queries live in cypher/ (named .cypher files, and the statements the schema derives);
    Python elsewhere passes names and parameters, never builds Cypher text."""
    found = []
    for module, path in modules().items():
        if module.startswith("linkgraph.cypher"):
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and CYPHER_START.match(node.value):
                found.append(f"{path.relative_to(REPO)}:{node.lineno}: {node.value[:60]!r}")
            elif isinstance(node, ast.JoinedStr):
                head = next((v.value for v in node.values if isinstance(v, ast.Constant)), "")
                if isinstance(head, str) and CYPHER_START.match(head):
                    found.append(f"{path.relative_to(REPO)}:{node.lineno}: f-string {head[:60]!r}")
    assert not found, "Cypher outside cypher/:\n" + "\n".join(found)


def test_only_the_flavour_classes_name_a_flavour() -> None:
    """Differences between glibc, musl and uClibc are constants and methods of their flavour classes
    (``loader/ldso/flavours.py``); nothing else asks which C library it is (``Flavour.MUSL``)."""
    found = [
        f"{path.relative_to(REPO)}:{node.lineno}: Flavour.{node.attr}"
        for module, path in modules().items()
        if module != "linkgraph.loader.ldso.flavours"
        for node in ast.walk(ast.parse(path.read_text(), str(path)))
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "Flavour"
        and node.attr in ("GLIBC", "MUSL", "UCLIBC")
    ]
    assert not found, "flavour checks outside the flavour classes:\n" + "\n".join(found)
