"""Run the installed ``linkgraph`` as a user would, and measure that process alone: exit code,
output, wall time and peak resident memory.

The peak comes from ``wait4`` in a small launcher process, not in the test process. Linux
carries the high-water mark of the memory a process had *before* ``exec`` into the ``ru_maxrss``
of the program it runs, and a child forked (or vforked) straight from pytest starts out with
pytest's memory: a scan measured that way reads as large as the test run itself. The launcher is
a fresh interpreter of a few MiB, so the figure is the program's own.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass

from conftest import linkgraph_cmd

LAUNCHER = """
import json, os, sys
pid = os.fork()
if pid == 0:
    os.execvp(sys.argv[2], sys.argv[2:])
_pid, status, usage = os.wait4(pid, 0)
with open(sys.argv[1], "w") as out:
    cpu = usage.ru_utime + usage.ru_stime  # the program's and the children it waited for
    json.dump({"rc": os.waitstatus_to_exitcode(status), "max_rss": usage.ru_maxrss * 1024, "cpu": cpu}, out)
"""


@dataclass
class Run:
    rc: int
    stdout: str
    stderr: str
    seconds: float
    max_rss: int  # bytes
    cpu: float = 0.0  # seconds of CPU (user and system): what the wall time is on an idle machine at most


def run_measured(*args: str, timeout: float = 120) -> Run:
    """``linkgraph ARGS`` measured; on timeout the whole process group is killed and the test fails."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("NEO4J_")}
    with tempfile.NamedTemporaryFile("r", suffix=".json") as figures:
        started = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, "-c", LAUNCHER, figures.name, *linkgraph_cmd(), *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**env, "COLUMNS": "200"},
            start_new_session=True,
        )
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            raise AssertionError(f"linkgraph {' '.join(args)}: no answer in {timeout} s") from None
        seconds = time.perf_counter() - started
        measured = json.load(figures)
    out_text, err_text = out.decode(errors="replace"), err.decode(errors="replace")
    return Run(measured["rc"], out_text, err_text, seconds, measured["max_rss"], measured["cpu"])
