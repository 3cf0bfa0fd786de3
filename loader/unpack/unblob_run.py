"""One file through unblob, used as a library: its chunks found, carved and extracted, one level.

unblob would go on into everything it extracted, root filesystems included, and leave its
``*_extract`` folders inside them; here it runs with ``max_depth=1`` in one process and the
caller decides what to look into next. The run is confined by unblob's Landlock sandbox to
its output folder where the kernel supports it. unblob logs through structlog: unless the
application configured structlog itself, those messages go to the standard ``logging``
logger ``unblob``, which is silent until the application gives it a handler.
"""

from __future__ import annotations

import functools
import logging
import multiprocessing
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

from ..problems import Problem, ProblemCode, Severity
from .formats import FILESYSTEMS, format_of_handler
from .links import KeptLinks, MemberProblems, restore_links
from .records import Carved
from .search_budget import searching
from .squashfs import VariantNotRead


@dataclass(slots=True)
class Chunk:
    carved: Carved
    extracted: Path | None  # the chunk's extracted tree, if anything was extracted


@dataclass(slots=True)
class ImageResult:
    chunks: list[Chunk] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


@functools.cache
def _unblob() -> ModuleType:
    """Import unblob's processing without letting it change how this process starts children.

    unblob sets the multiprocessing start method to "fork" on import (and fails if another one
    was chosen); we run it in one process, so the choice made before is put back.
    """
    import structlog

    before = multiprocessing.get_start_method(allow_none=True)
    if before is not None:
        multiprocessing.set_start_method(None, force=True)
    import unblob.processing

    multiprocessing.set_start_method(before, force=True)
    if not structlog.is_configured():
        structlog.configure(
            processors=[structlog.processors.add_log_level, structlog.processors.KeyValueRenderer()],
            wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING),
            logger_factory=structlog.stdlib.LoggerFactory(),
            cache_logger_on_first_use=True,  # else every message unblob does not log binds a logger anew
        )
        logging.getLogger("unblob").addHandler(logging.NullHandler())
    return unblob.processing


def _last_line(text: str | bytes) -> str:
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1].strip() if lines else ""


def describe(report: object) -> str | None:
    """A one-line message for an unblob error report; None for reports that are not problems."""
    from unblob import report as r

    match report:
        case r.ExtractCommandFailedReport():
            detail = _last_line(report.stderr) or _last_line(report.stdout)
            program = (report.command.split() or ["extractor"])[0]
            return f"{program} failed (exit code {report.exit_code}): {detail}"
        case r.ExtractorDependencyNotFoundReport():
            return f"extractor not installed: {', '.join(report.dependencies)}"
        case r.ExtractorTimedOut():
            return f"extractor timed out after {report.timeout:.0f}s: {report.cmd}"
        case r.MaliciousSymlinkRemoved():
            return None  # unblob's tidying; the link is put back as the file system had it
        case VariantNotRead():
            return f"TP-Link's LZMA variant cannot be read either: {report.reason}"
        case r.CalculateChunkExceptionReport():
            return f"{report.handler} at 0x{report.start_offset:x}: {_last_line(str(report.exception))}"
        case r.UnknownError():
            return f"unblob: {_last_line(str(report.exception))}"
        case r.ErrorReport():
            return f"unblob: {type(report).__name__}"
        case r.ExtractionProblem():
            where = f" ({report.path})" if report.path else ""
            return f"{report.problem} {report.resolution}{where}"
    return None


def _problem(report: object, path: str) -> Problem | None:
    from unblob import report as r

    message = describe(report)
    if message is None:
        return None
    error = isinstance(report, r.ErrorReport) and report.severity is r.Severity.ERROR
    return Problem(path, Severity.ERROR if error else Severity.WARNING, message, ProblemCode.UNPACK)


def _not_extracted(carved: Carved, reports: list[object]) -> Problem | None:
    """One error for a file system chunk that its extractor failed on, with every reason given."""
    from unblob import report as r

    reasons = [m for rep in reports if isinstance(rep, r.ErrorReport) and (m := describe(rep)) is not None]
    if carved.format not in FILESYSTEMS or not reasons:
        return None
    message = f"{carved.format} at 0x{carved.offset:x} could not be extracted: {'; '.join(reasons)}"
    return Problem(carved.inner_source, Severity.ERROR, message, ProblemCode.FILESYSTEM_NOT_EXTRACTED)


def unblob_file(path: Path, out: Path, source: str) -> ImageResult:
    """Run unblob on ``path`` with its output in ``out``; ``source`` is ``path`` relative to the input."""
    processing = _unblob()
    from unblob.report import CarveDirectoryReport, ChunkReport, ErrorReport
    from unblob.sandbox import Sandbox

    from .handlers import unpack_handlers

    out.mkdir(parents=True, exist_ok=True)
    config = processing.ExtractionConfig(
        extract_root=out,
        randomness_depth=0,
        max_depth=1,
        process_num=1,
        handlers=unpack_handlers(),
        dir_handlers=(),
        verbose=0,
    )
    found = ImageResult()
    with searching(path.stat().st_size) as search:
        try:
            outcome = Sandbox(config, out, None).run(processing.process_file, config, path)
        except Exception as exc:  # unblob failing on one file never stops the rest
            found.problems.append(
                Problem(source, Severity.ERROR, f"unblob failed: {type(exc).__name__}: {exc}", ProblemCode.UNPACK)
            )
            return found
    if (cut := search.problem(source)) is not None:
        found.problems.append(cut)
    tops = [result for result in outcome.results if result.task.depth == 0]
    if not tops:
        return found
    reports = tops[0].reports
    carve_dirs = [r.carve_dir for r in reports if isinstance(r, CarveDirectoryReport)]
    for report in reports:
        if not isinstance(report, ChunkReport):
            if (problem := _problem(report, source)) is not None:
                found.problems.append(problem)
            continue
        if report.handler_name == "padding":
            continue
        carved = Carved(report.start_offset, report.size, format_of_handler(report.handler_name), source)
        if carve_dirs:
            tree = carve_dirs[0] / f"{report.start_offset}-{report.end_offset}.{report.handler_name}_extract"
        else:
            tree = config.get_extract_dir_for(path)
        failure = _not_extracted(carved, list(report.extraction_reports))
        if failure is not None:
            found.problems.append(failure)
        for sub in report.extraction_reports:
            if isinstance(sub, KeptLinks):
                restore_links(tree, sub)
            elif isinstance(sub, MemberProblems):
                severities = {s.value: s for s in Severity}
                found.problems += [
                    Problem(carved.inner_source, severities[s], m, ProblemCode.UNPACK_MEMBER) for s, m in sub.problems
                ]
            elif failure is not None and isinstance(sub, ErrorReport):
                continue  # said in ``failure``
            elif (problem := _problem(sub, carved.inner_source)) is not None:
                found.problems.append(problem)
        found.chunks.append(Chunk(carved, tree if tree.is_dir() else None))
    return found


def without_chunks(path: Path, source: str) -> ImageResult | None:
    """unblob's pattern search over ``path`` alone, nothing carved or extracted: what ``unblob_file``
    would give when it finds no chunk (its problems only), or None when it finds one (or cannot
    tell), and ``unblob_file`` has to run.

    A loose file outside a root (a web page, a certificate, a table) costs unblob's whole set-up
    per file, libmagic twice and a thread, some 10 ms; the search alone costs a few microseconds
    for a small file, so files that hold nothing unblob knows are passed over at that cost.
    """
    _unblob()
    from unblob.file_utils import File
    from unblob.finder import search_chunks
    from unblob.models import Task, TaskResult

    from .handlers import unpack_handlers

    result = TaskResult(task=Task(path=path, depth=0, blob_id=""))
    try:
        size = path.stat().st_size
        with File.from_path(path) as file, searching(size) as search:
            if search_chunks(file, size, unpack_handlers(), result):
                return None
    except Exception:  # unreadable or odd: unblob_file says what is wrong with it
        return None
    found = ImageResult()
    found.problems += [p for report in result.reports if (p := _problem(report, source)) is not None]
    if (cut := search.problem(source)) is not None:
        found.problems.append(cut)
    return found
