"""A host program and the libraries it loads, copied into a root as real files."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

HOST_PROGRAM = "/usr/bin/ls"


def copy_with_libraries(program: str, root: Path) -> None:
    """A root holding one host program and the libraries ldd lists, as real files."""
    out = subprocess.run(["ldd", program], capture_output=True, text=True, check=True).stdout
    paths = [program] + [p for line in out.splitlines() for p in line.split() if p.startswith("/")]
    for path in paths:
        real = os.path.realpath(path)
        for name in {path, real}:
            dest = root / name.lstrip("/")
            dest.parent.mkdir(parents=True, exist_ok=True)
            if not dest.exists():
                shutil.copy2(real, dest)
