"""Foreign blobs: ELF files that cannot be parsed, are not for the root's CPU and that no loader of
the root ever maps (DSP or modem images such as Qualcomm's ``/lib/firmware/*.mdt``, whose segments
lie in ``.b00``, ``.b01``… files beside them). The device never runs them as code of its own, so
they are inventoried as other ELF with an ``elf-foreign`` warning; any other file that cannot be
parsed keeps its ``elf-unusable`` error.

The root's CPU is the machine of the interpreters its programs name and it holds (the loaders that
run there); without any, the machine most of its executables are built for. A file is named by a
loader when a ``DT_NEEDED`` entry or a ``PT_INTERP`` of any module ends in its name or in the name
of a link to it (a library search finds files by name); a kernel module is the kernel's to load.
"""

from __future__ import annotations

import posixpath
from collections import Counter
from collections.abc import Iterable, Mapping

from ..kmod.decompress import is_module_name
from ..ldso.world import World
from ..model import ElfFacts, Kind
from ..problems import Problem, ProblemCode, Severity
from ..rootfs import display_path
from .parse import Unusable

_FAMILY = {"EM_MIPS_RS3_LE": "EM_MIPS"}  # one CPU under two numbers (the loaders treat them alike)


def _family(machine: str) -> str:
    return _FAMILY.get(machine, machine)


def root_machines(world: World) -> set[str]:
    """The CPUs the root's programs run on (empty when the root has no program to tell)."""
    programs = [f for f in world.modules.values() if f.kind is Kind.EXECUTABLE]
    held = {f.interpreter for f in programs if f.interpreter and world.holds_interpreter(f.interpreter)}
    loaders = {_family(facts.machine) for i in held if (facts := world.interpreter_file(i)[1]) is not None}
    if loaders:
        return loaders
    counts = Counter(_family(f.machine) for f in programs)
    return {counts.most_common(1)[0][0]} if counts else set()


def _names_loaders_open(modules: Iterable[ElfFacts]) -> set[str]:
    names: set[str] = set()
    for facts in modules:
        names.update(posixpath.basename(n) for n in facts.needed)
        if facts.interpreter:
            names.add(posixpath.basename(facts.interpreter))
    return names


def settle_unusable(
    world: World, unusable: list[Unusable], aliases: Mapping[str, list[str]], problems: list[Problem]
) -> dict[str, ElfFacts]:
    """The foreign blobs among ``unusable`` (by path), each with its warning in ``problems``; the
    other files' ``elf-unusable`` errors go to ``problems``."""
    machines = root_machines(world) if unusable else set()
    opened = _names_loaders_open(world.modules.values()) if unusable else set()
    blobs: dict[str, ElfFacts] = {}
    for item in unusable:
        header = item.header
        if header is None or not machines or _family(header.machine) in machines:
            problems.append(item.problem)
            continue
        names = {posixpath.basename(p) for p in [header.path, *aliases.get(header.path, [])]}
        if names & opened or any(is_module_name(n) for n in names):
            problems.append(item.problem)
            continue
        header.kind = Kind.OTHER_ELF
        blobs[header.path] = header
        problems.append(
            Problem(
                display_path(header.path),
                Severity.WARNING,
                f"{header.machine} ELF file, not for the root's CPU ({', '.join(sorted(machines))}), that no "
                f"loader of the root opens: inventoried as other ELF ({item.problem.message})",
                ProblemCode.ELF_FOREIGN,
            )
        )
    return blobs
