"""The runtime oracle (runtime_oracle.py) against glibc's trace-mode ``LD_DEBUG=bindings``.

Against glibc's trace-mode ``LD_DEBUG=bindings`` (:func:`compare_with_ld_debug`): trace mode never
relocates ld.so itself, a real run does, so ld.so's own references (``module`` = the interpreter, 76
bindings over each Debian root's 19 programs) are left out of both sides; copy relocations and
unobserved references are left out of the LD_DEBUG side by their exact (module, symbol, version),
and counted.  Measured: the Debian armhf, arm64, mipsel and i386 roots agree exactly (9,603, 9,538,
9,525 and 9,414 cross-object bindings, nothing left out); the JioFi's glibc 2.21 agrees on 63,784
of 63,820, the 36 differences being 9 IFUNC redirections and 27 prelinked slots.

"""

from __future__ import annotations

from dataclasses import dataclass, field

from . import oracle
from . import qemu_oracle as qo
from .oracle import BindingKey
from .runtime_trace import RuntimeTrace, _sort_key


@dataclass
class LdDebugComparison:
    """The runtime oracle against glibc's trace-mode ``LD_DEBUG=bindings`` (tests/oracle.GlibcTrace), aligned:

    * references *from* the interpreter are left out of both sides (trace mode never relocates ld.so;
      a real run does: counted in ``interpreter_bindings``);
    * LD_DEBUG keys whose (module, symbol, version) the runtime oracle lists as a copy relocation or
      as unobserved are left out of the LD_DEBUG side (counted in ``excluded``);
    * everything else must be equal, both ways, per program.
    """

    programs: list[str] = field(default_factory=list)
    runtime: int = 0
    ld_debug: int = 0
    common: int = 0
    interpreter_bindings: int = 0
    excluded: dict[str, int] = field(default_factory=lambda: {"copy": 0, "unobserved": 0})
    not_covered: dict[str, str] = field(default_factory=dict)
    link_map_diffs: dict[str, tuple[list[str], list[str]]] = field(default_factory=dict)
    only_runtime: dict[str, list[BindingKey]] = field(default_factory=dict)
    only_ld_debug: dict[str, list[BindingKey]] = field(default_factory=dict)
    explained: dict[str, int] = field(default_factory=dict)  # differing keys by reason (IFUNC, prelink)

    @property
    def equal(self) -> bool:
        return not (self.not_covered or self.link_map_diffs or self.only_runtime or self.only_ld_debug)

    def summary(self, examples: int = 8) -> str:
        lines = [
            f"{len(self.programs)} programs: runtime {self.runtime} cross-object bindings, LD_DEBUG {self.ld_debug}, "
            f"common {self.common}; left out: {self.interpreter_bindings} runtime bindings of the interpreter's own "
            f"references, LD_DEBUG keys of copy relocations {self.excluded['copy']}, of unobserved slots "
            f"{self.excluded['unobserved']}",
            f"not covered: {len(self.not_covered)}; link maps differing: {len(self.link_map_diffs)}; programs with "
            f"binding differences: {len(set(self.only_runtime) | set(self.only_ld_debug))}"
            + (f"; differing keys explained: {self.explained}" if self.explained else ""),
        ]
        for exe, reason in list(self.not_covered.items())[:examples]:
            lines.append(f"  NOT COVERED {exe}: {reason[:300]}")
        for exe, (ours, theirs) in list(self.link_map_diffs.items())[:examples]:
            lines.append(f"  link map {exe}:\n    runtime  {ours}\n    LD_TRACE {theirs}")
        for exe in sorted(set(self.only_runtime) | set(self.only_ld_debug))[:examples]:
            lines.append(f"  {exe}:")
            lines.extend(f"    only LD_DEBUG {b}" for b in self.only_ld_debug.get(exe, [])[:examples])
            lines.extend(f"    only runtime  {b}" for b in self.only_runtime.get(exe, [])[:examples])
        return "\n".join(lines)


LD_DEBUG_ENV = {"LD_TRACE_LOADED_OBJECTS": "1", "LD_WARN": "1", "LD_BIND_NOW": "1", "LD_DEBUG": "bindings"}


def device_ld_debug(loader: qo.DeviceLoader, executable: str) -> oracle.GlibcTrace:
    """glibc's trace-mode ``LD_DEBUG=bindings`` of a program, by the root's own glibc loader in the chroot
    (qemu_oracle.DeviceLoader), parsed like tests/support/oracle.py's (paths canonical in the root)."""
    exe = loader.canonical(executable)
    info = loader.elves[exe]
    proc = loader._run([loader._qemu(info), exe], LD_DEBUG_ENV)
    if proc.returncode != 0:
        raise qo.OracleError(f"{exe}: trace exited with {proc.returncode}: {proc.stderr[-800:]}")
    lines, static = oracle.parse_trace_list(proc.stdout)
    objects = [exe] + [loader.canonical(t.path) for t in lines if t.path is not None]
    interp = loader.canonical(info.interpreter) if info.interpreter else None
    trace = oracle.GlibcTrace(exe, interp, objects, [t.name for t in lines if t.path is None], static=static)
    return oracle.add_debug_output(trace, proc.stderr, loader.canonical, exe)


def compare_with_ld_debug(runtime: dict[str, RuntimeTrace], glibc: dict[str, oracle.GlibcTrace]) -> LdDebugComparison:
    """Compare per program (keys: canonical device paths); ``glibc`` maps to oracle.GlibcTrace objects."""
    out = LdDebugComparison()
    for exe in sorted(glibc):
        trace, rt = glibc[exe], runtime.get(exe)
        out.programs.append(exe)
        if rt is None or not rt.covered:
            out.not_covered[exe] = rt.reason if rt is not None else "not run"
            continue
        if rt.objects != trace.objects:
            out.link_map_diffs[exe] = (rt.objects, trace.objects)
        interp = trace.interpreter
        ours = {b for b in rt.bindings if b[0] != interp}
        out.interpreter_bindings += len(rt.bindings) - len(ours)
        theirs = set()
        for b in trace.cross_object({interp} if interp else set()):
            if b[:3] in rt.copies:
                out.excluded["copy"] += 1
            elif b[:3] in rt.unobserved:
                out.excluded["unobserved"] += 1
            else:
                theirs.add(b)
        out.runtime += len(ours)
        out.ld_debug += len(theirs)
        out.common += len(ours & theirs)
        if ours != theirs:
            out.only_runtime[exe] = sorted(ours - theirs, key=_sort_key)
            out.only_ld_debug[exe] = sorted(theirs - ours, key=_sort_key)
            for b in ours - theirs:
                why = "IFUNC redirect" if b in rt.redirected else "prelinked program" if rt.prelinked else "unexplained"
                out.explained[why] = out.explained.get(why, 0) + 1
    return out
