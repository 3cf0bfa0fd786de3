"""OpenWrt package Makefiles: ``PKG_NAME``, ``PKG_VERSION``, ``PKG_LICENSE`` and the ELF-looking
files the ``Package/X/install`` rules install.

Make is expanded lightly: the Makefile's own simple assignments (``VAR:=``, ``VAR=``, ``VAR?=``,
``VAR+=``) are substituted into each other; ``$(1)``, the build-system variables and functions stay
as written. An install command counts when it copies a build output (``$(PKG_BUILD_DIR)/...``,
``$(PKG_INSTALL_DIR)/...``, never ``./files/...``): every ``$(INSTALL_BIN)``, and a ``$(CP)`` or
``$(LN)`` of a shared library (``*.so*``) or of a file from a ``bin``/``sbin``/``libexec`` folder.
A file name still holding ``$(...)`` after expansion (a template's argument, a ``foreach``) is
counted as unparsed, a pure glob (``*.so*``, ``*``) as too wide.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_ASSIGN = re.compile(r"^(?:override\s+)?([A-Za-z0-9_.\-/]+)\s*(:=|\?=|\+=|=)\s*(.*)$")
_REF = re.compile(r"\$[({]([A-Za-z0-9_.\-/]+)[)}]")
_COMMAND = re.compile(r"\$\((INSTALL_BIN|INSTALL_DATA|INSTALL_CONF|CP|LN)\)\s+([^;&|]*)")
_BUILD_OUTPUT = (
    "$(PKG_BUILD_DIR)",
    "$(PKG_INSTALL_DIR)",
    "$(KERNEL_BUILD_DIR)",
    "$(STAGING_DIR",
    "$(TOOLCHAIN_DIR)",
    "$(BUILD_DIR",
)
_LIBRARY = re.compile(r"\.so($|[.*])")
_PROGRAM_DIRS = ("bin", "sbin", "libexec")
_SCRIPT = re.compile(
    r"\.(sh|lua|py|pl|uc|js|json|ya?ml|xml|html?|css|png|conf|cfg|ini|txt|md|h|a|la|pc|ko|init|initd|"
    r"hotplug|rules|service|pem|crt|key|db)$"
)
_VALID = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.+@*-]*$")  # a file name (or library glob), nothing of make or shell
_NOT_ELF_DEST = re.compile(r"/(etc|share|www|include)(/|$)")  # where programs and libraries are never installed
_DIRS = re.compile(r"\$\(INSTALL_DIR\)\s+([^;&|]*)")
_BRACES = re.compile(r"^([^{}]*)\{([^{}]*)\}([^{}]*)$")
_NOT_NAMES = {"bin", "sbin", "lib", "usr", "libexec", "lib64", "lib32"}


@dataclass(slots=True)
class Makefile:
    path: str
    name: str | None
    version: str | None
    licence: str | None
    names: set[str] = field(default_factory=set)
    commands: int = 0  # install commands copying a build output (or making a library link)
    unparsed: int = 0  # of those, the ones whose file name could not be worked out
    too_wide: int = 0  # install commands whose file name is a bare glob
    links: dict[str, str] = field(default_factory=dict)  # $(LN): link name -> what it points to


def logical_lines(text: str) -> list[str]:
    """Lines with their ``\\`` continuations joined and ``#`` comments (outside recipes) dropped."""
    out: list[str] = []
    pending = ""
    for raw in text.splitlines():
        if raw.endswith("\\"):
            pending += raw[:-1] + " "
            continue
        line = pending + raw
        pending = ""
        if line.lstrip().startswith("#") and not line.startswith("\t"):
            continue
        out.append(line)
    if pending:
        out.append(pending)
    return out


def variables(lines: list[str]) -> dict[str, str]:
    """Top-level assignments (outside ``define`` blocks); later ``:=``/``=`` win, ``?=`` never overrides."""
    found: dict[str, str] = {}
    depth = 0
    for line in lines:
        stripped = line.strip()
        if stripped.startswith("define "):
            depth += 1
        elif stripped == "endef" and depth:
            depth -= 1
        elif depth == 0 and not line.startswith("\t") and (m := _ASSIGN.match(stripped)):
            var, op, value = m.groups()
            if op == "+=":
                found[var] = f"{found.get(var, '')} {value}".strip()
            elif op != "?=" or var not in found:
                found[var] = value.strip()
    return found


def expand(text: str, known: dict[str, str], depth: int = 8) -> str:
    """``$(VAR)`` and ``${VAR}`` of the known variables substituted, up to ``depth`` times over."""
    for _ in range(depth):
        new = _REF.sub(lambda m: known.get(m.group(1), m.group(0)), text)
        if new == text:
            break
        text = new
    return text


def _install_lines(lines: list[str]) -> list[str]:
    """Lines inside any ``define`` whose name ends in ``/install`` (nested templates included)."""
    stack: list[str] = []
    out: list[str] = []
    for line in lines:
        stripped = line.strip()
        if stripped.startswith("define "):
            stack.append(stripped[len("define ") :].strip())
        elif stripped == "endef" and stack:
            stack.pop()
        elif any(name.rstrip("=: ").endswith("/install") for name in stack):
            out.append(stripped)
    return out


def _is_elf_name(command: str, source: str, name: str) -> bool:
    if _SCRIPT.search(name) or name in _NOT_NAMES:
        return False
    if _LIBRARY.search(name):
        return True
    folder = source.rsplit("/", 2)[-2] if source.count("/") >= 1 else ""
    return command == "INSTALL_BIN" or folder in _PROGRAM_DIRS


def _too_wide(name: str) -> bool:
    """A glob that names no particular file: ``*``, ``lib*.so*``, ``test*`` (globs only for libraries)."""
    if "*" not in name:
        return False
    return not _LIBRARY.search(name) or len(re.sub(r"^lib|\.so.*$|[*.]", "", name)) < 2


def _braces(source: str) -> list[str]:
    """The file names a source names: its base name, each of a shell brace list (``{init,procd}``)."""
    name = source.rstrip("/").rsplit("/", 1)[-1]
    m = _BRACES.match(name)
    return [m.group(1) + word + m.group(3) for word in m.group(2).split(",")] if m else [name]


def _command_names(command: str, args: list[str], dirs: set[str], target: Makefile) -> None:
    """The file names one install command gives ``target`` (or its unparsed/too-wide counts). A
    single source copied to a path that is no folder of ``dirs`` is installed under that path's name."""
    words = [w for w in args if not w.startswith("-")]
    if len(words) < 2:
        return
    dest = words[-1]
    if command == "LN":
        name = dest.rsplit("/", 1)[-1] or words[0].rsplit("/", 1)[-1]
        target.links[name] = words[0].rsplit("/", 1)[-1]
        return
    sources = [s for s in words[:-1] if s.startswith(_BUILD_OUTPUT)] if not _NOT_ELF_DEST.search(dest) else []
    renamed = len(words) == 2 and not dest.endswith("/") and dest not in dirs and "*" not in words[0]
    for source in sources:
        for name in [dest.rsplit("/", 1)[-1]] if renamed else _braces(source):
            target.commands += 1
            if "$" in name or "`" in name:
                target.unparsed += 1
            elif _too_wide(name):
                target.too_wide += 1
            elif _VALID.match(name) and _is_elf_name(command, source, name):
                target.names.add(name)


def is_package(text: str) -> bool:
    """A package's Makefile (not a source tree's own ``src/Makefile``)."""
    return "BuildPackage" in text or "package.mk" in text


def parse(path: str, text: str) -> Makefile:
    lines = logical_lines(text)
    found_vars = variables(lines)

    def var(name: str) -> str | None:
        value = expand(found_vars.get(name, ""), found_vars).strip()
        return value or None

    version = var("PKG_VERSION") or var("PKG_SOURCE_DATE")  # packages built from git give a date
    found = Makefile(path, var("PKG_NAME"), version, var("PKG_LICENSE"))
    for name in ("PKG_BUILD_DIR", "PKG_INSTALL_DIR"):  # kept as written: they mark build outputs
        found_vars.pop(name, None)
    install = [expand(line, found_vars) for line in _install_lines(lines)]
    dirs = {d.rstrip("/") for line in install for m in _DIRS.finditer(line) for d in m.group(1).split()}
    for line in install:
        for command, rest in _COMMAND.findall(line):
            _command_names(command, rest.split(), dirs, found)
    # a link is a name when it is a library's (libfoo.so -> libfoo.so.1) or names a program installed here
    links = {link for link, to in found.links.items() if _LIBRARY.search(link) or to in found.names}
    found.names |= {link for link in links if _VALID.match(link) and not _too_wide(link)}
    return found


def licence_parts(licence: str) -> list[str]:
    """OpenWrt's blank-separated list of licences, when it is one (no operator words or brackets)."""
    words = licence.split()
    if any(w.lower() in ("and", "or", "with", "and/or", "|", "&") or "(" in w for w in words):
        return [licence]
    return words
