"""Where an internal error's trace goes: a file next to the database the command uses.

The trace file holds the command line and the full traceback; its folder is the one the
command already writes to: the folder of ``--db``, else the scan's ``--workdir``, else the
current folder. Only when that folder cannot take a new file does it go to the system's
temporary folder. The command's one line on stderr names the file.
"""

from __future__ import annotations

import os
import sys
import tempfile
import traceback
from pathlib import Path

from .. import __version__

_folders: list[Path] = []  # the folders the running command named, most fitting first


def keep_traces_in(folder: str | os.PathLike[str]) -> None:
    """The command writes to ``folder`` (a database's or a work folder): traces go there."""
    _folders.append(Path(folder).absolute())


def trace_folder() -> Path:
    """The folder a trace file goes to now (``keep_traces_in``'s first, else the current one)."""
    return _folders[0] if _folders else Path.cwd()


def write_trace(exc: BaseException) -> Path:
    """Write the command line and ``exc``'s traceback to a new file; returns its path."""
    try:
        fd, path = tempfile.mkstemp(prefix="linkgraph-internal-error-", suffix=".txt", dir=trace_folder())
    except OSError:
        fd, path = tempfile.mkstemp(prefix="linkgraph-internal-error-", suffix=".txt")
    with os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace") as out:
        out.write(f"linkgraph {__version__}: {' '.join(sys.argv)}\n")
        traceback.print_exception(exc, file=out)
    return Path(path)
