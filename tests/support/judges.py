"""The tools a user would pick instead of linkgraph's identification, as judges only: cve-bin-tool's
version checkers (PyPI, GPL-3.0) and syft's binary classifiers (Go, Apache-2.0). Neither is ever
imported: each lives in its own folder of the test cache keyed by its version (cve-bin-tool in a
virtual environment of its own, syft built from its Go module) and is run as a subprocess, and
each root's findings are cached under the root's hash and the judge's version.

    python tests/support/judges.py install   # what scripts/setup.sh --test runs (idempotent)

:func:`findings` gives one root's (file, component, version) per judge, the judge's own product
names mapped to linkgraph's component names by :data:`VOCABULARY`.
"""

from __future__ import annotations

import enum
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
CVE_BIN_TOOL_VERSION = "3.4"
SYFT_VERSION = "v1.57.2"
GO = shutil.which("go") or "/usr/local/go/bin/go"
# Bumped when the way a judge is run (and so its cached output) changes.
RUN_VERSION = 1


class Judge(enum.StrEnum):
    CVE_BIN_TOOL = "cve-bin-tool"
    SYFT = "syft"


def cache_dir() -> Path:
    if os.environ.get("LINKGRAPH_TEST_CACHE"):
        return Path(os.environ["LINKGRAPH_TEST_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "linkgraph-tests"


def judges_dir() -> Path:
    return cache_dir() / "judges"


def cve_bin_tool_python() -> Path:
    return judges_dir() / f"cve-bin-tool-{CVE_BIN_TOOL_VERSION}" / "venv" / "bin" / "python"


def syft_binary() -> Path:
    return judges_dir() / f"syft-{SYFT_VERSION}" / "bin" / "syft"


def version_of(judge: Judge) -> str:
    return CVE_BIN_TOOL_VERSION if judge is Judge.CVE_BIN_TOOL else SYFT_VERSION


# --------------------------------------------------------------------------- install


def install_cve_bin_tool() -> Path:
    python = cve_bin_tool_python()
    if python.is_file() and _pip_has(python, "cve-bin-tool", CVE_BIN_TOOL_VERSION):
        return python
    venv = python.parent.parent
    subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "-q", f"cve-bin-tool=={CVE_BIN_TOOL_VERSION}"], check=True)
    return python


def _pip_has(python: Path, package: str, version: str) -> bool:
    proc = subprocess.run([str(python), "-m", "pip", "show", package], capture_output=True, text=True)
    return proc.returncode == 0 and f"Version: {version}\n" in proc.stdout


def install_syft() -> Path:
    binary = syft_binary()
    if binary.is_file():
        return binary
    env = dict(os.environ, GOBIN=str(binary.parent), CGO_ENABLED="0")
    subprocess.run([GO, "install", f"github.com/anchore/syft/cmd/syft@{SYFT_VERSION}"], check=True, env=env)
    return binary


# --------------------------------------------------------------------------- findings


@dataclass(frozen=True, slots=True)
class Finding:
    """One (file, component, version) a judge reports; ``name`` is the judge's own word."""

    judge: Judge
    file: str  # the path inside the root, "/usr/bin/x"
    name: str
    component: str  # ``name`` in linkgraph's vocabulary
    version: str | None
    contains: bool = False  # cve-bin-tool's "contains" (by strings) rather than "is" (by file name)


# the judges' checker or package names whose linkgraph component has another name; a name not
# listed is the same word in both vocabularies
VOCABULARY: dict[str, str] = {
    # cve-bin-tool's checkers
    "libcurl": "curl",
    "libexpat": "expat",
    "ntfs_3g": "ntfs-3g",
    "json_c": "json-c",
    "procps_ng": "procps-ng",
    "util_linux": "util-linux",
    "xml2": "libxml2",
    "syslogng": "syslog-ng",
    "dropbear_ssh": "dropbear",
    "mbed_tls": "mbedtls",
    "gdbserver": "gdb",
    "linux_kernel": "linux",
    # syft's binary classifiers
    "libpython": "python",
}


def mapped(name: str) -> str:
    return VOCABULARY.get(name, name)


def findings(judge: Judge, root: Path, key: str) -> list[Finding]:
    """The judge's findings on ``root``, cached under ``key`` (the root's archive or image hash)."""
    cached = judges_dir() / "out" / f"{key}-{judge.value}-{version_of(judge)}-r{RUN_VERSION}.json"
    if not cached.is_file():
        raw = _run_cve_bin_tool(root) if judge is Judge.CVE_BIN_TOOL else _run_syft(root)
        cached.parent.mkdir(parents=True, exist_ok=True)
        tmp = cached.with_suffix(".tmp")
        tmp.write_text(json.dumps(raw))
        tmp.replace(cached)
    raw = json.loads(cached.read_text())
    return sorted({Finding(judge, r["file"], r["name"], mapped(r["name"]), r["version"], r["contains"]) for r in raw},
                  key=lambda f: (f.file, f.component))  # fmt: skip


def _run_cve_bin_tool(root: Path) -> list[dict]:
    python = cve_bin_tool_python()
    if not python.is_file():
        raise FileNotFoundError(f"{python}: cve-bin-tool is not installed (bash scripts/setup.sh --test)")
    proc = subprocess.run([str(python), str(HERE / "cve_bin_tool_checkers.py"), str(root)],
                          capture_output=True, text=True, check=True)  # fmt: skip
    rows = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    return [{"file": r["file"], "name": r["checker"], "version": r["version"], "contains": r["relation"] == "contains"}
            for r in rows if "checker" in r]  # fmt: skip


def _run_syft(root: Path) -> list[dict]:
    binary = syft_binary()
    if not binary.is_file():
        raise FileNotFoundError(f"{binary}: syft is not installed (bash scripts/setup.sh --test)")
    env = dict(os.environ, SYFT_CHECK_FOR_APP_UPDATE="false")
    proc = subprocess.run([str(binary), "scan", f"dir:{root}", "-o", "json", "-q"],
                          capture_output=True, text=True, check=True, env=env)  # fmt: skip
    document = json.loads(proc.stdout)
    # the binary catalogers only: the roots hold no package data to catalogue
    binary = [p for p in document.get("artifacts", []) if "binary" in p.get("foundBy", "")]
    rows = [
        {"file": loc["path"], "name": p["name"], "version": p.get("version") or None, "contains": False}
        for p in binary
        for loc in p.get("locations", [])
    ]
    return rows


if __name__ == "__main__":
    if sys.argv[1:] == ["install"]:
        print(f"cve-bin-tool {CVE_BIN_TOOL_VERSION}: {install_cve_bin_tool()}")
        print(f"syft {SYFT_VERSION}: {install_syft()}")
    else:
        sys.exit("usage: judges.py install")
