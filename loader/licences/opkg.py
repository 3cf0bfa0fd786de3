"""OpenWrt's opkg database: ``status``, ``info/NAME.control`` (with ``License:``) and ``info/NAME.list``.

OpenWrt writes the licence into each package's ``.control`` file (``PKG_LICENSE`` of its
Makefile, blank-separated when several apply); ``status`` usually has no ``License`` field but
is the list of what is installed. ``info/NAME.list`` names the files each package installed.
"""

from __future__ import annotations

import posixpath
from typing import ClassVar

from .base import Context, Package, owners_from_lists
from .packages import is_installed, read_list, read_paragraphs


class OpkgDatabase:
    """Packages and the files they own, from the first opkg folder the root has."""

    MANAGER: ClassVar[str] = "opkg"
    FOLDERS: ClassVar[tuple[str, ...]] = ("/usr/lib/opkg", "/var/lib/opkg", "/usr/lib/ipkg")

    @classmethod
    def owners(cls, ctx: Context) -> dict[str, Package]:
        for folder in cls.FOLDERS:
            status = f"{folder}/status"
            info = f"{folder}/info"
            if ctx.exists(status) or ctx.root.is_dir(info):
                return cls._read(ctx, status, info)
        return {}

    @classmethod
    def _read(cls, ctx: Context, status: str, info: str) -> dict[str, Package]:
        packages: dict[str, Package] = {}
        parsed = read_paragraphs(ctx, status, "opkg status file")
        for para in parsed.paragraphs if parsed else []:
            name = para.get("package")
            if name and is_installed(para.get("status")):
                packages[name] = Package(
                    cls.MANAGER, name, para.get("version"), para.get("license"), status, para.get("source")
                )
        names = ctx.root.listdir(info)
        lists: dict[str, list[str]] = {}
        for entry in names:
            stem, ext = posixpath.splitext(entry)
            if ext == ".control":
                cls._control(ctx, f"{info}/{entry}", stem, packages, f"{stem}.list" in names)
            elif ext == ".list":
                lists[stem] = read_list(ctx, f"{info}/{entry}")
        return owners_from_lists(ctx, lists, packages)

    @classmethod
    def _control(cls, ctx: Context, path: str, stem: str, packages: dict[str, Package], listed: bool) -> None:
        """A package's .control file: its License field (OpenWrt puts it only here)."""
        parsed = read_paragraphs(ctx, path, "opkg control file")
        if not parsed or not parsed.paragraphs:
            return
        para = parsed.paragraphs[0]
        name = para.get("package") or stem
        known = packages.get(name)
        if known is None:
            if not listed:
                return
            known = packages[name] = Package(cls.MANAGER, name, para.get("version"), None, path)
        if known.licence is None:
            known.field_file = path
            known.licence = para.get("license")
        known.version = known.version or para.get("version")
        known.source = known.source or para.get("source")
