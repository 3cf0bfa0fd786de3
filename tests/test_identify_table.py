"""The signature table (loader/identify/data/signatures.yaml) as data: every entry loads, names a
normalised SPDX licence and its source, and every pattern is one that yara-x and Python's ``re``
both compile, that cannot match an empty string and that gives yara-x a literal to search for."""

from __future__ import annotations

import io
import re
from re import _parser  # type: ignore[attr-defined]  # the parser re itself uses

import pytest
import yara_x
from linkgraph.loader.identify.matcher import _yara_regex, match_file
from linkgraph.loader.identify.project_table import Role, families, family_patterns
from linkgraph.loader.identify.table import components
from linkgraph.loader.licences.spdx import normalise

MIN_LITERAL = 4  # bytes of one literal run: yara-x's atoms come from literals


def _patterns() -> list[tuple[str, str]]:
    """Every pattern yara-x matches: the signature table's and the project families' (their version
    tokens, read with ``re`` alone in the few files a family's key matched, are not)."""
    signatures = [(c.name, p.regex) for c in components() for p in (*c.strings, *c.statements)]
    every = families()
    return signatures + [(every[p.family].name, p.regex) for p in family_patterns() if p.role is not Role.VERSION_TOKEN]


def _literal_run(regex: str) -> int:
    """The longest run of literal characters at the top level of ``regex`` or inside its groups."""
    best = 0

    def walk(items: object) -> None:
        nonlocal best
        run = 0
        for op, arg in items:  # type: ignore[attr-defined]
            if op is _parser.LITERAL:
                run += 1
                best = max(best, run)
                continue
            run = 0
            if op is _parser.SUBPATTERN or (op in (_parser.MAX_REPEAT, _parser.MIN_REPEAT) and arg[0] >= 1):
                walk(arg[-1])

    walk(_parser.parse(regex))
    return best


def test_every_entry_loads_with_a_source() -> None:
    table = components()
    assert len(table) > 100
    names = [c.name for c in table]
    assert len(names) == len(set(names)), "component names repeat"
    for comp in table:
        assert comp.source.strip(), f"{comp.name}: no source"
        assert comp.strings or comp.statements or comp.symbols or comp.files, f"{comp.name}: nothing identifies it"
        assert comp.purl is None or comp.purl.startswith("pkg:"), comp.name
        assert comp.cpe is None or comp.cpe.startswith("cpe:2.3:"), comp.name
        if comp.symbols:
            assert 1 <= comp.symbols_min <= len(comp.symbols), comp.name


def test_every_licence_is_normalised_spdx() -> None:
    for comp in components():
        stated = [comp.licence, *(r.licence for r in comp.by_version), *(s.licence for s in comp.statements)]
        for licence in stated:
            if licence is not None:
                assert normalise(licence).expression == licence, f"{comp.name}: {licence!r}"
        assert comp.licence is not None or comp.by_version, f"{comp.name}: no licence and no version rule"


@pytest.mark.parametrize(("name", "regex"), _patterns())
def test_every_pattern_compiles_in_both_engines(name: str, regex: str) -> None:
    compiled = re.compile(regex.encode("latin-1"))
    assert compiled.groups <= 1, f"{name}: {regex!r} has more than the version group"
    yara_x.compile(f"rule r {{ strings: $a = /{_yara_regex(regex)}/ condition: $a }}")
    assert compiled.search(b"") is None, f"{name}: {regex!r} matches an empty string"
    assert _literal_run(regex) >= MIN_LITERAL, f"{name}: {regex!r} has no literal of {MIN_LITERAL} bytes"


def test_yara_and_re_find_the_same_version() -> None:
    """The version group read by ``re`` from the bytes yara-x reports: one sample per pattern with
    a version group, built from the pattern's own literal text, must give the same version."""
    samples = {
        r"Openswan (\d+\.\d+\.\d+)\x00": (b"xx\x00Openswan 2.6.39\x00", "2.6.39"),
        r"dnsmasq-(\d+\.\d+[\w.]*)": (b"\x00dnsmasq-2.45\x00", "2.45"),
        # a build's suffix after the version (two wscd daemons carry OpenSSL 0.9.8b-fips)
        r"OpenSSL (\d+\.\d+\.\d+[a-z]{0,2})(?:-(?:fips|dev|beta\d{0,2}|alpha\d{0,2}|pre\d{0,2}))?[ -]+\d{1,2} "
        r"[A-Z][a-z]{2} \d{4}": (b"\x00OpenSSL 0.9.8b-fips 04 May 2006\x00", "0.9.8b"),
    }
    table = {p.regex for c in components() for p in c.strings}
    for regex, (data, version) in samples.items():
        assert regex in table, regex
        hits = [h for h in match_file(io.BytesIO(data), len(data)) if h.version]
        assert version in {h.version for h in hits}, (regex, hits)


def test_family_keys_name_their_project() -> None:
    """A project family's key gives the project (group 1) from bytes made of its own literal text,
    read by ``re`` from what yara-x reports; a version string is read only beside a key."""
    data = b"\x00https://www.gnu.org/software/coreutils/\x00bug-coreutils@gnu.org\x009.1\x00"
    hits = match_file(io.BytesIO(data), len(data))
    assert {h.version for h in hits} >= {"coreutils", "9.1"}, hits
    alone = b"\x00plain text\x009.1\x00"
    assert match_file(io.BytesIO(alone), len(alone)) == []


def test_no_file_glob_is_a_bare_wildcard() -> None:
    for comp in components():
        if comp.files is not None:
            assert not comp.files.match("anything-at-all.bin"), f"{comp.name}: its file globs match any name"
