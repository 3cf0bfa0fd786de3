"""One budget per scan: what unpacking and the identification may spend, all roots together.

Each reader has its own bounds (a stream's output, an archive's members, a file's ranges); a
hostile image can still stay under every one of them many times over (eight streams of 4 GiB, a
million entries in a file system, a million overlapping ranges). The scan as a whole spends from
three budgets, declared here and nowhere else:

- ``written``: bytes written to the work folder (decompressed streams, extracted members, file
  systems and chunks unblob carves or extracts);
- ``entries``: entries created there (files, folders, links);
- ``matched``: bytes handed to the identification's matcher.

The defaults grow with the input: a base plus so much per byte of the image (a folder scanned as
it is writes nothing and has its own ``matched`` default). The real images the tests use unpack
to at most 6 times their size with under 360 entries per MiB (docs/budget.md); a 1 GB firmware
gets 17 GiB, 2.2 million entries and 20 GiB matched. ``linkgraph scan --budget
KIND=SIZE`` sets one for a scan. When one runs out, the extraction spending it stops, what was
found stays, one ``scan-budget`` problem names the budget, the amount and the first place, and
counts the places stopped after it; the rest of the scan goes on.

The budget in force is a module-level value set by ``in_force`` for the length of a scan:
unblob's extractors (where ``unsquashfs`` is asked) are class attributes built once, and run in
threads of this process, so neither an argument nor a context variable reaches them.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field

from .problems import Problem, ProblemCode, Severity

GIB = 1 << 30


class Kind(enum.StrEnum):
    WRITTEN = "written"  # bytes written to the work folder
    ENTRIES = "entries"  # entries created in the work folder
    MATCHED = "matched"  # bytes handed to the identification's matcher


# (base, per byte of the input image): the default of each budget for an image of a given size
DEFAULTS: dict[Kind, tuple[int, float]] = {
    Kind.WRITTEN: (1 * GIB, 16),
    Kind.ENTRIES: (200_000, 1 / 512),
    Kind.MATCHED: (4 * GIB, 16),
}
FOLDER_MATCHED = 64 * GIB  # a folder scanned as it is: bytes matched at most
UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}
_AMOUNT = re.compile(r"^\s*(\d+)\s*([kmgt]?)(?:i?b)?\s*$", re.IGNORECASE)


class BudgetReached(Exception):
    """A budget of the scan ran out: the extraction spending it stops (what it wrote stays)."""

    def __init__(self, kind: Kind, limit: int) -> None:
        super().__init__(f"the scan's {kind} budget ({amount(kind, limit)}) is spent")
        self.kind = kind


def amount(kind: Kind, value: int) -> str:
    """``value`` as a person reads it: bytes in MiB or GiB, entries as a count."""
    if kind is Kind.ENTRIES:
        return f"{value:,} entries"
    return f"{value / GIB:.2f} GiB" if value >= GIB else f"{value / (1 << 20):.1f} MiB"


def parse_amount(text: str) -> int:
    """``"64G"``, ``"500000"``, ``"2 GiB"``: a budget given on the command line; ValueError if not one."""
    found = _AMOUNT.match(text)
    if found is None:
        raise ValueError(f"not an amount: {text!r} (a number, optionally followed by K, M, G or T)")
    return int(found.group(1)) * UNITS[found.group(2).lower()]


def parse_budgets(items: tuple[str, ...]) -> dict[Kind, int]:
    """``("written=64G", "entries=5000000")`` into budgets; ValueError names what is wrong."""
    chosen: dict[Kind, int] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or name.strip().lower() not in {k.value for k in Kind}:
            raise ValueError(f"{item!r}: expected KIND=AMOUNT with KIND one of {', '.join(k.value for k in Kind)}")
        chosen[Kind(name.strip().lower())] = parse_amount(value)
    return chosen


def defaults(input_size: int | None) -> dict[Kind, int]:
    """The budgets of a scan of an image of ``input_size`` bytes (None: a folder)."""
    if input_size is None:
        return {Kind.WRITTEN: 0, Kind.ENTRIES: 0, Kind.MATCHED: FOLDER_MATCHED}
    return {kind: base + int(per_byte * input_size) for kind, (base, per_byte) in DEFAULTS.items()}


@dataclass(slots=True)
class Budget:
    """What is left of each budget of one scan, and the one problem each budget that ran out made."""

    limits: dict[Kind, int]
    spent: dict[Kind, int] = field(default_factory=lambda: dict.fromkeys(Kind, 0))
    records: dict[Kind, Problem] = field(default_factory=dict)
    stops: dict[Kind, int] = field(default_factory=lambda: dict.fromkeys(Kind, 0))

    @classmethod
    def for_input(cls, input_size: int | None, chosen: Mapping[Kind, int] | None = None) -> Budget:
        return cls({**defaults(input_size), **(chosen or {})})

    def left(self, kind: Kind) -> int:
        return max(0, self.limits[kind] - self.spent[kind])

    def spend(self, kind: Kind, count: int) -> None:
        """Count ``count`` more; ``BudgetReached`` once the budget is passed (the count stays)."""
        self.spent[kind] += count
        if self.spent[kind] > self.limits[kind]:
            raise BudgetReached(kind, self.limits[kind])

    def reached(self, kind: Kind, where: str) -> Problem | None:
        """The ``scan-budget`` problem for ``kind`` stopping work at ``where``: a new one the first
        time (to be recorded by the caller), None later (the first one counts the later stops)."""
        self.stops[kind] += 1
        record = self.records.get(kind)
        if record is None:
            message = (
                f"the scan's {kind} budget ({amount(kind, self.limits[kind])}) is spent here: the rest is not "
                f"{'matched' if kind is Kind.MATCHED else 'extracted'} (raise it with --budget {kind}=AMOUNT)"
            )
            self.records[kind] = Problem(where, Severity.ERROR, message, ProblemCode.SCAN_BUDGET)
            return self.records[kind]
        base = record.message.split(" [", 1)[0]
        record.message = f"{base} [{self.stops[kind] - 1:,} more places stopped by it]"
        return None


_current: Budget | None = None


def current() -> Budget:
    """The budget of the scan under way (``in_force``); one with the defaults of a 1 GiB image
    when none is (unpacking called by itself)."""
    global _current
    if _current is None:
        _current = Budget.for_input(GIB)
    return _current


@contextmanager
def in_force(budget: Budget) -> Iterator[Budget]:
    """``budget`` is the one ``current`` gives until the block ends."""
    global _current
    before, _current = _current, budget
    try:
        yield budget
    finally:
        _current = before
