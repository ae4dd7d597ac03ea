"""A real classroom JupyterHub for tests/hub: local users, the shipped config, a live proxy.

``two_classes`` does the same with ``jupyterhub_config_multi.py`` (a grader account running a
class's formgrader service, two classes, one student in each). The module-scoped ``classroom``
fixture:

1. creates three local accounts (an instructor, two students; random names, private homes);
2. runs ``install.py system --owner <instructor>`` (exchange 1777 with the course's folders
   owned by the instructor, system nbgrader config and the students' Jupyter config, in a
   temporary "/etc/jupyter") and ``install.py instructor`` (course copy);
3. starts ``jupyterhub`` on free localhost ports with ``autograder/jupyterhub/jupyterhub_config.py``
   loaded unchanged, plus only what a test needs on top: ports, a shared-password authenticator
   and an admin API token for the test driver;
4. starts the three servers through the hub API, as their users, and hands out user tokens.

Teardown (also after a failure): the hub's process group ended (the hub stops the users'
servers as it shuts down), any process still owned by a test account ended by pid, the accounts removed with their
homes (``userdel -r``), the temporary tree deleted, folder modes restored.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import pwd
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import install  # autograder/jupyterhub/install.py, the script under test (pytest's pythonpath)
import pytest
import requests

REPO = Path(__file__).resolve().parents[2]
TEST_HUBS = Path("/srv/attention-lab-test-hubs")  # outside every private mount
HUB_DIR = REPO / "autograder" / "jupyterhub"
VENV = Path(sys.prefix)
CHP = REPO / "build" / "node" / "node_modules" / ".bin" / "configurable-http-proxy"
COURSE_ID = "attention-lab"


_real_getaddrinfo = socket.getaddrinfo


def _getaddrinfo(host, *args, **kwargs):
    """Resolve ``<anything>.localhost`` to 127.0.0.1 in this process, as browsers do (RFC 6761).

    The test hubs with subdomains put each user's server on ``<user>.localhost``; glibc here
    resolves only ``localhost`` itself (Chromium resolves every ``*.localhost`` on its own).
    """
    if isinstance(host, str) and host.endswith(".localhost"):
        host = "127.0.0.1"
    return _real_getaddrinfo(host, *args, **kwargs)


socket.getaddrinfo = _getaddrinfo


#: The test hubs' own ports (public, hub, proxy API, services) come from below the servers'
#: range (20000-29999) and the kernels' ephemeral one (32768-): a port the kernel picks (bind to
#: 0) can be taken between our pick and the hub's bind by a kernel grading on the other worker
#: (its ZeroMQ greeting once answered the proxy's API and the hub exited).
HUB_OWN_PORTS = range(10000, 20000)


def free_port() -> int:
    """A TCP port of :data:`HUB_OWN_PORTS` free on 127.0.0.1 right now."""
    first = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    assert first > HUB_OWN_PORTS[-1], f"the ephemeral ports start at {first}: inside the hubs' own"
    for port in secrets.SystemRandom().sample(HUB_OWN_PORTS, 500):
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port in {HUB_OWN_PORTS} after 500 tries")


def pids_of_uid(uid: int) -> list[int]:
    """Processes owned by ``uid`` (read from /proc)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if entry.stat().st_uid == uid:
                    pids.append(int(entry.name))
            except FileNotFoundError:
                continue
    return pids


def create_user(name: str) -> None:
    """A local account with a private (0700) home, as a classroom machine should have."""
    subprocess.run(["useradd", "-m", "-s", "/bin/bash", name], check=True)
    os.chmod(Path("~" + name).expanduser(), 0o700)


def remove_user(name: str) -> None:
    """End the account's processes (by pid), remove its server's control group (a hub stopping
    the server does, but :func:`_stop_hub` ends the servers first) and the account with its home.
    """
    from attention_hub.user_cgroup import UserCgroup, find_layout

    try:
        uid = int(subprocess.run(["id", "-u", name], capture_output=True, text=True).stdout)
    except ValueError:
        return
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid in pids_of_uid(uid):
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        time.sleep(0.3)
    layout = find_layout()
    if layout is not None:
        UserCgroup.of(layout, name).remove()
    subprocess.run(["userdel", "-r", name], capture_output=True, check=False)


def release_disks(tmp: Path, users: list[str]) -> None:
    """Undo the per-user filesystems of a test hub (user_disk.py) before its accounts go.

    The hub leaves them mounted (a teacher's tools and the next server use them): unmount
    everything under ``tmp`` and on the test accounts' homes, then remove the empty mount points
    and the homes kept from before the disk (``userdel -r`` removes only a home its user owns).
    """
    from attention_hub.user_disk import KEPT_HOMES

    homes = {}
    for name in users:
        try:
            homes[name] = Path(pwd.getpwnam(name).pw_dir)
        except KeyError:
            continue
    mounts = [line.split()[1] for line in Path("/proc/self/mounts").read_text().splitlines()]
    ours = [m for m in mounts if m.startswith(f"{tmp}/") or Path(m) in homes.values()]
    for mount_point in sorted(set(ours), key=len, reverse=True):
        subprocess.run(["umount", "-l", mount_point], capture_output=True, check=False)
    for name, home in homes.items():
        if home.is_dir() and home.stat().st_uid == 0 and not os.listdir(home):
            home.rmdir()  # the unmounted mount point; userdel -r then finds no home
        for kept in (home.parent / KEPT_HOMES).glob(f"{name}*"):
            shutil.rmtree(kept, ignore_errors=True)
    for parent in {home.parent / KEPT_HOMES for home in homes.values()}:
        try:
            parent.rmdir()
        except OSError:
            pass


@contextmanager
def traversable(folders: list[str]):
    """Temporarily add o+x to ``folders`` (restoring their exact modes afterwards).

    Here and in CI the venv's base interpreter lives under /root (pyenv), which other users
    cannot enter; a real deployment builds the course env under /opt instead (docs/hub-admins.md).
    """
    saved = {folder: os.stat(folder).st_mode & 0o7777 for folder in folders}
    try:
        for folder, mode in saved.items():
            os.chmod(folder, mode | 0o001)
        yield
    finally:
        for folder, mode in saved.items():
            os.chmod(folder, mode)


@dataclass
class Classroom:
    """Handles on the running hub (see the module docstring)."""

    url: str
    driver_token: str
    instructor: str
    students: tuple[str, str]
    exchange: Path
    course_dir: Path
    config_dir: Path
    hub_log: Path
    password: str = ""
    tokens: dict[str, str] = field(default_factory=dict)
    subdomain_host: str = ""  # "http://localhost:<port>": each server on <user>.localhost
    # (the shipped setting; "" on a hub the admin opted into one origin for everyone)
    course_env: Path = VENV  # ATTENTION_LAB_VENV: every server's jupyterhub-singleuser and kernel

    def user_url(self, name: str) -> str:
        """Where ``name``'s server is: ``<url>/user/<name>``, on its own origin with subdomains."""
        return f"{self._origin(name, 'user')}/user/{name}"

    def service_url(self, service: str) -> str:
        """Where a hub service is: ``<url>/services/<name>``, on its own origin with subdomains."""
        return f"{self._origin(service, 'service')}/services/{service}"

    def _origin(self, name: str, kind: str) -> str:
        if not self.subdomain_host:
            return self.url
        from jupyterhub.utils import subdomain_hook_idna  # JupyterHub's default naming

        scheme, host = self.subdomain_host.split("://")
        hostname, port = host.split(":")
        return f"{scheme}://{subdomain_hook_idna(name, hostname, kind)}:{port}"

    # -- the hub's REST API, as the admin test driver ------------------------------------------
    def hub_api(self, method: str, path: str, **kwargs) -> requests.Response:
        headers = {"Authorization": f"token {self.driver_token}"}
        return requests.request(
            method, f"{self.url}/hub/api{path}", headers=headers, timeout=60, **kwargs
        )

    def start_servers(self, names: list[str], timeout: float = 90) -> None:
        # The hub answers a spawn request only when the server is up or after ~10 s
        # (slow_spawn_timeout): ask for all servers at once so that they start together.
        with ThreadPoolExecutor(len(names)) as pool:
            responses = list(pool.map(lambda n: self.hub_api("POST", f"/users/{n}/server"), names))
        for name, response in zip(names, responses, strict=True):
            assert response.status_code in (201, 202), (name, response.status_code, response.text)
        deadline = time.monotonic() + timeout
        pending = set(names)
        while pending and time.monotonic() < deadline:
            for name in sorted(pending):
                server = self.hub_api("GET", f"/users/{name}").json()["servers"].get("", {})
                if server.get("ready"):
                    pending.discard(name)
            time.sleep(0.5)
        assert not pending, f"servers not ready after {timeout}s: {pending}\n{self.log_tail()}"
        for name in names:
            response = self.hub_api(
                "POST", f"/users/{name}/tokens", json={"expires_in": 1800, "note": "hub test"}
            )
            assert response.status_code in (200, 201), response.text
            self.tokens[name] = response.json()["token"]

    # -- a user's own single-user server, with that user's token --------------------------------
    def user_api(self, name: str, method: str, path: str, **kwargs) -> requests.Response:
        headers = {"Authorization": f"token {self.tokens[name]}"}
        return requests.request(
            method, f"{self.user_url(name)}{path}", headers=headers, timeout=120, **kwargs
        )

    def user_json(self, name: str, method: str, path: str, **kwargs):
        response = self.user_api(name, method, path, **kwargs)
        assert response.status_code in (200, 201), (name, path, response.status_code, response.text)
        return response.json()

    def service_api(self, name: str, service: str, method: str, path: str, **kwargs):
        """A hub service (several classes: a course's formgrader) with ``name``'s token."""
        headers = {"Authorization": f"token {self.tokens[name]}"}
        return requests.request(
            method, f"{self.service_url(service)}{path}", headers=headers, timeout=120, **kwargs
        )

    def run_in_kernel(self, name: str, code: str, timeout: float = 60) -> str:
        """Execute ``code`` in a new kernel of ``name``'s server; return its stdout."""
        kernel = self.user_json(name, "POST", "/api/kernels", json={"name": "python3"})
        try:
            out, errors = self.execute(name, kernel["id"], code, timeout)
        finally:
            self.user_api(name, "DELETE", f"/api/kernels/{kernel['id']}")
        assert not errors, f"code failed in {name}'s kernel: {errors}"
        return out

    def execute(self, name: str, kernel_id: str, code: str, timeout: float = 60):
        """Execute ``code`` in a running kernel; (stdout, errors). A kernel that dies while
        running it gives the error ``KernelDied: restarting`` (or ``dead``).
        """
        return asyncio.run(self._execute(name, kernel_id, code, timeout))

    async def _execute(self, name: str, kernel_id: str, code: str, timeout: float):
        from tornado.httpclient import HTTPRequest
        from tornado.websocket import websocket_connect

        ws_url = self.user_url(name).replace("http", "ws", 1) + f"/api/kernels/{kernel_id}/channels"
        request = HTTPRequest(ws_url, headers={"Authorization": f"token {self.tokens[name]}"})
        conn = await websocket_connect(request)
        msg_id = uuid.uuid4().hex
        conn.write_message(
            json.dumps(
                {
                    "header": {
                        "msg_id": msg_id,
                        "msg_type": "execute_request",
                        "username": name,
                        "session": uuid.uuid4().hex,
                        "version": "5.3",
                    },
                    "parent_header": {},
                    "metadata": {},
                    "channel": "shell",
                    "content": {
                        "code": code,
                        "silent": False,
                        "store_history": False,
                        "user_expressions": {},
                        "allow_stdin": False,
                        "stop_on_error": True,
                    },
                    "buffers": [],
                }
            )
        )
        out, errors = [], []
        deadline = time.monotonic() + timeout
        try:
            while True:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise TimeoutError(f"kernel of {name} did not finish: {''.join(out)}")
                raw = await asyncio.wait_for(conn.read_message(), remaining)
                assert raw is not None, f"kernel websocket of {name} closed"
                msg = json.loads(raw)
                state = (
                    msg["content"].get("execution_state") if msg["msg_type"] == "status" else None
                )
                if state in ("restarting", "dead"):  # the server saw the kernel die
                    errors.append(f"KernelDied: {state}")
                    break
                if msg.get("parent_header", {}).get("msg_id") != msg_id:
                    continue
                kind, content = msg["msg_type"], msg["content"]
                if kind == "stream":
                    out.append(content["text"])
                elif kind == "error":
                    errors.append(f"{content['ename']}: {content['evalue']}")
                elif kind == "status" and content["execution_state"] == "idle":
                    break
        finally:
            conn.close()
        return "".join(out), errors

    def execute_when_up(self, name: str, kernel_id: str, code: str, timeout: float = 300):
        """Execute ``code`` in a kernel that may still be (re)starting; (stdout, errors).

        Tried again (each try waiting up to a minute) until it runs without an error or
        ``timeout`` seconds have passed: a kernel restarted on a loaded machine may take long
        to come back, and its websocket may refuse or stay silent meanwhile. The last try's
        result is returned, so a kernel that never comes back fails the caller's assert.
        """
        from tornado.httpclient import HTTPClientError

        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            try:
                out, errors = self.execute(name, kernel_id, code, timeout=max(1.0, min(60, left)))
            except (TimeoutError, OSError, HTTPClientError) as exc:
                out, errors = "", [f"{type(exc).__name__}: {exc}"]
            if not errors or time.monotonic() >= deadline:
                return out, errors
            time.sleep(1)  # between tries of a condition, not a wait for an effect

    def log_tail(self, lines: int = 60) -> str:
        text = self.hub_log.read_text(errors="replace") if self.hub_log.exists() else ""
        return "\n".join(text.splitlines()[-lines:])


def _write_test_config(
    path: Path,
    *,
    hub_config: Path,
    ports: dict,
    token: str,
    password: str,
    state: Path,
    extra: str = "",
) -> None:
    """The hub config of the test: the shipped one, then only test-specific settings."""
    path.write_text(
        f"""
c = get_config()  # noqa: F821
load_subconfig({str(hub_config)!r})  # noqa: F821
c.JupyterHub.ip = "127.0.0.1"
c.JupyterHub.port = {ports["public"]}
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = {ports["hub"]}
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{ports["proxy_api"]}"
c.ConfigurableHTTPProxy.command = [{str(CHP)!r}]
c.JupyterHub.db_url = "sqlite:///{state}/jupyterhub.sqlite"
c.JupyterHub.cookie_secret_file = "{state}/jupyterhub_cookie_secret"
c.JupyterHub.pid_file = "{state}/jupyterhub.pid"
# A test machine may be far busier than a classroom's: a server importing its extensions took
# over 60 s (the shipped timeout) with the load at 25 on 2 cores. Wait on readiness, longer.
c.Spawner.start_timeout = 600
c.Spawner.http_timeout = 600
c.JupyterHub.authenticator_class = "jupyterhub.authenticators.shared.SharedPasswordAuthenticator"
c.SharedPasswordAuthenticator.user_password = {password!r}
c.JupyterHub.services = list(c.JupyterHub.services) + [
    {{"name": "hub-test-driver", "api_token": {token!r}}}
]
c.JupyterHub.load_roles = list(c.JupyterHub.load_roles) + [
    {{"name": "admin", "services": ["hub-test-driver"]}}
]
"""
        + extra
    )


def _wait_for_hub(url: str, proc: subprocess.Popen, log: Path, timeout: float = 300) -> None:
    # A busy machine: the hub may accept the connection and answer slowly (a read timeout is
    # "not up yet", as a refused connection is); wait on the condition, generously.
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"jupyterhub exited ({proc.returncode}):\n{log.read_text()[-4000:]}")
        try:
            if requests.get(f"{url}/hub/api", timeout=10).status_code == 200:
                return
        except (requests.ConnectionError, requests.Timeout):
            pass
        time.sleep(0.3)
    raise RuntimeError(f"jupyterhub not up after {timeout}s:\n{log.read_text()[-4000:]}")


def _children_uids(pid: int) -> set[int]:
    """The uids, but root's, of the processes whose parent is ``pid`` (read from /proc)."""
    uids = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                status = (entry / "status").read_text()
            except OSError:
                continue  # ended meanwhile
            fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
            if int(fields["PPid"]) == pid and int(fields["Uid"].split()[0]) != 0:
                uids.add(int(fields["Uid"].split()[0]))
    return uids


def _stop_hub(proc: subprocess.Popen) -> None:
    """End the hub and everything it started, at once: the users' servers and kernels, its
    proxy and its services (these in sessions of their own, so not its process group).

    Nothing is tested in a hub's shutdown (the culler's and the API's stops are). Asked to stop
    gracefully (SIGTERM) the hub never finished within 20 s during a whole run, the machine
    busy with the other workers (alone it takes under a second): it was killed then, and its
    proxy and idle culler, not in its process group, ran on with no hub.
    """
    from attention_hub.user_cgroup import _descendants

    for uid in _children_uids(proc.pid):
        for pid in pids_of_uid(uid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
    for pid in [proc.pid, *_descendants(proc.pid)]:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    proc.wait(60)


def _require_root_and_proxy() -> None:
    if os.geteuid() != 0:
        pytest.skip("the hub test creates local users and spawns servers as them: run as root")
    if not CHP.exists():
        pytest.fail(f"{CHP} is missing: run `make hub-deps` (configurable-http-proxy from npm)")


def _prepare_machine(stack: ExitStack, users: list[str], create=create_user) -> Path:
    """Temporary root folder, local accounts, a course env every account can run.

    ``create(name)`` makes each account (None: the caller makes them, e.g. from a roster, once
    this returns); every one is removed when ``stack`` closes.
    """
    # not under /tmp or /var/tmp: each server gets its own (server_namespace.PRIVATE_MOUNTS),
    # which would hide the exchange and the system config from it
    TEST_HUBS.mkdir(exist_ok=True)
    TEST_HUBS.chmod(0o755)
    tmp = Path(tempfile.mkdtemp(prefix="al-hub-", dir=TEST_HUBS))
    stack.callback(shutil.rmtree, tmp, True)
    os.chmod(tmp, 0o755)  # users' servers must reach the exchange and the config below
    for name in users:
        stack.callback(remove_user, name)
        if create:
            create(name)
    stack.callback(release_disks, tmp, users)
    # The course env is every user's kernel: make sure they can run it.
    blocked = install.untraversable_dirs(str(VENV / "bin" / "python"))
    stack.enter_context(traversable(blocked))
    if create:
        ok, message = install.check_venv(str(VENV), user=users[-1])
        assert ok, message
    return tmp


def _start_hub(
    stack: ExitStack,
    request,
    tmp: Path,
    hub_config: Path,
    env: dict,
    extra_config: str = "",
    subdomains: bool = True,
) -> dict:
    """Start jupyterhub with ``hub_config`` (+ test settings, + ``extra_config``, config lines a
    test adds last); stopped when ``stack`` closes. ``subdomains`` (as shipped): each user's
    server on its own origin, ``<user>.localhost`` (``ATTENTION_LAB_SUBDOMAIN_HOST``, as
    docs/hub-admins.md says), the hub at ``localhost``; False: the admin's opt-in to one
    origin for everyone (``ATTENTION_LAB_ONE_ORIGIN=1``), the hub at 127.0.0.1.
    """
    state = tmp / "hub"
    # private, as docs/hub-admins.md says: the config holds the admin token and the password,
    # the database every user's tokens (the hub refuses to start in a folder others can read)
    state.mkdir(mode=0o700)
    state.chmod(0o700)
    ports = {key: free_port() for key in ("public", "hub", "proxy_api")}
    token, password = secrets.token_hex(32), secrets.token_hex(8)
    subdomain_host = f"http://localhost:{ports['public']}" if subdomains else ""
    if subdomains:
        env = {**env, "ATTENTION_LAB_SUBDOMAIN_HOST": subdomain_host}
    else:
        env = {**env, "ATTENTION_LAB_ONE_ORIGIN": "1"}
    test_config = state / "jupyterhub_test_config.py"
    _write_test_config(
        test_config, hub_config=hub_config, ports=ports, token=token, password=password,
        state=state, extra=extra_config,
    )  # fmt: skip
    test_config.chmod(0o600)
    hub_log = state / "jupyterhub.log"
    log_file = stack.enter_context(open(os.open(hub_log, os.O_WRONLY | os.O_CREAT, 0o600), "w"))

    def keep_log() -> None:
        if request.session.testsfailed:
            tail = "\n".join(hub_log.read_text(errors="replace").splitlines()[-120:])
            print(f"--- jupyterhub log (tail) ---\n{tail}")
        if os.environ.get("ATTENTION_LAB_HUB_TEST_LOG"):  # keep the whole log, e.g. in CI
            shutil.copy(hub_log, os.environ["ATTENTION_LAB_HUB_TEST_LOG"])

    stack.callback(keep_log)
    proc = subprocess.Popen(
        [str(VENV / "bin" / "jupyterhub"), "-f", str(test_config)],
        cwd=state,
        env={**os.environ, "ATTENTION_LAB_VENV": str(VENV), **env},
        stdout=log_file,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    stack.callback(_stop_hub, proc)
    # with subdomains the hub's login cookie is for the subdomain host's name: log in there
    url = subdomain_host or f"http://127.0.0.1:{ports['public']}"
    _wait_for_hub(url, proc, hub_log)
    return {"url": url, "driver_token": token, "password": password, "hub_log": hub_log,
            "subdomain_host": subdomain_host}  # fmt: skip


def _one_class_hub(
    stack, request, tmp: Path, instructor: str, students, env: dict, extra_config: str = "",
    subdomains: bool = True,
) -> Classroom:  # fmt: skip
    """Install the exchange, system config and the instructor's course, then start the shipped
    one-class hub with ``env`` on top (who is who: the env's lists or a roster).
    """
    exchange, config_dir = tmp / "exchange", tmp / "etc" / "jupyter"
    install.install_system(str(exchange), str(config_dir), [COURSE_ID], instructor)
    course_dir = Path("~" + instructor).expanduser() / COURSE_ID
    install.install_course(instructor, str(course_dir), str(REPO))
    env = {**env, "ATTENTION_LAB_EXCHANGE": str(exchange),
           "ATTENTION_LAB_CONFIG_ROOT": str(config_dir)}  # fmt: skip
    hub = _start_hub(
        stack, request, tmp, HUB_DIR / "jupyterhub_config.py", env, extra_config, subdomains
    )
    return Classroom(
        **hub,
        instructor=instructor,
        students=tuple(students),
        exchange=exchange,
        course_dir=course_dir,
        config_dir=config_dir,
    )


@pytest.fixture(scope="module")
def classroom(request):
    """A running one-class hub (see the module docstring); torn down even on failure."""
    _require_root_and_proxy()
    tag = secrets.token_hex(3)
    instructor, students = f"al_instr_{tag}", (f"al_stua_{tag}", f"al_stub_{tag}")
    with ExitStack() as stack:
        tmp = _prepare_machine(stack, [instructor, *students])
        env = {
            "ATTENTION_LAB_INSTRUCTORS": instructor,
            "ATTENTION_LAB_STUDENTS": ",".join(students),
            "ATTENTION_LAB_FORMGRADER_IFRAME": "1",
        }
        # the course env at a path under /tmp, as a course cloned into `mktemp -d` has it: each
        # server's own /tmp must still show it (server_namespace.kept_paths)
        env_link = Path(tempfile.mkdtemp(prefix="al-env-", dir="/tmp")) / "venv"
        stack.callback(shutil.rmtree, env_link.parent, True)
        env_link.parent.chmod(0o755)
        env_link.symlink_to(VENV)
        env["ATTENTION_LAB_VENV"] = str(env_link)
        room = _one_class_hub(stack, request, tmp, instructor, students, env)
        room.course_env = env_link
        room.start_servers([instructor, *students])
        yield room


@pytest.fixture(scope="module")
def two_classes(request):
    """A running several-classes hub: class A with its formgrader service run by a grader
    account, class B without; one student in each. Yields (Classroom, facts).
    """
    _require_root_and_proxy()
    tag = secrets.token_hex(3)
    grader, teacher = f"al_grd_{tag}", f"al_tch_{tag}"
    student_a, student_b = f"al_stuc_{tag}", f"al_stud_{tag}"
    course_a, course_b = f"al-a-{tag}", f"al-b-{tag}"
    with ExitStack() as stack:
        # The teacher never starts a server here: a hub account is enough for a token.
        tmp = _prepare_machine(stack, [grader, student_a, student_b])
        exchange, config_dir = tmp / "exchange", tmp / "etc" / "jupyter"
        # class B's instructor has no local account here: root keeps its folders
        owners = [f"{course_a}={grader}", f"{course_b}=root"]
        install.install_system(str(exchange), str(config_dir), [course_a, course_b], owners)
        course_dir = Path("~" + grader).expanduser() / course_a
        install.install_course(grader, str(course_dir), str(REPO), course_id=course_a)
        classes = tmp / "classes.json"
        classes.write_text(
            json.dumps(
                {
                    "exchange": str(exchange),
                    "courses": [
                        {
                            "course_id": course_a,
                            "grader": grader,
                            "service_port": free_port(),
                            "instructors": [teacher],
                            "students": [student_a],
                        },
                        {"course_id": course_b, "instructors": [teacher], "students": [student_b]},
                    ],
                }
            )
        )
        env = {"ATTENTION_LAB_CLASSES": str(classes), "ATTENTION_LAB_CONFIG_ROOT": str(config_dir)}
        hub = _start_hub(stack, request, tmp, HUB_DIR / "jupyterhub_config_multi.py", env)
        room = Classroom(
            **hub,
            instructor=teacher,
            students=(student_a, student_b),
            exchange=exchange,
            course_dir=course_dir,
            config_dir=config_dir,
        )
        room.start_servers([student_a, student_b])
        response = room.hub_api(
            "POST", f"/users/{teacher}/tokens", json={"expires_in": 1800, "note": "hub test"}
        )
        assert response.status_code in (200, 201), response.text
        room.tokens[teacher] = response.json()["token"]
        yield room, {"grader": grader, "course_a": course_a, "course_b": course_b}


# Limits and culling of `limited_class`: small, so that the test sees them act within seconds.
# cull_idle leaves room for the tests before the culler's (students working keep their servers).
LIMITS = {"mem": "400M", "mem_bytes": 400 * 1024**2, "cpus": 0.5, "cull_idle": 90}


@pytest.fixture(scope="module")
def limited_class(request):
    """A one-class hub made from a roster file (accounts created by ``install.py roster``), with
    small per-user limits (LIMITS) and the idle culler on. Yields (Classroom, roster path).
    """
    _require_root_and_proxy()
    from attention_hub.roster import read_roster

    tag = secrets.token_hex(3)
    instructor, students = f"al_lins_{tag}", (f"al_lsta_{tag}", f"al_lstb_{tag}")
    with ExitStack() as stack:
        tmp = _prepare_machine(stack, [instructor, *students], create=None)
        roster_file = tmp / "roster.csv"
        roster_file.write_text(
            "id,role,first_name,last_name,email\n"
            f"{instructor},instructor,Ada,Lovelace,\n"
            f"{students[0]},student,Grace,Hopper,grace@example.org\n"
            f"{students[1]},student,Alan,Turing,\n"
        )
        assert install.create_accounts(read_roster(roster_file)) == [instructor, *students]
        ok, message = install.check_venv(str(VENV), user=students[-1])
        assert ok, message
        env = {
            "ATTENTION_LAB_ROSTER": str(roster_file),
            "ATTENTION_LAB_MEM_LIMIT": LIMITS["mem"],
            "ATTENTION_LAB_CPU_LIMIT": str(LIMITS["cpus"]),
            "ATTENTION_LAB_CULL_IDLE": str(LIMITS["cull_idle"]),
        }
        room = _one_class_hub(stack, request, tmp, instructor, students, env)
        room.start_servers([instructor, *students])
        yield room, roster_file
