"""The identification stage over a root's modules: one pass over each file's string ranges."""

from __future__ import annotations

import os
from dataclasses import replace

from ..model import Certainty, Module
from ..problems import Problem, ProblemCode, Severity
from ..rootfs import RootFS, display_path
from .decide import decide
from .matcher import match_file
from .model import Evidence, EvidenceKind, ModuleIdentity
from .table import components

COMPRESSED = (".gz", ".xz", ".zst")  # compressed kernel modules: their bytes are not the module's


def identify_modules(root: RootFS, modules: list[Module], problems: list[Problem]) -> dict[str, ModuleIdentity]:
    """What each module is and contains (by path); only modules where something was found."""
    table = components()
    out: dict[str, ModuleIdentity] = {}
    for module in modules:
        hits = []
        if not module.path.endswith(COMPRESSED):
            try:
                with open(root.host_path(module.path), "rb") as fh:
                    hits = match_file(fh, os.fstat(fh.fileno()).st_size)
            except OSError as exc:
                problems.append(
                    Problem(
                        display_path(module.path),
                        Severity.WARNING,
                        f"not identified: {exc.strerror or type(exc).__name__}",
                        ProblemCode.READ_FAILED,
                    )
                )
        found = decide(module, hits, table)
        if found.own is not None or found.contains:
            out[module.path] = found
    _root_versions(out)
    return out


def _root_versions(found: dict[str, ModuleIdentity]) -> None:
    """A contained component without a version of its own (a static program's libc rarely says)
    takes the version of the root's own copy of it, when the root has exactly one: the firmware
    was built with one toolchain. The evidence says where the version comes from."""
    versions: dict[str, set[tuple[str, str]]] = {}
    for path, ident in found.items():
        if ident.own is not None and ident.own.version:
            versions.setdefault(ident.own.component, set()).add((ident.own.version, path))
    for ident in found.values():
        for i, inside in enumerate(ident.contains):
            known = versions.get(inside.component, set())
            if inside.version or len({v for v, _p in known}) != 1:
                continue
            version, path = min(known)
            comp = next(c for c in components() if c.name == inside.component)
            note = Evidence(EvidenceKind.ROOT, f"version of the root's own {inside.component}: {display_path(path)}")
            ident.contains[i] = replace(
                inside,
                version=version,
                licence=inside.licence if inside.certainty is Certainty.DECLARED else comp.licence_of(version),
                evidence=(*inside.evidence, note),
                purl=comp.purl_of(version),
                cpe=comp.cpe_of(version),
            )
