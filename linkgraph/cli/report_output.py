"""Where ``report`` writes: the SBOM writer a format names (imported when chosen), and text output to
a file replaced only when complete, or to stdout, as UTF-8."""

from __future__ import annotations

import contextlib
import io
import os
import sys
from collections.abc import Callable, Iterator
from typing import TextIO


def _cyclonedx() -> Callable[..., None]:
    from ..loader.sbom.cyclonedx import write_cyclonedx

    return write_cyclonedx


def _spdx2() -> Callable[..., None]:
    from ..loader.sbom.spdx2_json import write_spdx2

    return write_spdx2


def _spdx3() -> Callable[..., None]:
    from ..loader.sbom.spdx3_jsonld import write_spdx3

    return write_spdx3


# --format NAME -> the SBOM writer (store, firmware, out), imported when chosen
SBOM_WRITERS: dict[str, Callable[[], Callable[..., None]]] = {
    "cyclonedx-json": _cyclonedx,
    "spdx-json": _spdx2,
    "spdx3-json": _spdx3,
}


@contextlib.contextmanager
def text_output(output: str | None) -> Iterator[TextIO]:
    """The file ``output`` (replaced only when complete) or stdout, as UTF-8 text."""
    if output is None:
        sys.stdout.flush()
        stream = io.TextIOWrapper(sys.stdout.buffer, encoding="utf-8", errors="surrogateescape", newline="\n")
        try:
            yield stream
        finally:
            stream.flush()
            stream.detach()
        return
    partial = f"{output}.partial"
    try:
        with open(partial, "w", encoding="utf-8", errors="surrogateescape", newline="\n") as fh:
            yield fh
        os.replace(partial, output)
    finally:
        if os.path.exists(partial):
            os.unlink(partial)
