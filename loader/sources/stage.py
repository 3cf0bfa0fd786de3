"""The source check of one scanned root against a release index: a ``SourceMatch`` per module, and
the rows the stores write (``Source``, ``Release``, ``LinkLine``, ``ReleaseGap``; cypher/schema.py)."""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Callable, Mapping
from typing import Any

from ...cypher.source_rows import LinkLineRow, ReleaseGapRow, ReleaseRow, SourceRow
from ..model import Kind, Module, ScanResult
from ..problems import Problem, ProblemCode, Severity
from ..rootfs import RootFS
from ..store.graph_rows import GraphRows, key_part
from .dwarf import compile_paths
from .folders import Folders
from .match import Matcher, ModuleInput, SourceMatch
from .model import ReleaseIndex

MAX_MODULE = 64 << 20  # bytes of one module read for its strings
_STT_FUNC, _GLOBAL_OR_WEAK = 2, (1, 2)
_LIBRARY_NAME = re.compile(r"^lib(.+?)(?:[-.][\d.]+)?\.(?:so|a)(?:\.[\d.]+)?$")

Progress = Callable[[int, int], None]


def exported_functions(module: Module) -> tuple[str, ...]:
    return tuple(
        s.name
        for s in module.facts.symbols
        if s.shndx != 0 and s.type == _STT_FUNC and s.bind in _GLOBAL_OR_WEAK and s.name
    )


def check_modules(
    result: ScanResult,
    module_rows: Mapping[str, Mapping[str, Any]],
    index: ReleaseIndex,
    progress: Progress | None = None,
) -> list[SourceMatch]:
    """Every module of ``result`` against the release; ``module_rows``: the Module rows by path. A
    module whose DWARF cannot be read to its end adds a problem to ``result``."""
    matcher = Matcher(index)
    root = RootFS(result.root_dir)
    out = []
    for number, module in enumerate(result.modules):
        row = module_rows[module.path]
        data = root.read_bytes(module.path, MAX_MODULE) or b""
        compiled = compile_paths(data)
        if compiled.problem is not None:
            result.problems.append(
                Problem(module.path, Severity.WARNING, compiled.problem, ProblemCode.DWARF_UNREADABLE)
            )
        found = ModuleInput(
            module.path,
            data,
            row["sha256"],
            row["licence_class"],
            exported_functions(module),
            row.get("component_version"),
            module.facts.kind is Kind.KERNEL_MODULE,
            tuple(compiled.paths),
        )
        out.append(matcher.match(found))
        if progress is not None:
            progress(number + 1, len(result.modules))
    return out


def add_source_rows(
    rows: GraphRows, result: ScanResult, index: ReleaseIndex, progress: Progress | None = None
) -> list[SourceMatch]:
    """Check ``result``'s modules and put the check's tables into ``rows`` (before a store writes them)."""
    fw = rows.firmware
    module_rows = {r["path"]: r for r in rows.nodes["Module"]}
    matches = check_modules(result, module_rows, index, progress)
    source: list[SourceRow] = []
    for found in matches:
        row = module_rows[found.path]
        source.append(
            {
                "id": f"{row['id']}:source",
                "firmware": fw,
                "module": row["id"],
                "status": found.status.value,
                "tier": found.tier.value if found.tier else None,
                "folder": found.folder,
                "package": found.package,
                "version": found.version,
                "identified_version": row.get("component_version"),
                "mismatch": found.mismatch,
                "release_paths": found.release_paths,
                "evidence": json.dumps(found.evidence, ensure_ascii=False) if found.evidence else None,
            }
        )
    rows.nodes["Source"] = source
    release: ReleaseRow = {
        "id": f"{fw[:16]}:release",
        "firmware": fw,
        "name": index.name,
        "key": index.key,
        "files": len(index.files),
        "binaries": sum(f.elf for f in index.files),
        "packages": [f"{p.folder} {p.name} {p.version or ''}".strip() for p in index.packages],
    }
    rows.nodes["Release"] = [release]
    rows.nodes["LinkLine"] = _link_lines(fw, result, module_rows, index)
    gaps: list[ReleaseGapRow] = [
        {"id": f"{fw[:16]}:gap:{n}", "firmware": fw, "kind": g.kind.value, "present": g.present, "detail": g.detail}
        for n, g in enumerate(index.gaps)
    ]
    rows.nodes["ReleaseGap"] = gaps
    return matches


def _link_lines(
    fw: str, result: ScanResult, module_rows: Mapping[str, Mapping[str, Any]], index: ReleaseIndex
) -> list[LinkLineRow]:
    """The release's link lines, each for every library of the firmware whose name it links."""
    libraries: dict[str, list[str]] = {}
    for module in result.modules:
        if module.facts.kind is not Kind.LIBRARY:
            continue
        names = {
            posixpath.basename(module.path),
            module.facts.soname or "",
            *(posixpath.basename(a) for a in module.aliases),
        }
        for name in names:
            match = _LIBRARY_NAME.match(name)
            if match:
                ids = libraries.setdefault(match.group(1), [])
                if module_rows[module.path]["id"] not in ids:
                    ids.append(module_rows[module.path]["id"])
    folders = Folders(index)
    pairs = {
        (library, name, line): None
        for line in index.link_lines
        for name in line.libraries
        for library in libraries.get(name, ())
    }
    taken: set[tuple[str, str, int]] = set()
    out: list[LinkLineRow] = []
    for library, name, line in pairs:
        if (library, line.file, line.line) in taken:  # one row per line and library (-lc -lc, aliases)
            continue
        taken.add((library, line.file, line.line))
        row: LinkLineRow = {
            "id": f"{library}:link:{key_part(line.file)}:{line.line}",
            "firmware": fw,
            "library": library,
            "name": name,
            "file": line.file,
            "line": line.line,
            "text": line.text,
            "folder": folders.of(line.file),
        }
        out.append(row)
    return out
