"""From what the user hands over (a root folder, an archive, a firmware image) to scanned roots.

An image can hold several root filesystems; each is scanned on its own (link maps never cross
roots) and stored as its own firmware graph, named after the image and the place it came from.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from ..budget import Budget, Kind, in_force
from ..errors import LinkgraphError
from ..kmod.stage import kernel_images
from ..licences import Overrides
from ..model import ScanResult
from ..problems import ProblemCode, bounded
from ..unpack import Unpacked, unpack
from .parse import Progress
from .root import _no_progress, scan_root


class NoRootFound(LinkgraphError):
    """Nothing that looks like a root filesystem came out of the target."""


def file_sha256(path: Path) -> str:
    """sha256 of a file, read in blocks."""
    with open(path, "rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


@contextmanager
def work_folder(chosen: str | None, keep: bool) -> Iterator[Path]:
    """Where images are unpacked: the chosen folder (kept), or a temporary one (removed unless kept)."""
    if chosen:
        os.makedirs(chosen, exist_ok=True)
        yield Path(chosen)
        return
    path = Path(tempfile.mkdtemp(prefix="linkgraph-unpack-"))
    try:
        yield path
    finally:
        if not keep:
            shutil.rmtree(path, ignore_errors=True)


def scan_target(
    target: Path,
    workdir: Path,
    name: str | None = None,
    workers: int | None = None,
    progress: Progress = _no_progress,
    overrides: Overrides | None = None,
    cpu: tuple[str, ...] = (),
    defer_dlopen: bool = False,
    identify: bool = True,
    budgets: Mapping[Kind, int] | None = None,
) -> tuple[Unpacked, list[ScanResult]]:
    """Unpack ``target`` (if it is not a folder) and scan every root filesystem found in it.

    ``overrides`` (the user's licence overrides) apply to every root and are recorded in each
    result's ``source`` (``licence_overrides``: file name, sha256, number of rules, content).
    ``defer_dlopen``: the last root's dlopen stage is left to ``result.complete()`` (``scan_root``);
    the earlier roots' are run, so that only one root's link maps are held at a time.
    ``identify``: run the identification stage (``scan_root``).
    ``budgets``: the scan's budgets chosen by the user (``loader/budget.py``; the others have their
    defaults for the target's size). Each result keeps at most ``MAX_PER_CODE`` problems of a code.
    """
    budget = Budget.for_input(target.stat().st_size if target.is_file() else None, budgets)
    with in_force(budget):
        unpacked, results = _scan_target(
            target, workdir, name, workers, progress, overrides, cpu, defer_dlopen, identify
        )
    for result in results:
        result.problems = bounded(result.problems)
    return unpacked, results


def _scan_target(
    target: Path,
    workdir: Path,
    name: str | None,
    workers: int | None,
    progress: Progress,
    overrides: Overrides | None,
    cpu: tuple[str, ...],
    defer_dlopen: bool,
    identify: bool,
) -> tuple[Unpacked, list[ScanResult]]:
    unpacked = unpack(target, workdir, progress)
    if not unpacked.roots:
        formats = ", ".join(f"{c.format}@{c.offset:#x}" for c in unpacked.carved) or "nothing recognised"
        why = "".join(f"; {p.message}" for p in unpacked.problems if p.code is ProblemCode.FILESYSTEM_NOT_EXTRACTED)
        raise NoRootFound(f"{target}: no root filesystem found ({formats}){why}; scan an unpacked root folder instead")
    base = name or target.name
    target_sha = None if unpacked.kind == "directory" else file_sha256(target)
    results = []
    images = [] if unpacked.kind == "directory" else kernel_images(workdir, [r.path for r in unpacked.roots])
    for index, root in enumerate(unpacked.roots):
        label = base if len(unpacked.roots) == 1 else f"{base} [{root.name}]"
        result = scan_root(
            str(root.path),
            name=label,
            workers=workers,
            progress=progress,
            root_name=root.name if unpacked.kind != "directory" else "/",
            overrides=overrides,
            cpu=cpu,
            kernel_images=images,
            defer_dlopen=defer_dlopen and index == len(unpacked.roots) - 1,
            identify=identify,
        )
        if target_sha is not None:  # the same image gives the same ids, root by root
            result.firmware_sha256 = hashlib.sha256(f"{target_sha}\0{root.name}".encode()).hexdigest()
        result.source = {
            "kind": unpacked.kind,
            "target": target.name,
            "target_sha256": target_sha,
            "root": root.name if unpacked.kind != "directory" else "/",
            "carved": [
                {"offset": c.offset, "size": c.size, "format": c.format, "source": c.source} for c in unpacked.carved
            ],
            "loader_defaults": result.loader_defaults,
        }
        if overrides is not None:
            result.source["licence_overrides"] = overrides.record()
        if index == 0:
            result.problems[:0] = unpacked.problems
        results.append(result)
    return unpacked, results
