"""Keeping extracted trees as their file systems had them, although unblob tidies them.

After every extraction unblob rewrites symbolic links (absolute targets made relative,
chains collapsed, links it cannot resolve on the host deleted). Our roots keep the device's
own links: they are resolved later inside the root, never on the host. So every handler is
wrapped: right after its extractor ran, the links are recorded (in a ``KeptLinks`` report
that travels back with the chunk) and device nodes, FIFOs and sockets are removed; once
unblob is done, ``restore_links`` puts the recorded links back.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from unblob.models import ExtractError, ExtractResult, Handler
from unblob.report import Report, register_report_types

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class KeptLinks(Report):
    """The symbolic links of one extracted tree, as (path below the tree, target) in bytes."""

    links: list[tuple[bytes, bytes]] = []  # noqa: RUF012 - a pydantic field: each report gets its own copy
    removed_special: int = 0


class MemberProblems(Report):
    """Problems of single archive members, as (severity, message), from our own extractors."""

    problems: list[tuple[str, str]] = []  # noqa: RUF012 - a pydantic field: each report gets its own copy


register_report_types([KeptLinks, MemberProblems])


def record_tree(top: Path) -> KeptLinks:
    """Record the links below ``top`` and remove its special files."""
    kept = KeptLinks()
    if not top.is_dir():
        return kept
    base = os.fsencode(top)
    pending = [b""]
    while pending:
        rel = pending.pop()
        with os.scandir(os.path.join(base, rel)) as entries:
            for entry in entries:
                path = os.path.join(rel, entry.name)
                mode = entry.stat(follow_symlinks=False).st_mode
                if stat.S_ISLNK(mode):
                    kept.links.append((path, os.readlink(entry.path)))
                elif stat.S_ISDIR(mode):
                    pending.append(path)
                elif not stat.S_ISREG(mode):
                    os.unlink(entry.path)
                    kept.removed_special += 1
    return kept


def restore_links(top: Path, kept: KeptLinks) -> int:
    """Put the recorded links back below ``top`` (never through a link); returns how many changed."""
    changed = 0
    for rel, target in kept.links:
        *folders, leaf = rel.split(b"/")
        try:
            fd = os.open(top, _DIR_FLAGS)
        except OSError:
            return changed
        try:
            for folder in folders:
                child = os.open(folder, _DIR_FLAGS, dir_fd=fd)
                os.close(fd)
                fd = child
            try:
                st = os.stat(leaf, dir_fd=fd, follow_symlinks=False)
            except FileNotFoundError:
                st = None
            if st is not None:
                if not stat.S_ISLNK(st.st_mode) or os.readlink(leaf, dir_fd=fd) == target:
                    continue
                os.unlink(leaf, dir_fd=fd)
            os.symlink(target, leaf, dir_fd=fd)
            changed += 1
        except OSError:
            continue  # its folder is gone or was replaced: nothing to put back
        finally:
            os.close(fd)
    return changed


def keeping_links(handler: type[Handler]) -> type[Handler]:
    """``handler``, recording links and removing special files right after each extraction."""

    class KeepingLinks(handler):  # type: ignore[valid-type, misc]
        def extract(self, inpath: Path, outdir: Path) -> ExtractResult | None:
            try:
                result = super().extract(inpath, outdir)
            except ExtractError as exc:
                raise ExtractError(*exc.reports, record_tree(outdir)) from exc
            return ExtractResult(reports=[*(result.reports if result else []), record_tree(outdir)])

    KeepingLinks.__name__ = KeepingLinks.__qualname__ = handler.__name__
    return KeepingLinks
