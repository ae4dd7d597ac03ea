"""A throwaway PostgreSQL cluster for tests: Debian's postgresql (``make postgres-deps``), no TCP.

:func:`throwaway_cluster` runs ``initdb`` and ``pg_ctl start`` in a fresh temporary folder; the
server listens on a Unix socket in that folder only (``listen_addresses=''``: nothing on any
network interface, loopback included) and trusts local connections. ``initdb`` refuses to run as
root, so as root the cluster belongs to the ``postgres`` account Debian's package creates. On exit
(also after a failure) the server is stopped (``pg_ctl stop -m immediate``, then SIGKILL to its
pid if it is still there) and the folder removed.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

PG_BIN_GLOB = "/usr/lib/postgresql/*/bin"
START_TIMEOUT = 60  # seconds pg_ctl waits for the server (a busy 2-core box)


def pg_bin() -> Path:
    """The newest installed server's bin folder; a clear error when postgresql is missing."""
    found = sorted(Path("/").glob(PG_BIN_GLOB.lstrip("/")), key=lambda p: int(p.parent.name))
    if not found or not (found[-1] / "initdb").exists():
        raise RuntimeError(
            "PostgreSQL's server is not installed: run `make postgres-deps` "
            "(Debian: apt-get install postgresql)"
        )
    return found[-1]


@dataclass(frozen=True)
class Cluster:
    """A running throwaway cluster: its socket folder and the account that owns it."""

    socket_dir: Path
    user: str

    def url(self, database: str) -> str:
        """SQLAlchemy URL of ``database`` through the Unix socket (psycopg 3 driver)."""
        return f"postgresql+psycopg://{self.user}@/{database}?host={self.socket_dir}"

    def create_database(self, prefix: str = "gradebook") -> str:
        """A new empty database; returns its URL."""
        import psycopg

        name = f"{prefix}_{uuid.uuid4().hex[:8]}"
        dsn = f"host={self.socket_dir} user={self.user} dbname=postgres"
        with psycopg.connect(dsn, autocommit=True, connect_timeout=10) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)


def _as_owner(owner: pwd.struct_passwd | None):
    """preexec_fn that drops to ``owner`` (None: stay who we are)."""
    if owner is None:
        return None

    def drop() -> None:
        os.setgid(owner.pw_gid)
        os.setgroups([])
        os.setuid(owner.pw_uid)

    return drop


@contextlib.contextmanager
def throwaway_cluster() -> Iterator[Cluster]:
    """Start a private PostgreSQL cluster; stop it and delete its files on exit."""
    bin_dir = pg_bin()
    owner = pwd.getpwnam("postgres") if os.geteuid() == 0 else None
    user = owner.pw_name if owner else pwd.getpwuid(os.geteuid()).pw_name
    # Not under pytest's tmp_path: that is private to root, and the server runs as `postgres`.
    base = Path(tempfile.mkdtemp(prefix="attention-pg-"))
    data, sock = base / "data", base / "socket"
    env = {**os.environ, "LC_ALL": "C.UTF-8", "PGTZ": "UTC", "TZ": "UTC"}
    run = dict(env=env, preexec_fn=_as_owner(owner), capture_output=True, text=True, check=True)
    stopped = False
    try:
        sock.mkdir()
        if owner:
            os.chown(base, owner.pw_uid, owner.pw_gid)
            os.chown(sock, owner.pw_uid, owner.pw_gid)
        try:
            subprocess.run(
                [bin_dir / "initdb", "-D", data, "-U", user, "--auth=trust", "-E", "UTF8",
                 "--no-sync"],
                timeout=120, **run,
            )  # fmt: skip
            options = f"-c listen_addresses='' -k {sock} -c fsync=off -c timezone=UTC"
            subprocess.run(
                [bin_dir / "pg_ctl", "-D", data, "-o", options, "-l", base / "server.log",
                 "-w", "-t", str(START_TIMEOUT), "start"],
                timeout=START_TIMEOUT + 30, **run,
            )  # fmt: skip
        except subprocess.CalledProcessError as err:
            log = base / "server.log"
            tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
            raise RuntimeError(f"{err.cmd[0]} failed:\n{err.stderr}\n{tail}") from err
        yield Cluster(sock, user)
    finally:
        pid_file = data / "postmaster.pid"
        pid = int(pid_file.read_text().split()[0]) if pid_file.exists() else None
        if pid is not None:
            stop = subprocess.run(
                [bin_dir / "pg_ctl", "-D", data, "-m", "immediate", "-w", "-t", "30", "stop"],
                env=env, preexec_fn=_as_owner(owner), capture_output=True, timeout=60,
            )  # fmt: skip
            stopped = stop.returncode == 0
        if pid is not None and not stopped:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)  # pg_ctl could not stop it: the postmaster's pid
        shutil.rmtree(base, ignore_errors=True)
