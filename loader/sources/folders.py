"""Which source folder a release path belongs to: its nearest package folder (``apps/busybox-1.01``),
else the outermost folder below the top one with a Makefile of its own (``apps/3g_tools``), else its
first two folders (``web_server/msglogd``)."""

from __future__ import annotations

import posixpath

from .model import Package, ReleaseIndex


class Folders:
    def __init__(self, index: ReleaseIndex) -> None:
        self.packages: dict[str, Package] = {p.folder: p for p in index.packages}
        self.makefiles = index.makefile_folders
        self.system = index.system_trees
        self._memo: dict[str, str] = {}

    def of(self, path: str) -> str:
        folder = posixpath.dirname(path)
        known = self._memo.get(folder)
        if known is not None:
            return known
        probe = folder
        while probe and probe not in self.packages:
            probe = posixpath.dirname(probe)
        if not probe:
            parts = folder.split("/")
            built = ("/".join(parts[:n]) for n in range(2, len(parts) + 1))
            probe = next((f for f in built if f in self.makefiles), "/".join(parts[:2]))
        self._memo[folder] = probe
        return probe

    def package(self, folder: str) -> Package | None:
        return self.packages.get(folder)

    def is_system(self, folder: str) -> bool:
        """A kernel or boot loader tree: no user-space program is built from it."""
        return folder in self.system
