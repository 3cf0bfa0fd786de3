"""The compliance report's PDF written by the command line: WeasyPrint lays out the report's HTML once the
store is closed and what reading it took is given back, so that the peak is WeasyPrint's own; its pages
are told as progress (``progress_lines``)."""

from __future__ import annotations

import contextlib
import ctypes
import gc
from pathlib import Path

from ..loader.errors import LinkgraphError
from .options import fail
from .progress_lines import ProgressLines, weasyprint_pages


def write_pdf(html: str, output: str, progress: ProgressLines) -> None:
    """The PDF of ``html`` laid out by WeasyPrint (the store closed: its memory is not WeasyPrint's) into ``output``."""
    from ..viewer.compliance_render import pdf_from_html

    gc.collect()
    give_back_freed_memory()
    try:
        with weasyprint_pages(progress):
            body = pdf_from_html(html)
    except LinkgraphError as exc:
        fail(str(exc))
    try:
        Path(output).write_bytes(body)
    except OSError as exc:
        fail(f"cannot write {output}: {exc.strerror or exc}")


def give_back_freed_memory() -> None:
    """Return to the system what the C library keeps of memory freed (the store's, the diagram threads'
    arenas): on the host root 72 MB less under WeasyPrint's own peak. glibc only; elsewhere nothing."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").malloc_trim(0)
