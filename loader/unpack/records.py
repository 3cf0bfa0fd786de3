"""What unpacking reports: chunks carved out of files, root filesystems found, the whole outcome."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..problems import Problem

DIRECTORY, ARCHIVE, IMAGE = "directory", "archive", "image"

# progress(stage, done, total), the same shape the scan reports progress in
Progress = Callable[[str, int, int], None]


@dataclass(slots=True)
class Carved:
    """A known format found in a file: where it starts, how long it is, what it is.

    ``source`` is the file it was found in, as a path relative to the input: the input's own
    name (``image.bin``), or a path through earlier chunks and extracted files
    (``image.bin/0x200.lzma/lzma.uncompressed``).
    """

    offset: int
    size: int | None
    format: str
    source: str

    @property
    def label(self) -> str:
        """This chunk as one step of a root's name, e.g. ``squashfs@0x133444``."""
        return f"{self.format}@0x{self.offset:x}"

    @property
    def inner_source(self) -> str:
        """The ``source`` of what is found inside this chunk, e.g. ``image.bin/0x133444.squashfs``."""
        return f"{self.source}/0x{self.offset:x}.{self.format}"


@dataclass(slots=True)
class FoundRoot:
    """A root filesystem on disk, named after where it came from (``squashfs@0x133444``)."""

    name: str
    path: Path
    origin: list[Carved] = field(default_factory=list)  # outermost chunk first


@dataclass(slots=True)
class Unpacked:
    kind: str  # DIRECTORY, ARCHIVE or IMAGE: what the input itself was
    roots: list[FoundRoot] = field(default_factory=list)
    carved: list[Carved] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
