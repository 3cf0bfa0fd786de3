"""The judges of linkgraph's hardening facts (loader/elf/hardening.py): pax-utils' ``scanelf`` and
Debian's ``hardening-check`` (devscripts), run on the files themselves, and the comparison of
their verdicts with the ``hardening`` object of each module in linkgraph's JSON report.

``scanelf -F '%o|%e|%t|%b|%i|%r|%s|%F' -g -s '-_chk'`` gives per file: the ELF type, the flags
of PT_GNU_STACK / PT_GNU_RELRO / the PT_LOADs (``---`` for a missing header), TEXTREL, the
binding (``NOW`` / ``LAZY``), PT_INTERP, DT_RPATH or DT_RUNPATH, and the undefined symbols whose
name holds ``_chk`` (``__stack_chk_fail``, ``__stack_chk_guard``, the ``__NAME_chk`` functions).
"""

from __future__ import annotations

import collections
import os
import re
import shutil
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

FORMAT = "%o|%e|%t|%b|%i|%r|%s|%F"
FACTS = ("pie", "nx", "relro", "stack_protector", "fortify", "textrel", "search_path")
_CHK = re.compile(r"__(\w+)_chk")
BATCH = 400  # files per scanelf run


@dataclass(frozen=True, slots=True)
class Verdict:
    """What scanelf says of one file, in the terms of linkgraph's facts (None: it cannot tell)."""

    elf_type: str
    stack: str  # PT_GNU_STACK's flags as scanelf prints them, "---" without one
    pie: bool
    nx: bool | None  # None: no PT_GNU_STACK (the architecture's default applies)
    relro: str
    stack_protector: bool
    fortified: tuple[str, ...]
    textrel: bool
    search_path: str | None


def _field(text: str) -> str | None:
    text = text.strip()
    return None if text in ("", "-") else text


def parse_scanelf(line: str) -> tuple[str, Verdict]:
    """One line of ``scanelf -F FORMAT``: the file and its verdict."""
    etype, stack, textrel, bind, interp, rpath, symbols, path = line.split("|", 7)
    flags = stack.split()
    names = {s.split("@", 1)[0] for s in (symbols.strip().split(",") if _field(symbols) else [])}
    has_relro = len(flags) > 1 and flags[1] != "---"
    return path, Verdict(
        elf_type=etype.strip(),
        stack=flags[0] if flags else "---",
        pie=etype.strip() == "ET_DYN" and bool(interp.strip()),
        nx=None if not flags or flags[0] == "---" else "X" not in flags[0],
        relro="none" if not has_relro else ("full" if bind.strip() == "NOW" else "partial"),
        stack_protector=bool(names & {"__stack_chk_fail", "__stack_chk_guard"}),
        fortified=tuple(sorted(m.group(1) for n in names if (m := _CHK.fullmatch(n)))),
        textrel=textrel.strip() == "TEXTREL",
        search_path=_field(rpath),
    )


def scanelf(files: Iterable[Path]) -> dict[Path, Verdict]:
    """scanelf's verdict on each file (files it does not list are left out)."""
    todo = list(files)
    out: dict[Path, Verdict] = {}
    for start in range(0, len(todo), BATCH):
        argv = ["scanelf", "-B", "-F", FORMAT, "-g", "-s", "-_chk", *map(str, todo[start : start + BATCH])]
        proc = subprocess.run(argv, capture_output=True, text=True, errors="surrogateescape", check=True)
        for line in proc.stdout.splitlines():
            path, verdict = parse_scanelf(line)
            out[Path(path)] = verdict
    return out


def hardening_check(files: Iterable[Path], no_disassembly: Path | None = None) -> dict[Path, dict[str, str]]:
    """``hardening-check -v``'s answer per file: its line per check (``Stack protected``: ``yes``...)
    and, under ``protected``, the NAMEs of the ``__NAME_chk`` functions it found, joined by spaces.

    ``no_disassembly``: a folder in which to put an ``objdump`` that prints nothing, first in PATH.
    hardening-check disassembles every file for its stack-clash and control-flow checks only
    (which linkgraph does not make): minutes for a hundred big programs; nothing else changes."""
    env = dict(os.environ)
    if no_disassembly is not None:
        stub = no_disassembly / "objdump"
        stub.write_text("#!/bin/sh\nexit 0\n")
        stub.chmod(0o755)
        env["PATH"] = f"{no_disassembly}:{env.get('PATH', '')}"
    todo = list(files)
    out: dict[Path, dict[str, str]] = {}
    for start in range(0, len(todo), BATCH):
        argv = ["hardening-check", "-v", *map(str, todo[start : start + BATCH])]
        proc = subprocess.run(argv, capture_output=True, text=True, check=False, env=env, errors="surrogateescape")
        current: dict[str, str] = {}
        for line in proc.stdout.splitlines():
            if line.startswith("\tprotected: "):
                current["protected"] = (current.get("protected", "") + " " + line.split(": ", 1)[1]).strip()
            elif line.startswith("/"):
                current = out.setdefault(Path(line.rstrip(":")), {"protected": ""})
            elif line.startswith(" "):
                name, _, answer = line.strip().partition(": ")
                current[name] = answer
    return out


def checked_names() -> frozenset[str]:
    """The NAMEs whose ``__NAME_chk`` hardening-check counts: its own list (``%libc``), read from it."""
    script = Path(shutil.which("hardening-check") or "hardening-check").read_text()
    block = script.split("my %libc = (", 1)[1].split(");", 1)[0]
    return frozenset(re.findall(r"'(\w+)'\s*=>", block))


def compare_hardening_check(
    ours: dict[str, Any], answers: dict[str, str], names: frozenset[str], path: str, result: Agreement
) -> None:
    """PIE, stack protector, FORTIFY and RELRO (from its read-only relocations and immediate binding)
    against hardening-check's answers; a difference is explained or listed as unexplained.

    Explained: FORTIFY where every ``__NAME_chk`` linkgraph found is missing from hardening-check's
    list of NAMEs (``checked_names``); a static PIE (``DF_1_PIE``, no ``PT_INTERP``) whose linker
    wrote no ``PT_PHDR``, by which alone hardening-check tells a PIE from a library."""
    ro, now = answers["Read-only relocations"].startswith("yes"), answers["Immediate binding"].startswith("yes")
    judged = {
        "pie": answers["Position Independent Executable"].startswith("yes"),
        "stack_protector": answers["Stack protected"].startswith("yes"),
        "fortify": answers["Fortify Source functions"].startswith("yes"),
        "relro": "none" if not ro else "full" if now else "partial",
    }
    for fact, value in judged.items():
        result.judged[fact] += 1
        if ours[fact] == value:
            result.agree[fact] += 1
        elif fact == "fortify" and ours[fact] and not set(ours["fortified"]) & names:
            result.explained.setdefault(fact, []).append(f"{path}: {ours['fortified']} not in its list")
        elif fact == "pie" and ours[fact] and ours["static_pie"]:
            result.explained.setdefault(fact, []).append(f"{path}: static PIE (DF_1_PIE), no PT_PHDR")
        else:
            result.unexplained.append(f"{path}: {fact} linkgraph {ours[fact]!r}, hardening-check {value!r}")
    protected = set(answers["protected"].split())
    if protected - set(ours["fortified"]):
        result.unexplained.append(f"{path}: hardening-check finds {sorted(protected)}, linkgraph {ours['fortified']}")


@dataclass
class Agreement:
    """Per fact: how many modules agree with the judge, and each difference with its reason."""

    agree: collections.Counter[str] = field(default_factory=collections.Counter)
    judged: collections.Counter[str] = field(default_factory=collections.Counter)
    explained: dict[str, list[str]] = field(default_factory=dict)
    unexplained: list[str] = field(default_factory=list)

    def figures(self) -> str:
        return ", ".join(f"{f} {self.agree[f]}/{self.judged[f]}" for f in FACTS if self.judged[f])


def compare(ours: dict[str, Any], verdict: Verdict, machine: str, path: str, result: Agreement) -> None:
    """Each of the module's facts against scanelf's; a difference is explained or listed as unexplained.

    Explained differences: without PT_GNU_STACK scanelf prints ``---`` and linkgraph says what the
    kernel and glibc do on that architecture (executable stack except where glibc's
    ``DEFAULT_STACK_PERMS`` lacks PF_X); a static PIE (DF_1_PIE, no PT_INTERP) is a PIE to linkgraph
    while scanelf shows no interpreter to tell it by."""
    from linkgraph.loader.elf.hardening import NX_WITHOUT_MARKING

    judge_values: dict[str, object] = {
        "pie": verdict.pie,
        "nx": verdict.nx,
        "relro": verdict.relro,
        "stack_protector": verdict.stack_protector,
        "fortify": bool(verdict.fortified),
        "textrel": verdict.textrel,
        "search_path": verdict.search_path,
    }
    search = ours["rpath"] if ours["rpath"] is not None else ours["runpath"]
    our_values = {**ours, "search_path": search or None, "fortify": bool(ours["fortified"])}
    for fact, judged in judge_values.items():
        result.judged[fact] += 1
        mine = our_values[fact]
        if fact == "fortify" and tuple(ours["fortified"]) != verdict.fortified:
            mine = None  # the lists must be the same, not just both empty or not
        if mine == judged:
            result.agree[fact] += 1
        elif fact == "nx" and judged is None and mine == (machine in NX_WITHOUT_MARKING):
            result.explained.setdefault(fact, []).append(f"{path}: no PT_GNU_STACK on {machine}")
        elif fact == "pie" and mine and verdict.elf_type == "ET_DYN" and not verdict.pie and ours["static_pie"]:
            result.explained.setdefault(fact, []).append(f"{path}: static PIE (DF_1_PIE, no PT_INTERP)")
        else:
            result.unexplained.append(f"{path}: {fact} linkgraph {mine!r}, scanelf {judged!r}")
