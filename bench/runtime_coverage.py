"""The runtime binding oracle (tests/support/runtime_oracle.py) over whole roots: real firmware and the Debian roots.

For each root: every dynamic program is run to its entry point under the root's own loader (qemu-user
in a chroot, gdb-multiarch on its gdbstub) and its bindings are read from memory.  Printed per root:
programs, how many reached the entry point, why the others did not (grouped), cross-object bindings,
copy relocations left out, unresolved (weak) references, unobserved slots, slots changed by
initialisers, IFUNC-redirected bindings, prelinked programs, and the time taken.

Roots (``--roots``, default all firmware):

* ``ffulm``, ``lede``: the two MIPS images of ../shared/firmware, unpacked with
  qemu_oracle.extract_root (linkgraph's unpacker);
* ``hilink_hlk-rm04``, ``dlink_dir880l``, ``jiofi2_m2``, ``alt_xiaomi_r4a``: roots/NAME.tar.xz;
* ``debian-armhf``, ``debian-arm64``, ``debian-mipsel``, ``debian-i386``: tests/support/debian_roots.py.

Programs are qemu_oracle.dynamic_executables (ET_EXEC with PT_INTERP, PIE; on firmware also an ET_DYN
with PT_INTERP, an entry point and no soname, as older binutils link a PIE) for firmware, and
foreign_oracle.root_executables for the Debian roots.  With ``--ld-debug`` every root whose programs
use glibc (the Debian roots, the JioFi) is also traced by its own glibc with ``LD_DEBUG=bindings`` and
the two compared (runtime_oracle.compare_with_ld_debug).

Results are cached (runtime_oracle.runtime_bindings); ``--no-cache`` measures a cold run.

Usage: python bench/runtime_coverage.py [--roots NAME ...] [--jobs N] [--no-cache] [--ld-debug]
                                      [--workdir DIR] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from support import debian_roots, foreign_oracle
from support import qemu_oracle as qo
from support import runtime_oracle as ro

IMAGES = {"ffulm": "ffulm-0.6.5-", "lede": "lede-17.01.4-"}
VENDOR = ["hilink_hlk-rm04", "dlink_dir880l", "jiofi2_m2", "alt_xiaomi_r4a"]
DEBIAN = [f"debian-{a}" for a in debian_roots.ARCHES]


def prepare(name: str, workdir: Path) -> tuple[Path, list[str]]:
    """The root (extracted into ``workdir`` if needed) and its dynamic programs."""
    if name in IMAGES:  # a fresh folder: unpacking into an old one would find two roots
        root = qo.extract_root(qo.firmware_image(IMAGES[name]), Path(tempfile.mkdtemp(prefix=f"{name}-", dir=workdir)))
    elif name in VENDOR:
        dest = workdir / name
        if not (dest / "rootfs").is_dir():
            dest.mkdir(parents=True, exist_ok=True)
            archive = qo.FIRMWARE_DIR / "roots" / f"{name}.tar.xz"
            subprocess.run(["tar", "-xJf", str(archive), "-C", str(dest)], check=True)
        root = dest / "rootfs"
    elif name in DEBIAN:
        root = debian_roots.cached_debian_root(name.removeprefix("debian-"))
        return root, foreign_oracle.root_executables(root)
    else:
        raise SystemExit(f"unknown root {name!r} (known: {', '.join([*IMAGES, *VENDOR, *DEBIAN])})")
    elves = qo.walk_elf(root)
    try:
        programs = qo.dynamic_executables(elves, sonameless_pie=True)
    except TypeError:  # an older qemu_oracle without the option
        programs = qo.dynamic_executables(elves)
    return root, programs


def reason_group(exe: str, reason: str) -> str:
    """A not-covered reason without the program's own name, for grouping."""
    text = reason.replace(exe, "PROG").split("; stderr:")
    head = text[0]
    detail = text[1].strip().splitlines()[0] if len(text) > 1 and text[1].strip() else ""
    detail = re.sub(r"/\S+: (symbol lookup error|error while loading)", r"PROG: \1", detail)
    return f"{head}: {detail[:160]}" if detail else head


def report(name: str, root: Path, programs: list[str], traces: dict[str, ro.RuntimeTrace], seconds: float) -> dict:
    covered = [t for t in traces.values() if t.covered]
    groups = Counter(reason_group(t.executable, t.reason) for t in traces.values() if not t.covered)
    summary = {
        "root": name, "path": str(root), "programs": len(programs), "covered": len(covered),
        "not_covered": dict(groups.most_common()),
        "bindings": sum(len(t.bindings) for t in covered),
        "self_bindings": sum(len(t.self_bindings) for t in covered),
        "copies": sum(len(t.copies) for t in covered), "unresolved": sum(len(t.unresolved) for t in covered),
        "unobserved": sum(len(t.unobserved) for t in covered),
        "changed_by_init": sum(len(t.changed_by_init) for t in covered),
        "redirected": sum(len(t.redirected) for t in covered), "prelinked": sum(t.prelinked for t in covered),
        "snapshots": dict(Counter(t.snapshot.split(" ")[0] for t in covered)),
        "late_objects": sum(len(t.late_objects) for t in covered),
        "seconds": round(seconds, 1), "seconds_per_program_run": round(sum(t.seconds for t in traces.values()), 1),
    }  # fmt: skip
    print(f"\n== {name}: {root}")
    print(f"   {summary['covered']}/{summary['programs']} programs reached the entry point; "
          f"{summary['bindings']} cross-object bindings ({summary['self_bindings']} same-object); "
          f"{summary['copies']} copy relocations left out; {summary['unresolved']} unresolved; "
          f"{summary['unobserved']} unobserved; {summary['changed_by_init']} slots changed by initialisers; "
          f"{summary['redirected']} IFUNC-redirected; {summary['prelinked']} prelinked programs; "
          f"snapshots {summary['snapshots']}; {seconds:.1f}s")  # fmt: skip
    for group, count in groups.most_common():
        print(f"   not covered ({count}): {group}")
    unobserved = Counter(v.split(" ")[0] for t in covered for v in t.unobserved.values())
    if unobserved:
        print(f"   unobserved by kind: {dict(unobserved)}")
    return summary


def ld_debug_check(root: Path, programs: list[str], traces: dict[str, ro.RuntimeTrace], workdir: Path) -> dict:
    loader = qo.DeviceLoader(root, Path(tempfile.mkdtemp(prefix="ld-debug-", dir=workdir)))
    glibc = {}
    for exe in programs:
        canonical = loader.canonical(exe)
        if traces[canonical].covered and qo.loader_kind(loader.elves[canonical].interpreter) == "glibc":
            glibc[canonical] = ro.device_ld_debug(loader, canonical)
    comparison = ro.compare_with_ld_debug(traces, glibc)
    print("   LD_DEBUG=bindings check: " + comparison.summary(examples=3).replace("\n", "\n   "))
    return {"programs": len(glibc), "runtime": comparison.runtime, "ld_debug": comparison.ld_debug,
            "common": comparison.common, "explained": comparison.explained, "excluded": comparison.excluded,
            "interpreter_bindings": comparison.interpreter_bindings}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    fmt = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=fmt)
    parser.add_argument("--roots", nargs="+", default=[*IMAGES, *VENDOR], help="roots to run (see above)")
    parser.add_argument("--jobs", type=int, default=2, help="programs run in parallel")
    parser.add_argument("--no-cache", action="store_true", help="ignore and do not write the result cache")
    parser.add_argument("--ld-debug", action="store_true", help="compare glibc roots with LD_DEBUG=bindings")
    parser.add_argument("--workdir", type=Path, default=None, help="where roots are extracted (default: temporary)")
    parser.add_argument("--json", type=Path, default=None, help="write the per-root figures here")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="linkgraph-runtime-oracle-") as tmp:
        workdir = args.workdir or Path(tmp)
        workdir.mkdir(parents=True, exist_ok=True)
        results = []
        for name in args.roots:
            root, programs = prepare(name, workdir)
            t0 = time.monotonic()
            traces = ro.runtime_bindings(root, programs, jobs=args.jobs, cache=not args.no_cache)
            summary = report(name, root, programs, traces, time.monotonic() - t0)
            if args.ld_debug and (name in DEBIAN or name == "jiofi2_m2"):
                summary["ld_debug"] = ld_debug_check(root, programs, traces, workdir)
            results.append(summary)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
