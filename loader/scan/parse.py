"""The ELF files of a root, found and parsed: the root is walked, each regular file large enough
for an ELF header checked for the magic, hashed and parsed into ``ElfFacts``; a file that cannot be
used becomes a ``Problem`` (too large, unreadable, a truncated or unusable ELF file, a FIFO or an
empty file where code was expected).

Files are hashed in threads (the GIL is released) and parsed from a read-only map, so a large
file costs address space rather than memory; with several workers and
enough files, each is hashed, mapped and parsed in a worker process and only its facts travel back.
"""

from __future__ import annotations

import collections
import contextlib
import hashlib
import mmap
import os
import stat
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor, ThreadPoolExecutor

from ..elf.facts import is_elf, read_elf_facts
from ..elf.image import Buffer
from ..errors import ElfError
from ..model import ElfFacts
from ..problems import Problem, ProblemCode, Severity
from ..rootfs import RootFS, display_path
from .hashing import BackgroundHashes

MAX_ELF_SIZE = 512 * 1024 * 1024
MIN_ELF_SIZE = 52  # the smallest ELF header
READERS = 3  # threads reading magics and hashing: system calls and hashing release the GIL
BATCH = 64  # candidates per reader task
DIGEST_LATER = "sha256 not read yet"  # ElfReader.digests sets each one

Progress = Callable[[str, int, int], None]


def looks_like_code(path: str, mode: int) -> bool:
    name = os.path.basename(path)
    return ".so" in name or name.endswith(".ko") or bool(mode & 0o111)


def _too_large(device: str) -> Problem:
    return Problem(device, Severity.WARNING, f"skipped: larger than {MAX_ELF_SIZE >> 20} MiB", ProblemCode.TOO_LARGE)


def _empty(device: str, mode: int) -> Problem | None:
    if not looks_like_code(device, mode):
        return None
    return Problem(
        display_path(device), Severity.WARNING, "empty file (0 bytes) where code was expected", ProblemCode.EMPTY_FILE
    )


def _truncated(device: str, mode: int) -> Problem | None:
    if not looks_like_code(device, mode):
        return None
    return Problem(
        display_path(device), Severity.ERROR, "unusable ELF file: truncated header", ProblemCode.ELF_UNUSABLE
    )


def _read_failed(device: str, exc: OSError) -> Problem:
    return Problem(device, Severity.ERROR, f"cannot read: {exc.strerror}", ProblemCode.READ_FAILED)


def _check(job: tuple[str, str]) -> bool | Problem | None:
    """Whether a candidate is an ELF file to parse (True), a problem, or neither (None). Most
    candidates are not ELF: their magic is read with plain system calls (a Python file object
    costs ten times as much per file); the size is looked at only for ELF and empty files."""
    host, device = job
    try:
        fd = os.open(host, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK | os.O_NOCTTY)  # never waits on a FIFO
    except OSError as exc:
        return _read_failed(device, exc)
    try:
        magic = os.pread(fd, 4, 0)
        if magic and not is_elf(magic):
            return None
        st = os.fstat(fd)
    except OSError as exc:
        return _read_failed(device, exc)
    finally:
        os.close(fd)
    if not stat.S_ISREG(st.st_mode):  # replaced since the walk listed it
        return None
    if not magic:
        return _empty(device, st.st_mode)
    if st.st_size < MIN_ELF_SIZE:
        return _truncated(device, st.st_mode)
    if st.st_size > MAX_ELF_SIZE:  # checked before anything is read
        return _too_large(device)
    return True


def _hash(job: tuple[str, str]) -> str | Problem:
    """The sha256 of a file, read in chunks into one buffer (a third cheaper than through a map,
    whose page faults cost more than the copy); runs in threads, as hashing releases the GIL."""
    try:
        with open(job[0], "rb", buffering=0) as fh:
            return hashlib.file_digest(fh, "sha256").hexdigest()
    except OSError as exc:
        return _read_failed(job[1], exc)


def _check_batch(jobs: list[tuple[str, str]]) -> list[tuple[tuple[str, str], Problem | None]]:
    """``_check`` of a batch of candidates (one task per file would cost more than most checks):
    the ELF files to parse (with None) and the problems."""
    out: list[tuple[tuple[str, str], Problem | None]] = []
    for job in jobs:
        verdict = _check(job)
        if verdict is True:
            out.append((job, None))
        elif isinstance(verdict, Problem):
            out.append((job, verdict))
    return out


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


def _parse(job: tuple[str, str], digest: str) -> ElfFacts | Problem:
    """Parse one ELF file (the facts keep no reference to its map)."""
    host, device = job
    try:
        with _contents(host) as data:
            if len(data) > MAX_ELF_SIZE:  # grew since it was checked
                return _too_large(device)
            return read_elf_facts(data, device, digest)
    except OSError as exc:
        return _read_failed(device, exc)
    except ElfError as exc:
        message = f"unusable ELF file: {str(exc).removeprefix(device + ': ')}"
        return Problem(device, Severity.ERROR, message, ProblemCode.ELF_UNUSABLE)


def _parse_one(job: tuple[str, str]) -> ElfFacts | Problem:
    """Hash, map and parse one file in a worker process: only the parsed facts travel back."""
    digest = _hash(job)
    return digest if isinstance(digest, Problem) else _parse(job, digest)


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
        elif entry.is_regular:
            yield (root.host_path(entry.path), entry.path)  # byte-exact: shown escaped only when stored
        elif looks_like_code(entry.path, 0):
            problems.append(
                Problem(shown, Severity.WARNING, "not a regular file (FIFO, device or socket)", ProblemCode.NOT_REGULAR)
            )


def _batches(jobs: Iterable[tuple[str, str]], size: int) -> Iterator[list[tuple[str, str]]]:
    batch: list[tuple[str, str]] = []
    for job in jobs:
        batch.append(job)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


class ElfReader:
    """Finds, hashes and parses the ELF files among a walk's candidates.

    Candidates go to reader threads in batches as the walk yields them: each thread reads every
    candidate's magic (most are not ELF). With one worker, each batch's ELF files are parsed here as
    soon as the batch is done, while the walk and the readers go on. They are hashed afterwards by a
    child process (``hashing``) started by ``hash_in_background``, while the link maps are worked
    out here; ``digests`` waits for it. With several workers, the ELF files are hashed and parsed in
    worker processes."""

    def __init__(self, workers: int, progress: Progress) -> None:
        self.workers = workers
        self.progress = progress
        self._readers = ThreadPoolExecutor(max_workers=READERS, thread_name_prefix="elf-reader")
        self._to_hash: list[tuple[ElfFacts, tuple[str, str]]] = []
        self._hashing: tuple[list[tuple[ElfFacts, tuple[str, str]]], BackgroundHashes] | None = None

    def __enter__(self) -> ElfReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self._readers.shutdown(wait=True, cancel_futures=True)

    def parse(self, jobs: Iterable[tuple[str, str]]) -> list[ElfFacts | Problem]:
        """The facts of every ELF file among ``jobs`` (and a problem for each that cannot be used)."""
        out: list[ElfFacts | Problem] = []
        elf_jobs: list[tuple[str, str]] = []

        def take(batch: list[tuple[tuple[str, str], Problem | None]]) -> None:
            for job, problem in batch:
                if problem is not None:
                    out.append(problem)
                elif self.workers > 1:
                    elf_jobs.append(job)
                else:
                    facts = _parse(job, DIGEST_LATER)
                    out.append(facts)
                    if isinstance(facts, ElfFacts):
                        self._to_hash.append((facts, job))
                    self.progress("parse", len(out), 0)  # how many there are is known at the end

        pending: collections.deque[Future[list[tuple[tuple[str, str], Problem | None]]]] = collections.deque()
        for batch in _batches(jobs, BATCH):
            pending.append(self._readers.submit(_check_batch, batch))
            while pending and pending[0].done():
                take(pending.popleft().result())
        while pending:
            take(pending.popleft().result())
        if elf_jobs:
            with ProcessPoolExecutor(max_workers=self.workers) as pool:
                for i, result in enumerate(pool.map(_parse_one, elf_jobs, chunksize=4)):
                    out.append(result)
                    self.progress("parse", i + 1, len(elf_jobs))
        return out

    def hash_in_background(self) -> None:
        """Start hashing the files parsed here, in a child process (``hashing``)."""
        if self._to_hash and self._hashing is None:
            hashes = BackgroundHashes()
            hashes.start([job[0] for _facts, job in self._to_hash])
            self._hashing, self._to_hash = (self._to_hash, hashes), []

    def digests(self) -> list[Problem]:
        """Wait for the sha256 of every file parsed here and set it in its facts; a file that could
        not be read again keeps an empty sha256, and a problem says so."""
        self.hash_in_background()
        if self._hashing is None:
            return []
        files, hashes = self._hashing
        self._hashing = None
        problems = []
        for (facts, (_host, device)), digest in zip(files, hashes.results(), strict=True):
            if isinstance(digest, OSError):
                problems.append(_read_failed(device, digest))
                digest = ""
            facts.sha256 = digest
        return problems
