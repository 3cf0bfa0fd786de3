"""Debian's dpkg database: ``/var/lib/dpkg/status`` and ``/var/lib/dpkg/info/NAME[:ARCH].list``.

``status`` lists the installed packages (a ``License`` field is rare; the licence is in the
package's copyright file, see ``copyright.py``); each ``.list`` names the files a package
installed, with the paths as packaged (``/bin/busybox`` even where ``/bin`` links to ``/usr/bin``).
Packages that may be installed for several architectures (``Multi-Arch: same``) have their list
under ``NAME:ARCH.list``.
"""

from __future__ import annotations

from typing import ClassVar

from .base import Context, Package, owners_from_lists
from .packages import is_installed, read_list, read_paragraphs


class DpkgDatabase:
    """Packages and the files they own, from the root's dpkg status and file lists."""

    MANAGER: ClassVar[str] = "dpkg"
    STATUS: ClassVar[str] = "/var/lib/dpkg/status"
    INFO: ClassVar[str] = "/var/lib/dpkg/info"

    @classmethod
    def owners(cls, ctx: Context) -> dict[str, Package]:
        if not ctx.exists(cls.STATUS):
            return {}
        parsed = read_paragraphs(ctx, cls.STATUS, "dpkg status file")
        packages: dict[str, Package] = {}
        for para in parsed.paragraphs if parsed else []:
            name = para.get("package")
            if not name or not is_installed(para.get("status")):
                continue
            package = Package(
                cls.MANAGER, name, para.get("version"), para.get("license"), cls.STATUS, para.get("source")
            )
            arch = para.get("architecture")
            packages.setdefault(f"{name}:{arch}" if arch else name, package)
            packages.setdefault(name, package)
        lists = {}
        for entry in ctx.root.listdir(cls.INFO):
            if entry.endswith(".list"):
                lists[entry.removesuffix(".list")] = read_list(ctx, f"{cls.INFO}/{entry}")
        return owners_from_lists(ctx, lists, packages)
