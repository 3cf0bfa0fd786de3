"""Another commit of linkgraph installed beside this one, so a benchmark can time both in one run.

``installed(rev)`` exports the commit's tree (``git archive``) into a cache folder keyed by the full
commit id, makes a virtual environment there and installs that tree into it (not editable: the
export is all it needs), once; it returns the command that runs that commit's CLI.

    python bench/baseline.py REV     # prepare it, print the command
"""

from __future__ import annotations

import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CACHE = Path.home() / ".cache" / "linkgraph-bench" / "baselines"


def commit_of(rev: str) -> str:
    """The full commit id of ``rev`` in this repository."""
    out = subprocess.run(
        ["git", "-C", str(REPO), "rev-parse", "--verify", f"{rev}^{{commit}}"], capture_output=True, text=True
    )
    if out.returncode != 0:
        raise SystemExit(f"baseline: {rev!r} names no commit of this repository ({out.stderr.strip()})")
    return out.stdout.strip()


def installed(rev: str) -> list[str]:
    """The command running the linkgraph CLI of commit ``rev`` (installed on first use)."""
    commit = commit_of(rev)
    home = CACHE / commit
    script = home / "venv" / "bin" / "linkgraph"
    if script.is_file():
        return [str(script)]
    home.mkdir(parents=True, exist_ok=True)
    tree = home / "tree"
    with tempfile.TemporaryFile() as tar:
        subprocess.run(["git", "-C", str(REPO), "archive", commit], stdout=tar, check=True)
        tar.seek(0)
        with tarfile.open(fileobj=tar) as archive:
            archive.extractall(tree, filter="data")
    print(f"baseline: installing {commit[:12]} into {home} (once)", file=sys.stderr)
    subprocess.run([sys.executable, "-m", "venv", str(home / "venv")], check=True)
    pip = [str(home / "venv" / "bin" / "python"), "-m", "pip", "install", "-q"]
    subprocess.run([*pip, str(tree)], check=True)
    return [str(script)]


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    print(" ".join(installed(sys.argv[1])))
