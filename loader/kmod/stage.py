"""The kernel-module stage for one root: find the module files, read them, find the kernel's
exports, resolve. Modules under ``/lib/modules/VERSION/`` are resolved per version (depmod works
on one version at a time); others, as on firmware that keeps them elsewhere, as one more group."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..problems import Problem, ProblemCode, Severity
from .decompress import SUFFIXES, ModuleReadError, is_module_name
from .kernel_exports import find_kernel_exports
from .ko import read_module
from .model import KernelGraph, KernelModule, KernelSource
from .resolve import resolve

MAX_ORDER_BYTES = 16 << 20
LINUX_BANNER = b"Linux version "  # init/version.c linux_banner, in every kernel image
MAX_IMAGE_BYTES = 256 << 20


@dataclass(slots=True)
class KernelResult:
    graphs: list[KernelGraph] = field(default_factory=list)  # one per kernel version found
    problems: list[Problem] = field(default_factory=list)


def module_files(root: Path) -> list[str]:
    """Device paths of the regular module files in ``root`` (symlinks are not followed)."""
    out: list[str] = []
    for folder, dirs, files in os.walk(root, followlinks=False):
        dirs.sort()
        for name in sorted(files):
            full = Path(folder, name)
            if is_module_name(name) and full.is_file() and not full.is_symlink():
                out.append("/" + full.relative_to(root).as_posix())
    return out


def kernel_images(workdir: Path, roots: Sequence[Path]) -> list[Path]:
    """Files an image unpacked to outside its root filesystems that hold the kernel's version
    banner: the decompressed kernel of a firmware image (its size bounded)."""
    inside = [r.resolve() for r in roots]
    found: list[Path] = []
    for folder, dirs, files in os.walk(workdir, followlinks=False):
        here = Path(folder).resolve()
        dirs[:] = sorted(d for d in dirs if (here / d) not in inside)
        for name in sorted(files):
            path = here / name
            if path.is_symlink() or not path.is_file() or path.stat().st_size > MAX_IMAGE_BYTES:
                continue
            with open(path, "rb") as f:
                if LINUX_BANNER in f.read(MAX_IMAGE_BYTES):
                    found.append(path)
    return found


def version_of(path: str) -> str:
    """``/lib/modules/6.1.0/kernel/x.ko`` -> ``6.1.0``; "" outside /lib/modules."""
    parts = path.split("/")
    for i in range(len(parts) - 2):
        if parts[i : i + 2] == ["lib", "modules"] and i + 3 < len(parts):
            return parts[i + 2]
    return ""


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


def scan_kernel_modules(root: Path, images: Sequence[Path] = ()) -> KernelResult:
    """Every module of ``root`` read and resolved; ``images`` are raw kernel images found beside
    the root (an unpacked firmware's kernel), tried when the root has no better source."""
    result = KernelResult()
    groups: dict[str, list[KernelModule]] = {}
    for path in module_files(root):
        try:
            module = read_module(root / path.lstrip("/"), path)
        except ModuleReadError as exc:
            result.problems.append(Problem(path, Severity.WARNING, str(exc), ProblemCode.KMOD_UNREADABLE))
            continue
        groups.setdefault(version_of(path), []).append(module)
    if not groups:
        return result
    kernel = find_kernel_exports(root, list(images))
    if kernel.source is KernelSource.NONE:
        shown = kernel.path or "/"
        message = f"kernel exports not found: {kernel.detail}"
        result.problems.append(Problem(shown, Severity.WARNING, message, ProblemCode.KERNEL_EXPORTS_UNKNOWN))
    for version, modules in sorted(groups.items()):
        order = read_order(root, version, [m.path for m in modules])
        result.graphs.append(resolve(modules, kernel, order))
    return result
