"""A real Neo4j Community 5.26 LTS server for the test suite, fetched through Maven.

Neo4j does not publish its ``tar.gz`` distribution to Maven Central (the assembly
module builds it with ``<attach>false</attach>``), but it does publish the
distribution's POM, ``org.neo4j.assembly:neo4j-community-standalone:<version>:pom``,
whose runtime dependencies are exactly the jars of the tarball's ``lib/``.  So
:func:`fetch` writes a tiny Maven project depending on that POM, lets
``mvn dependency:copy-dependencies`` fill ``lib/``, and adds ``bin/neo4j`` and
``bin/neo4j-admin`` wrappers that run the same boot classes as the tarball's
scripts (``org.neo4j.server.startup.Neo4jBoot`` / ``Neo4jAdminBoot``).  The result
lives in a cache outside the repository and is built once.

:class:`Neo4jServer` then runs that installation with a fresh configuration and
data directory per run (``neo4j-admin dbms set-initial-password`` plus
``neo4j console``), listening on 127.0.0.1 only, and stops it again.

Command line::

    python tests/support/neo4j_server.py fetch   # populate the cache, print its path
    python tests/support/neo4j_server.py run     # start a server, print URI/user/password, stop on Ctrl-C/SIGTERM

Environment:

``NEO4J_URI`` (with ``NEO4J_USER``, ``NEO4J_PASSWORD``)
    :func:`server_from_env` returns that server; nothing is started.
``LINKGRAPH_NEO4J_VERSION``
    Neo4j version to fetch (default :data:`NEO4J_VERSION`).
``LINKGRAPH_NEO4J_CACHE``
    Cache directory (default ``${XDG_CACHE_HOME:-~/.cache}/linkgraph``).
``LINKGRAPH_NEO4J_KEEP``
    If set, :meth:`Neo4jServer.stop` keeps the run directory (conf, data, logs).
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import TracebackType

NEO4J_VERSION = "5.26.30"
"""Newest 5.26 LTS patch that the Maven registry served when this was written."""

DIST_GROUP = "org.neo4j.assembly"
DIST_ARTIFACT = "neo4j-community-standalone"
DEPENDENCY_PLUGIN_VERSION = "3.8.1"
MARKER = ".linkgraph-complete.json"

DEFAULT_STARTUP_TIMEOUT = 120.0
DEFAULT_STOP_TIMEOUT = 60.0

# JVM flags of the stock 5.26 neo4j.conf, less -XX:+AlwaysPreTouch (it only slows a small test server's start).
JVM_ADDITIONAL = (
    "-XX:+UseG1GC",
    "-XX:-OmitStackTraceInFastThrow",
    "-XX:+UnlockExperimentalVMOptions",
    "-XX:+TrustFinalNonStaticFields",
    "-XX:+DisableExplicitGC",
    "-Djdk.nio.maxCachedBufferSize=1024",
    "-Dio.netty.tryReflectionSetAccessible=true",
    "-Djdk.tls.ephemeralDHKeySize=2048",
    "-Djdk.tls.rejectClientInitiatedRenegotiation=true",
    "-XX:FlightRecorderOptions=stackdepth=256",
    "-XX:+UnlockDiagnosticVMOptions",
    "-XX:+DebugNonSafepoints",
    "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
    "--enable-native-access=ALL-UNNAMED",
    "-Dlog4j2.disable.jmx=true",
    "-Dlog4j.layout.jsonTemplate.maxStringLength=32768",
)

# Settings for every run; paths, ports and anything in ``extra_conf`` are added on top.
BASE_CONF: dict[str, str] = {
    "server.default_listen_address": "127.0.0.1",
    "server.default_advertised_address": "127.0.0.1",
    "server.https.enabled": "false",
    "server.memory.heap.initial_size": "512m",
    "server.memory.heap.max_size": "2g",
    "server.memory.pagecache.size": "512m",
    "dbms.usage_report.enabled": "false",
    "db.logs.query.enabled": "OFF",
    # Without these the Bolt server waits 5 s + 5 s on shutdown for connections and worker threads.
    "internal.server.bolt.connection_shutdown_wait_time": "1s",
    "internal.server.bolt.thread_pool_shutdown_wait_time": "1s",
}

# Inherited variables that the Neo4j boot loader reads and that must not leak into a test server.
_SCRUBBED_ENV = ("JAVA_OPTS", "HEAP_SIZE", "NEO4J_HOME", "NEO4J_CONF", "NEO4J_DEBUG", "NEO4J_SHUTDOWN_TIMEOUT")


class Neo4jServerError(RuntimeError):
    """The server could not be fetched, started or stopped."""


# --------------------------------------------------------------------------- fetch


def neo4j_version() -> str:
    return os.environ.get("LINKGRAPH_NEO4J_VERSION") or NEO4J_VERSION


def cache_root() -> Path:
    explicit = os.environ.get("LINKGRAPH_NEO4J_CACHE")
    if explicit:
        return Path(explicit).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "linkgraph"


def installed_home(version: str | None = None, root: Path | None = None) -> Path | None:
    """The cached installation of ``version`` if it is complete, else None."""
    version = version or neo4j_version()
    home = (root or cache_root()) / f"neo4j-{version}"
    return home if _is_complete(home, version) else None


def _is_complete(home: Path, version: str) -> bool:
    try:
        marker = json.loads((home / MARKER).read_text())
    except (OSError, ValueError):
        return False
    return (
        isinstance(marker, dict)
        and marker.get("version") == version
        and (home / "lib" / f"neo4j-{version}.jar").is_file()
        and (home / "bin" / "neo4j").is_file()
    )


@contextlib.contextmanager
def _file_lock(path: Path) -> Iterator[None]:
    with open(path, "a+") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _pom(version: str) -> str:
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<!-- Generated by linkgraph tests/support/neo4j_server.py: the jars of the Neo4j Community {version} distribution. -->
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>linkgraph.test</groupId>
  <artifactId>neo4j-community-lib</artifactId>
  <version>{version}</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>{DIST_GROUP}</groupId>
      <artifactId>{DIST_ARTIFACT}</artifactId>
      <version>{version}</version>
      <type>pom</type>
    </dependency>
  </dependencies>
  <build>
    <plugins>
      <plugin>
        <groupId>org.apache.maven.plugins</groupId>
        <artifactId>maven-dependency-plugin</artifactId>
        <version>{DEPENDENCY_PLUGIN_VERSION}</version>
        <configuration>
          <outputDirectory>${{project.basedir}}/lib</outputDirectory>
          <includeScope>runtime</includeScope>
          <excludeTypes>pom</excludeTypes>
          <overWriteReleases>true</overWriteReleases>
        </configuration>
      </plugin>
    </plugins>
  </build>
</project>
"""


_WRAPPER = """#!/bin/sh
# Generated by linkgraph tests/support/neo4j_server.py; same entry point as the distribution's bin/{name}.
NEO4J_HOME="${{NEO4J_HOME:-$(cd "$(dirname "$0")/.." && pwd)}}"
export NEO4J_HOME
if [ -n "$JAVA_HOME" ]; then JAVA="$JAVA_HOME/bin/java"; else JAVA=java; fi
# A small, quick-starting launcher JVM: it only prepares and spawns (or waits for) the real one.
exec "$JAVA" -Xmx128m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -cp "$NEO4J_HOME/lib/*" {main} "$@"
"""


def _tail(path: Path, lines: int) -> str:
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return ""
    return "\n".join(text.splitlines()[-lines:])


def fetch(version: str | None = None, root: Path | None = None, *, quiet: bool = False) -> Path:
    """Make sure the Neo4j installation is in the cache and return its home directory.

    Runs ``mvn`` only when the cache lacks a complete installation; concurrent callers wait on a lock.
    """
    version = version or neo4j_version()
    root = root or cache_root()
    home = root / f"neo4j-{version}"
    if _is_complete(home, version):
        return home
    mvn = shutil.which("mvn")
    if mvn is None:
        raise Neo4jServerError("Maven ('mvn') is not on PATH; it is needed to fetch the Neo4j server jars")
    root.mkdir(parents=True, exist_ok=True)
    with _file_lock(root / f".neo4j-{version}.lock"):
        if _is_complete(home, version):
            return home
        staging = Path(tempfile.mkdtemp(prefix=f".neo4j-{version}.", dir=root))
        try:
            if not quiet:
                print(f"fetching Neo4j Community {version} jars through Maven into {home} ...", file=sys.stderr)
            started = time.monotonic()
            staging.chmod(0o755)
            (staging / "pom.xml").write_text(_pom(version))
            cmd = [mvn, "-B", "-q", "-f", str(staging / "pom.xml"), "dependency:copy-dependencies"]
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
            if proc.returncode != 0:
                output = "\n".join((proc.stdout + proc.stderr).splitlines()[-40:])
                raise Neo4jServerError(  # noqa: TRY301 - the except below removes the staging folder
                    f"could not fetch {DIST_GROUP}:{DIST_ARTIFACT}:{version}:pom and its runtime dependencies "
                    f"({' '.join(cmd)} exited {proc.returncode}):\n{output}"
                )
            lib = staging / "lib"
            jars = sorted(p.name for p in lib.glob("*.jar")) if lib.is_dir() else []
            for needed in (f"neo4j-{version}.jar", f"neo4j-server-{version}.jar", f"neo4j-bootcheck-{version}.jar"):
                if needed not in jars:
                    raise Neo4jServerError(f"Maven resolved no {needed}; got {len(jars)} jars in {lib}")  # noqa: TRY301 - as above
            bin_dir = staging / "bin"
            bin_dir.mkdir()
            for name, main in (
                ("neo4j", "org.neo4j.server.startup.Neo4jBoot"),
                ("neo4j-admin", "org.neo4j.server.startup.Neo4jAdminBoot"),
            ):
                script = bin_dir / name
                script.write_text(_WRAPPER.format(name=name, main=main))
                script.chmod(0o755)
            for sub in ("plugins", "conf"):
                (staging / sub).mkdir()
            marker = {
                "version": version,
                "coordinates": f"{DIST_GROUP}:{DIST_ARTIFACT}:{version}:pom",
                "jars": len(jars),
                "bytes": sum((lib / j).stat().st_size for j in jars),
                "fetch_seconds": round(time.monotonic() - started, 1),
            }
            (staging / MARKER).write_text(json.dumps(marker, indent=2) + "\n")
            if home.exists():  # an incomplete leftover of an interrupted run
                shutil.rmtree(home)
            staging.rename(home)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
    if not quiet:
        print(f"fetched {marker['jars']} jars, {marker['bytes'] / 1e6:.0f} MB", file=sys.stderr)
    return home


# --------------------------------------------------------------------------- server


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def port_open(port: int, host: str = "127.0.0.1") -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(1.0)
        return sock.connect_ex((host, port)) == 0


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class Neo4jServer:
    """A Neo4j Community server in a child process, or an external one (see :func:`server_from_env`).

    Use as a context manager, or call :meth:`start` and :meth:`stop`.
    """

    uri: str
    user: str
    password: str

    def __init__(
        self,
        *,
        version: str | None = None,
        cache_dir: Path | None = None,
        http: bool = False,
        extra_conf: Mapping[str, str] | None = None,
        startup_timeout: float = DEFAULT_STARTUP_TIMEOUT,
        keep_run_dir: bool | None = None,
    ) -> None:
        self.version = version or neo4j_version()
        self.cache_dir = cache_dir
        self.http = http
        self.extra_conf = dict(extra_conf or {})
        self.startup_timeout = startup_timeout
        self.keep_run_dir = bool(os.environ.get("LINKGRAPH_NEO4J_KEEP")) if keep_run_dir is None else keep_run_dir
        self.uri = ""
        self.user = "neo4j"
        self.password = ""
        self.bolt_port: int | None = None
        self.http_port: int | None = None
        self.http_uri: str | None = None
        self.home: Path | None = None
        self.run_dir: Path | None = None
        self.process: subprocess.Popen[bytes] | None = None
        self.external = False
        self._console: Path | None = None
        self._lock = threading.Lock()

    @classmethod
    def connect_to(cls, uri: str, user: str, password: str) -> Neo4jServer:
        """An already running server: :meth:`start` and :meth:`stop` do nothing."""
        server = cls()
        server.external = True
        server.uri, server.user, server.password = uri, user, password
        return server

    # -- context manager

    def __enter__(self) -> Neo4jServer:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    @property
    def auth(self) -> tuple[str, str]:
        return (self.user, self.password)

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process is not None else None

    # -- start

    def start(self) -> None:
        if self.external or self.process is not None:
            return
        self.home = fetch(self.version, self.cache_dir)
        last_error: Neo4jServerError | None = None
        for _attempt in range(3):
            try:
                self._start_once()
            except Neo4jServerError as error:
                last_error = error
                bound = "Address already in use" in str(error)
                self.stop()
                if not bound:
                    raise
            else:
                return
        assert last_error is not None
        raise last_error

    def _start_once(self) -> None:
        assert self.home is not None
        run_dir = Path(tempfile.mkdtemp(prefix="linkgraph-neo4j-"))
        self.run_dir = run_dir
        for sub in ("conf", "data", "logs", "run", "import"):
            (run_dir / sub).mkdir()
        self.bolt_port = free_port()
        self.http_port = free_port() if self.http else None
        while self.http_port == self.bolt_port:
            self.http_port = free_port()
        self.password = "lg" + secrets.token_hex(16)  # never starts with "-" (read as an option)
        self.uri = f"bolt://127.0.0.1:{self.bolt_port}"
        self.http_uri = f"http://127.0.0.1:{self.http_port}" if self.http_port else None
        (run_dir / "conf" / "neo4j.conf").write_text(self._conf(run_dir))

        admin = subprocess.run(
            [str(self.home / "bin" / "neo4j-admin"), "dbms", "set-initial-password", self.password],
            env=self._env(),
            capture_output=True,
            text=True,
            timeout=120,
        )
        if admin.returncode != 0:
            raise Neo4jServerError(
                f"neo4j-admin dbms set-initial-password exited {admin.returncode}:\n{admin.stdout}{admin.stderr}"
            )
        self._launch()

    def _env(self) -> dict[str, str]:
        assert self.home is not None and self.run_dir is not None
        env = {k: v for k, v in os.environ.items() if k not in _SCRUBBED_ENV}
        env["NEO4J_HOME"] = str(self.home)
        env["NEO4J_CONF"] = str(self.run_dir / "conf")
        return env

    def _launch(self) -> None:
        """Start ``neo4j console`` on the run folder as it is (configuration, data, password)."""
        assert self.home is not None and self.run_dir is not None
        self._console = self.run_dir / "console.log"
        with open(self._console, "ab") as out:
            self.process = subprocess.Popen(
                [str(self.home / "bin" / "neo4j"), "console"],
                env=self._env(),
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                cwd=self.run_dir,
                start_new_session=True,  # own process group: Ctrl-C in a terminal reaches us, not the server
            )
        atexit.register(self.stop)
        self._wait_for_bolt()

    def kill(self) -> None:
        """Stop the server as a crash or a power cut would: SIGKILL to its whole process group, no
        shutdown, no checkpoint. The run folder (data, transaction logs) stays for :meth:`restart`."""
        if self.external or self.process is None:
            raise Neo4jServerError("only a server this helper started can be killed")
        process, self.process = self.process, None
        atexit.unregister(self.stop)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=30)
        deadline = time.monotonic() + 10
        while _group_alive(process.pid) and time.monotonic() < deadline:
            time.sleep(0.1)

    def restart(self) -> None:
        """Start the server again on the same data folder, port and password (after :meth:`kill`):
        Neo4j recovers its store from the transaction logs at start."""
        if self.external or self.run_dir is None:
            raise Neo4jServerError("restart needs a server this helper started")
        if self.process is not None:
            raise Neo4jServerError("the server is still running")
        self._launch()

    def _conf(self, run_dir: Path) -> str:
        assert self.home is not None and self.bolt_port is not None
        conf: dict[str, str] = {
            "server.directories.data": str(run_dir / "data"),
            "server.directories.logs": str(run_dir / "logs"),
            "server.directories.run": str(run_dir / "run"),
            "server.directories.import": str(run_dir / "import"),
            "server.directories.plugins": str(self.home / "plugins"),
            **BASE_CONF,
            "server.bolt.enabled": "true",
            "server.bolt.listen_address": f"127.0.0.1:{self.bolt_port}",
            "server.bolt.advertised_address": f"127.0.0.1:{self.bolt_port}",
        }
        if self.http_port:
            conf["server.http.enabled"] = "true"
            conf["server.http.listen_address"] = f"127.0.0.1:{self.http_port}"
            conf["server.http.advertised_address"] = f"127.0.0.1:{self.http_port}"
        else:
            conf["server.http.enabled"] = "false"
        conf.update(self.extra_conf)
        lines = ["# Generated by linkgraph tests/support/neo4j_server.py", *(f"{k}={v}" for k, v in conf.items())]
        lines += [f"server.jvm.additional={flag}" for flag in JVM_ADDITIONAL]
        return "\n".join(lines) + "\n"

    def log_tail(self, lines: int = 60) -> str:
        parts = []
        if self._console is not None:
            parts.append(f"--- {self._console} (last {lines} lines)\n{_tail(self._console, lines)}")
        if self.run_dir is not None:
            debug = self.run_dir / "logs" / "debug.log"
            if debug.exists():
                parts.append(f"--- {debug} (last 30 lines)\n{_tail(debug, 30)}")
        return "\n".join(parts)

    def _wait_for_bolt(self) -> None:
        from neo4j import GraphDatabase
        from neo4j.exceptions import AuthError, DriverError, Neo4jError

        assert self.process is not None
        deadline = time.monotonic() + self.startup_timeout
        last: BaseException | None = None
        while time.monotonic() < deadline:
            code = self.process.poll()
            if code is not None:
                raise Neo4jServerError(f"Neo4j exited with code {code} before Bolt answered\n{self.log_tail()}")
            try:
                # Short timeouts: something else answering on the port must not stall the loop for a minute.
                with GraphDatabase.driver(
                    self.uri, auth=self.auth, connection_timeout=2.0, connection_acquisition_timeout=5.0
                ) as driver:
                    driver.verify_connectivity()
                break
            except AuthError as error:  # the password we set was not taken: no point in waiting
                raise Neo4jServerError(f"Neo4j refused the generated password: {error}\n{self.log_tail()}") from error
            except (DriverError, Neo4jError, OSError) as error:
                last = error
            time.sleep(0.5)
        else:
            raise Neo4jServerError(
                f"Neo4j did not answer on {self.uri} within {self.startup_timeout:.0f} s (last error: {last!r})\n"
                f"{self.log_tail()}"
            )
        # The HTTP server comes up a moment after Bolt.
        while self.http_port is not None and not port_open(self.http_port):
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise Neo4jServerError(f"Neo4j's HTTP server did not open {self.http_uri}\n{self.log_tail()}")
            time.sleep(0.2)

    # -- stop

    def stop(self, timeout: float = DEFAULT_STOP_TIMEOUT) -> None:
        if self.external:
            return
        with self._lock:
            process, self.process = self.process, None
            if process is not None:
                atexit.unregister(self.stop)
                self._terminate(process, timeout)
            run_dir, self.run_dir = self.run_dir, None
            if run_dir is not None and not self.keep_run_dir:
                shutil.rmtree(run_dir, ignore_errors=True)

    @staticmethod
    def _terminate(process: subprocess.Popen[bytes], timeout: float) -> None:
        pgid = process.pid  # start_new_session: the boot loader leads its own group, the server JVM is in it
        if process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                process.send_signal(signal.SIGTERM)  # the boot loader passes the stop on to the server JVM
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if process.poll() is not None and not _group_alive(pgid):
                return
            time.sleep(0.1)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pgid, signal.SIGKILL)
        process.wait(timeout=30)
        deadline = time.monotonic() + 10
        while _group_alive(pgid) and time.monotonic() < deadline:
            time.sleep(0.1)


def server_from_env() -> Neo4jServer | None:
    """The server named by ``NEO4J_URI`` (``NEO4J_USER``, default ``neo4j``; ``NEO4J_PASSWORD``), or None.

    A returned server is external: starting and stopping it does nothing.  With None, start a
    :class:`Neo4jServer` of your own: ``server = server_from_env() or Neo4jServer()``.
    """
    uri = os.environ.get("NEO4J_URI")
    if not uri:
        return None
    return Neo4jServer.connect_to(uri, os.environ.get("NEO4J_USER", "neo4j"), os.environ.get("NEO4J_PASSWORD", ""))


# --------------------------------------------------------------------------- CLI


def _cli_run() -> int:
    stop = threading.Event()

    def on_signal(signum: int, _frame: object) -> None:
        stop.set()

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    server = Neo4jServer()
    started = time.monotonic()
    server.start()
    try:
        print(f"NEO4J_URI={server.uri}")
        print(f"NEO4J_USER={server.user}")
        print(f"NEO4J_PASSWORD={server.password}")
        print(f"# Neo4j {server.version} up in {time.monotonic() - started:.1f} s, pid {server.pid}, ", end="")
        print(f"run dir {server.run_dir}; Ctrl-C or SIGTERM stops it", flush=True)
        while not stop.wait(1.0):
            if server.process is not None and server.process.poll() is not None:
                print(f"Neo4j exited by itself\n{server.log_tail()}", file=sys.stderr)
                return 1
    finally:
        server.stop()
    return 0


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(description="Neo4j Community server for the linkgraph tests")
    parser.add_argument("command", choices=("fetch", "run"))
    args = parser.parse_args(argv)
    try:
        if args.command == "fetch":
            print(fetch())
            return 0
        return _cli_run()
    except Neo4jServerError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
