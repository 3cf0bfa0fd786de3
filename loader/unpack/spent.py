"""What unblob wrote, spent from the scan's budgets after the fact (``loader/budget.py``).

unblob's extractors (other than ``unsquashfs``, which is asked first: ``squashfs.py``) cannot be
stopped part way; what they wrote is counted once they are done, and a budget it passes stops
every file unpacked after it.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..budget import BudgetReached, Kind, current


def spend_tree(top: Path, source: str) -> None:
    """Spend the bytes and entries below ``top`` (carved chunks, extracted trees); the first budget
    they pass is recorded as stopping work at ``source``."""
    size = entries = 0
    for folder, dirs, files in os.walk(top):
        entries += len(dirs) + len(files)
        for name in files:
            try:
                size += os.lstat(os.path.join(folder, name)).st_size
            except OSError:
                continue
    budget = current()
    for kind, count in ((Kind.WRITTEN, size), (Kind.ENTRIES, entries)):
        try:
            budget.spend(kind, count)
        except BudgetReached:
            budget.reached(kind, source)
