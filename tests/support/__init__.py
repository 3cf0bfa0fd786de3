"""The tests' shared oracles and helpers; the test modules import from here (and from conftest), never
from each other.  Inside the package the modules import each other relatively.

Oracles (what a real loader says):

* oracle.py: the host's glibc ld.so, its trace list and ``LD_DEBUG=bindings``, compared with a report;
* qemu_oracle.py: a firmware root's own loader (uClibc, musl, glibc) under qemu-user;
* foreign_oracle.py: the glibc loader of a foreign Debian root under qemu-user;
* strace_oracle.py: the device loader's own search, seen through its system calls;
* runtime_oracle.py: what the loader really bound, read from the process's memory through gdb
  (runtime_elf.py, runtime_gdb.py, runtime_linkmap.py, runtime_slots.py, runtime_trace.py,
  runtime_ld_debug.py are its parts);
* findings_judge.py: licence finding (a) per program, from a report's link maps and bindings and the
  root's ELF files (interposition and copy relocations read from the files);
* identify_truth.py: the licence facts of a root with package data, against a scan of a copy
  without it (leave-one-out);
* host_truth.py: the licence of each module of the host root, from the host's dpkg database and
  DEP-5 copyright files (imports nothing from linkgraph); host_measure.py compares a scan with it.

Roots to judge:

* fixture_root.py: small roots built from C sources (tests/fixtures) with gcc, scanned, run;
* article.py: the reference case of LWN's article (busybox, its vendor libraries, the traps);
* musl_roots.py: the musl fixtures built with musl-gcc into roots, and musl's own output;
* hostroot.py: a root of the host's /usr/bin and its closure, cached; the test cache folder;
* host_programs.py: one host program and the libraries it loads, copied into a root;
* debian_roots.py: small real Debian roots of foreign architectures, cached;
* images.py: the two real router images of the shared firmware folder;
* vendor_roots.py: the four stock vendor roots, extracted and checked by their own loaders;
* device_roots.py: a root scanned and judged by its device's loader; derived copies of a root;
* elf_builder.py: hand-built minimal ELF images.

Running things:

* measured.py: the installed ``linkgraph`` run and measured (exit code, time, peak memory);
* neo4j_server.py: a real Neo4j Community server, fetched and started
  (``python tests/support/neo4j_server.py fetch``);
* browser.py: the pytest plugin of the browser tests (``linkgraph serve`` and headless Chromium);
* viewer_client.py: the pytest plugin of the viewer API tests (the article in a LadybugDB, Flask's
  test client on it).
"""
