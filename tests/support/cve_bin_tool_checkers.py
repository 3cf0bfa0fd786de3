"""Run by cve-bin-tool's own interpreter (never imported by the tests or by linkgraph): its version
checkers on every ELF file of a root, offline (no CVE database, no sqlite source-id table), one JSON line per finding.

    JUDGE_PYTHON tests/support/cve_bin_tool_checkers.py ROOT

prints ``{"file": "/usr/bin/x", "checker": "curl", "products": ["curl"], "relation": "is", "version":
"7.29.0"}`` lines, as cve-bin-tool's ``VersionScanner.run_checkers`` reports them: the strings of the
file (``strings -n 3``, the tool's own parser), each checker's ``get_version``, a finding only where
the checker reads a version (the tool drops ``UNKNOWN`` ones too). Files are tried as the tool
tries them: regular files, not symlinks, ELF by their magic (the tool asks ``file`` for ``LSB``/
``MSB``).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

from cve_bin_tool.strings import parse_strings  # type: ignore[import-not-found]
from cve_bin_tool.version_scanner import VersionScanner  # type: ignore[import-not-found]
from cve_bin_tool.version_signature import VersionSignatureDb  # type: ignore[import-not-found]

# offline: the sqlite checker's table of source ids per release is fetched from sqlite.org when its
# class is defined; without it the checker reads the version from its patterns (an empty table)
VersionSignatureDb.open = lambda self: None


def elf_files(root: str) -> Iterator[str]:
    """The root's regular ELF files (symlinks not followed), in path order."""
    for path in sorted(Path(root).rglob("*")):
        if path.is_symlink() or not path.is_file():
            continue
        try:
            with path.open("rb") as fh:
                magic = fh.read(4)
        except OSError:
            continue
        if magic == b"\x7fELF":
            yield str(path)


def main(root: str) -> None:
    root = os.path.abspath(root)
    checkers = {name: cls() for name, cls in sorted(VersionScanner.load_checkers().items())}
    print(json.dumps({"checkers": len(checkers)}), flush=True)
    for path in elf_files(root):
        lines = parse_strings(path)
        for name, checker in checkers.items():
            result = checker.get_version(lines, path)
            for found in [result] if "is_or_contains" in result else result:
                version = found.get("version", "UNKNOWN")
                if "is_or_contains" not in found or version == "UNKNOWN":
                    continue
                products = sorted({product for _vendor, product in checker.VENDOR_PRODUCT})
                record = {"file": "/" + os.path.relpath(path, root), "checker": name, "products": products,
                          "relation": found["is_or_contains"], "version": version}  # fmt: skip
                print(json.dumps(record), flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
