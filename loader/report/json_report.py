"""The JSON report (schema ``linkgraph-report/1``) and its line form, written as they are read.

``write_json`` writes the one document ``docs/report.md`` describes, byte for byte what
``json.dumps(report, indent=1, ensure_ascii=False)`` would give, but entry by entry: nothing holds
the whole document, so its memory does not grow with the firmware. ``write_jsonl`` writes one
typed record per line (``{"type": "binding", ...}``) for consumers that stream. Both take the
sections to include; lists are sorted, so two stores holding the same graph give identical output.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any, TextIO

from ..store.base import GraphStore
from .report_sections import SCHEMA, Scoped, firmware_header, scoped, section, single
from .section_names import SECTIONS

# the "type" of each section's records in the line form
RECORD_TYPES = {
    "modules": "module",
    "licence_coverage": "licence_coverage",
    "dependencies": "dependency",
    "dlopen": "dlopen",
    "link_maps": "link_map",
    "bindings": "binding",
    "unresolved": "unresolved",
    "duplicates": "duplicate",
    "problems": "problem",
    "kernel_links": "kernel_link",
    "licence_findings": "licence_findings",
    "source_check": "source_check",
}
_ENCODE: Any = json.encoder.encode_basestring  # type: ignore[attr-defined]  # C, as json.dumps uses it
_FLUSH_BYTES = 1 << 16


def write_json(store: GraphStore, firmware: str, out: TextIO, sections: Iterable[str] = SECTIONS) -> None:
    """The report document of ``firmware`` (only ``sections``, in the report's order) to ``out``."""
    wanted = [name for name in SECTIONS if name in set(sections)]
    out.write('{\n "schema": ' + _ENCODE(SCHEMA) + ',\n "firmware": ')
    out.write(_dumps(firmware_header(store, firmware), 1))
    for name in wanted:
        out.write(",\n " + _ENCODE(name) + ": ")
        one = single(store, firmware, name)
        if one is not None:
            out.write(_dumps(one, 1))
            continue
        per_executable = scoped(store, firmware, name)
        if per_executable is None:
            _write_list(out, (_dumps(entry, 2) for entry in section(store, firmware, name)))
        else:
            _write_list(out, _scoped_entries(per_executable, 3, ",\n   ", ": ", "{\n   ", "\n  }"))
    out.write("\n}\n")


def write_jsonl(store: GraphStore, firmware: str, out: TextIO, sections: Iterable[str] = SECTIONS) -> None:
    """The report as lines: first ``{"type": "report", "schema", "firmware"}``, then one record per
    entry of each section, ``{"type": "module", ...}`` (the entry's keys after ``type``)."""
    wanted = [name for name in SECTIONS if name in set(sections)]
    header = {"type": "report", "schema": SCHEMA, "firmware": firmware_header(store, firmware)}
    out.write(json.dumps(header, ensure_ascii=False) + "\n")
    for name in wanted:
        kind = RECORD_TYPES[name]
        one = single(store, firmware, name)
        if one is not None:
            out.write(json.dumps({"type": kind, **one}, ensure_ascii=False) + "\n")
            continue
        per_executable = scoped(store, firmware, name)
        if per_executable is None:
            lines = (
                json.dumps({"type": kind, **entry}, ensure_ascii=False) for entry in section(store, firmware, name)
            )
        else:
            lines = _scoped_entries(per_executable, None, ", ", ": ", '{"type": ' + _ENCODE(kind) + ", ", "}")
        buffer: list[str] = []
        size = 0
        for line in lines:
            buffer.append(line)
            size += len(line)
            if size > _FLUSH_BYTES:
                out.write("\n".join(buffer) + "\n")
                buffer, size = [], 0
        if buffer:
            out.write("\n".join(buffer) + "\n")


def _scoped_entries(
    found: Scoped, level: int | None, separator: str, colon: str, opening: str, closing: str
) -> Iterator[str]:
    """Each (executable, fact) of a per-executable section as text: the fact's part is rendered
    once per distinct fact (the same tuple under every executable), the executable once per
    executable. ``level`` None: on one line (jsonl), else laid out as json.dumps(indent=1) does."""
    keys = [_ENCODE(field) + colon for field in found.fields]
    rendered: dict[tuple[Any, ...], str] = {}
    head_of, head = None, ""
    for exe, fact in found.pairs:
        if exe is not head_of:
            head_of, head = exe, opening + _ENCODE("executable") + colon + _ENCODE(exe)
        text = rendered.get(fact)
        if text is None:
            values = (json.dumps(v, ensure_ascii=False) if level is None else _dumps(v, level) for v in fact)
            text = rendered[fact] = "".join(separator + k + v for k, v in zip(keys, values, strict=True))
        yield head + text + closing


def _write_list(out: TextIO, items: Iterable[str]) -> None:
    """A list of already formatted entries at depth 1, as json.dumps(indent=1) lays it out."""
    first = True
    buffer: list[str] = []
    size = 0
    for item in items:
        buffer.append(("[\n  " if first else ",\n  ") + item)
        first = False
        size += len(item)
        if size > _FLUSH_BYTES:
            out.write("".join(buffer))
            buffer, size = [], 0
    out.write("".join(buffer) + ("[]" if first else "\n ]"))


def _dumps(value: Any, level: int) -> str:
    """``value`` as json.dumps(indent=1, ensure_ascii=False) lays it out ``level`` deep."""
    if isinstance(value, str):
        return _ENCODE(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(int(value))
    inner = "\n" + " " * (level + 1)
    if isinstance(value, dict):
        if not value:
            return "{}"
        parts = (_ENCODE(str(k)) + ": " + _dumps(v, level + 1) for k, v in value.items())
        return "{" + inner + ("," + inner).join(parts) + "\n" + " " * level + "}"
    if isinstance(value, list | tuple):
        if not value:
            return "[]"
        return "[" + inner + ("," + inner).join(_dumps(v, level + 1) for v in value) + "\n" + " " * level + "]"
    return json.dumps(value, ensure_ascii=False)  # floats: what json.dumps writes
