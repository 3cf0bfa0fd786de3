"""What a release lacks to be buildable, as a reviewer checks first: top-level build instructions,
the Makefiles or build scripts, the kernel's configuration, the toolchain (source or binary), and
what the vendor's own list of things shipped without source (``proprietary.sh``) names."""

from __future__ import annotations

import posixpath
import re

from .model import Gap, GapKind

_INSTRUCTIONS = re.compile(r"^(?:readme|install|build|compile)[\w.-]*$", re.I)
_TOOLCHAIN = re.compile(
    r"(?:^|/)(?:toolchain|gcc-[\d.]+|binutils-[\d.]+|buildroot[\w.-]*|crosstool[\w.-]*)(?:/|$)", re.I
)
_TOOLCHAIN_ARCHIVE = re.compile(r"\b([\w.+-]*(?:toolchain|gcc-[\d.]+|build[\d.]+[\w.]*)[\w.+-]*\.tar(?:\.\w+)?)\b")
_KERNEL_CONFIG = re.compile(r"/arch/[^/]+/configs/[^/]*defconfig$")
_ASSIGNED = re.compile(r"\b([A-Z_][A-Z0-9_]*)=([\w./-]+)")
_VARIABLE = re.compile(r"\$\{?([A-Z_][A-Z0-9_]*)\}?")
_PROPRIETARY_LIST = re.compile(r"proprietar", re.I)


class GapFinder:
    """Fed every member's path (and a few members' bytes); ``gaps()`` says what is there or missing."""

    def __init__(self) -> None:
        self.instructions: list[str] = []
        self.build_files = 0
        self.kernel_configs: list[str] = []
        self.toolchain: list[str] = []
        self.toolchain_named: dict[str, str] = {}  # archive named by a build file -> where
        self.proprietary: list[str] = []  # what the vendor's list names
        self.proprietary_list: str | None = None
        self.paths: set[str] = set()

    def see(self, path: str, build_file: bool) -> None:
        self.paths.add(path)
        base = posixpath.basename(path)
        if path.count("/") <= 2 and _INSTRUCTIONS.match(base):
            self.instructions.append(path)
        if build_file:
            self.build_files += 1
        if base == ".config" or _KERNEL_CONFIG.search(path):
            self.kernel_configs.append(path)
        if _TOOLCHAIN.search(path) and len(self.toolchain) < 20:
            self.toolchain.append(path)

    def read_build_file(self, path: str, data: bytes) -> None:
        text = data.decode("utf-8", "replace")
        for match in _TOOLCHAIN_ARCHIVE.finditer(text):
            self.toolchain_named.setdefault(match.group(1), path)
        if _PROPRIETARY_LIST.search(posixpath.basename(path)):
            self.proprietary_list = path
            values: dict[str, list[str]] = {}
            for match in _ASSIGNED.finditer(text):
                values.setdefault(match.group(1), []).append(match.group(2))
            for match in re.finditer(r'intermediate\+=\s*"\s*([^"]+)"', text):
                self.proprietary.append(_expand(match.group(1).strip(), values, self.paths))

    def gaps(self) -> list[Gap]:
        out = [
            Gap(
                GapKind.BUILD_INSTRUCTIONS,
                bool(self.instructions),
                ", ".join(sorted(self.instructions, key=lambda p: (p.count("/"), p))[:5])
                or "no README or build instructions at the top",
            ),
            Gap(GapKind.BUILD_FILES, self.build_files > 0, f"{self.build_files} Makefiles or build scripts"),
            Gap(GapKind.KERNEL_CONFIG, bool(self.kernel_configs), _configs(self.kernel_configs)),
        ]
        named_missing = [
            f"{name} (named in {where})"
            for name, where in sorted(self.toolchain_named.items())
            if not any(p.endswith(name) for p in self.paths)
        ]
        if named_missing:
            out.append(Gap(GapKind.TOOLCHAIN, False, "missing: " + ", ".join(named_missing[:5])))
        else:
            out.append(
                Gap(
                    GapKind.TOOLCHAIN,
                    bool(self.toolchain),
                    ", ".join(self.toolchain[:3]) or "no toolchain, as source or binary",
                )
            )
        for item in self.proprietary:
            held = any(p == item or p.startswith(item + "/") for p in self.paths)
            where = "in the release as binaries" if held else "not in the release"
            out.append(
                Gap(
                    GapKind.PROPRIETARY,
                    held,
                    f"{item}: listed by {self.proprietary_list} as shipped without source; {where}",
                )
            )
        return out


def _configs(found: list[str]) -> str:
    if not found:
        return "no kernel .config or defconfig"
    dotted = [p for p in found if p.endswith("/.config") or p == ".config"]
    shown = dotted[:3] or found[:3]
    return f"{len(found)} kernel configurations, e.g. " + ", ".join(shown)


def _expand(item: str, values: dict[str, list[str]], paths: set[str]) -> str:
    """A listed item with the script's variables put in: the value the script would pick (the one
    that exists in the release, as its ``if [ -e … ]`` lines do), else the last one assigned."""

    def value(match: re.Match[str]) -> str:
        options = values.get(match.group(1), [])
        held = [v for v in options if any(p == v or p.startswith(v + "/") for p in paths)]
        return (held or options or [match.group(0)])[-1]

    return _VARIABLE.sub(value, item)
