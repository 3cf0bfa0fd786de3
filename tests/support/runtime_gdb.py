"""The gdb side of the runtime oracle (runtime_oracle.py): the script gdb runs and the pipe to it.

:data:`GDB_SCRIPT` runs inside ``gdb-multiarch -batch`` (its own Python, no project imports): it
connects to qemu's gdbstub, sends the initial stack pointer, program counter and stack, then serves
the host's requests (``break``, ``delete``, ``cont``, ``read``, ``str``, ``quit``), one JSON object a
line over two inherited pipes.  :class:`_Pipe` is the host's end, with a deadline; :func:`_stop` and
:func:`_tail` end the processes and read their logs.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import subprocess
import time
from pathlib import Path

GDB = "gdb-multiarch"


# Runs inside gdb-multiarch (its own Python, no project imports): connects to qemu's gdbstub and
# serves the host's requests, one JSON object a line over two inherited pipes.
GDB_SCRIPT = r"""
import gdb, json, os, traceback

cfg = json.loads(os.environ["LG_RUNTIME_ORACLE"])
rd = os.fdopen(cfg["rfd"], "r")
wr = os.fdopen(cfg["wfd"], "w")
state = {"stops": []}
breakpoints = {}


def send(obj):
    wr.write(json.dumps(obj) + "\n")
    wr.flush()


def on_stop(ev):
    state["stops"].append([type(ev).__name__, getattr(ev, "stop_signal", None)])


def on_exit(ev):
    state["exit"] = getattr(ev, "exit_code", None)
    state["exited"] = True
    try:
        sig = gdb.parse_and_eval("$_exitsignal")
        state["signal"] = None if sig.type.code == gdb.TYPE_CODE_VOID else int(sig)
    except Exception:
        state["signal"] = None


def read(inf, addr, size):
    try:
        return bytes(inf.read_memory(addr, size)).hex()
    except gdb.MemoryError:
        return None


def cstr(inf, addr, limit=4096):
    out = b""
    while len(out) < limit:
        chunk = min(256, 4096 - (addr + len(out)) % 4096)
        try:
            data = bytes(inf.read_memory(addr + len(out), chunk))
        except gdb.MemoryError:
            return None
        if b"\0" in data:
            return (out + data[: data.index(b"\0")]).hex()
        out += data
    return out.hex()


def main():
    gdb.events.stop.connect(on_stop)
    gdb.events.exited.connect(on_exit)
    for command in cfg["setup"]:
        gdb.execute(command, to_string=True)
    gdb.execute("target remote " + cfg["socket"], to_string=True)
    inf = gdb.selected_inferior()
    sp = int(gdb.parse_and_eval("$sp")) & cfg["mask"]
    pc = int(gdb.parse_and_eval("$pc")) & cfg["mask"]
    end = (sp // 4096 + 1) * 4096  # the initial stack up to its top, page by page (at most 16 KiB)
    stack = read(inf, sp, end - sp) or ""
    while stack and len(stack) < 32768:
        more = read(inf, end, 4096)
        if more is None:
            break
        stack += more
        end += 4096
    send({"sp": sp, "pc": pc, "stack": stack or None})
    while True:
        line = rd.readline()
        if not line:
            return
        req = json.loads(line)
        op = req["op"]
        if op == "quit":
            return
        if op == "break":
            for addr in req["addrs"]:
                if addr not in breakpoints:
                    breakpoints[addr] = gdb.Breakpoint("*%d" % addr, internal=True)
            send({"ok": len(breakpoints)})
        elif op == "delete":
            for addr in req["addrs"]:
                bp = breakpoints.pop(addr, None)
                if bp is not None:
                    bp.delete()
            send({"ok": len(breakpoints)})
        elif op == "cont":
            state["stops"] = []
            gdb.execute("continue", to_string=True)
            if state.get("exited") or not inf.threads() or inf.pid == 0:
                send({"stop": "exited", "code": state.get("exit"), "signal": state.get("signal"),
                      "stops": state["stops"]})
                return
            pc = int(gdb.parse_and_eval("$pc")) & cfg["mask"]
            send({"stop": "stopped", "pc": pc, "stops": state["stops"]})
        elif op == "read":
            send({"data": [read(inf, a, n) for a, n in req["ranges"]]})
        elif op == "str":
            send({"data": [cstr(inf, a) for a in req["addrs"]]})
        else:
            send({"error": "unknown op " + op})


try:
    main()
except Exception:
    try:
        send({"error": traceback.format_exc()})
    except Exception:
        pass
try:
    gdb.execute("kill", to_string=True)
except Exception:
    pass
"""


class _GdbError(RuntimeError):
    pass


class _Pipe:
    """The host's end of the conversation with the gdb script (with a deadline)."""

    def __init__(self, rfd: int, wfd: int, deadline: float) -> None:
        self.rfd, self.wfd, self.deadline = rfd, wfd, deadline
        self.buf = b""

    def recv(self) -> dict:
        while b"\n" not in self.buf:
            left = self.deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError
            ready, _, _ = select.select([self.rfd], [], [], left)
            if not ready:
                raise TimeoutError
            chunk = os.read(self.rfd, 1 << 16)
            if not chunk:
                raise _GdbError("gdb closed the pipe")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        msg = json.loads(line)
        if "error" in msg:
            raise _GdbError(msg["error"])
        return msg

    def ask(self, request: dict) -> dict:
        data = (json.dumps(request) + "\n").encode()
        while data:
            n = os.write(self.wfd, data)
            data = data[n:]
        return self.recv()


def _tail(path: Path, limit: int = 1500) -> str:
    try:
        text = path.read_bytes().decode(errors="backslashreplace")
    except OSError:
        return ""
    return text[-limit:].strip()


def _stop(proc: subprocess.Popen, grace: float) -> None:
    """Wait ``grace`` seconds for a process we started to end, then kill its process group."""
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=grace)
        return
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=10)
