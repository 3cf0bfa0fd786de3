"""A file of near-misses for unblob's tar handler, as the fuzz run of the unpacking walk found it.

A USTAR magic every ``PERIOD`` bytes, each behind a header whose size and checksum fields are octal
and whose checksum ends as tar writes it: unblob's tar handler parses every one of them and only
the sum is wrong. 7 MB hold 350,000 of them (10 to 17 s of CPU for unblob's search before it was
bounded: loader/unpack/search_budget.py).
"""

from __future__ import annotations

PERIOD = 20  # one tar magic every 20 bytes
SIZE = 7_000_000


def tar_magics(size: int = SIZE) -> bytes:
    """``size`` bytes (rounded down to whole periods) of tar magics behind near-miss headers."""
    period = bytearray(b"\x01" * PERIOD)
    period[0:8] = b"ustar\x0000"  # the magic and version (unblob's second tar pattern)
    period[8:17] = b"\x0000000000"  # 257 - 133 = 124 bytes before the magic: the size field, "0" then NUL
    period[17:19] = b"\x00 "  # 257 - 103 = 154: the checksum field's last two bytes
    return bytes(period) * (size // PERIOD)
