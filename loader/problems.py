"""Problems: what a stage could not use, or found odd, in one file, recorded with a stable code.

Every stage records problems instead of raising for bad content; the scan goes on. The codes are
the report's contract (docs/report.md lists them); the message says the details.
"""

from __future__ import annotations

import enum
from collections import Counter
from dataclasses import dataclass

MAX_PER_CODE = 1000  # problems of one code kept per firmware; one more record counts the rest


class Severity(enum.StrEnum):
    WARNING = "warning"
    ERROR = "error"


class ProblemCode(enum.StrEnum):
    """Stable codes of recorded problems (docs/report.md lists them); the message says the details."""

    # reading files
    READ_FAILED = "read-failed"
    TOO_LARGE = "too-large"
    # a count read from a file past the bytes behind it, or a stated count limit reached (also while
    # unpacking: the rest is not unpacked); the message says which limit
    TOO_MANY_ENTRIES = "too-many-entries"
    NAME_NOT_UTF8 = "name-not-utf8"
    NOT_REGULAR = "not-regular-file"
    EMPTY_FILE = "empty-file"
    ELF_UNUSABLE = "elf-unusable"
    ELF_FOREIGN = "elf-foreign"  # an unusable ELF file for another CPU that no loader opens (scan.foreign)
    # symlinks
    SYMLINK_UNRESOLVABLE = "symlink-unresolvable"
    SYMLINK_OUTSIDE = "symlink-outside-root"
    SYMLINK_DANGLING = "symlink-dangling"
    # the loaded view of an ELF file disagrees with its file-level view
    DYNAMIC_SIZE_MISMATCH = "dynamic-size-mismatch"
    DYNAMIC_OFFSET_MISMATCH = "dynamic-offset-mismatch"
    STRTAB_SIZE_MISMATCH = "strtab-size-mismatch"
    ENTRY_SIZE_MISMATCH = "entry-size-mismatch"
    VERSION_CHAIN_OVERLAP = "version-chain-overlap"  # version chains that come back or share records
    SECTION_HEADERS_DISAGREE = "section-headers-disagree"
    # loader configuration
    LD_CACHE_IGNORED = "ld-cache-ignored"
    LD_CONF_ASSUMED = "ld-conf-assumed"
    DEFAULT_DIRS_GUESSED = "default-dirs-guessed"
    INTERPRETER_MISSING = "interpreter-missing"  # a program's PT_INTERP is not in the root: no link map
    CONFIG_TOO_LARGE = "config-too-large"
    PRELOAD_MISSING = "preload-missing"  # a name of /etc/ld.so.preload the loader cannot load
    INCLUDE_LOOP = "include-loop"  # an ld.so.conf include that leads back to a file being read
    # hostile nesting: directories, includes or paths deeper than a documented limit
    DEPTH_LIMIT = "depth-limit"
    # unpacking and licence data
    UNPACK = "unpack"
    UNPACK_MEMBER = "unpack-member"
    FILESYSTEM_NOT_EXTRACTED = "filesystem-not-extracted"  # a file system found in an image that no reader read
    SCAN_BUDGET = "scan-budget"  # a budget of the whole scan ran out (loader/budget.py): the rest not done
    LICENCE_DATA = "licence-data"
    # risky DT_RPATH / DT_RUNPATH entries (loader/ldso/risky_paths.py)
    RPATH_RELATIVE = "rpath-relative"
    RPATH_EMPTY = "rpath-empty"
    RPATH_WORLD_WRITABLE = "rpath-world-writable"
    RPATH_BUILD_HOST = "rpath-build-host"
    # kernel modules (loader/kmod)
    KMOD_UNREADABLE = "kmod-unreadable"  # a module file whose tables cannot be read
    KERNEL_EXPORTS_UNKNOWN = "kernel-exports-unknown"  # no Module.symvers, vmlinux or readable image
    # dlopen edges (loader/dlopen)
    DLOPEN_HINTS_UNREADABLE = "dlopen-hints-unreadable"
    DLOPEN_CAPPED = "dlopen-capped"
    # the source release (loader/sources): a release that cannot be read, a member name that is
    # absolute or climbs out with "..", a member that is no regular file
    RELEASE_UNREADABLE = "release-unreadable"
    RELEASE_NAME_UNSAFE = "release-name-unsafe"
    DWARF_UNREADABLE = "dwarf-unreadable"  # a module's DWARF read only in part (loader/sources/dwarf.py)


@dataclass(slots=True)
class Problem:
    path: str
    severity: Severity
    message: str
    code: ProblemCode


def bounded(problems: list[Problem], per_code: int = MAX_PER_CODE) -> list[Problem]:
    """``problems`` with at most ``per_code`` of each code (the first ones, in order), and for a code
    past it one more record saying how many more there were (a hostile image can make a million)."""
    counts = Counter(p.code for p in problems)
    if all(n <= per_code for n in counts.values()):
        return problems
    kept: list[Problem] = []
    seen: Counter[ProblemCode] = Counter()
    summaries: dict[ProblemCode, Problem] = {}
    for problem in problems:
        seen[problem.code] += 1
        if seen[problem.code] <= per_code:
            kept.append(problem)
            continue
        summary = summaries.get(problem.code)
        if summary is None:
            more = counts[problem.code] - per_code
            message = f"{more:,} more problems of this code are not recorded (at most {per_code:,} per firmware)"
            summaries[problem.code] = summary = Problem(problem.path, problem.severity, message, problem.code)
            kept.append(summary)
        if problem.severity is Severity.ERROR:  # the exit status still says an error was among them
            summary.severity = Severity.ERROR
    return kept
