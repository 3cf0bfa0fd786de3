"""The unpacking walk: files in, extracted trees out, roots found, nested files followed.

Every file to look at is a ``Job``. An archive or compressed stream (by its first bytes) is
extracted by our own code; anything else, or an archive that turns out not to be one, goes
through unblob. Each extracted tree is searched for roots; the files outside roots are new
jobs. Inside a root only files that start like another image (a recovery system, a second
file system) are followed, and their output goes to a folder of its own, so a root always
holds exactly what the file system held.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, cast

from ..budget import BudgetReached, Kind, current
from ..problems import Problem, ProblemCode, Severity
from .archives import STREAMABLE, extract_archive
from .formats import FILESYSTEMS, HEAD_SIZE, STREAMS, NotThisFormat, read_head, sniff
from .records import ARCHIVE, IMAGE, Carved, FoundRoot, Progress, Unpacked
from .roots import find_roots, regular_files
from .safe_tree import MAX_ENTRIES, SafeTree, TooManyEntries
from .spent import spend_tree
from .streams import TooLarge, decompress, open_stream, output_name, stream_size
from .unblob_run import unblob_file, without_chunks

MAX_DEPTH = 16  # files nested deeper are not unpacked
MAX_JOBS = 100_000  # files looked at in one unpack
# Inside a root only these files are followed, by their first bytes: file system images and
# firmware headers from 4 KiB, archives and compressed streams (man pages, packed web pages...)
# from 64 KiB.
NESTED_MAGICS = (
    b"hsqs",
    b"sqsh",
    b"\x45\x3d\xcd\x28",
    b"\x28\xcd\x3d\x45",
    b"UBI#",
    b"\x27\x05\x19\x56",
    b"HDR0",
    b"\x01\x00\x00\x00OpenWrt",
    b"\x01\x00\x00\x00TP-LINK",
)
NESTED_IMAGE_MIN_SIZE = 4 << 10
NESTED_ARCHIVES = ("tar", "cpio", "gzip", "xz", "bzip2", "zstd")
NESTED_ARCHIVE_MIN_SIZE = 64 << 10
SYNTHETIC_NAMES = ("carved.elf",)  # files that unblob names itself, left out of root names
UNPACK_BUDGETS = (Kind.WRITTEN, Kind.ENTRIES)


def _join(*steps: str) -> str:
    return "/".join(s for s in steps if s and s != ".")


def _name_steps(rel: str) -> str:
    """A path inside an extracted tree as part of a root name: unblob's made-up names left out."""
    return _join(*(p for p in rel.split("/") if not p.endswith(".uncompressed") and p not in SYNTHETIC_NAMES))


def _nested_image(path: str, size: int) -> bool:
    """Is this file inside a root another image to unpack (a recovery system, a second file system)?"""
    if size < NESTED_IMAGE_MIN_SIZE:
        return False
    try:
        head = read_head(Path(path), 0x440)
    except OSError:
        return False
    if head.startswith(NESTED_MAGICS) or head[0x438:0x43A] == b"\x53\xef":
        return True
    return size >= NESTED_ARCHIVE_MIN_SIZE and sniff(head) in NESTED_ARCHIVES


def _seen_again(carved: Carved, job: Job) -> bool:
    """unblob copies a chunk it carved to be looked at whole (``carved.elf``): not a new find."""
    last = job.origin[-1] if job.origin else None
    return last is not None and carved.offset == 0 and (carved.format, carved.size) == (last.format, last.size)


@dataclass(slots=True)
class Job:
    path: Path  # the file on the host
    source: str  # the file relative to the input, e.g. "image.bin/0x200.lzma/lzma.uncompressed"
    name: str  # the root names' prefix, e.g. "lzma@0x200" ("" for the input)
    origin: list[Carved] = field(default_factory=list)
    depth: int = 0
    found: bool = False  # found in an extracted tree (not the input): searched before unblob runs


class Unpacker:
    def __init__(self, workdir: Path, progress: Progress) -> None:
        self.workdir = workdir
        self.progress = progress
        self.result = Unpacked(kind=IMAGE)
        self.queue: deque[Job] = deque()
        self.jobs = 0  # files queued
        self.not_queued = 0  # files past MAX_JOBS
        self.first_not_queued = ""  # the first of them, named in the problem
        self.entries = 0  # archive members extracted, all archives together (MAX_ENTRIES)
        self.folders = 0  # output folders made

    def problem(self, path: str, message: str, severity: Severity = Severity.ERROR) -> None:
        self.result.problems.append(Problem(path, severity, message, ProblemCode.UNPACK))

    def run(self, target: Path) -> Unpacked:
        self.result.kind = self._process(Job(target, target.name, ""))
        done = 1
        while self.queue:
            self.progress("unpack", done, done + len(self.queue))
            self._process(self.queue.popleft())
            done += 1
        self.progress("unpack", done, done)
        if self.not_queued:
            self.result.problems.append(
                Problem(
                    self.first_not_queued,
                    Severity.WARNING,
                    f"more than {MAX_JOBS:,} files to look into: {self.not_queued:,} files "
                    f"(this one and those found after it) are not unpacked",
                    ProblemCode.TOO_MANY_ENTRIES,
                )
            )
        budget = current()
        self.result.problems += [budget.records[k] for k in UNPACK_BUDGETS if k in budget.records]
        if not self.result.roots:
            self.problem(target.name, "no root filesystem found", Severity.WARNING)
        names: dict[str, int] = {}
        for root in self.result.roots:  # two roots from the same place: "name", "name#2"
            names[root.name] = names.get(root.name, 0) + 1
            if names[root.name] > 1:
                root.name = f"{root.name}#{names[root.name]}"
        return self.result

    def _process(self, job: Job) -> str:
        """Unpack one file; returns what it was handled as (ARCHIVE or IMAGE)."""
        budget = current()
        if spent := [k for k in UNPACK_BUDGETS if budget.left(k) == 0]:
            budget.reached(spent[0], job.source)
            return IMAGE
        try:
            fmt = sniff(read_head(job.path))
        except OSError as exc:
            self.problem(job.source, f"cannot be read: {exc.strerror}")
            return IMAGE
        if fmt is not None and self._unarchive(job, fmt):
            return ARCHIVE
        if job.found and (nothing := without_chunks(job.path, job.source)) is not None:
            self.result.problems += nothing.problems
            return IMAGE
        out = self._new_folder()
        image = unblob_file(job.path, out, job.source)
        self.result.problems += image.problems
        spend_tree(out, job.source)
        for chunk in sorted(image.chunks, key=lambda c: c.carved.offset):
            if not _seen_again(chunk.carved, job):
                self.result.carved.append(chunk.carved)
            if chunk.extracted is not None:
                self._explore(chunk.extracted, chunk.carved, job)
        return IMAGE

    def _unarchive(self, job: Job, fmt: str) -> bool:
        """Extract an archive or stream with our own code; False if it is not one after all."""
        carved = Carved(0, job.path.stat().st_size, fmt, job.source)
        if fmt in STREAMS and self._archive_in_stream(job, fmt, carved):
            return True
        out = self._new_folder()
        tree = SafeTree(out, job.source, MAX_ENTRIES - self.entries)
        try:
            if fmt in STREAMS:
                decompress(fmt, job.path, out / output_name(fmt))
            else:
                extract_archive(fmt, job.path, tree)
        except NotThisFormat:
            shutil.rmtree(out, ignore_errors=True)
            return False  # not a (valid) archive or stream: unblob looks at it as an image
        except Exception as exc:  # hostile input
            if not self._stopped(job, fmt, exc):
                shutil.rmtree(out, ignore_errors=True)
                return False  # not a valid stream: unblob looks at it as an image
        self.entries += tree.entries
        self.result.problems += tree.problems
        self.result.carved.append(carved)
        self._explore(out, carved, job)
        return True

    def _stopped(self, job: Job, fmt: str, exc: Exception) -> bool:
        """Record why the extraction of ``job`` stopped; False for a stream that is not one."""
        match exc:
            case TooLarge():
                self.problem(job.source, f"{exc}; the output is deleted, not searched")
            case BudgetReached():
                current().reached(exc.kind, job.source)
            case TooManyEntries():
                message = f"{exc} (at most {MAX_ENTRIES:,} archive members are extracted from one image)"
                self.result.problems.append(Problem(job.source, Severity.ERROR, message, ProblemCode.TOO_MANY_ENTRIES))
            case _ if fmt in STREAMS:
                return False
            case _:
                self.problem(job.source, f"{fmt} archive cannot be extracted completely: {type(exc).__name__}: {exc}")
        return True

    def _archive_in_stream(self, job: Job, fmt: str, carved: Carved) -> bool:
        """A tar or cpio inside the stream ``job``, extracted as it is decompressed, its place named
        as if the stream had been written out first (``gzip@0x0/tar@0x0``); False when the stream
        does not start with one (or cannot be read as one), and nothing was written."""
        try:
            with open_stream(fmt, job.path) as src:
                inner = sniff(src.read(HEAD_SIZE))
        except Exception:  # hostile input: decompressed the usual way, which says what is wrong
            return False
        if inner not in STREAMABLE:
            return False
        member = Job(
            job.path,
            f"{carved.inner_source}/{output_name(fmt)}",
            _join(job.name, carved.label),
            [*job.origin, carved],
            job.depth + 1,
            found=True,
        )
        out = self._new_folder()
        tree = SafeTree(out, member.source, MAX_ENTRIES - self.entries)
        with open_stream(fmt, job.path) as src:
            try:
                extract_archive(inner, cast("IO[bytes]", src), tree)
            except NotThisFormat:
                shutil.rmtree(out, ignore_errors=True)
                return False
            except Exception as exc:  # hostile input
                self._stopped(member, inner, exc)
            size = stream_size(src)
        self.jobs += 1
        self.entries += tree.entries
        self.result.problems += tree.problems
        self.result.carved.append(carved)
        inner_carved = Carved(0, size, inner, member.source)
        self.result.carved.append(inner_carved)
        self._explore(out, inner_carved, member)
        return True

    def _explore(self, top: Path, carved: Carved, job: Job) -> None:
        """Find the roots in an extracted tree and queue the files to look at next."""
        name = _join(job.name, carved.label)
        origin = [*job.origin, carved]
        roots = find_roots(top, carved.format in FILESYSTEMS)
        for root in roots:
            self.result.roots.append(FoundRoot(_join(name, root.relative_to(top).as_posix()), root, origin))
        root_prefixes = tuple(os.fspath(r) + os.sep for r in roots)
        for path, st in regular_files(top):
            if st.st_size == 0:
                continue
            if path.startswith(root_prefixes) and not _nested_image(path, st.st_size):
                continue
            rel = os.path.relpath(path, top).replace(os.sep, "/")
            shown = os.fsencode(rel).decode("utf-8", "backslashreplace")
            if job.depth + 1 > MAX_DEPTH:
                self.problem(
                    f"{carved.inner_source}/{shown}",
                    f"nested deeper than {MAX_DEPTH} levels: not unpacked",
                    Severity.WARNING,
                )
            elif self.jobs >= MAX_JOBS:
                self.not_queued += 1
                self.first_not_queued = self.first_not_queued or f"{carved.inner_source}/{shown}"
            else:
                self.jobs += 1
                self.queue.append(
                    Job(
                        Path(path),
                        f"{carved.inner_source}/{shown}",
                        _join(name, _name_steps(shown)),
                        origin,
                        job.depth + 1,
                        found=True,
                    )
                )

    def _new_folder(self) -> Path:
        self.folders += 1
        return Path(tempfile.mkdtemp(prefix=f"{self.folders:04d}-", dir=self.workdir))
