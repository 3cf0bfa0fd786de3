"""The ELF files of a root, found and parsed: the root is walked, each regular file large enough
for an ELF header checked for the magic, hashed and parsed into ``ElfFacts``; a file that cannot be
used becomes a ``Problem`` (too large, unreadable, a truncated or unusable ELF file, a FIFO or an
empty file where code was expected).

Whether a file is ELF is read by a child process as the walk goes on (``magic_check``); each ELF
file is parsed from a read-only map, so a large file costs address space rather than memory, and
hashed by another child while the link maps are worked out (``hashing``). With several workers,
each ELF file is hashed, mapped and parsed in a worker process and only its facts travel back.
"""

from __future__ import annotations

import contextlib
import mmap
import os
import re
import stat
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from ..elf.facts import Digests, header_facts, read_elf_facts
from ..elf.image import Buffer
from ..errors import ElfError
from ..model import ElfFacts
from ..problems import Problem, ProblemCode, Severity
from ..rootfs import RootFS, display_path
from .hashing import BackgroundHashes, digest_here
from .magic_check import Answer, answers

MAX_ELF_SIZE = 512 * 1024 * 1024
MIN_ELF_SIZE = 52  # the smallest ELF header
DIGEST_LATER = Digests("sha256 not read yet", "sha1 not read yet")  # ElfReader.digests sets them

Progress = Callable[[str, int, int], None]


# a shared object's or a kernel module's file name: libc.so.6, ld-2.19.so, libfoo.so.1.0.2k, x.ko
# (not ubus.sock, resolv.conf.solo)
_CODE_NAME = re.compile(r"\.so(\.[0-9][^/]*)?$|\.ko$")


def named_like_code(path: str) -> bool:
    """Whether the file name is one a loader opens: a shared object's or a kernel module's."""
    return _CODE_NAME.search(os.path.basename(path)) is not None


def looks_like_code(path: str, mode: int) -> bool:
    return named_like_code(path) or bool(mode & 0o111)


def _too_large(device: str) -> Problem:
    return Problem(device, Severity.WARNING, f"skipped: larger than {MAX_ELF_SIZE >> 20} MiB", ProblemCode.TOO_LARGE)


def _empty(device: str) -> Problem | None:
    """An empty file named like a library or kernel module: a loader that opens it finds no code.
    Any other empty file (an empty script, ``.gitkeep``, a lock file, with or without an
    executable bit) is a file like any other: an empty executable runs as an empty script."""
    if not named_like_code(device):
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


def _verdict(device: str, answer: Answer) -> bool | Problem | None:
    """What a candidate's first bytes, size and mode (``magic_check``) make of it: an ELF file to
    parse (True), a problem, or neither."""
    if isinstance(answer, OSError):
        return _read_failed(device, answer)
    kind, size, mode = answer
    if not stat.S_ISREG(mode):  # replaced since the walk listed it
        return None
    if kind == "Z":
        return _empty(device)
    if size < MIN_ELF_SIZE:
        return _truncated(device, mode)
    if size > MAX_ELF_SIZE:  # checked before anything is read
        return _too_large(device)
    return True


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


@dataclass(slots=True)
class Unusable:
    """An ELF file that cannot be parsed: its ``elf-unusable`` error, and what its ELF header says
    (None when the header itself is incomplete). ``scan.foreign`` decides whether it is a foreign
    blob, inventoried with a note, or an error."""

    problem: Problem
    header: ElfFacts | None


Parsed = ElfFacts | Problem | Unusable


def _parse(job: tuple[str, str], digests: Digests) -> Parsed:
    """Parse one ELF file (the facts keep no reference to its map)."""
    host, device = job
    try:
        with _contents(host) as data:
            if len(data) > MAX_ELF_SIZE:  # grew since it was checked
                return _too_large(device)
            try:
                return read_elf_facts(data, device, digests)
            except ElfError as exc:
                message = f"unusable ELF file: {str(exc).removeprefix(device + ': ')}"
                problem = Problem(device, Severity.ERROR, message, ProblemCode.ELF_UNUSABLE)
                return Unusable(problem, header_facts(data, device, digests))
    except OSError as exc:
        return _read_failed(device, exc)


def _parse_one(job: tuple[str, str]) -> Parsed:
    """Hash, map and parse one file in a worker process: only the parsed facts travel back."""
    digest = digest_here(job[0])
    return _read_failed(job[1], digest) if isinstance(digest, OSError) else _parse(job, digest)


def candidates(
    root: RootFS,
    problems: list[Problem],
    links: list[str],
    other: Callable[[str], bool] = lambda name: False,
    others: list[str] | None = None,
) -> Iterator[tuple[str, str]]:
    """Regular files that may be ELF (host path, device path), as the walk finds them; the symlinks
    and the hard links of the root (a file's other names, read once under its first) go to
    ``links``, and the regular files whose name ``other`` wants to ``others``."""
    for entry in root.walk(problems):
        shown = display_path(entry.path)
        if shown != entry.path:
            problems.append(
                Problem(
                    shown, Severity.WARNING, "file name is not valid UTF-8 (shown escaped)", ProblemCode.NAME_NOT_UTF8
                )
            )
        if entry.is_symlink or entry.hard_link_of is not None:
            links.append(entry.path)
        elif entry.is_regular:
            if others is not None and other(entry.path.rsplit("/", 1)[-1]):
                others.append(entry.path)
            yield (root.host_path(entry.path), entry.path)  # byte-exact: shown escaped only when stored
        elif named_like_code(entry.path):
            problems.append(
                Problem(shown, Severity.WARNING, "not a regular file (FIFO, device or socket)", ProblemCode.NOT_REGULAR)
            )


class ElfReader:
    """Finds, hashes and parses the ELF files among a walk's candidates.

    Candidates go to reader threads in batches as the walk yields them: each thread reads every
    candidate's magic (most are not ELF). With one worker, each batch's ELF files are parsed here as
    soon as the batch is done, while the walk and the readers go on, and handed to a child process
    that hashes them (``hashing``) while this one parses and then works out the link maps;
    ``all_parsed`` says there are no more, ``digests`` waits for the answers. With several
    workers, the ELF files are hashed and parsed in worker processes."""

    def __init__(self, workers: int, progress: Progress) -> None:
        self.workers = workers
        self.progress = progress
        self._hashed: list[tuple[ElfFacts, tuple[str, str]]] = []
        self._hashes = BackgroundHashes()

    def parse(self, jobs: Iterable[tuple[str, str]]) -> list[Parsed]:
        """The facts of every ELF file among ``jobs`` (and a problem for each that cannot be used,
        with its header's facts when it has an ELF header: ``Unusable``)."""
        out: list[Parsed] = []
        elf_jobs: list[tuple[str, str]] = []

        for job, answer in answers(jobs):
            verdict = _verdict(job[1], answer)
            if isinstance(verdict, Problem):
                out.append(verdict)
            elif verdict is None:
                continue
            elif self.workers > 1:
                elf_jobs.append(job)
            else:
                parsed = _parse(job, DIGEST_LATER)
                out.append(parsed)
                facts = parsed.header if isinstance(parsed, Unusable) else parsed
                if isinstance(facts, ElfFacts):
                    self._hashed.append((facts, job))
                    self._hashes.add(job[0])
                self.progress("parse", len(out), 0)  # how many there are is known at the end
        if elf_jobs:
            with ProcessPoolExecutor(max_workers=self.workers) as pool:
                for i, result in enumerate(pool.map(_parse_one, elf_jobs, chunksize=4)):
                    out.append(result)
                    self.progress("parse", i + 1, len(elf_jobs))
        return out

    def all_parsed(self) -> None:
        """Every file parsed here has been handed to the hashing child: let it finish."""
        self._hashes.close()

    def digests(self) -> list[Problem]:
        """Wait for the digests of every file parsed here and set them in its facts; a file that
        could not be read again keeps an empty sha256 and sha1, and a problem says so."""
        files, self._hashed = self._hashed, []
        if not files:
            return []
        problems = []
        for (facts, (_host, device)), digest in zip(files, self._hashes.results(), strict=True):
            if isinstance(digest, OSError):
                problems.append(_read_failed(device, digest))
                digest = Digests("", "")
            facts.sha256, facts.sha1 = digest
        return problems
