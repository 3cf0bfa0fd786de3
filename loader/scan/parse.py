"""The ELF files of a root, found and parsed: the root is walked, each regular file large enough
for an ELF header checked for the magic, hashed and parsed into ``ElfFacts``; a file that cannot be
used becomes a ``Problem`` (too large, unreadable, a truncated or unusable ELF file, a FIFO or an
empty file where code was expected).

Files are hashed in threads (the GIL is released) and parsed from a read-only map, so a large
file costs address space rather than memory; with several workers and
enough files, each is hashed, mapped and parsed in a worker process and only its facts travel back.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import mmap
import os
import stat
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

from ..elf.facts import is_elf, read_elf_facts
from ..elf.image import Buffer
from ..errors import ElfError
from ..model import ElfFacts
from ..problems import Problem, ProblemCode, Severity
from ..rootfs import RootFS, display_path

MAX_ELF_SIZE = 512 * 1024 * 1024

Progress = Callable[[str, int, int], None]


def looks_like_code(path: str, mode: int) -> bool:
    name = os.path.basename(path)
    return ".so" in name or name.endswith(".ko") or bool(mode & 0o111)


def _too_large(device: str) -> Problem:
    return Problem(device, Severity.WARNING, f"skipped: larger than {MAX_ELF_SIZE >> 20} MiB", ProblemCode.TOO_LARGE)


def _read_failed(device: str, exc: OSError) -> Problem:
    return Problem(device, Severity.ERROR, f"cannot read: {exc.strerror}", ProblemCode.READ_FAILED)


def _digest(job: tuple[str, str]) -> tuple[tuple[str, str], str | Problem | None]:
    """The sha256 of one candidate file if it is an ELF file within the size limit (runs in
    threads: hashing releases the GIL). Most candidates are not ELF: their magic is read with
    plain system calls (a Python file object costs ten times as much per file); an ELF file is
    hashed through a read-only map, without copying it."""
    host, device = job
    try:
        fd = os.open(host, os.O_RDONLY | os.O_CLOEXEC)
    except OSError as exc:
        return job, _read_failed(device, exc)
    try:
        if not is_elf(os.pread(fd, 4, 0)):
            return job, None
        if os.fstat(fd).st_size > MAX_ELF_SIZE:  # checked before anything is read
            return job, _too_large(device)
        try:
            with mmap.mmap(fd, 0, access=mmap.ACCESS_READ) as data:
                return job, hashlib.sha256(data).hexdigest()
        except (OSError, ValueError):  # a file system that cannot map files (FUSE with direct I/O)
            with io.FileIO(fd, closefd=False) as fh:
                return job, hashlib.file_digest(fh, "sha256").hexdigest()
    except OSError as exc:
        return job, _read_failed(device, exc)
    finally:
        os.close(fd)


@contextlib.contextmanager
def _contents(host: str) -> Iterator[Buffer]:
    """A file's bytes through a read-only map: the pages a parse touches are read, the rest of a big
    file costs address space only; the map is closed on leaving. An empty file, or one on a file
    system that cannot map files (FUSE with direct I/O), is read instead, up to the size limit."""
    with open(host, "rb") as fh:
        try:
            data: Buffer = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
        except (OSError, ValueError):
            data = fh.read(MAX_ELF_SIZE + 1)
    try:
        yield data
    finally:
        if isinstance(data, mmap.mmap):
            data.close()


def _parse_digested(digested: tuple[tuple[str, str], str | Problem | None]) -> ElfFacts | Problem | None:
    """Parse one hashed ELF file (the facts keep no reference to its map)."""
    (host, device), digest = digested
    if not isinstance(digest, str):
        return digest
    try:
        with _contents(host) as data:
            if len(data) > MAX_ELF_SIZE:  # grew since it was hashed
                return _too_large(device)
            return read_elf_facts(data, device, digest)
    except OSError as exc:
        return _read_failed(device, exc)
    except ElfError as exc:
        message = f"unusable ELF file: {str(exc).removeprefix(device + ': ')}"
        return Problem(device, Severity.ERROR, message, ProblemCode.ELF_UNUSABLE)


def _parse_one(job: tuple[str, str]) -> ElfFacts | Problem | None:
    """Hash, map and parse one file in a worker process: only the parsed facts travel back."""
    return _parse_digested(_digest(job))


def candidates(root: RootFS, problems: list[Problem], links: list[str]) -> Iterator[tuple[str, str]]:
    """Regular files that may be ELF (host path, device path), as the walk finds them; the symlinks
    of the root go to ``links``."""
    for entry in root.walk(problems):
        shown = display_path(entry.path)
        if shown != entry.path:
            problems.append(
                Problem(
                    shown, Severity.WARNING, "file name is not valid UTF-8 (shown escaped)", ProblemCode.NAME_NOT_UTF8
                )
            )
        if entry.is_symlink:
            links.append(entry.path)
        elif not stat.S_ISREG(entry.mode):
            if looks_like_code(entry.path, 0):
                problems.append(
                    Problem(
                        shown, Severity.WARNING, "not a regular file (FIFO, device or socket)", ProblemCode.NOT_REGULAR
                    )
                )
        elif entry.size == 0:
            if looks_like_code(entry.path, entry.mode):
                problems.append(
                    Problem(
                        shown, Severity.WARNING, "empty file (0 bytes) where code was expected", ProblemCode.EMPTY_FILE
                    )
                )
        elif entry.size >= 52:  # smaller than any ELF header
            yield (root.host_path(entry.path), entry.path)  # byte-exact: shown escaped only when stored
        elif looks_like_code(entry.path, entry.mode):
            with open(root.host_path(entry.path), "rb") as fh:
                if is_elf(fh.read(4)):
                    problems.append(
                        Problem(shown, Severity.ERROR, "unusable ELF file: truncated header", ProblemCode.ELF_UNUSABLE)
                    )


def _elf_only(job: tuple[str, str]) -> bool | Problem:
    """Whether a candidate starts with the ELF magic (two system calls), or why it cannot be read."""
    try:
        fd = os.open(job[0], os.O_RDONLY | os.O_CLOEXEC)
    except OSError as exc:
        return _read_failed(job[1], exc)
    try:
        return is_elf(os.pread(fd, 4, 0))
    except OSError as exc:
        return _read_failed(job[1], exc)
    finally:
        os.close(fd)


def parse_files(jobs: Iterable[tuple[str, str]], workers: int, progress: Progress) -> list[ElfFacts | Problem | None]:
    """The facts of every ELF file among ``jobs`` (and a problem for each that cannot be used).
    The magic of every candidate is read here as the walk yields it: most are not ELF, and a thread
    or a process per such file costs more than reading four bytes. The ELF files are hashed in two
    threads while the walk goes on (hashing releases the GIL) and parsed here afterwards; with
    several workers, they are hashed and parsed in processes."""
    out: list[ElfFacts | Problem | None] = []
    elf_jobs = []
    with ThreadPoolExecutor(max_workers=2) as readers:
        hashed = []
        for job in jobs:
            verdict = _elf_only(job)
            if isinstance(verdict, Problem):
                out.append(verdict)
            elif verdict:
                elf_jobs.append(job)
                if workers <= 1:
                    hashed.append(readers.submit(_digest, job))
        for i, future in enumerate(hashed):
            out.append(_parse_digested(future.result()))
            progress("parse", i + 1, len(hashed))
    if workers <= 1:
        return out
    with ProcessPoolExecutor(max_workers=workers) as pool:
        for i, result in enumerate(pool.map(_parse_one, elf_jobs, chunksize=4)):
            out.append(result)
            progress("parse", i + 1, len(elf_jobs))
    return out
