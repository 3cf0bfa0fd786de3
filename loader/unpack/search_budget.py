"""unblob's chunk search, bounded per file.

unblob finds chunks by running every handler's patterns over the file (hyperscan, fast) and
calling the handler's ``calculate_chunk`` in Python at every hit. A hit that is not the format
costs that handler tens of microseconds: a 7 MB input holding a tar magic every 20 bytes
(350,000 hits, each a tar header that almost checks out) kept unblob's search busy for 10 to 17 s
of CPU, and the cost grows with the file. So each handler stops itself, per file:

- a handler whose hits were not its format ``MAX_MISSES`` times in one file (plus one per
  ``BYTES_PER_MISS`` of it) gives up on that file: its later hits are passed over at once. The
  real images of ``../shared/firmware`` miss at most 0.9 times per KiB (lzma's short pattern in
  compressed data: 3,674 misses in 4 MB) and spend at most 0.09 s of CPU; a real archive is
  found at its first hit and the hits inside it are never tried;
- a passed-over hit still costs unblob's own callback some microseconds: after ``MAX_PASSED`` of
  them, or once the handlers together have spent ``MAX_SECONDS`` of CPU time on the file (more
  for a larger file), the search of that file stops. unblob's callback can only answer "found" or
  "go on", so the handler answers with a stand-in chunk that raises ``SearchStopped`` at the
  first thing unblob reads of it; unblob's search ends on that error as on any other, keeping
  the chunks found before it.

What was passed over or left unsearched is said in one ``too-many-entries`` problem per file,
naming each handler, its misses and the hits passed over; the chunks found before stay found.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import cast

from unblob.file_utils import File
from unblob.models import Handler, ValidChunk

from ..problems import Problem, ProblemCode, Severity

MAX_MISSES = 5_000  # hits of one handler in one file that were not its format, plus one per BYTES_PER_MISS
BYTES_PER_MISS = 256  # four times what the real images miss
MAX_PASSED = 100_000  # hits passed over in one file (all handlers) before its search stops
MAX_SECONDS = 4.0  # CPU seconds of chunk calculation per file, plus SECONDS_PER_BYTE for its size
SECONDS_PER_BYTE = 1 / (64 << 20)  # one more second per 64 MiB


@dataclass(slots=True)
class Search:
    """The chunk search of one file: misses, the time spent, and what was passed over."""

    size: int
    misses: Counter[str] = field(default_factory=Counter)
    passed: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0
    stopped_at: int | None = None  # the offset where the search of the file stopped

    @property
    def out_of_time(self) -> bool:
        return self.seconds > MAX_SECONDS + self.size * SECONDS_PER_BYTE

    def gave_up(self, handler: str) -> bool:
        return self.misses[handler] >= MAX_MISSES + self.size // BYTES_PER_MISS

    def must_stop(self) -> bool:
        return self.out_of_time or self.passed.total() >= MAX_PASSED

    def problem(self, source: str) -> Problem | None:
        """The one problem saying what was passed over in ``source``; None when nothing was."""
        if not self.passed and self.stopped_at is None:
            return None
        said = [
            f"{name} gave up after {self.misses[name]:,} misses ({n:,} hits passed over)"
            for name, n in self.passed.items()
        ]
        if self.stopped_at is not None:
            spent = (
                f"{self.seconds:.1f} s of CPU time" if self.out_of_time else f"{self.passed.total():,} hits passed over"
            )
            said.append(
                f"the search stopped at 0x{self.stopped_at:x} after {spent}: the rest of the file is not searched"
            )
        message = f"unblob's search for chunks cut short: {'; '.join(said)}"
        return Problem(source, Severity.WARNING, message, ProblemCode.TOO_MANY_ENTRIES)


class SearchStopped(Exception):
    """Raised inside unblob's search to end it (see the module's docstring)."""


class _Stop:
    """Stands in for a chunk: the first attribute unblob reads of it raises ``SearchStopped``."""

    def __getattr__(self, name: str) -> object:
        raise SearchStopped("the search of this file is cut short")


_current: Search | None = None


@contextmanager
def searching(size: int) -> Iterator[Search]:
    """The search of one file of ``size`` bytes: the handlers count against it until the block ends.

    unblob runs one file at a time, in a thread of this process: one module-level value is enough."""
    global _current
    before, _current = _current, Search(size)
    try:
        yield _current
    finally:
        _current = before


def bounded_search(handler: type[Handler]) -> type[Handler]:
    """``handler``, giving up on a file as the search in force (``searching``) says."""

    class BoundedSearch(handler):  # type: ignore[valid-type, misc]
        def calculate_chunk(self, file: File, start_offset: int) -> ValidChunk | None:
            search = _current
            if search is None:
                return super().calculate_chunk(file, start_offset)
            if search.stopped_at is not None or search.must_stop():
                search.stopped_at = start_offset if search.stopped_at is None else search.stopped_at
                return cast(ValidChunk, _Stop())
            if search.gave_up(self.NAME):
                search.passed[self.NAME] += 1
                return None
            chunk, started = None, time.thread_time()
            try:
                chunk = super().calculate_chunk(file, start_offset)
            finally:
                search.seconds += time.thread_time() - started
                search.misses[self.NAME] += chunk is None
            return chunk

    BoundedSearch.__name__ = BoundedSearch.__qualname__ = handler.__name__
    return BoundedSearch
