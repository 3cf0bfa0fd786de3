#!/usr/bin/env bash
# Install what linkgraph needs on a Debian machine (run as root or with sudo available):
# Debian tools, then a virtual environment .venv with linkgraph in it.
#   bash scripts/setup.sh          # the tool
#   bash scripts/setup.sh --test   # the tool and everything the test suite needs
set -euo pipefail
cd "$(dirname "$0")/.."

want_tests=0
[[ "${1:-}" == "--test" ]] && want_tests=1

as_root() { if [[ $(id -u) -eq 0 ]]; then "$@"; else sudo "$@"; fi; }

# graphviz draws the diagrams (with a font for its labels); WeasyPrint lays out the PDF compliance
# report with Pango (graphviz pulls Pango in already; named here so that the report never lacks it)
debs=(binutils python3-venv graphviz fonts-dejavu-core libpango-1.0-0 libpangoft2-1.0-0)
# the unpackers firmware images need (one package a line; see the comments in the file)
while read -r pkg; do
    [[ -n "$pkg" && "$pkg" != \#* ]] && debs+=("$pkg")
done < scripts/debian-packages.txt
if [[ $want_tests -eq 1 ]]; then
    # compilers for the fixtures, musl for its loader, Java and Maven for the Neo4j test server,
    # docker-compose to check docker-compose.yml, qemu-user to run foreign devices' own loaders,
    # Chromium for the viewer's browser tests, poppler-utils to look at rendered PDF pages;
    # kmod's depmod and make judge the kernel-module graph (Debian's kbuild builds a test module);
    # zlib1g-dev for a program that loads zlib (the static ones build zlib from its Debian source);
    # binutils-mips-linux-gnu assembles MIPS fixtures run under the firmware images' own loaders
    debs+=(gcc libc6-dev musl-tools openjdk-17-jre-headless maven docker-compose qemu-user qemu-user-static
           chromium poppler-utils gdb-multiarch kmod make zlib1g-dev
           binutils-mips-linux-gnu)
fi
missing=()
for pkg in "${debs[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [[ ${#missing[@]} -gt 0 ]]; then
    echo "setup: installing Debian packages: ${missing[*]}"
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if [[ ! -x .venv/bin/python ]]; then
    python3 -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip
if [[ $want_tests -eq 1 ]]; then
    .venv/bin/python -m pip install -q -e ".[test]"
    echo "setup: fetching Neo4j Community for the tests (cached after the first run)"
    .venv/bin/python tests/support/neo4j_server.py fetch >/dev/null
    echo "setup: fetching zlib's Debian source for the static-program tests (cached after the first run)"
    .venv/bin/python tests/support/static_fixtures.py fetch >/dev/null
    # cve-bin-tool (PyPI) and syft (Go module) judge the identification: each in its own folder of
    # the test cache, never imported by linkgraph; syft is built by the machine's Go toolchain (1.24 or
    # later, on PATH or in /usr/local/go)
    echo "setup: installing the identification's judges, cve-bin-tool and syft (cached after the first run)"
    PATH="$PATH:/usr/local/go/bin" python3 tests/support/judges.py install >/dev/null
else
    .venv/bin/python -m pip install -q .
fi
echo "setup: linkgraph $(.venv/bin/linkgraph --version | awk '{print $NF}') is ready in .venv/bin/linkgraph"
