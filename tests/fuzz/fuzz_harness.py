"""Run one fuzz input and judge it, for the in-suite runs, the replayed recipes and bench/fuzz.py.

The design's contract for bad input: a file that cannot be used raises ``ElfError`` (the scan
turns it into a problem); anything else is a bug. So an input is a :class:`Finding` when it

* raises any other exception (``MemoryError`` included),
* raises an ``ElfError`` whose message is not one line,
* takes more than :data:`HANG_SECONDS` of CPU (a whole small root: :data:`SCAN_HANG_SECONDS`,
  about a hundred times its usual time; an alarm stops an input still running after
  :data:`ALARM_SECONDS`, one that blocks without using the CPU included),
* makes the process's peak RSS rise more than :data:`MEMORY_BOUND` above its RSS before the input
  (memory must follow the bytes present, and the seeds are at most a few hundred KiB). The peak is
  the kernel's high-water mark (``VmHWM``), reset before each input (``/proc/self/clear_refs``).

:func:`address_space_limit` turns an allocation of gigabytes into a ``MemoryError`` (a finding)
instead of a machine that swaps. :class:`Stats` keeps the figures a run reports.
"""

from __future__ import annotations

import contextlib
import os
import resource
import signal
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from linkgraph.loader.elf.facts import read_elf_facts
from linkgraph.loader.errors import ElfError
from linkgraph.loader.scan.root import scan_root
from linkgraph.loader.store.rows import build_rows

HANG_SECONDS = 2.0
SCAN_HANG_SECONDS = 10.0
MEMORY_BOUND = 256 << 20
ALARM_SECONDS = 30.0  # an input still running then is stopped (a hang is reported either way)
PAGE = os.sysconf("SC_PAGE_SIZE")
T = TypeVar("T")


class Finding(Exception):
    """What a fuzz input did that the scanner must never do (``kind``: exception, message, hang, memory)."""

    def __init__(self, kind: str, detail: str, signature: str | None = None) -> None:
        super().__init__(f"{kind}: {detail}")
        self.kind = kind
        self.detail = detail
        self.signature = signature or kind  # the same bug gives the same signature


class _Alarm(BaseException):
    """Raised by the alarm in the middle of a hung input (a BaseException: no ``except Exception`` eats it)."""


@dataclass
class Stats:
    """Figures of a run: inputs, how they ended, the slowest and the largest one."""

    inputs: int = 0
    rejected: int = 0  # ElfError from read_elf_facts: the expected end of an unusable file
    slowest: float = 0.0  # CPU seconds of the slowest input
    rss_growth: int = 0  # max over inputs of (peak RSS while it ran - RSS before it)
    started: float = field(default_factory=time.perf_counter)

    def summary(self) -> str:
        seconds = time.perf_counter() - self.started
        growth = f"{self.rss_growth / 2**20:.1f} MiB" if self.rss_growth >= 2**20 else f"{self.rss_growth >> 10} KiB"
        return (
            f"{self.inputs} inputs in {seconds:.1f} s ({self.inputs / max(seconds, 1e-9):.0f}/s), "
            f"{self.rejected} rejected with ElfError, slowest {self.slowest * 1000:.0f} ms of CPU, "
            f"max RSS per input {growth}"
        )


def rss() -> int:
    """Resident set size of this process now (bytes)."""
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * PAGE


def reset_peak_rss() -> None:
    """Start a new high-water mark of this process's resident set (Linux 4.0 and later)."""
    with open("/proc/self/clear_refs", "w") as fh:
        fh.write("5")


def peak_rss() -> int:
    """Peak resident set size of this process since the last :func:`reset_peak_rss` (bytes)."""
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    raise OSError("no VmHWM in /proc/self/status")


def _on_alarm(_signum: int, _frame: Any) -> None:
    raise _Alarm()


def measured(
    run: Callable[[], T],
    stats: Stats,
    what: str,
    alarm: float | None = ALARM_SECONDS,
    expected: tuple[type[Exception], ...] = (ElfError,),
    limit: float = HANG_SECONDS,
) -> T | None:
    """``run()`` judged as above; None when it raised one of the ``expected`` errors. ``alarm``: the
    seconds after which SIGALRM stops a hung input (None under libFuzzer, whose -timeout owns it)."""
    reset_peak_rss()
    before = rss()
    previous = signal.signal(signal.SIGALRM, _on_alarm) if alarm else None
    if alarm:
        signal.setitimer(signal.ITIMER_REAL, alarm)
    started = time.process_time()  # CPU time: a busy machine does not make an input a hang
    result = None
    try:
        result = run()
    except _Alarm:
        raise Finding("hang", f"{what}: still running after {alarm:g} s") from None
    except expected as exc:
        stats.rejected += 1
        if "\n" in str(exc):
            raise Finding("message", f"{what}: ElfError message of several lines: {str(exc)!r}") from None
    except Exception as exc:
        frame = traceback.extract_tb(exc.__traceback__)[-1]
        signature = f"{type(exc).__name__} at {os.path.basename(frame.filename)}:{frame.lineno}"
        raise Finding(
            "exception", f"{what}: {type(exc).__name__}: {exc}\n{traceback.format_exc()}", signature
        ) from None
    finally:
        if alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
    elapsed = time.process_time() - started
    growth = peak_rss() - before
    stats.inputs += 1
    stats.slowest = max(stats.slowest, elapsed)
    stats.rss_growth = max(stats.rss_growth, growth)
    if elapsed > limit:
        raise Finding("hang", f"{what}: {elapsed:.1f} s of CPU (more than {limit} s)")
    if growth > MEMORY_BOUND:
        raise Finding("memory", f"{what}: peak RSS rose {growth >> 20} MiB (more than {MEMORY_BOUND >> 20} MiB)")
    return result


def check_elf(data: bytes, stats: Stats, alarm: float | None = ALARM_SECONDS) -> list[str] | None:
    """read_elf_facts on one input: its anomaly codes, or None for an ElfError."""
    facts = measured(lambda: read_elf_facts(data, "/fuzz/input"), stats, "read_elf_facts", alarm)
    return None if facts is None else [code.value for code, _ in facts.anomalies]


def check_scan(root: Path, stats: Stats, alarm: float | None = ALARM_SECONDS) -> list[tuple[str, str]]:
    """The scan of a root as ``linkgraph scan`` runs it (scan_root with one parser, then the graph
    rows the store would write): (path, code) of every problem. The scan raises nothing for bad content."""

    def run() -> list[tuple[str, str]]:
        result = scan_root(str(root), name="fuzz", workers=1)
        build_rows(result)
        return [(p.path, p.code.value) for p in result.problems]

    return measured(run, stats, "scan", alarm, expected=(), limit=SCAN_HANG_SECONDS) or []


@contextlib.contextmanager
def address_space_limit(extra: int = 4 << 30) -> Iterator[None]:
    """Cap this process's address space at its present size plus ``extra`` while the block runs."""
    with open("/proc/self/statm") as fh:
        size = int(fh.read().split()[0]) * PAGE
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = size + extra if hard == resource.RLIM_INFINITY else min(size + extra, hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
