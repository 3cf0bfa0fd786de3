"""Debian-style control paragraphs: dpkg/opkg ``status`` and ``.control`` files, DEP-5 copyright files.

``Field: value`` lines, continuation lines starting with a blank, paragraphs separated by empty
lines (a line of blanks inside a field continues it: opkg writes those into descriptions). Field
names are case-insensitive (kept in lower case). Lines that fit none of these are counted, not
fatal: the caller reports them.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(slots=True)
class Paragraph:
    """One paragraph: fields by folded name, and the line it starts on."""

    line: int
    fields: dict[str, str] = field(default_factory=dict)

    def get(self, name: str) -> str | None:
        return self.fields.get(name.lower())

    def first_line(self, name: str) -> str | None:
        """The field's first line only (DEP-5's License: short name; the licence text follows)."""
        value = self.fields.get(name.lower())
        return value.split("\n", 1)[0].strip() if value is not None else None


@dataclass(slots=True)
class Parsed:
    paragraphs: list[Paragraph]
    bad_lines: list[int]  # 1-based numbers of lines that are neither fields nor continuations


def parse_paragraphs(text: str) -> Parsed:
    """The paragraphs of ``text``; a field's continuation lines are gathered in a list and joined
    once (appending each to the value so far would copy it every time: quadratic in a field of
    many lines)."""
    paragraphs: list[Paragraph] = []
    bad: list[int] = []
    current: Paragraph | None = None
    last: str | None = None
    lines: dict[str, list[str]] = {}  # the current paragraph's fields, line by line

    def close() -> None:
        if current is not None:
            current.fields.update((name, "\n".join(parts)) for name, parts in lines.items())
            lines.clear()

    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() and (not line or current is None or last is None):
            close()
            current, last = None, None  # an empty line ends a paragraph (opkg continues one with " ")
            continue
        if line.startswith("#") and current is None:
            continue  # comments between paragraphs (deb822 allows them)
        if line[0] in " \t":
            if current is None or last is None:
                bad.append(number)
                continue
            cont = line.strip()
            lines[last].append("" if cont == "." else cont)
            continue
        name, sep, value = line.partition(":")
        if not sep or not name.strip() or " " in name.strip():
            bad.append(number)
            continue
        if current is None:
            current = Paragraph(number)
            paragraphs.append(current)
        last = name.strip().lower()
        lines[last] = [value.strip()]
    close()
    return Parsed(paragraphs, bad)


def bad_lines_message(what: str, bad: list[int]) -> str:
    shown = ", ".join(str(n) for n in bad[:5]) + (", ..." if len(bad) > 5 else "")
    return f"{what}: {len(bad)} malformed line(s) ignored (line {shown}: not 'Field: value')"
