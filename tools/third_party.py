"""Write docs/third-party.md: what linkgraph depends on at run time (the closure of
``pyproject.toml``'s dependencies, from the installed packages' metadata) and the files it vendors
(``viewer/static/vendor``, and ``tests/vendor`` for the test suite), each with its licence.

    python tools/third_party.py           # rewrite docs/third-party.md
    python tools/third_party.py --check   # exit 1 (with a diff) when the file is out of date
    python tools/third_party.py --check --root DIR   # the same for a copy of the repository
"""

from __future__ import annotations

import difflib
import re
import sys
import tomllib
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = Path("docs", "third-party.md")
VENDOR_FOLDERS = {"viewer/static/vendor": "shipped with the viewer", "tests/vendor": "the test suite only"}
# the first phrase of a licence text that names it (checked in this order)
LICENCE_TEXTS = (
    ("Permission is hereby granted, free of charge", "MIT"),
    ("Eclipse Public License - v 2.0", "EPL-2.0"),
    ("Apache License", "Apache-2.0"),
    ("Mozilla Public License", "MPL-2.0"),
    ("Neither the name", "BSD-3-Clause"),
    ("Redistribution and use in source and binary forms", "BSD-2-Clause"),
)
LICENCE_FILE = re.compile(r"^(?P<name>.+)-(?P<version>\d+(?:\.\d+)+)\.LICENSE")
CODE_FILE = re.compile(r"^(?P<name>[^-]+)(?:-.+)?-(?P<version>\d+(?:\.\d+)+)\.")


@dataclass(frozen=True)
class Package:
    name: str
    version_wanted: str  # the specifier pyproject.toml gives ("" for an indirect dependency)
    licence: str
    needed_by: str  # the direct dependency that pulls it in ("" for a direct one)


def metadata_licence(dist: metadata.Distribution) -> str:
    """The licence the package's metadata declares: its License-Expression, a short License field,
    or its licence classifiers."""
    meta = dist.metadata
    expression = meta["License-Expression"]
    if expression:
        return expression.strip()
    text = (meta["License"] or "").strip()
    if text and "\n" not in text and len(text) <= 60:
        return text
    classifiers = [c.split(" :: ")[-1] for c in meta.get_all("Classifier") or [] if c.startswith("License ::")]
    if classifiers:
        return " / ".join(classifiers)
    return "not stated in its metadata"


def _requires(dist: metadata.Distribution) -> list[Requirement]:
    found = []
    for line in dist.requires or []:
        req = Requirement(line)
        if req.marker is None or req.marker.evaluate({"extra": ""}):
            found.append(req)
    return found


def runtime_packages(root: Path) -> list[Package]:
    """pyproject.toml's dependencies and, breadth first, what each of them requires."""
    project = tomllib.loads((root / "pyproject.toml").read_text())["project"]
    seen: dict[str, Package] = {}
    queue: list[tuple[Requirement, str]] = [(Requirement(d), "") for d in project["dependencies"]]
    while queue:
        req, parent = queue.pop(0)
        key = canonicalize_name(req.name)
        if key in seen or (req.marker is not None and not req.marker.evaluate({"extra": ""})):
            continue
        try:
            dist = metadata.distribution(req.name)
        except metadata.PackageNotFoundError:
            raise SystemExit(f"{req.name} is not installed: run scripts/setup.sh first") from None
        seen[key] = Package(key, str(req.specifier) if not parent else "", metadata_licence(dist), parent)
        queue += [(r, parent or key) for r in _requires(dist)]
    return sorted(seen.values(), key=lambda p: (p.needed_by != "", p.name))


def text_licence(text: str) -> str:
    return next((spdx for phrase, spdx in LICENCE_TEXTS if phrase in text), "unknown")


def vendored(folder: Path) -> list[tuple[str, str, str]]:
    """(file, licence, licence files) for each vendored file of ``folder``: a file ``NAME-VERSION.LICENSE*``
    covers the files of that version whose name starts as NAME does; several licence files of one
    name are alternatives (the vendor's choice of either)."""
    licences: dict[tuple[str, str], list[Path]] = {}
    for path in sorted(folder.iterdir()):
        if found := LICENCE_FILE.match(path.name):
            licences.setdefault((found["name"], found["version"]), []).append(path)
    rows = []
    for path in sorted(folder.iterdir()):
        if LICENCE_FILE.match(path.name):
            continue
        code = CODE_FILE.match(path.name)
        files = next(
            (
                files
                for (name, version), files in licences.items()
                if code and version == code["version"] and name.startswith(code["name"])
            ),
            [],
        )
        spdx = " OR ".join(text_licence(f.read_text(errors="replace")) for f in files) or "unknown"
        rows.append((path.name, spdx, ", ".join(f.name for f in files) or "none beside it"))
    return rows


def render(root: Path) -> str:
    lines = [
        "# Third-party software",
        "",
        "linkgraph itself is under the MIT licence (`LICENSE`). This page lists what it depends on and",
        "what it carries, each with its licence. It is written by `tools/third_party.py` from the installed",
        "packages' metadata and the vendored licence files; a test fails when `pyproject.toml` or a vendor",
        "folder changes without it (run `.venv/bin/python tools/third_party.py` after such a change).",
        "",
        "GPL-licensed tools the test suite installs (vmlinux-to-elf, dissect.squashfs) are not imported by",
        "linkgraph: vmlinux-to-elf's programs are run as programs when they are installed (docs/kernel.md).",
        "",
        "## Run-time dependencies",
        "",
        "`pyproject.toml`'s dependencies, then what they require in turn (with the dependency that pulls",
        "each one in).",
        "",
        "| package | wanted | licence (its metadata) | needed by |",
        "|---|---|---|---|",
    ]
    lines += [
        f"| {p.name} | {p.version_wanted or '-'} | {p.licence} | {p.needed_by or 'linkgraph'} |"
        for p in runtime_packages(root)
    ]
    for folder, use in VENDOR_FOLDERS.items():
        lines += [
            "",
            f"## Vendored files in `{folder}` ({use})",
            "",
            "| file | licence | licence text |",
            "|---|---|---|",
        ]
        lines += [f"| {name} | {spdx} | {files} |" for name, spdx, files in vendored(root / folder)]
    return "\n".join(lines) + "\n"


def main() -> int:
    args = sys.argv[1:]
    root = Path(args[args.index("--root") + 1]) if "--root" in args else ROOT
    output = root / OUTPUT
    text = render(root)
    if "--check" in args:
        old = output.read_text() if output.exists() else ""
        if old == text:
            return 0
        sys.stdout.writelines(difflib.unified_diff(old.splitlines(True), text.splitlines(True), str(OUTPUT), "now"))
        print(f"{OUTPUT} is out of date: run python tools/third_party.py", file=sys.stderr)
        return 1
    output.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
