"""Each module against the release, in tiers (docs/sources.md):

1. the same bytes (SHA-256) as release files: where;
2. its DWARF compile paths that end in release paths: the source folder they name (``dwarf_match``);
3. its strings (printable runs, cut as the text index cuts literals) and exported function names
   found in the release's C sources: the source folder with the most of them, each match shown as
   file and line. A string found in several folders counts for each as 1/their number, so common
   text ("Out of memory") decides nothing; a folder wins with at least ``MIN_SCORE`` and twice the
   next one's score.

The status: ``source`` when the compile paths or the strings name a source folder; else
``prebuilt`` when the release holds the module's bytes or a binary of its file name; else
``not-required`` when its licence is known and asks for no source (permissive, or proprietary),
else ``absent``."""

from __future__ import annotations

import posixpath
import re
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

from ..licences.classes import LicenceClass
from .dwarf_match import DwarfPaths
from .folders import Folders
from .model import ReleaseIndex, SourceStatus, Tier
from .text_index import binary_segments

MIN_SCORE = 6.0
MIN_KERNEL_SCORE = 1.0
MIN_SHARE = 0.05  # of the module's strings and functions, the winner must hold this share
COPY_SHARE = 0.9  # a runner-up this close holds a copy of the same source
MAX_EVIDENCE = 12  # matches kept per module as evidence
MAX_STRINGS = 200_000  # printable runs read from one module
_PRINTABLE = re.compile(rb"[\x20-\x7e\t\n]{6,}")
_COPYLEFT = (LicenceClass.GPL, LicenceClass.LGPL)


@dataclass(frozen=True, slots=True)
class ModuleInput:
    """What the check needs of one scanned module."""

    path: str  # in the firmware
    data: bytes
    sha256: str
    licence_class: str
    functions: tuple[str, ...]  # exported (defined, global or weak) functions
    version: str | None  # the identification's version
    kernel: bool = False  # a kernel module
    compile_paths: tuple[str, ...] = ()  # its DWARF compile units' source paths


@dataclass
class SourceMatch:
    path: str
    status: SourceStatus
    tier: Tier | None
    folder: str | None = None  # the source folder
    package: str | None = None
    version: str | None = None  # the source folder's version
    release_paths: list[str] = field(default_factory=list)  # files with the same bytes, or prebuilt of its name
    evidence: list[dict[str, str | int]] = field(default_factory=list)  # {kind, text, file, line}
    score: float = 0.0
    mismatch: bool = False  # the identification's version differs from the source folder's


class Matcher:
    def __init__(self, index: ReleaseIndex) -> None:
        self.index = index
        self.folders = Folders(index)
        self.by_hash: dict[str, list[str]] = defaultdict(list)
        self.by_name: dict[str, list[str]] = defaultdict(list)
        for f in index.files:
            self.by_hash[f.sha256].append(f.path)
            if f.elf:
                self.by_name[posixpath.basename(f.path)].append(f.path)
        self.dwarf = DwarfPaths((f.path for f in index.files if not f.elf), self.folders)
        self.source_folder = [self.folders.of(p) for p in index.sources]
        # (folder, stem) of every C source: a binary built beside its source (extensions/libxt_tcp.c)
        self.beside = {_stem_place(p) for p in index.sources if p.endswith((".c", ".cc", ".cpp"))}
        self.kbuild: dict[str, set[str]] = defaultdict(set)  # a kernel object's name -> folders that build it
        self.kbuild_makefiles: dict[str, list[str]] = defaultdict(list)
        for name, makefiles in index.kbuild_objects.items():
            self.kbuild[_kernel_name(name)].update(self.folders.of(m) for m in makefiles)
            self.kbuild_makefiles[_kernel_name(name)].extend(makefiles)

    def match(self, module: ModuleInput) -> SourceMatch:
        same = sorted(self.by_hash.get(module.sha256, ()))
        named = sorted(self.by_name.get(posixpath.basename(module.path), ()))
        compiled = self.dwarf.vote(module.compile_paths) if module.compile_paths else None
        if compiled is not None:
            return self._sourced(module, compiled[0], Tier.BYTES if same else Tier.DWARF, same, compiled[1], 0.0)
        folder, score, evidence = self._vote(module)
        if folder is not None:
            return self._sourced(module, folder, Tier.BYTES if same else Tier.STRINGS, same, evidence, score)
        built = self._built_beside(same or named) or self._kbuild_folder(module)
        if built is not None:
            folder, source = built
            kind = "kbuild" if source.rsplit("/", 1)[-1].startswith(("Makefile", "Kbuild")) else "beside"
            beside: list[dict[str, str | int]] = [
                {"kind": kind, "text": posixpath.basename(source), "file": source, "line": 1}
            ]
            return self._sourced(
                module, folder, Tier.BYTES if same else Tier.NAME, same or named, beside + evidence, score
            )
        if same or named:
            tier = Tier.BYTES if same else Tier.NAME
            return SourceMatch(
                module.path, SourceStatus.PREBUILT, tier, release_paths=same or named, evidence=evidence, score=score
            )
        known_free = module.licence_class in (LicenceClass.PERMISSIVE, LicenceClass.INCOMPATIBLE)
        status = SourceStatus.NOT_REQUIRED if known_free else SourceStatus.ABSENT
        return SourceMatch(module.path, status, None, evidence=evidence, score=score)

    def _sourced(
        self,
        module: ModuleInput,
        folder: str,
        tier: Tier,
        paths: list[str],
        evidence: list[dict[str, str | int]],
        score: float,
    ) -> SourceMatch:
        package = self.folders.package(folder)
        version = package.version if package else None
        name = package.name if package else None
        found = SourceMatch(module.path, SourceStatus.SOURCE, tier, folder, name, version, paths, evidence, score)
        found.mismatch = bool(module.version and version and _plain(module.version) != _plain(version))
        return found

    def _kbuild_folder(self, module: ModuleInput) -> tuple[str, str] | None:
        """A kernel module whose object only one folder outside a kernel tree builds (an out-of-tree
        module's own Makefile, ``obj-m := br_filter.o``): that folder and Makefile."""
        if not module.kernel:
            return None
        name = _kernel_name(posixpath.basename(module.path).removesuffix(".ko"))
        makefiles = self.kbuild_makefiles.get(name, [])
        folders = {self.folders.of(m) for m in makefiles}
        if len(folders) != 1 or any(self.folders.is_system(f) for f in folders):
            return None
        return folders.pop(), makefiles[0]

    def _built_beside(self, binaries: list[str]) -> tuple[str, str] | None:
        """A release binary lying beside a C source of its name (or one folder up, from ``.libs``):
        the source folder and that source file."""
        for binary in binaries:
            folder = posixpath.dirname(binary)
            stem = _stem(binary)
            for where in (folder, posixpath.dirname(folder) if folder.endswith("/.libs") else None):
                if where is not None and (where, stem) in self.beside:
                    return self.folders.of(binary), f"{where}/{stem}.c"
        return None

    def _allowed(self, module: ModuleInput) -> Callable[[str], bool]:
        """The folders a module can be built from: a kernel module from one whose Makefile builds an
        object of its name (``obj-m += NAME.o``); a program or library from none of the kernel or
        boot loader trees."""
        if module.kernel:
            building = self.kbuild.get(_kernel_name(posixpath.basename(module.path).removesuffix(".ko")), set())
            return building.__contains__
        return lambda folder: not self.folders.is_system(folder)

    def _vote(self, module: ModuleInput) -> tuple[str | None, float, list[dict[str, str | int]]]:
        allowed = self._allowed(module)
        scores: dict[str, float] = defaultdict(float)
        examples: dict[str, list[dict[str, str | int]]] = defaultdict(list)
        seen: set[str] = set()
        for run in _PRINTABLE.findall(module.data)[:MAX_STRINGS]:
            for segment in binary_segments(run.decode("ascii")):
                if segment not in seen:
                    seen.add(segment)
                    self._count(Tier.STRINGS, segment, self.index.literals.get(segment), scores, examples, allowed)
        for name in module.functions:
            self._count(Tier.FUNCTIONS, name, self.index.functions.get(name), scores, examples, allowed)
        if not scores:
            return None, 0.0, []
        ranked = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))
        best, score = ranked[0]
        runner = ranked[1][1] if len(ranked) > 1 else 0.0
        share = score / max(1, len(seen) + len(module.functions))
        # a copy of the same source in two folders ties: the first is named (the other is a copy)
        copy = runner >= COPY_SHARE * score
        # a kernel module's folder builds an object of its name: one string of it there is enough
        weak = score < MIN_KERNEL_SCORE if module.kernel else (score < MIN_SCORE or share < MIN_SHARE)
        if weak or (score < 2 * runner and not copy):
            return None, score, examples[best][:MAX_EVIDENCE]
        return best, score, examples[best][:MAX_EVIDENCE]

    def _count(
        self,
        tier: Tier,
        text: str,
        places: list[tuple[int, int]] | None,
        scores: dict[str, float],
        examples: dict[str, list[dict[str, str | int]]],
        allowed: Callable[[str], bool],
    ) -> None:
        if not places:
            return
        by_folder: dict[str, tuple[int, int]] = {}
        for number, line in places:
            by_folder.setdefault(self.source_folder[number], (number, line))
        by_folder = {f: place for f, place in by_folder.items() if allowed(f)}
        if not by_folder:
            return
        weight = 1.0 / len(by_folder)
        for folder, (number, line) in by_folder.items():
            scores[folder] += weight
            if weight == 1.0 and len(examples[folder]) < MAX_EVIDENCE:
                examples[folder].append(
                    {"kind": tier.value, "text": text[:200], "file": self.index.sources[number], "line": line}
                )


def _stem(path: str) -> str:
    return posixpath.basename(path).split(".", 1)[0]


def _stem_place(path: str) -> tuple[str, str]:
    return posixpath.dirname(path), _stem(path)


def _kernel_name(name: str) -> str:
    return name.replace("-", "_")


def _plain(version: str) -> str:
    return version.lower().lstrip("v").strip()


def copyleft(licence_class: str) -> bool:
    return licence_class in _COPYLEFT
