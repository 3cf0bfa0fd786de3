"""Debian's real kernel packages of one version, for the kernel-module judges (depmod,
Module.symvers, Debian's kbuild).

``kernel_root()`` downloads, with ``apt-get download`` of exact versions, the unsigned image
package (it carries the ``.ko`` files and ``modules.order``), the headers of its flavour and
their common part (``Module.symvers``, the build tree) and the matching ``linux-kbuild``
(modpost, the build scripts), into ``$CACHE/kernel-debs/VERSION/debs`` (``cache_dir()`` of
``hostroot``), and unpacks them with ``dpkg-deb -x`` into ``.../root`` (no maintainer scripts).
The headers' one-line ``Makefile`` includes the common part by its absolute installed path; the
unpacked copy is pointed at the unpacked common part instead, so kbuild runs from the cache.

Every failure raises :class:`KernelDebsError`; the tests fail on it, never skip.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .hostroot import cache_dir

DEB_VERSION = "6.1.176-1"
ABI = "6.1.0-50"
FLAVOUR = "amd64"
RELEASE = f"{ABI}-{FLAVOUR}"  # the kernel release: /lib/modules/RELEASE
PACKAGES = [
    f"linux-image-{RELEASE}-unsigned",
    f"linux-headers-{RELEASE}",
    f"linux-headers-{ABI}-common",
    "linux-kbuild-6.1",
]
BUILD_VERSION = "1"  # bumped when the way the root is made changes


class KernelDebsError(RuntimeError):
    """The packages could not be fetched, unpacked or used."""


@dataclass(frozen=True, slots=True)
class KernelDebs:
    root: Path  # the unpacked packages: lib/modules/RELEASE, usr/src/..., usr/lib/linux-kbuild-6.1
    release: str

    @property
    def headers(self) -> Path:
        return self.root / "usr" / "src" / f"linux-headers-{self.release}"

    @property
    def symvers(self) -> Path:
        return self.headers / "Module.symvers"

    @property
    def modules(self) -> Path:
        return self.root / "lib" / "modules" / self.release


def run(
    argv: list[str], cwd: Path | None = None, check: bool = True, timeout: float = 900
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LD_")}
    env.update(LC_ALL="C", DEBIAN_FRONTEND="noninteractive")
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=cwd, timeout=timeout)
    except (FileNotFoundError, subprocess.TimeoutExpired) as exc:
        raise KernelDebsError(f"{argv[0]}: {exc}") from exc
    if check and proc.returncode != 0:
        raise KernelDebsError(f"{' '.join(argv[:6])} exited with {proc.returncode}:\n{proc.stderr[-3000:]}")
    return proc


def kernel_root() -> KernelDebs:
    """The unpacked packages, downloaded and unpacked once per version."""
    base = cache_dir() / "kernel-debs" / f"{DEB_VERSION}-{BUILD_VERSION}"
    root, stamp = base / "root", base / "root.done"
    debs = KernelDebs(root, RELEASE)
    if stamp.exists():
        return debs
    download = base / "debs"
    download.mkdir(parents=True, exist_ok=True)
    missing = [p for p in PACKAGES if not list(download.glob(f"{p}_{DEB_VERSION}_*.deb"))]
    if missing:
        run(["apt-get", "download", *(f"{p}={DEB_VERSION}" for p in missing)], cwd=download)
    files = sorted(download.glob(f"*_{DEB_VERSION}_*.deb"))
    if len(files) != len(PACKAGES):
        raise KernelDebsError(f"expected {len(PACKAGES)} packages in {download}, found {[f.name for f in files]}")
    shutil.rmtree(root, ignore_errors=True)
    tmp = Path(tempfile.mkdtemp(dir=base))
    for deb in files:
        run(["dpkg-deb", "-x", str(deb), str(tmp)])
    makefile = tmp / "usr" / "src" / f"linux-headers-{RELEASE}" / "Makefile"
    text = makefile.read_text()
    if "include /usr/src/" not in text:
        raise KernelDebsError(f"unexpected headers Makefile: {text!r}")
    makefile.write_text(text.replace("include /usr/src/", f"include {root}/usr/src/"))
    tmp.rename(root)
    stamp.write_text(DEB_VERSION + "\n")
    return debs


# A module whose licence the kernel treats as GPL-incompatible, using one GPL-only export
# (kfree_strarray) and plain ones (kmalloc through kmalloc_trace / kmalloc_caches, and the
# compiler's __fentry__ / __x86_return_thunk).
PROPRIETARY_SOURCE = """\
#include <linux/module.h>
#include <linux/init.h>
#include <linux/slab.h>
#include <linux/string_helpers.h>
static int __init prop_init(void)
{
	char **list = kcalloc(2, sizeof(char *), GFP_KERNEL);
	kfree_strarray(list, 0);
	return 0;
}
static void __exit prop_exit(void) { }
module_init(prop_init);
module_exit(prop_exit);
MODULE_LICENSE("Proprietary");
"""
GPL_ONLY_USED = "kfree_strarray"
MODPOST_REFUSAL = f"GPL-incompatible module prop.ko uses GPL-only symbol '{GPL_ONLY_USED}'"


def build_proprietary_module(debs: KernelDebs, work: Path) -> tuple[Path, str]:
    """Compile the proprietary module with Debian's kbuild against the headers. modpost refuses
    to finish it (the error is returned, and checked by the caller); the object kbuild compiled
    is then linked into ``prop.ko`` with ``ld -r`` and the kernel's own module linker script, as
    kbuild's last step does (without modpost's ``.mod.c``: no ``__versions``, no ``name=``)."""
    work.mkdir(parents=True, exist_ok=True)
    (work / "prop.c").write_text(PROPRIETARY_SOURCE)
    (work / "Kbuild").write_text("obj-m := prop.o\n")
    make = run(["make", "-C", str(debs.headers), f"M={work}", "modules"], check=False)
    if not (work / "prop.o").exists():
        raise KernelDebsError(f"kbuild did not compile prop.o:\n{make.stdout[-2000:]}\n{make.stderr[-3000:]}")
    lds = debs.headers / "arch" / "x86" / "module.lds"
    ko = work / "prop.ko"
    run(["ld", "-r", "-m", "elf_x86_64", "-T", str(lds), "-o", str(ko), str(work / "prop.o")])
    return ko, make.stderr
