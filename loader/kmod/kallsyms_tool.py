"""vmlinux-to-elf (GPL-3.0-or-later, an optional tool) run as a program, never imported: its
``vmlinuz-decompressor`` turns a packed kernel into the raw one, its ``vmlinux-to-elf`` writes an
ELF of a raw kernel with the kallsyms it recovers as the symbol table. Each run is bounded in time
and address space; what the tool does not do within them is a reason, not a failure.

The tool's own work that grows without bound on hostile input is checked before it runs: a stream
that decompresses past the bound (it decompresses a stream whole), and long runs of printable text
(its search for the version string is quadratic in each run's length)."""

from __future__ import annotations

import io
import os
import resource
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from elftools.elf.elffile import ELFFile
from elftools.elf.sections import SymbolTableSection

from .ksymtab import CORRUPT

TIMEOUT = 300  # seconds per run (a 60 MiB distribution kernel takes about 15 s of CPU)
ADDRESS_SPACE = 4 << 30  # bytes of address space per run (a 256 MiB kernel is held a few times)
# the tool's version search costs the sum of the squares of the lengths of the runs of printable
# bytes; a real kernel's strings (NUL-terminated) cost a few million
MAX_TEXT_COST = 1 << 32


class ToolError(Exception):
    """The tool did not give an answer (not installed, refused, timed out, out of memory)."""


@dataclass(frozen=True)
class Symbolized:
    """What the ELF the tool wrote for a raw kernel says: kallsyms (name to address), the kernel's
    bytes at their addresses, and its byte order and word size."""

    symbols: dict[str, int]
    spans: list[tuple[int, bytes]]  # address, bytes
    little: bool
    word: int


def _program(name: str) -> str:
    beside = Path(sys.executable).parent / name  # the tool installed in linkgraph's environment
    found = str(beside) if beside.exists() else shutil.which(name)
    if found is None:
        raise ToolError("vmlinux-to-elf is not installed")
    return found


def installed() -> bool:
    try:
        _program("vmlinux-to-elf")
    except ToolError:
        return False
    return True


def _limit() -> None:  # pragma: no cover - runs in the child
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


def _run(name: str, data: bytes) -> bytes | None:
    """``name INPUT OUTPUT`` on ``data``: the output file's bytes, or None when it wrote none."""
    program = _program(name)
    with tempfile.TemporaryDirectory(prefix="linkgraph-kernel-") as folder:
        source, output = Path(folder, "kernel"), Path(folder, "out")
        source.write_bytes(data)
        try:
            done = subprocess.run(
                [program, str(source), str(output)],
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=TIMEOUT,
                preexec_fn=_limit if os.name == "posix" else None,
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise ToolError(f"{name} ran past {TIMEOUT} s") from None
        except OSError as exc:
            raise ToolError(f"{name} could not run: {exc.strerror or exc}") from None
        if done.returncode != 0:
            last = (done.stderr.decode(errors="replace").strip().splitlines() or [f"exit {done.returncode}"])[-1]
            raise ToolError(f"{name} failed: {last[:200]}")
        return output.read_bytes() if output.exists() else None


def text_cost(data: bytes) -> int:
    """The sum of the squares of the lengths of the runs of printable ASCII in ``data``."""
    arr = np.frombuffer(data, dtype=np.uint8)
    printable = np.concatenate(([False], (arr >= 0x20) & (arr <= 0x7E), [False])).astype(np.int8)
    edges = np.flatnonzero(np.diff(printable))
    lengths = (edges[1::2] - edges[0::2]).astype(np.int64)
    return int(np.dot(lengths, lengths))


def decompress(data: bytes) -> bytes:
    """The raw kernel inside a packed one (``data`` itself when nothing is packed in it)."""
    return _run("vmlinuz-decompressor", data) or data


def symbolize(raw: bytes) -> Symbolized:
    """The ELF vmlinux-to-elf makes of a raw kernel, with kallsyms as its symbol table."""
    cost = text_cost(raw)
    if cost > MAX_TEXT_COST:
        raise ToolError(f"runs of text too long for its version search (cost {cost:.2e}), not run")
    written = _run("vmlinux-to-elf", raw)
    if written is None:
        raise ToolError("vmlinux-to-elf wrote no ELF (kallsyms not found)")
    try:
        elf = ELFFile(io.BytesIO(written))
        symtab = elf.get_section_by_name(".symtab")
        symbols = (
            {s.name: s["st_value"] for s in symtab.iter_symbols() if s.name}
            if isinstance(symtab, SymbolTableSection)
            else {}
        )
        spans = [
            (sec["sh_addr"], sec.data())
            for sec in elf.iter_sections()
            if sec["sh_type"] == "SHT_PROGBITS" and sec["sh_addr"]
        ]
    except CORRUPT as exc:
        raise ToolError(f"its ELF unreadable: {exc or type(exc).__name__}") from None
    if not symbols:
        raise ToolError("vmlinux-to-elf wrote no symbol table")
    return Symbolized(symbols, spans, elf.little_endian, elf.elfclass // 8)
