"""The licence truth of the host root (tests/support/hostroot.py), from this machine's own dpkg data.

A judge that imports nothing from linkgraph: what it says is read from the host, never from what
linkgraph would decide. For every ELF file of the root (a regular file; the root is a copy of the
host, so its path in the root is its path on the host):

1. The **package** that owns it: ``dpkg-query -S`` on the host path, many paths a call. dpkg's lists
   hold the paths as packages ship them, before the /usr merge: a file at ``/usr/lib/X`` is also
   looked for as ``/lib/X`` when the host's ``/lib`` is a link to ``usr/lib`` (so for /bin, /sbin,
   /lib64, ...). A file that a diversion moved (``dpkg-divert --list``: ``/usr/bin/perf`` to
   ``/usr/bin/perf.wrapper`` by linux-perf) belongs, at the new name, to the package that ships the
   old name and did not divert it, and at the old name to the diverting package. A file found under
   none of these names is looked for by its file name (``*/NAME``): a listed path whose folder
   resolves on the host to the file's folder owns it. A file no package owns is no truth.
2. Its **source package** (``dpkg-query -W -f '${source:Package}'``) and versions.
3. Its **licence**: the package's ``/usr/share/doc/PKG/copyright`` when it is machine-readable
   (DEP-5: its header paragraph has a ``Format`` field). DEP-5 patterns name files of the source
   tree, which an installed file does not carry; the rule here picks the paragraph of the
   file's *source folder*:

   * the module's names are its file name (``ls``; a program's also without a version suffix:
     ``python3.11`` -> ``python``), a library's stem (``libuuid.so.1`` -> ``libuuid``) and the
     stem without ``lib`` (``uuid``), and for a library also its binary package's name without
     the version (``libext2fs2`` -> ``libext2fs``, ``ext2fs``); names shorter than two
     characters never count;
   * a pattern *names* the module, best first:

     1. a folder named after it: a folder pattern (``DIR/*``, ``DIR/``) or the files of one kind
        in it (``DIR/*.c``) whose last folder is one of the names (``libuuid/*``,
        ``lib/ext2fs/*``, ``libraries/libapparmor/*``, ``libattr/*.c``, ``src/top/*``), or a
        pattern of installed files (``usr/...``) that matches the file's installed path;
     2. a top-level wildcard matching a name (elfutils' ``lib*`` for ``libelf``);
     3. when no pattern of the file has a folder named after the module (xz's
        ``src/liblzma/...`` says where liblzma is), the source tree's folder of libraries, for a
        library (``lib/*``, ``src/lib/*``: audit's ``lib/*`` is libaudit), or of programs, for a
        program (``tools/*``, ``programs/*``, ``utils/*``: kmod's ``tools/*``);

     a folder deeper inside the module's (``libmount/python/*``) or one that only passes through
     a folder of that name (``nss/lib/dbm/*``) is another part, and a pattern of single source
     files (``src/ls.c``, ``lib/ext2fs/crc16.*``) never names it, since a program or library is
     built from many files;
   * the paragraph with the best naming pattern decides (the kind above, then the most folder
     parts), the later one on a tie (DEP-5: the last match wins);
   * else the ``Files: *`` paragraph (the last one), else the header's ``License``; else none.

   A copyright file that is not DEP-5 (free text) gives no truth: the module is counted as such.
4. Its **classes**, by this judge's own table of DEP-5 short names (:data:`SHORT_NAMES`). An
   expression ``A or B`` allows the class of every alternative (the user may choose), and its main
   class is the freest; ``A and B`` (all apply) has the class that binds most as its main class,
   and allows each part's class too: which part of the source a module is cannot be read from the
   paragraph either. ``A, or B and C``: a comma lowers the precedence of the operator after it.
   ``GPL-3+ with GCC-exception-3.1`` (a linking exception) is lgpl; ``with OpenSSL exception``
   stays gpl. An alternative of a class the table does not know is dropped when another is
   known; a part it does not know makes the whole unknown.

    python tests/support/host_truth.py --json truth.json   # the truth records of the cached root
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import re
import subprocess
import sys
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path

BATCH = 400  # paths a dpkg-query call
MERGED = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")  # top-level folders /usr may have merged
LIBRARY_FOLDERS = ("lib", "libs")  # a source tree's folder of its libraries
PROGRAM_FOLDERS = ("tools", "programs", "utils")  # ... and of its programs
GLOB = re.compile(r"([*?\[\]\\])")
UNKNOWN = "unknown"
COPYLEFT = ("gpl", "lgpl")
# a choice takes the freest class, a conjunction the one that binds most (docs/licences.md)
FREEDOM = {"permissive": 0, "lgpl": 1, "gpl": 2, "incompatible": 3}
BINDING = {"gpl": 0, "incompatible": 1, "lgpl": 2, "permissive": 3}
# DEP-5 short names (lower case, without "+", "-or-later", "-only") by prefix: the longest wins
SHORT_NAMES = {
    "gpl": "gpl", "agpl": "gpl", "gnu-gpl": "gpl", "ecos": "gpl",
    "lgpl": "lgpl", "gnu-lgpl": "lgpl", "lgpllr": "lgpl",
    "bsd": "permissive", "0bsd": "permissive", "expat": "permissive", "mit": "permissive", "x11": "permissive",
    "isc": "permissive", "zlib": "permissive", "apache": "permissive", "public-domain": "permissive",
    "publicdomain": "permissive", "pd": "permissive", "curl": "permissive", "psf": "permissive",
    "python": "permissive", "artistic-2": "permissive", "mpl-2": "permissive", "bsl": "permissive",
    "boost": "permissive", "unlicense": "permissive", "cc0": "permissive", "wtfpl": "permissive",
    "ntp": "permissive", "hpnd": "permissive", "libpng": "permissive", "ijg": "permissive", "ftl": "permissive",
    "unicode": "permissive", "sleepycat": "permissive", "openldap": "permissive", "oldap": "permissive",
    "postgresql": "permissive", "ruby": "permissive", "php-3.01": "permissive", "bzip2": "permissive",
    "beerware": "permissive", "tcl": "permissive", "fsfap": "permissive", "fsful": "permissive",
    "afl": "permissive", "fastcgi": "permissive", "purdue": "permissive", "openssh": "permissive", "gd": "permissive",
    "hylafax": "permissive", "less": "permissive", "fsfullr": "permissive", "cc-by": "permissive",
    "openssl": "incompatible", "ssleay": "incompatible", "proprietary": "incompatible", "non-free": "incompatible",
    "cddl": "incompatible", "epl": "incompatible",
}  # fmt: skip
PERMISSIVE_WORDS = re.compile(r"permissive|public.?domain|-pd$")  # Janik-permissive, Iconv-PD
# exceptions that let a program link a GPL library without becoming GPL: the library is lgpl
LINKING_EXCEPTIONS = re.compile(r"gcc|runtime|classpath|link|libtool|llvm|ocaml|wxwindows|qt|ecos|syscall")


@dataclass(slots=True)
class Truth:
    """One ELF module of the root and what the host's package data says of its licence."""

    path: str
    package: str | None = None  # the binary package (with its architecture when dpkg gives one)
    packages: list[str] = field(default_factory=list)  # every owner found (more than one is rare)
    source: str | None = None  # the source package
    version: str | None = None  # the binary package's version
    copyright: str | None = None  # /usr/share/doc/PKG/copyright
    dep5: bool = False
    paragraph: str | None = None  # the Files patterns of the paragraph used ("*", "libuuid/*"; "header")
    licence: str | None = None  # its License short names ("GPL-2+ or BSD-3-clause")
    classes: list[str] = field(default_factory=list)  # every class the licence allows
    truth_class: str = UNKNOWN  # the main class: the freest alternative, the most binding part
    why: str | None = None  # why the truth is unknown, when it is

    @property
    def copyleft(self) -> bool:
        return self.truth_class in COPYLEFT


# --------------------------------------------------------------------------- files and owners


def elf_files(root: Path) -> list[str]:
    """The host paths of the root's regular ELF files (symlinks are not modules)."""
    found = []
    for folder, _dirs, files in os.walk(root):
        for name in files:
            path = os.path.join(folder, name)
            if os.path.islink(path) or not os.path.isfile(path):
                continue
            with open(path, "rb") as fh:
                if fh.read(4) == b"\x7fELF":
                    found.append("/" + os.path.relpath(path, root))
    return sorted(found)


def dpkg_search(patterns: list[str]) -> dict[str, list[str]]:
    """``dpkg-query -S`` on many patterns at once: every listed path -> its packages."""
    owners: dict[str, list[str]] = {}
    for start in range(0, len(patterns), BATCH):
        batch = patterns[start : start + BATCH]
        # exit status 1 when some pattern matches nothing: those are just not listed
        proc = subprocess.run(["dpkg-query", "-S", *batch], capture_output=True, text=True, check=False)
        for line in proc.stdout.splitlines():
            if line.startswith(("diversion by ", "local diversion ")):
                continue
            names, sep, path = line.partition(": ")
            if sep:
                owners.setdefault(path, []).extend(n.strip() for n in names.split(",") if n.strip())
    return owners


def diversions() -> dict[str, tuple[str, str | None]]:
    """Each diverted path and each diversion's new name -> (the other name, the diverting package)."""
    proc = subprocess.run(["dpkg-divert", "--list"], capture_output=True, text=True, check=False)
    found: dict[str, tuple[str, str | None]] = {}
    for line in proc.stdout.splitlines():
        m = re.match(r"(?:local )?diversion of (\S+) to (\S+)(?: by (\S+))?$", line)
        if m:
            found[m[1]] = (m[2], m[3])
            found[m[2]] = (m[1], m[3])
    return found


def aliases(path: str) -> list[str]:
    """The names dpkg may list a host file under: itself and its pre-/usr-merge names."""
    names = [path]
    for top in MERGED:
        link = f"/{top}"
        if os.path.islink(link) and os.path.realpath(link) == f"/usr/{top}" and path.startswith(f"/usr/{top}/"):
            names.append(link + path[len(f"/usr/{top}") :])
    return names


def _escape(path: str) -> str:
    return GLOB.sub(r"\\\1", path)


def owners(paths: list[str]) -> dict[str, list[str]]:
    """Host path -> the packages that ship that file (see the module docstring)."""
    diverted = diversions()
    wanted = {p: aliases(p) for p in paths}
    names = {n for ns in wanted.values() for n in ns}
    names |= {diverted[n][0] for n in names if n in diverted}
    listed = dpkg_search(sorted(_escape(n) for n in names))
    found: dict[str, list[str]] = {}
    for path, names_of in wanted.items():
        packages: list[str] = []
        for name in names_of:
            other, by = diverted.get(name, (None, None))
            if other is not None and name not in listed:  # the new name: the old name's other owner
                packages += [p for p in listed.get(other, []) if p.split(":")[0] != by]
            elif other is not None:  # the old name: the diverting package's own file
                packages += [p for p in listed[name] if p.split(":")[0] == by]
            else:
                packages += listed.get(name, [])
        if packages:
            found[path] = sorted(set(packages))
    missing = [p for p in paths if p not in found]
    by_name = dpkg_search(sorted({"*/" + _escape(os.path.basename(p)) for p in missing}))
    for path in missing:
        for listed_path, packages in by_name.items():
            if os.path.basename(listed_path) == os.path.basename(path) and os.path.realpath(
                os.path.dirname(listed_path)
            ) == os.path.dirname(path):
                found.setdefault(path, []).extend(packages)
    return {p: sorted(set(v)) for p, v in found.items()}


def package_facts(packages: list[str]) -> dict[str, dict[str, str]]:
    """Binary package -> its name, source package and version, by one ``dpkg-query -W``."""
    if not packages:
        return {}
    fmt = "${binary:Package}\t${Package}\t${source:Package}\t${Version}\n"
    proc = subprocess.run(["dpkg-query", "-W", "-f", fmt, *packages], capture_output=True, text=True, check=False)
    facts = {}
    for line in proc.stdout.splitlines():
        binary, name, source, version = line.split("\t")
        facts[binary] = facts[name] = {"name": name, "source": source or name, "version": version}
    return facts


# --------------------------------------------------------------------------- DEP-5


def paragraphs(text: str) -> list[dict[str, str]]:
    """The deb822 paragraphs of a copyright file: lower-case field name -> value (continuation
    lines kept, joined by newlines)."""
    found: list[dict[str, str]] = []
    current: dict[str, str] = {}
    last: str | None = None
    for line in text.splitlines():
        if not line.strip():
            if current:
                found.append(current)
            current, last = {}, None
        elif line[0] in " \t":
            if last is not None:
                current[last] += "\n" + line.strip()
        elif not line.startswith("#"):
            name, sep, value = line.partition(":")
            if sep and name.strip() and " " not in name.strip():
                last = name.strip().lower()
                current[last] = value.strip()
    if current:
        found.append(current)
    return found


def is_dep5(paras: list[dict[str, str]]) -> bool:
    return bool(paras) and ("format" in paras[0] or "format-specification" in paras[0])


def module_names(path: str, package: str | None) -> set[str]:
    """The names a source folder of the module may carry (see the module docstring)."""
    base = os.path.basename(path)
    names = set()
    if ".so" in base:
        stem = base.split(".so")[0]
        names |= {stem, re.sub(r"-[\d.]+$", "", stem)}
        if package:  # its binary package less the soname's version: libext2fs2, libglib2.0-0
            names.add(re.sub(r"(-\d+|\d+)(t64)?$", "", package.split(":")[0]))
        names |= {n[3:] for n in names if n.startswith("lib")}
    else:
        names |= {base, re.sub(r"[-.]?\d[\d.]*$", "", base)}
    return {n.lower() for n in names if len(n) >= 2}


def naming_rank(pattern: str, installed: list[str], names: set[str], library: bool) -> tuple[int, int] | None:
    """How well a pattern names the module: (2, folder parts) for a folder named after it (its
    files: ``libuuid/*``, ``libattr/*.c``) or a pattern of its installed path; (1, folder parts)
    for a top-level wildcard folder (elfutils' ``lib*``); (0, folder parts) for the source tree's
    folder of libraries (``lib/*``, ``src/lib/*``) or programs (``tools/*``); None when it does not
    name it."""
    pattern = pattern.strip().lstrip("/")
    if pattern.startswith("usr/"):
        matches = any(fnmatch.fnmatchcase(p.lstrip("/"), pattern) for p in installed)
        return (2, pattern.count("/") + 1) if matches else None
    if "/" not in pattern and "." not in pattern and any(c in pattern for c in "*?["):
        # a top-level wildcard such as elfutils' lib*: every folder it matches
        return (1, 1) if pattern != "*" and any(fnmatch.fnmatchcase(n, pattern.lower()) for n in names) else None
    folder, _, last = pattern.rstrip("/").rpartition("/") if not pattern.endswith("/") else (pattern[:-1], "", "*")
    if not folder or not re.fullmatch(r"\*(\.\w+)?", last):
        return None  # a file, or files by a wildcard: one source file is not the module
    parts = folder.lower().split("/")
    if parts[-1] in names:
        return (2, len(parts))
    generic = LIBRARY_FOLDERS if library else PROGRAM_FOLDERS
    return (0, len(parts)) if parts[-1] in generic and parts[:-1] in ([], ["src"]) else None


def names_a_folder(paras: list[dict[str, str]], names: set[str]) -> bool:
    """Whether some pattern of the file has a folder named after the module (``src/liblzma/...``)."""
    patterns = (p.lower() for para in paras for p in para.get("files", "").split())
    return any(part in names for p in patterns for part in p.split("/")[:-1])


def choose(paras: list[dict[str, str]], installed: list[str], names: set[str], library: bool) -> dict[str, str] | None:
    """The paragraph that decides for the module: the one whose pattern names it best, the later
    on a tie, else ``Files: *``, else the header paragraph when it has a licence."""
    best: tuple[int, int, int] | None = None
    chosen = wildcard = None
    generic = not names_a_folder(paras, names)  # lib/* or tools/* only when the module's own folder is not named
    for index, para in enumerate(paras):
        patterns = para.get("files", "").split()
        if "*" in patterns:
            wildcard = para
        ranks = [r for p in patterns if (r := naming_rank(p, installed, names, library)) and (r[0] or generic)]
        if ranks and (best is None or (*max(ranks), index) >= best):
            best, chosen = (*max(ranks), index), para
    if chosen is not None or wildcard is not None:
        return chosen or wildcard
    return paras[0] if paras and paras[0].get("license") else None


def _atom(name: str) -> str:
    """The class of one short name (``GPL-2+``, ``BSD-3-clause``, ``GPL-3+ with GCC-exception-3.1``)."""
    name, _, exception = name.strip().strip("()").lower().partition(" with ")
    name = re.sub(r"(\+|-or-later|-only|-or-newer)$", "", name.strip())
    best, length = UNKNOWN, 0
    for prefix, cls in SHORT_NAMES.items():
        if name.startswith(prefix) and len(prefix) > length:
            best, length = cls, len(prefix)
    if best == UNKNOWN and PERMISSIVE_WORDS.search(name):
        best = "permissive"
    if best == "gpl" and exception and LINKING_EXCEPTIONS.search(exception):
        return "lgpl"
    return best


def classes(expression: str) -> tuple[str, list[str]]:
    """The main class of a DEP-5 licence expression and every class it allows (module docstring)."""
    expression = " ".join(expression.split())
    for low in (", or ", ", and "):  # a comma lowers the operator after it: split there first
        if low in expression.lower():
            return _combine(re.split(re.escape(low), expression, flags=re.I), low.strip(", "))
    for operator in (" or ", " and "):  # and binds closer than or
        if operator in expression.lower():
            return _combine(re.split(re.escape(operator), expression, flags=re.I), operator.strip())
    cls = _atom(expression)
    return cls, [cls]


def _combine(parts: list[str], operator: str) -> tuple[str, list[str]]:
    judged = [classes(p) for p in parts if p.strip()]
    if operator == "or":
        known = [j for j in judged if j[0] != UNKNOWN]
        if not known:
            return UNKNOWN, [UNKNOWN]
        return min((j[0] for j in known), key=FREEDOM.__getitem__), sorted({c for j in known for c in j[1]})
    if any(j[0] == UNKNOWN for j in judged):
        return UNKNOWN, [UNKNOWN]
    return min((j[0] for j in judged), key=BINDING.__getitem__), sorted({c for j in judged for c in j[1]})


# --------------------------------------------------------------------------- the truth


def licence_of(truth: Truth, installed: list[str]) -> None:
    """Fill the truth's copyright, paragraph, licence and classes from the package's copyright file."""
    assert truth.package is not None
    copyright_file = f"/usr/share/doc/{truth.package.split(':')[0]}/copyright"
    truth.copyright = copyright_file
    try:
        text = Path(copyright_file).read_text(errors="replace")
    except OSError:
        truth.why = "no copyright file"
        return
    paras = paragraphs(text)
    truth.dep5 = is_dep5(paras)
    if not truth.dep5:
        truth.why = "copyright file not DEP-5"
        return
    para = choose(paras, installed, module_names(truth.path, truth.package), ".so" in os.path.basename(truth.path))
    if para is None:
        truth.why = "no Files: * paragraph and no header licence"
        return
    truth.paragraph = " ".join(para.get("files", "header").split())
    truth.licence = para["license"].split("\n")[0].strip() if para.get("license") else None
    if not truth.licence:
        truth.why = "the paragraph names no licence"
        return
    truth.truth_class, truth.classes = classes(truth.licence)
    if truth.truth_class == UNKNOWN:
        truth.why = f"licence not in the judge's table: {truth.licence}"


def host_truth(root: Path) -> list[Truth]:
    """The truth of every ELF module of a root built by hostroot.build_host_root."""
    paths = elf_files(root)
    owned = owners(paths)
    facts = package_facts(sorted({p for ps in owned.values() for p in ps}))
    truths = []
    for path in paths:
        truth = Truth(path, packages=owned.get(path, []))
        if not os.path.isfile(path) or os.path.getsize(path) != os.path.getsize(root / path.lstrip("/")):
            truth.why = "the host file is not the root's copy"
        elif not truth.packages:
            truth.why = "no package owns it"
        else:
            truth.package = truth.packages[0]
            fact = facts.get(truth.package, {})
            truth.source, truth.version = fact.get("source"), fact.get("version")
            licence_of(truth, aliases(path))
        truths.append(truth)
    return truths


def upstream_version(version: str) -> str:
    """The upstream part of a Debian version: ``9.1`` of ``9.1-1``, ``2.36`` of ``1:2.36-9+deb12u4``."""
    version = version.split(":", 1)[-1]
    return version.rsplit("-", 1)[0] if "-" in version else version


def package_version(package: str) -> str | None:
    """The host's version of a package (``dpkg-query -W``), or None when it is not installed."""
    proc = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", package], capture_output=True, text=True)
    return proc.stdout.strip() or None if proc.returncode == 0 else None


def summary(truths: list[Truth]) -> dict[str, object]:
    """The counts: modules, by class, and why the others have no truth."""
    return {
        "modules": len(truths),
        "by_class": dict(Counter(t.truth_class for t in truths).most_common()),
        "copyleft": sum(t.copyleft for t in truths),
        "conjunctions": sum(" and " in (t.licence or "").lower() for t in truths),
        "without_truth": dict(Counter((t.why or "").split(":")[0] for t in truths if t.why).most_common()),
        "not_dep5_packages": sorted({t.package or "" for t in truths if t.why == "copyright file not DEP-5"}),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", type=Path, help="a root built by hostroot.py (default: the cached /usr/bin root)")
    parser.add_argument("--json", type=Path, help="write the counts and every truth record to this file")
    args = parser.parse_args(argv)
    if args.root is None:
        sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
        from support.hostroot import cached_host_root

        args.root = cached_host_root()
    truths = host_truth(args.root)
    counts = summary(truths)
    print(json.dumps(counts, indent=1))
    if args.json:
        record = {"root": str(args.root), **counts, "truths": [asdict(t) for t in truths]}
        args.json.write_text(json.dumps(record, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
