"""``/etc/ld.so.preload`` as each loader reads it: which loaders read it, and the names in it.

* glibc (``elf/rtld.c`` ``dl_main``): always, after ``LD_PRELOAD``. Comments are blanked first,
  with the loop as written: ``memchr`` always starts at the beginning of the file while the
  length it searches shrinks by each comment's offset and length, so a ``#`` late in a file
  that had an earlier comment is not blanked and its words are names. Then the names are the
  words between ``:``, space, tab and newline (``strsep``) up to the first NUL, and a last word
  without a separator after it (``strndupa``, also cut at a NUL).
* uClibc (``ldso/ldso/ldso.c`` ``_dl_get_ready_to_run``): only when built with
  ``LDSO_PRELOAD_FILE_SUPPORT`` (off by default and in OpenWrt); then the path
  ``UCLIBC_RUNTIME_PREFIX "etc/" LDSO_BASE_FILENAME ".preload"`` is compiled into the loader,
  which is how linkgraph tells. The text up to the first NUL, ``:``, tab and newline turned
  into spaces, ``#`` up to the end of its line blanked, the words between spaces.
* musl (``ldso/dynlink.c``): never (only the ``LD_PRELOAD`` variable, which ``load_preload``
  splits at white space and ``:``).
"""

from __future__ import annotations

import enum
import re

PRELOAD_FILE = "/etc/ld.so.preload"  # glibc's rtld.c preload_file[]
_GLIBC_SEPARATORS = b": \t\n"
_GLIBC_SPLIT = re.compile(rb"[: \t\n]")
# UCLIBC_RUNTIME_PREFIX "etc/" __LDSO_BASE_FILENAME__ ".preload", as a C string of the loader
_UCLIBC_PRELOAD_PATH = re.compile(rb"(/[\x21-\x7e]*?etc/[\x21-\x7e]+\.preload)\x00")


class PreloadRule(enum.Enum):
    """Whether a loader reads a preload file."""

    ALWAYS = "always"  # glibc
    NEVER = "never"  # musl
    IF_BUILT = "if-built"  # uClibc: when its file names the preload file (LDSO_PRELOAD_FILE_SUPPORT)


def _decode(word: bytes) -> str:
    return word.decode("utf-8", "surrogateescape")  # byte-exact, like every device path


def _blank_glibc_comments(data: bytes) -> bytearray:
    """rtld.c's comment loop, including its search that never moves its start."""
    text = bytearray(data)
    rest = len(text)
    while rest > 0:
        at = text.find(b"#", 0, rest)  # memchr (runp, '#', rest) with runp == file throughout
        if at < 0:
            break
        rest -= at
        while True:
            text[at] = 0x20
            rest -= 1
            if rest <= 0:
                break
            at += 1
            if text[at] == 0x0A:
                break
    return text


def glibc_preload_names(data: bytes) -> list[str]:
    """The names glibc's ld.so preloads from the file's contents, in order (duplicates kept:
    the loader maps a name again and finds it loaded)."""
    if not data:
        return []  # _dl_sysdep_read_whole_file maps nothing for an empty file
    text = _blank_glibc_comments(data)
    words: list[bytes] = []
    last: bytes | None = None
    if text[-1] in _GLIBC_SEPARATORS:
        main: bytes | None = bytes(text[:-1])
    else:
        start = max(text.rfind(bytes([c])) for c in _GLIBC_SEPARATORS) + 1
        main = bytes(text[: start - 1]) if start > 0 else None
        last = bytes(text[start:]).split(b"\0", 1)[0]
    if main is not None:
        words += [w for w in _GLIBC_SPLIT.split(main.split(b"\0", 1)[0]) if w]
    if last:
        words.append(last)
    return [_decode(w) for w in words]


def uclibc_preload_names(data: bytes) -> list[str]:
    """The names uClibc's loader preloads from the file's contents, in order."""
    text = data.split(b"\0", 1)[0]
    out = bytearray()
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == 0x23:  # '#': blanked up to the newline, which is then a separator
            while i < len(text) and text[i] != 0x0A:
                out.append(0x20)
                i += 1
            continue
        out.append(0x20 if ch in b":\t\n" else ch)
        i += 1
    return [_decode(w) for w in bytes(out).split(b" ") if w]


def uclibc_preload_path(loader: bytes) -> str | None:
    """The preload file a uClibc loader reads, from the path compiled into it (None: built
    without ``LDSO_PRELOAD_FILE_SUPPORT``)."""
    found = _UCLIBC_PRELOAD_PATH.search(loader)
    return _decode(found.group(1)) if found else None
