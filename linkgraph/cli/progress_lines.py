"""How far a long command has got, on stderr, as the scan shows it: on a terminal the scan's bar
(``console.ProgressBar``); in a log or a pipe one line when a stage begins and then at most one every
``EVERY`` seconds while it lasts, so a report that takes a minute is never silent; nothing with
--quiet.

A stage is told as the scan's are, ``progress(stage, done, total)`` (``total`` 0: not known yet).
WeasyPrint says which page it lays out on its own logger (``weasyprint.progress``); ``weasyprint_pages``
passes that on as the stages ``PAGES`` and ``WRITING``.
"""

from __future__ import annotations

import contextlib
import logging
import re
import time
from collections.abc import Callable, Iterator

import click

from .console import ProgressBar

EVERY = 2.0  # seconds between two lines of one stage in a log
PAGES = "laying out the pages"
WRITING = "writing the PDF"
WEASYPRINT_LOGGER = "weasyprint.progress"
_PAGE = re.compile(r"Creating layout - Page (\d+)")

Progress = Callable[[str, int, int], None]


class ProgressLines:
    """``progress(stage, done, total)`` for a command called ``command`` (``linkgraph report``)."""

    def __init__(self, command: str, enabled: bool) -> None:
        self.command = command
        self.enabled = enabled
        self._bar = ProgressBar(enabled)  # draws only on a terminal
        self._stage = ""
        self._said = 0.0

    def __enter__(self) -> ProgressLines:
        self._bar.__enter__()
        return self

    def __call__(self, stage: str, done: int, total: int) -> None:
        if not self.enabled:
            return
        if self._bar.enabled:
            self._bar(stage, done, total)
            return
        now = time.monotonic()
        if stage == self._stage and now - self._said < EVERY and done != total:
            return
        first = stage != self._stage
        self._stage, self._said = stage, now
        count = "" if first and not done else f": {done} of {total}" if total else f": {done}"
        click.echo(f"{self.command}: {stage}{count}", err=True)

    def say(self, line: str) -> None:
        """A line of its own (what was written), below the bar."""
        if self.enabled:
            self._bar.__exit__(None, None, None)
            click.echo(f"{self.command}: {line}", err=True)

    def __exit__(self, *exc: object) -> None:
        self._bar.__exit__(None, None, None)


class _Pages(logging.Handler):
    def __init__(self, progress: Progress) -> None:
        super().__init__(logging.INFO)
        self.progress = progress

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        found = _PAGE.search(message)
        if found:
            self.progress(PAGES, int(found.group(1)), 0)
        elif "Creating PDF" in message:
            self.progress(WRITING, 0, 0)


@contextlib.contextmanager
def weasyprint_pages(progress: Progress) -> Iterator[None]:
    """While inside, each page WeasyPrint lays out is ``progress(PAGES, page, 0)``."""
    logger = logging.getLogger(WEASYPRINT_LOGGER)
    handler = _Pages(progress)
    level, propagate = logger.level, logger.propagate
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False  # its other steps are not the user's business
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
        logger.propagate = propagate
