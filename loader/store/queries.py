"""Named Cypher queries, read from the ``linkgraph.cypher`` package data.

A file ``NAME.cypher`` is the query NAME; its first line is a ``//`` comment with the
one-line description (``// internal: …`` marks the ones only the pipeline runs). A file
``NAME.ENGINE.cypher`` holds what only one engine understands and says why in that line. A
comment line ``// one thread: WHY`` asks the engine to run the query on one thread (LadybugDB,
where each thread of a big path enumeration holds working memory of its own).
Statements are separated by ``;`` at the end of a line. Every value from the firmware goes in
as a parameter, never into the text.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from importlib import resources

from ..errors import QueryError

_PARAM = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")


@dataclass(frozen=True, slots=True)
class NamedQuery:
    name: str
    description: str
    statements: tuple[str, ...]
    internal: bool
    one_thread: bool = False

    @property
    def parameters(self) -> list[str]:
        found: list[str] = []
        for stmt in self.statements:
            for p in _PARAM.findall(stmt):
                if p not in found:
                    found.append(p)
        return found


def _parse(name: str, text: str) -> NamedQuery:
    lines = text.splitlines()
    first = lines[0].strip() if lines else ""
    if not first.startswith("//"):
        raise QueryError(f"query {name}: the first line must be a // description")
    description = first[2:].strip()
    internal = description.startswith("internal:")
    body = "\n".join(ln for ln in lines[1:] if not ln.lstrip().startswith("//"))
    statements = tuple(s.strip() for s in re.split(r";\s*$", body, flags=re.M) if s.strip())
    one_thread = any(ln.strip().startswith("// one thread:") for ln in lines[1:])
    return NamedQuery(name, description.removeprefix("internal:").strip(), statements, internal, one_thread)


@functools.cache  # the files are the package's own: read and parsed once per process
def load_query(name: str, engine: str | None = None) -> NamedQuery:
    """The query NAME, in the engine's own variant when one exists."""
    base = resources.files("linkgraph.cypher")
    for filename in ([f"{name}.{engine}.cypher"] if engine else []) + [f"{name}.cypher"]:
        entry = base / filename
        if entry.is_file():
            return _parse(name, entry.read_text(encoding="utf-8"))
    from ..near_names import close_names, did_you_mean

    near = did_you_mean(close_names(name, (q.name for q in list_queries())))
    raise QueryError(f"no query named {name!r}{near} (`linkgraph query --list` shows them all)")


def list_queries(include_internal: bool = False) -> list[NamedQuery]:
    names = sorted(
        {
            e.name.removesuffix(".cypher")
            for e in resources.files("linkgraph.cypher").iterdir()
            if e.name.endswith(".cypher") and e.name.count(".") == 1
        }
    )
    queries = [load_query(n) for n in names]
    return [q for q in queries if include_internal or not q.internal]
