"""The runtime oracle's result per program (:class:`RuntimeTrace`), its JSON form and the on-disk cache.

The cache (:func:`cache_path`) is one gzip'd JSON file per root under ``$LINKGRAPH_TEST_CACHE`` or
``~/.cache/linkgraph-tests`` (``runtime-oracle/``), keyed by a hash of the root's files (contents,
modes, links) and of the oracle's source (:data:`SOURCES`: the runtime_*.py modules, qemu_oracle.py
and qemu_cpu.py).
"""

from __future__ import annotations

import fcntl
import gzip
import hashlib
import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from .hostroot import cache_dir
from .oracle import BindingKey

CACHE_FORMAT = "3"
_HERE = Path(__file__).resolve().parent
SOURCES = [
    _HERE / f"{name}.py"
    for name in (
        "runtime_oracle",
        "runtime_elf",
        "runtime_gdb",
        "runtime_linkmap",
        "runtime_slots",
        "runtime_tls",
        "runtime_trace",
        "runtime_ld_debug",
        "qemu_oracle",
        "qemu_cpu",
    )
]

RefKey = tuple[str, str, str | None]  # (module, symbol, version)


@dataclass
class RuntimeTrace:
    """What the loader bound for one program, read from memory (see runtime_oracle.py and runtime_slots.py)."""

    executable: str
    covered: bool  # reached the entry point and its link map was read
    reason: str = ""  # why not covered (loader stderr, exit status, signal, timeout)
    interpreter: str | None = None
    objects: list[str] = field(default_factory=list)  # r_debug's link map, in its order, the program first
    bindings: set[BindingKey] = field(default_factory=set)  # cross-object (module != provider)
    self_bindings: set[BindingKey] = field(default_factory=set)  # module == provider
    unresolved: set[RefKey] = field(default_factory=set)  # value 0: nothing defines the (weak) symbol
    copies: set[RefKey] = field(default_factory=set)  # copy relocations: provider not observable
    unobserved: dict[RefKey, str] = field(default_factory=dict)  # slots that could not be mapped, and why
    snapshot: str = ""  # "relocated" (before the first initialiser) or "entry" (no r_brk: at the entry point)
    changed_by_init: set[RefKey] = field(default_factory=set)  # slots whose value changed before the entry point
    late_objects: list[str] = field(default_factory=list)  # objects loaded by initialisers (dlopen)
    redirected: set[BindingKey] = field(default_factory=set)  # bindings whose provider has no such symbol (IFUNC)
    prelinked: bool = False  # a prelinked program whose libraries all sit at their prelinked addresses
    slots: int = 0  # slots read
    seconds: float = 0.0
    stderr: str = ""  # the program's stderr up to the entry point (or its end)
    tls_by_rule: set[BindingKey] = field(default_factory=set)  # DTPMOD bindings whose module id the load order gave
    program_slots: int = 0  # of ``slots``, the program's own (none read where it has relocations: a blind oracle)

    def to_json(self) -> dict:
        def keys(s: Iterable[tuple]) -> list:
            return sorted(s, key=_sort_key)

        return {
            "executable": self.executable, "covered": self.covered, "reason": self.reason,
            "interpreter": self.interpreter, "objects": self.objects, "bindings": keys(self.bindings),
            "self_bindings": keys(self.self_bindings), "unresolved": keys(self.unresolved),
            "copies": keys(self.copies),
            "unobserved": [[*k, v] for k, v in sorted(self.unobserved.items(), key=lambda kv: _sort_key(kv[0]))],
            "snapshot": self.snapshot, "changed_by_init": keys(self.changed_by_init),
            "late_objects": self.late_objects, "redirected": keys(self.redirected), "prelinked": self.prelinked,
            "slots": self.slots, "program_slots": self.program_slots, "seconds": round(self.seconds, 3),
            "stderr": self.stderr, "tls_by_rule": keys(self.tls_by_rule),
        }  # fmt: skip

    @classmethod
    def from_json(cls, d: dict) -> RuntimeTrace:
        def tuples(rows: list) -> set:
            return {tuple(r) for r in rows}

        return cls(
            d["executable"], d["covered"], d["reason"], d["interpreter"], list(d["objects"]), tuples(d["bindings"]),
            tuples(d["self_bindings"]), tuples(d["unresolved"]), tuples(d["copies"]),
            {(u[0], u[1], u[2]): u[3] for u in d["unobserved"]}, d["snapshot"], tuples(d["changed_by_init"]),
            list(d["late_objects"]), tuples(d["redirected"]), d["prelinked"], d["slots"], d["seconds"], d["stderr"],
            tuples(d["tls_by_rule"]), d["program_slots"],
        )  # fmt: skip

    def describe(self) -> str:
        if not self.covered:
            return f"{self.executable}: NOT COVERED: {self.reason}"
        return (
            f"{self.executable}: {len(self.objects)} objects, {self.slots} slots ({self.program_slots} its own), "
            f"{len(self.bindings)} "
            f"cross-object bindings, {len(self.unresolved)} unresolved, {len(self.copies)} copies, "
            f"{len(self.unobserved)} unobserved, {len(self.changed_by_init)} changed by initialisers, "
            f"{len(self.redirected)} redirected{', prelinked' if self.prelinked else ''} "
            f"(snapshot: {self.snapshot}; {self.seconds:.1f}s)"
        )


def _sort_key(t: tuple) -> tuple:
    return tuple("" if x is None else x for x in t)


def root_digest(root: str | os.PathLike[str]) -> str:
    """A hash of the root's files: paths, types, modes, link targets and contents."""
    h = hashlib.sha256()
    root = os.fspath(root)
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        rel = os.path.relpath(dirpath, root)
        for name in sorted(filenames + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]):
            path = os.path.join(dirpath, name)
            st = os.lstat(path)
            h.update(f"{rel}/{name}\0{st.st_mode:o}\0".encode(errors="surrogateescape"))
            if os.path.islink(path):
                h.update(os.readlink(path).encode(errors="surrogateescape"))
            elif os.path.isfile(path):
                with open(path, "rb") as fh:
                    for chunk in iter(lambda: fh.read(1 << 20), b""):
                        h.update(chunk)
            h.update(b"\n")
    return h.hexdigest()


def _source_digest() -> str:
    h = hashlib.sha256(CACHE_FORMAT.encode())
    for path in SOURCES:
        h.update(path.read_bytes())
    return h.hexdigest()


SOURCE_DIGEST = _source_digest()  # of the code as imported (an edit made later must not reuse the key)


def cache_path(root: str | os.PathLike[str]) -> Path:
    """``runtime-oracle/ROOT-SOURCE.json.gz`` in the test cache (ROOT, SOURCE: digest prefixes)."""
    return cache_dir() / "runtime-oracle" / f"{root_digest(root)[:20]}-{SOURCE_DIGEST[:12]}.json.gz"


def _load(path: Path) -> dict[str, dict]:
    try:
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            return json.load(fh)
    except (OSError, EOFError, ValueError):
        return {}  # absent or unreadable: computed again


def _store(path: Path, entries: dict[str, dict]) -> None:
    """Merge ``entries`` into the cache file (under a lock per root); drop the root's files of other sources."""
    path.parent.mkdir(parents=True, exist_ok=True)
    root_key = path.name.split("-")[0]
    with open(path.parent / f"{root_key}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        merged = _load(path)
        merged.update(entries)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        with gzip.open(tmp, "wt", encoding="utf-8") as fh:
            json.dump(merged, fh, sort_keys=True)
        os.replace(tmp, path)
        for stale in path.parent.glob(f"{root_key}-*.json.gz"):
            if stale != path:
                stale.unlink(missing_ok=True)
