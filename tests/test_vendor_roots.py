"""linkgraph's link maps on four stock vendor roots, judged by each device's own loader.

The roots are ``../shared/firmware/roots/NAME.tar.xz`` (see that folder's README): vendor code,
never copied into the repository.  Each archive is extracted once into the test cache
(``$LINKGRAPH_TEST_CACHE`` or ``~/.cache/linkgraph-tests``) as ``vendor-roots/NAME/SHA/rootfs``,
keyed by the archive's sha256, and scanned with the ``linkgraph`` CLI.  Every dynamic program is
then run by the root's own loader in trace mode, in a chroot through ``qemu-ARCH-static``
(tests/support/qemu_oracle.py tells how each loader is run and what it prints):

    root             loader                      arch     traced
    hilink_hlk-rm04  uClibc 0.9.28               MIPS LE  27 programs
    dlink_dir880l    uClibc 0.9.32.1             ARM      91 programs
    jiofi2_m2        glibc 2.21 (ld-linux.so.3)  ARM      253 programs (234 ET_EXEC, 19 PIE)
                                                          + the 127 other link maps linkgraph roots
    alt_xiaomi_r4a   musl 1.1.19                 MIPS LE  93 programs + the 104 other link maps

The JioFi's 106 xtables, tc and Perl plugins and two libraries (libwewins.so, libwpa_client.so)
are ET_DYN with PT_INTERP and no DT_SONAME, like a PIE without DF_1_PIE, but their entry point
is 0: they are not programs (linkgraph reports them as executables); they are traced like
libraries, with ``ld.so FILE`` as ``ldd`` does.

Criterion, for every traced object: linkgraph's link map equals the loader's list (the same
files in the same order, the interpreter where the loader puts it) and the same names are
missing; for glibc and musl, which relocate in trace mode (glibc with ``LD_WARN=1
LD_BIND_NOW=1``), also the same strong references nothing defines.  The report must have no
error-severity problem unless the device's loader refuses that file too.  glibc's loader also
prints every binding (``LD_DEBUG=bindings``) and the unused direct dependencies
(``LD_DEBUG=unused``): on the JioFi those must equal linkgraph's too.  One derived root (the
Hi-Link's, a library moved) checks the loader's compiled-in default folders.

The loader's raw output is cached next to the extracted root, keyed by the archive, the qemu
binary and the command line (:class:`CachedLoader`), so a rerun only scans and compares; the
parsing always runs afresh.  ``bench/vendor_agreement.py`` runs the same check (and compares
glibc's bindings) outside pytest.  A missing archive or qemu is a failure, never a skip.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from support.vendor_roots import (
    VENDOR_ROOTS,
    VendorCheck,
    check_vendor_root,
    extracted_root,
    glibc_bindings,
    qemu_host_binary,
)

pytestmark = pytest.mark.slow  # the fast lane (-m 'not slow') leaves it out


# --------------------------------------------------------------------------- the tests


@pytest.fixture(scope="module")
def vendor_check(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], VendorCheck]:
    """check_vendor_root once per root and module; called inside the tests, so that a missing
    archive or qemu fails the test (a fixture error would not name the root)."""
    done: dict[str, VendorCheck] = {}

    def get(name: str) -> VendorCheck:
        if name not in done:
            done[name] = check_vendor_root(name, tmp_path_factory.mktemp(name))
        return done[name]

    return get


@pytest.mark.parametrize("name", list(VENDOR_ROOTS))
def test_vendor_root_link_maps(name: str, vendor_check: Callable[[str], VendorCheck]) -> None:
    """Every program's link map (and with glibc and musl every other link map linkgraph roots,
    and the strong references nothing defines) equals the device loader's; no error problem
    that the device's loader does not share."""
    check = vendor_check(name)
    print(check.figures())
    assert len(check.programs) == check.spec.programs, f"{name}: programs found {len(check.programs)}"
    assert set(check.traces) == set(check.programs) | set(check.others)
    if check.spec.kind in ("glibc", "musl"):
        assert check.others, f"{name}: no library-rooted link map traced"
    problems = []
    if check.agreement.differences:
        problems.append("programs: " + check.agreement.explain())
    if check.others_agreement.differences:
        problems.append("other link-map roots: " + check.others_agreement.explain())
    if check.errors:
        problems.append(f"error problems the device's loader does not share: {check.errors}")
    assert not problems, check.figures() + "\n" + "\n\n".join(problems)


def test_glibc_vendor_root_bindings(vendor_check: Callable[[str], VendorCheck]) -> None:
    """JioFi 2 (glibc 2.21, whose loader has LD_DEBUG): every cross-object binding of every
    program and every declared-unused edge equals what the device's ld.so reports."""
    check = vendor_check("jiofi2_m2")
    agreement = glibc_bindings(check)
    print(agreement.summary())
    assert agreement.oracle_bindings > 10_000, agreement.summary()
    assert not agreement.binding_diffs and not agreement.unused_diffs, agreement.summary(20)


def test_uclibc_0928_default_dirs_from_loader(tmp_path: Path) -> None:
    """The Hi-Link's uClibc 0.9.28 loader was built with UCLIBC_RUNTIME_PREFIX set to the SDK's
    ``/home/tim/.../romfs/``: its default folders are ``/home/tim/.../romfs/lib`` and
    ``.../romfs/usr/lib`` (strings in ld-uClibc-0.9.28.so), which do not exist on the device,
    and it finds everything through the interpreter's folder ``/lib`` (``_dl_ldsopath``, always
    searched before 0.9.33).  A derived root with libiw.so.29 moved to /usr/lib: the device's
    loader does not find it for iwconfig, and neither may linkgraph."""
    from support.device_roots import assert_agreement, check_root, derive

    stock, _ = extracted_root("hilink_hlk-rm04")
    qemu_host_binary("mipsel")
    root = derive(stock, tmp_path / "root")
    (root / "usr/lib").mkdir()
    (root / "lib/libiw.so.29").rename(root / "usr/lib/libiw.so.29")
    checked = check_root(root, tmp_path / "work")
    for program in ("/bin/iwconfig", "/bin/iwpriv"):
        assert checked.traces[program].missing == ["libiw.so.29"], checked.traces[program].describe()
    assert_agreement(checked)
