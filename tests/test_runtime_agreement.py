"""linkgraph's bindings against what each device's own loader bound at run time, on real firmware.

For the two OpenWrt-family images, TP-Link's stock MR3020 image (uClibc 0.9.30, TP-Link's LZMA
squashfs) and the four stock vendor roots in ``../shared/firmware``, every
dynamic program is run under its own loader by the runtime oracle (runtime_oracle.py: qemu-user in
a chroot of the root, ``LD_BIND_NOW=1``, gdb reading every relocated slot after relocation). For
every program that got that far (*covered*; the others are counted with the loader's reason), the
cross-object bindings (module, symbol, version, provider) of linkgraph's report must equal the
oracle's: recall and precision 100%; and the report has no error problem (no device loader
refuses a file of these roots). Two alignments, both from what memory can and cannot show:

* copy relocations: the slot is in the program and holds a copy of the data, so the oracle cannot
  name the library it was copied from; linkgraph's bindings of those references are left out;
* IFUNC: the slot holds what the resolver returned, which may lie in another object (librt's
  ``clock_gettime`` returns libc's); the oracle flags such values as *redirected*, and they match
  linkgraph's binding when linkgraph's provider defines that symbol as ``STT_GNU_IFUNC``.

No blind spot: every symbol slot of every covered program, read with pyelftools (slot_outcomes.py:
its ``DT_REL``/``DT_RELA``/``DT_JMPREL`` symbol relocations and, on MIPS, its global GOT from
``DT_MIPS_GOTSYM`` to ``DT_MIPS_SYMTABNO``), has an outcome in the oracle's result (a binding, a self
binding, an unresolved weak reference, a copy, or unobserved with a reason), no lazy stub is taken
for a self binding, and the unobserved ones are counted (:data:`UNOBSERVED`, measured; their
references are left out of the comparison, as copies are).

A missing qemu, gdb-multiarch or archive fails the tests. Oracle results are cached by root
content and oracle source (runtime_oracle.cache_path); a warm run takes seconds per root.
"""

from __future__ import annotations

import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from conftest import scan_and_report
from linkgraph.loader.elf.facts import read_elf_facts
from linkgraph.loader.model import STT_GNU_IFUNC
from support import qemu_oracle as qo
from support import runtime_oracle as ro
from support import slot_outcomes
from support import vendor_roots as vendor

pytestmark = pytest.mark.slow  # the fast lane (-m 'not slow') leaves it out

IMAGES = {"ffulm-0.6.5": "ffulm-0.6.5-", "lede-17.01.4": "lede-17.01.4-", "mr3020-3.17.2": "tplink-mr3020v1-3.17.2-"}
TARGETS = [*IMAGES, *vendor.VENDOR_ROOTS]
# programs the device's loader itself stops before relocation has finished (measured)
NOT_COVERED = {"jiofi2_m2": 7}
# program slots the loader left unbound (lazy stubs) or the oracle cannot map, with a reason (measured)
UNOBSERVED: dict[str, int] = {}


@dataclass
class Agreement:
    covered: int
    programs: int
    oracle: int
    ours: int
    common: int
    differences: Counter
    examples: dict
    errors: list  # error-severity problems in linkgraph's report
    slots: int = 0  # the covered programs' own symbol slots (read with pyelftools), each with an outcome
    unobserved: int = 0  # of those, unobserved (with a reason); their bindings are left out of the comparison
    missing: dict = field(default_factory=dict)  # program -> symbols of its slots without an outcome
    stubs: dict = field(default_factory=dict)  # program -> lazy stubs the oracle called self bindings
    tls_by_rule: int = 0  # DTPMOD bindings whose module id came from the load order (runtime_tls.py)
    slots_read: dict = field(default_factory=dict)  # program -> its own relocation slots the oracle read

    def summary(self, name: str) -> str:
        lines = [f"[{name}] covered {self.covered}/{self.programs} programs, {self.slots} program slot symbols "
                 f"with an outcome, {self.unobserved} unobserved, {self.tls_by_rule} TLS ids by load order; "
                 f"bindings: oracle {self.oracle}, linkgraph {self.ours}, common {self.common}"]  # fmt: skip
        if self.slots_read:
            fewest = min(self.slots_read, key=self.slots_read.__getitem__)
            lines.append(f"    own relocation slots read: {sum(self.slots_read.values())} in {len(self.slots_read)} "
                         f"programs, fewest {self.slots_read[fewest]} ({fewest})")  # fmt: skip
        lines += [f"    {n} x {key}: e.g. {self.examples[key]}" for key, n in self.differences.most_common(10)]
        return "\n".join(lines)


def _root(name: str, work: Path) -> Path:
    if name in IMAGES:
        return qo.extract_root(qo.firmware_image(IMAGES[name]), work / "image")
    return vendor.extracted_root(name)[0]


def _defines_ifunc(root: Path, provider: str, symbol: str, cache: dict) -> bool:
    if provider not in cache:
        host = root / provider.lstrip("/")
        facts = read_elf_facts(host.read_bytes(), provider)
        cache[provider] = {s.name for s in facts.symbols if s.defined and s.type == STT_GNU_IFUNC}
    return symbol in cache[provider]


def agreement(name: str, work: Path) -> tuple[Agreement, dict[str, ro.RuntimeTrace]]:
    return root_agreement(_root(name, work), work)


def root_agreement(root: Path, work: Path) -> tuple[Agreement, dict[str, ro.RuntimeTrace]]:
    """linkgraph's cross-object bindings of ``root`` against the runtime oracle's, every program."""
    report = scan_and_report(root, work / "graph.lbdb")
    loader = qo.DeviceLoader(root, work)
    programs = qo.dynamic_executables(loader.elves, sonameless_pie=True)
    traces = ro.runtime_bindings(root, programs, jobs=2)
    ours: dict[str, set] = {}
    for b in report["bindings"]:
        if b["module"] != b["provider"]:
            ours.setdefault(b["executable"], set()).add((b["module"], b["symbol"], b["version"], b["provider"]))
    ifuncs: dict = {}
    errors = [p for p in report["problems"] if p["severity"] == "error"]
    result = Agreement(0, len(programs), 0, 0, 0, Counter(), {}, errors)
    for exe, trace in sorted(traces.items()):
        if not trace.covered:
            continue
        result.covered += 1
        lazy = slot_outcomes.program_slot_symbols(root / exe.lstrip("/"))
        slot_outcomes.check_not_blind(trace, lazy)  # an oracle that read nothing here judged nothing
        result.slots_read[exe] = trace.program_slots
        result.slots += len(lazy)
        if missing := sorted(set(lazy) - slot_outcomes.outcome_names(trace, exe)):
            result.missing[exe] = missing
        if stubs := slot_outcomes.lazy_self_bindings(trace, exe, lazy):
            result.stubs[exe] = stubs
        result.unobserved += sum(1 for key in trace.unobserved if key[0] == exe)
        result.tls_by_rule += len(trace.tls_by_rule)
        # copies and unobserved slots hold no provider the oracle can name: left out
        left_out = {(m, s) for m, s, *_ in trace.copies} | {(m, s) for m, s, _v in trace.unobserved}
        mine = {b for b in ours.get(exe, set()) if (b[0], b[1]) not in left_out}
        theirs = set(trace.bindings)
        for m, s, v, _p in trace.redirected:
            matched = {b for b in mine if b[:3] == (m, s, v) and _defines_ifunc(root, b[3], s, ifuncs)}
            if matched:
                theirs = {b for b in theirs if b[:3] != (m, s, v)} | matched
        result.oracle += len(theirs)
        result.ours += len(mine)
        result.common += len(theirs & mine)
        for side, diff in (("oracle only", theirs - mine), ("linkgraph only", mine - theirs)):
            for b in diff:
                key = (side, b[0], b[3])
                result.differences[key] += 1
                result.examples.setdefault(key, (exe, b[1]))
    return result, traces


@pytest.mark.parametrize("name", TARGETS)
def test_bindings_equal_the_device_loaders(name: str) -> None:
    with tempfile.TemporaryDirectory(prefix=f"runtime-{name}-") as work:
        result, traces = agreement(name, Path(work))
    print(result.summary(name))
    uncovered = [t.describe() for t in traces.values() if not t.covered]
    assert len(uncovered) == NOT_COVERED.get(name, 0), "\n".join(uncovered)
    # no blind spot: every slot of every covered program has an outcome, no lazy stub is a binding
    assert result.missing == {} and result.stubs == {}, (result.missing, result.stubs)
    unobserved = sorted((k, v) for t in traces.values() for k, v in t.unobserved.items() if k[0] == t.executable)
    assert result.unobserved == UNOBSERVED.get(name, 0), unobserved[:20]
    assert result.oracle > 1000, result.summary(name)
    assert not result.differences, result.summary(name)
    assert result.common == result.oracle == result.ours
    assert not result.errors, result.errors  # no loader refuses any file of these roots
