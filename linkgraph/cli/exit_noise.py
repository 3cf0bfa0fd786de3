"""What a dependency would print on its own when the interpreter exits, silenced at its source.

LIEF (imported by unblob's ELF handler) is built with nanobind, which lists every object still
alive at interpreter exit as "leaked" on stderr: some 30 lines after every image scan, none of
them about the firmware. LIEF's own switch, ``lief.disable_leak_warning()``, turns the list off.
It is thrown at exit, and only when LIEF was imported: a command that never unpacks an image
does not pay for importing it.
"""

from __future__ import annotations

import atexit
import sys


def silence_exit_noise() -> None:
    """Arrange for the dependencies' exit-time messages to be turned off before the interpreter
    finalises its modules (atexit handlers run first)."""
    atexit.register(_silence_lief)


def _silence_lief() -> None:
    lief = sys.modules.get("lief")
    if lief is not None:
        lief.disable_leak_warning()
