"""A squashfs listed before ``unsquashfs`` extracts it, and cut to what the budgets have left.

``unsquashfs`` creates every entry a file system lists (a 3 MB image can list a million links)
and cannot be told to stop. ``unsquashfs -lln`` lists the entries (one line each: mode, owner,
size, date, path) without writing anything; the listing is read as it comes and stopped as
soon as the count or the sum of the sizes passes what the scan's budgets (``loader/budget.py``)
have left, or the count passes the member limit of one image (``MAX_ENTRIES``, as for archives),
or its symbolic links pass ``MAX_LINKS`` (each link unsquashfs makes is then checked and resolved
by unblob and restored by ``links.py``, at ~1 ms apiece; no real firmware comes near the limit).
Then only the entries listed before that point are extracted (``unsquashfs -ef``: the folders
listed whole by name, the entries of the folders listed in part one by one) and one problem says
so. A listing that fails says nothing: the extraction then fails (or not) on its own.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

from ..budget import Kind, current
from .safe_tree import MAX_ENTRIES

LIST = ("unsquashfs", "-lln", "-no-progress")
TOP = b"squashfs-root/"
MAX_LINKS = 20_000  # symbolic links of one image (the most in a real firmware here: a few thousand)


@dataclass(slots=True)
class Cut:
    """The part of a squashfs to extract: ``names`` (relative to its top); ``problem`` says why
    (None when the ``scan-budget`` problem was recorded instead)."""

    names: list[bytes]
    problem: str | None


def within_budget(image: Path) -> Cut | None:
    """None when the squashfs ``image`` lists no more entries and bytes than the budgets have left,
    and no more than ``MAX_ENTRIES`` (the member limit of our own extractors); else the part
    listed before it passed them."""
    budget = current()
    entries_left, bytes_left = min(MAX_ENTRIES, budget.left(Kind.ENTRIES)), budget.left(Kind.WRITTEN)
    entries = size = links = 0
    kept: list[bytes] = []  # what to extract: whole folders once their listing is over, else entries
    open_folders: list[tuple[bytes, int]] = []  # folders being listed, where their entries start in kept
    # its messages go with the listing (and are passed over): unblob's sandbox forbids /dev/null
    with subprocess.Popen([*LIST, str(image)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT) as lister:
        assert lister.stdout is not None
        for line in lister.stdout:
            fields = line.rstrip(b"\n").split(None, 5)
            if len(fields) < 6 or not fields[5].startswith(TOP):
                continue  # the heading, the top folder itself, or something odd
            entries += 1
            if fields[0][:1] == b"-" and fields[2].isdigit():
                size += int(fields[2])
            links += fields[0][:1] == b"l"
            if entries > entries_left or size > bytes_left or links > MAX_LINKS:
                lister.kill()
                listed_in_part = {start - 1 for _prefix, start in open_folders}  # named whole, they would come whole
                names = [name for at, name in enumerate(kept) if at not in listed_in_part]
                if links > MAX_LINKS:
                    return Cut(names, f"more than {MAX_LINKS:,} symbolic links: the rest is not extracted")
                if size <= bytes_left and entries_left == MAX_ENTRIES:
                    return Cut(names, f"more than {MAX_ENTRIES:,} entries: the rest is not extracted")
                budget.reached(Kind.ENTRIES if entries > entries_left else Kind.WRITTEN, image.name)
                return Cut(names, None)
            name = fields[5][len(TOP) :]
            if fields[0][:1] == b"l":
                name = name.partition(b" -> ")[0]
            _close_folders(kept, open_folders, name)
            kept.append(name)
            if fields[0][:1] == b"d":
                open_folders.append((name + b"/", len(kept)))
    return None


def _close_folders(kept: list[bytes], open_folders: list[tuple[bytes, int]], name: bytes) -> None:
    """Folders whose listing ended before ``name`` (the listing goes depth first): their entries in
    ``kept`` give way to the folder itself, extracted whole (a list of a million names takes
    ``unsquashfs -ef`` minutes)."""
    while open_folders and not name.startswith(open_folders[-1][0]):
        _prefix, start = open_folders.pop()
        del kept[start:]
