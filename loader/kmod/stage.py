"""The kernel-module stage for one root: find the module files, read them, find the kernel's
exports, resolve. Modules under ``/lib/modules/VERSION/`` are resolved per version (depmod works
on one version at a time); others, as on firmware that keeps them elsewhere, as one more group."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..elf.facts import read_elf_facts
from ..errors import ElfError
from ..model import ElfFacts
from ..problems import Problem, ProblemCode, Severity
from ..rootfs import RootFS
from .decompress import SUFFIXES, ModuleReadError, is_module_name, read_module_bytes
from .kernel_exports import find_kernel_exports
from .ko import parse_module
from .model import KernelGraph, KernelModule, KernelSource, version_of
from .resolve import resolve

MAX_ORDER_BYTES = 16 << 20
LINUX_BANNER = b"Linux version "  # init/version.c linux_banner, in every kernel image
MAX_IMAGE_BYTES = 256 << 20


@dataclass(slots=True)
class KernelResult:
    graphs: list[KernelGraph] = field(default_factory=list)  # one per kernel version found
    # the ELF facts of compressed modules (the ELF scan reads plain files only), by device path
    facts: dict[str, ElfFacts] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)


@dataclass(slots=True)
class Found:
    """What the stage reads in a root: device paths of module files and kernel export sources."""

    modules: list[str] = field(default_factory=list)
    symvers: list[str] = field(default_factory=list)
    vmlinux: list[str] = field(default_factory=list)


def wanted(name: str) -> bool:
    """Whether the stage reads a file of this name: a module, a Module.symvers, a vmlinux."""
    return is_module_name(name) or name == "Module.symvers" or name.startswith("vmlinux")


def sort_files(paths: Sequence[str]) -> Found:
    """Device paths of regular files the stage wants (``wanted``), by what they are."""
    found = Found()
    for path in paths:
        name = path.rsplit("/", 1)[-1]
        if is_module_name(name):
            found.modules.append(path)
        elif name == "Module.symvers":
            found.symvers.append(path)
        elif name.startswith("vmlinux"):
            found.vmlinux.append(path)
    return found


def find_files(root: RootFS) -> Found:
    """One walk of the root (iterative and bounded: ``RootFS.walk``); symlinks are not followed."""
    return sort_files(
        [
            e.path
            for e in root.walk()
            if e.is_regular and not e.is_symlink and e.hard_link_of is None and wanted(e.path.rsplit("/", 1)[-1])
        ]
    )


def kernel_images(workdir: Path, roots: Sequence[Path]) -> list[Path]:
    """Files an image unpacked to outside its root filesystems that hold the kernel's version
    banner: the decompressed kernel of a firmware image (its size bounded)."""
    inside = {os.path.realpath(r) for r in roots}
    tree = RootFS(str(workdir))
    found: list[Path] = []
    for entry in tree.walk():
        host = tree.host_path(entry.path)
        if entry.is_symlink or not entry.is_regular or os.path.getsize(host) > MAX_IMAGE_BYTES:
            continue
        if any(host.startswith(r + os.sep) for r in inside):
            continue
        with open(host, "rb") as f:
            if LINUX_BANNER in f.read(MAX_IMAGE_BYTES):
                found.append(Path(host))
    return found


def _uncompressed(path: str) -> str:
    for suffix in SUFFIXES[1:]:
        if path.endswith(suffix):
            return path[: -len(suffix) + 3]
    return path


def read_order(root: Path, version: str, paths: Sequence[str]) -> dict[str, int]:
    """``modules.order`` of one version: module path -> line number (compressed names match)."""
    order_file = root / "lib" / "modules" / version / "modules.order"
    if not version or not order_file.is_file() or order_file.is_symlink():
        return {}
    with open(order_file, "rb") as f:
        lines = f.read(MAX_ORDER_BYTES).decode("utf-8", "surrogateescape").splitlines()
    index = {f"/lib/modules/{version}/{line.strip()}": i for i, line in enumerate(lines) if line.strip()}
    return {p: index[_uncompressed(p)] for p in paths if _uncompressed(p) in index}


def scan_kernel_modules(root: Path, images: Sequence[Path] = (), files: Sequence[str] | None = None) -> KernelResult:
    """Every module of ``root`` read and resolved; ``images`` are raw kernel images found beside
    the root (an unpacked firmware's kernel), tried when the root has no better source; ``files``:
    the device paths of the files it wants, when a walk of the root has found them already."""
    result = KernelResult()
    groups: dict[str, list[KernelModule]] = {}
    found = find_files(RootFS(str(root))) if files is None else sort_files(files)
    for path in found.modules:
        try:
            data, compression = read_module_bytes(root / path.lstrip("/"))
            module = parse_module(data, path, compression)
            if compression is not None:
                result.facts[path] = read_elf_facts(data, path)
        except (ModuleReadError, ElfError) as exc:
            code = exc.code if isinstance(exc, ModuleReadError) else ProblemCode.KMOD_UNREADABLE
            result.problems.append(Problem(path, Severity.WARNING, str(exc), code))
            continue
        groups.setdefault(version_of(path), []).append(module)
    if not groups:
        return result
    kernel = find_kernel_exports(root, found.symvers, found.vmlinux, list(images))
    if kernel.source is KernelSource.NONE:
        shown = kernel.path or "/"
        message = f"kernel exports not found: {kernel.detail}"
        result.problems.append(Problem(shown, Severity.WARNING, message, ProblemCode.KERNEL_EXPORTS_UNKNOWN))
    for version, modules in sorted(groups.items()):
        order = read_order(root, version, [m.path for m in modules])
        result.graphs.append(resolve(modules, kernel, order))
    return result
