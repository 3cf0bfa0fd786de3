"""Tier 2 of the check (docs/sources.md): a module's DWARF compile paths that end in a release path.

A compile path (``/home/build/tree/apps/foo-1.0/src/foo.c``) ends in the release paths that share
its file name and the most trailing folders with it, at least one folder
(``apps/foo-1.0/src/foo.c``, or ``foo-1.0/src/foo.c`` in a nested archive's folder). Each path
counts for the source folder of the release paths it ends in, 1/n for each of n folders (a copy of
the same tree); a folder wins with twice the next folder's count, or 90 % of it (a copy)."""

from __future__ import annotations

import posixpath
from collections import defaultdict
from collections.abc import Iterable

from .folders import Folders

MIN_PARTS = 2  # a folder and the file: a file name alone decides nothing
COPY_SHARE = 0.9
MAX_EVIDENCE = 12
Evidence = dict[str, str | int]


class DwarfPaths:
    def __init__(self, paths: Iterable[str], folders: Folders) -> None:
        self.folders = folders
        self.by_name: dict[str, list[list[str]]] = defaultdict(list)  # file name -> release paths, split
        for path in paths:
            self.by_name[posixpath.basename(path)].append(path.split("/"))

    def ends(self, compile_path: str) -> list[str]:
        """The release paths ``compile_path`` ends in with the most trailing parts (at least ``MIN_PARTS``)."""
        parts = compile_path.split("/")
        best, found = MIN_PARTS - 1, []
        for candidate in self.by_name.get(parts[-1], ()):
            shared = _shared_tail(parts, candidate)
            if shared > best:
                best, found = shared, ["/".join(candidate)]
            elif shared == best and shared >= MIN_PARTS:
                found.append("/".join(candidate))
        return found

    def vote(self, compile_paths: Iterable[str]) -> tuple[str, list[Evidence]] | None:
        """The source folder the module's compile paths name, with each match as evidence."""
        scores: dict[str, float] = defaultdict(float)
        examples: dict[str, list[Evidence]] = defaultdict(list)
        for compile_path in dict.fromkeys(compile_paths):
            by_folder: dict[str, str] = {}
            for release_path in self.ends(compile_path):
                by_folder.setdefault(self.folders.of(release_path), release_path)
            for folder, release_path in by_folder.items():
                scores[folder] += 1.0 / len(by_folder)
                if len(examples[folder]) < MAX_EVIDENCE:
                    examples[folder].append({"kind": "dwarf", "text": compile_path, "file": release_path, "line": 0})
        if not scores:
            return None
        ranked = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))
        best, score = ranked[0]
        runner = ranked[1][1] if len(ranked) > 1 else 0.0
        if score < 2 * runner and runner < COPY_SHARE * score:
            return None
        return best, examples[best]


def _shared_tail(a: list[str], b: list[str]) -> int:
    n = 0
    for x, y in zip(reversed(a), reversed(b), strict=False):
        if x != y:
            break
        n += 1
    return n
