"""The graph's schema, declared once: every node and edge table, its columns and their types,
as the typed rows (``TypedDict``) the writers build and the stores take.

Everything else derives from it: LadybugDB's DDL (``ladybug_schema``), Neo4j's constraints, indexes
and staged writes (``neo4j_schema``), the Arrow column types of LadybugDB's bulk ``COPY``, the
read-back of ``linkgraph push`` (``read_back``), and the test that compares each store's tables with
it. Labels and column names come from here, never from firmware: every value goes in as a
parameter.

Column order matters to LadybugDB's ``COPY`` (by position): columns added in a later version go
at the end, where ``ALTER TABLE … ADD IF NOT EXISTS`` puts them in an older database.
"""

from __future__ import annotations

from typing import TypedDict

from .source_rows import LinkLineRow, ReleaseGapRow, ReleaseRow, SourceRow
from .table import Table

# --------------------------------------------------------------------------- the rows of each table
# Both stores write exactly these rows, and ``linkgraph push`` reads them back; an edge row also
# holds the ids of its end nodes ("from", "to").


class FirmwareRow(TypedDict):
    id: str
    name: str
    sha256: str
    scanned_at: str
    source: str | None  # JSON: what the firmware was unpacked from


# "class" cannot be a class attribute: the functional form, in column order
ModuleRow = TypedDict(
    "ModuleRow",
    {
        "id": str,
        "firmware": str,
        "path": str,
        "name": str,
        "root": str,
        "kind": str,  # Kind
        "soname": "str | None",
        "machine": str,
        "class": int,
        "endian": str,
        "osabi": str,
        "interpreter": "str | None",
        "needed": "list[str]",
        "aliases": "list[str]",
        "size": int,
        "sha256": str,
        "licence": "str | None",
        "licence_source": str,
        "licence_certainty": "str | None",
        "package": "str | None",
        "licence_class": str,  # LicenceClass
        "sha1": "str | None",  # SPDX 2.3 Files need it; None in a store written before it was kept
        "static": "bool | None",  # a statically linked executable; None in a store written before it was kept
        # what the identification stage (loader.identify) says the module is, None when nothing: its component,
        # version, the whole identification as JSON, and the parts the `components` query reads (licence,
        # certainty, package URL, CPE, evidence: a JSON list of {kind, text, offset})
        "component": "str | None",
        "component_version": "str | None",
        "identity": "str | None",
        "component_licence": "str | None",
        "component_certainty": "str | None",
        "component_purl": "str | None",
        "component_cpe": "str | None",
        "component_evidence": "str | None",
        # the version as a text that sorts like the version (loader.identify.version_order): what
        # `vulnerable-use` compares, as neither store orders versions
        "component_version_key": "str | None",
        # hardening facts (loader.elf.hardening, docs/graph.md), None for a kernel module or a store written
        # before they were kept: PIE, non-executable stack, RELRO (Relro), stack protector, FORTIFY (and the
        # NAMEs of the __NAME_chk functions referenced), TEXTREL, DT_RPATH and DT_RUNPATH as they are
        "pie": "bool | None",
        "nx": "bool | None",
        "relro": "str | None",
        "stack_protector": "bool | None",
        "fortify": "bool | None",
        "fortified": "list[str] | None",
        "textrel": "bool | None",
        "rpath": "str | None",
        "runpath": "str | None",
        # vendor code (loader.identify.vendor, docs/identify.md): whose code a module nothing else names is (a
        # vendor SDK or the device maker), and its evidence, a JSON list of {kind, text, offset}; None when
        # nothing shows one, or in a store written before they were kept
        "origin": "str | None",
        "origin_evidence": "str | None",
    },
)


class ComponentRow(TypedDict):
    """A component found inside a module that does not load it (a static program's libc, a copied
    zlib): the end of a Module-[CONTAINS]->Component edge (docs/identify.md)."""

    id: str
    firmware: str
    name: str
    version: str | None
    licence: str | None
    licence_class: str  # LicenceClass
    purl: str | None
    cpe: str | None


class MissingRow(TypedDict):
    id: str
    firmware: str
    soname: str


class SymbolRow(TypedDict):
    id: str
    firmware: str
    name: str
    version: str | None


class ScopeRow(TypedDict):
    id: str
    firmware: str
    executables: list[str]


class LinkMapRow(TypedDict):
    id: str
    firmware: str
    executable: str
    flavour: str
    objects: list[str]
    missing: list[str]


class DuplicateRow(TypedDict):
    id: str
    firmware: str
    symbol: str
    providers: list[str]
    chosen: str
    executables: list[str]


class ProblemRow(TypedDict):
    id: str
    firmware: str
    path: str | None
    severity: str
    message: str
    code: str


# Licence finding (a), made by the classification (cypher/classify*.cypher), one row per path: a
# module under an incompatible or unknown licence using GPL code through ``hops`` (module paths,
# start to end), each hop holding with its status in the process of every one of ``programs``
FindingRow = TypedDict(
    "FindingRow",
    {
        "id": str,
        "firmware": str,
        "kind": str,  # gpl-used-by
        "module": str,
        "licence": "str | None",
        "class": str,
        "gpl_module": str,
        "gpl_licence": "str | None",
        "hops": "list[str]",
        "statuses": "list[str]",
        "programs": "list[str]",
    },
)


Ends = TypedDict("Ends", {"from": str, "to": str})


class ContainsRow(Ends):
    """Firmware -> Module (its files; no properties), or Module -> Component (a copy inside it)."""

    certainty: str | None  # Certainty of the identification (Module -> Component only)
    evidence: str | None  # JSON list of the evidence: {kind, text, offset}


class NeededRow(Ends):
    soname: str
    position: int
    executables: list[str]
    status: str | None  # Status, set by the classification
    symbols: list[str]  # set by the classification
    rule: str | None  # FoundBy
    directory: str | None
    via: str | None
    tried: list[str]
    found_by: str | None  # JSON, when link maps disagree
    programs: list[str]  # set by the classification: the link maps (executables) it is used in


class HiddenRow(Ends):
    soname: str
    status: str  # hidden; interposed when every binding there is interposition, upcall when the others are upcalls
    symbols: list[str]
    programs: list[str]  # the link maps (executables) whose process holds it with that status


class ResolvesToRow(Ends):
    symbol: str
    version: str | None
    copy: bool
    scope: str  # a Scope id: the link maps the binding holds in
    interposed: bool  # the referencing object's own dependency tree defines it too (ldso.interposition)
    upcall: bool  # the provider's own dependency tree loads the referencing object (ldso.upcalls)


class ProvidesRow(Ends):
    pass


class UnresolvedRow(Ends):
    weak: bool
    scope: str


class KernelRow(TypedDict):
    """The kernel a group of kernel modules is loaded into (docs/kernel.md)."""

    id: str
    firmware: str
    version: str  # the /lib/modules/VERSION folder of its modules ("" for modules elsewhere)
    source: str  # KernelSource: where its exports were read from, "none" when they were not
    exports_from: str | None  # the file its exports were read from
    detail: str  # what was found, or why nothing was
    exports: int


class KernelLinkRow(Ends):
    """A kernel module's symbols bound to another module or to the kernel (docs/kernel.md)."""

    state: str  # Status: used / declared-unused / hidden / missing
    bound: list[str]  # the symbols bound through it
    gpl_only: list[str]  # those of them that are exported GPL-only
    licence: str | None  # the binding module's .modinfo license=, as the kernel reads it


class DlopenRow(Ends):
    """A library the module may load with dlopen (docs/dlopen.md); not part of the classification."""

    certainty: str  # DlopenCertainty: declared, named, pattern
    found_in: str  # FoundIn: note, string, rpath, runpath
    evidence: str  # the soname, string, pattern or folder
    host: str  # the program whose link map it is opened in
    loaded_at_start: bool
    bindings: str | None  # compact JSON of its bindings in the host's link map (loader.dlopen.rows)
    hidden: list[str]  # what those bind to outside the library's own dependencies


NODES: tuple[Table, ...] = (
    Table("Firmware", FirmwareRow),
    Table("Module", ModuleRow, indexed=("firmware", "path", "soname", "name", "sha256", "licence")),
    Table("Missing", MissingRow, indexed=("firmware",)),
    Table("Symbol", SymbolRow, indexed=("firmware", "name")),
    Table("Scope", ScopeRow, indexed=("firmware", "id")),
    Table("LinkMap", LinkMapRow, indexed=("firmware",)),
    Table("Duplicate", DuplicateRow, indexed=("firmware",)),
    Table("Problem", ProblemRow, indexed=("firmware",)),
    Table("Kernel", KernelRow, indexed=("firmware",)),
    Table("Component", ComponentRow, indexed=("firmware", "name")),
    Table("Finding", FindingRow, indexed=("firmware",), written=False),
    Table("Source", SourceRow, indexed=("firmware", "module")),
    Table("Release", ReleaseRow, indexed=("firmware",)),
    Table("LinkLine", LinkLineRow, indexed=("firmware", "library")),
    Table("ReleaseGap", ReleaseGapRow, indexed=("firmware",)),
)
EDGES: tuple[Table, ...] = (
    Table("CONTAINS", ContainsRow, ends=(("Firmware", "Module"), ("Module", "Component"))),
    Table("NEEDED", NeededRow, ends=(("Module", "Module"), ("Module", "Missing"))),
    Table("HIDDEN", HiddenRow, ends=(("Module", "Module"),), written=False),
    Table("RESOLVES_TO", ResolvesToRow, ends=(("Module", "Module"),)),
    Table("PROVIDES", ProvidesRow, ends=(("Module", "Symbol"),)),
    Table("UNRESOLVED", UnresolvedRow, ends=(("Module", "Symbol"),)),
    Table("KERNEL_LINK", KernelLinkRow, ends=(("Module", "Module"), ("Module", "Kernel"), ("Module", "Missing"))),
    Table("DLOPEN", DlopenRow, ends=(("Module", "Module"),)),
)
TABLES: dict[str, Table] = {t.name: t for t in (*NODES, *EDGES)}
# filled in by the classification, not by the writers (an edge read back leaves them out)
CLASSIFIED = frozenset({"status", "symbols", "programs"})
