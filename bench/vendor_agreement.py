"""linkgraph against the devices' own loaders on the four stock vendor roots, whole roots.

The same checks as tests/test_vendor_roots.py (extraction and loader output cached outside the
repository; see that module), printed per root with timings and examples of each difference;
for the glibc root, whose loader has ``LD_DEBUG``, also

  (b) cross-object bindings of every program: ``LD_DEBUG=bindings`` against linkgraph's
      ``bindings``, recall and precision (tests/support/oracle.py ``compare_report``; ld.so's own
      references are left out: trace mode does not relocate it);
  (c) declared-unused NEEDED edges of every program: ``LD_DEBUG=unused`` (what ``ldd -u`` runs)
      against linkgraph's ``declared-unused`` edges (names ld.so could not load are left out:
      linkgraph calls those ``missing``).

Usage: python bench/vendor_agreement.py [NAME ...] [--no-cache] [--examples K]
Exit status 0 when every link map of every root (and for glibc every binding and unused
edge) equals the loader's, 1 otherwise.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from support import vendor_roots as tvr


def main(argv: list[str] | None = None) -> int:
    fmt = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=fmt)
    parser.add_argument("names", nargs="*", default=list(tvr.VENDOR_ROOTS), help="vendor roots (default: all)")
    parser.add_argument("--no-cache", action="store_true", help="run the loader again (extraction stays cached)")
    parser.add_argument("--examples", type=int, default=5, help="differences listed per criterion")
    args = parser.parse_args(argv)

    ok = True
    summary = []
    for name in args.names:
        with tempfile.TemporaryDirectory(prefix=f"linkgraph-vendor-{name}-") as tmp:
            check = tvr.check_vendor_root(name, Path(tmp), qemu_cache=not args.no_cache)
            print(check.figures())
            for label, agreement in (("programs", check.agreement), ("other roots", check.others_agreement)):
                for text in list(agreement.differences.values())[: args.examples]:
                    print(f"  [{label}] " + text.replace("\n", "\n    "))
            if check.errors:
                print(f"  error problems the device's loader does not share: {check.errors}")
            line = f"  {name:16} programs {len(check.agreement.equal)}/{len(check.agreement.compared)}"
            if check.others_agreement.compared:
                line += f", other roots {len(check.others_agreement.equal)}/{len(check.others_agreement.compared)}"
            line += f", oracle {check.seconds['oracle']:.1f}s"
            ok = ok and not check.agreement.differences and not check.others_agreement.differences
            ok = ok and not check.errors
            if check.spec.kind == "glibc":
                t0 = time.monotonic()
                agreement = tvr.glibc_bindings(check)
                print(agreement.summary(args.examples))
                ok = ok and not agreement.binding_diffs and not agreement.unused_diffs
                line += (
                    f"; bindings recall {agreement.recall:.4%} precision {agreement.precision:.4%}"
                    f" ({agreement.oracle_bindings} ld.so, {agreement.our_bindings} linkgraph)"
                    f", ldd -u equal {agreement.executables - len(agreement.unused_diffs)}/{agreement.executables}"
                    f", {time.monotonic() - t0:.1f}s"
                )
            summary.append(line)
    print("\nSUMMARY")
    print("\n".join(summary))
    print(f"  verdict: {'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
