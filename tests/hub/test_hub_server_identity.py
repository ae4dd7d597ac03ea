"""A student cannot answer in place of a classmate's or the teacher's server: attacks on a real hub.

A one-class hub (tests/hub/conftest.py: the shipped config) with a teacher and three students,
alice, bob and mallory; the servers' port range (``server_ports``) is narrowed to a few ports so
that mallory can hold every free one with a handful of sockets, as she could hold the shipped
range's 10,000 with one process.

mallory, from her own server's kernel, starts a squatter that watches /proc for the victim's
next server process and then binds and answers on every free port of the range before the
victim's server binds the one the spawner chose (the issue's "Critical" finding). The victim's
next start must then never be routed to her process, and no request of the victim's reaches her.
"""

from __future__ import annotations

import os
import pwd
import re
import secrets
import signal
import socket
import time
from contextlib import ExitStack
from pathlib import Path

import pytest
from conftest import _one_class_hub, _prepare_machine, _require_root_and_proxy

pytestmark = pytest.mark.slow

SERVERS = 4  # the teacher, alice, bob, mallory
FREE = 3  # ports of the range left free once the four servers run

# mallory's squatter: argv = victim uid, first port, last port, ready file, request log
SQUATTER = r"""
import os, socket, sys, threading, time
victim, first, last, ready, log = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]

def victims():
    found = set()
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                if os.stat("/proc/" + pid).st_uid == victim:
                    found.add(pid)
            except OSError:
                pass
    return found

before = victims()
open(ready, "w").close()
while not victims() - before:
    time.sleep(0.002)
held = []
for port in range(first, last + 1):
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(("127.0.0.1", port))
        sock.listen(64)
        held.append(sock)
    except OSError:
        sock.close()
with open(log, "a") as out:
    out.write("HELD " + " ".join(str(s.getsockname()[1]) for s in held) + "\n")

def answer(sock):
    while True:
        conn, _ = sock.accept()
        conn.settimeout(5)
        data = b""
        try:
            while b"\r\n\r\n" not in data:
                chunk = conn.recv(65536)
                if not chunk:
                    break
                data += chunk
        except OSError:
            pass
        with open(log, "a") as out:
            out.write("REQUEST " + data.decode("latin-1").replace("\r\n", " | ") + "\n")
        body = b"mallory answers"
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: "
                     + str(len(body)).encode() + b"\r\n\r\n" + body)
        conn.close()

for sock in held:
    threading.Thread(target=answer, args=(sock,), daemon=True).start()
while True:
    time.sleep(3600)
"""


def _free_range(size: int) -> tuple[int, int]:
    """A run of ``size`` ports in the servers' default range on which nothing listens now."""
    while True:
        first = 20000 + secrets.randbelow(9990 - size)
        ports = range(first, first + size)
        socks = []
        try:
            for port in ports:
                sock = socket.socket()
                socks.append(sock)
                sock.bind(("", port))
            return first, first + size - 1
        except OSError:
            continue
        finally:
            for sock in socks:
                sock.close()


@pytest.fixture(scope="module")
def hub(request):
    """A running hub: a teacher, alice, bob and mallory, servers on a narrow port range."""
    _require_root_and_proxy()
    tag = secrets.token_hex(3)
    teacher = f"al_instr_{tag}"
    students = (f"al_alice_{tag}", f"al_bob_{tag}", f"al_mallory_{tag}")
    first, last = _free_range(SERVERS + FREE)
    with ExitStack() as stack:
        tmp = _prepare_machine(stack, [teacher, *students])
        env = {
            "ATTENTION_LAB_INSTRUCTORS": teacher,
            "ATTENTION_LAB_STUDENTS": ",".join(students),
            "ATTENTION_LAB_DISK_SIZE": "0",  # not what is tested here: spawns are quicker
        }
        extra = f'c.LimitedLocalProcessSpawner.server_ports = "{first}-{last}"\n'
        room = _one_class_hub(stack, request, tmp, teacher, students, env, extra)
        room.start_servers([teacher, *students], timeout=600)
        yield room, (first, last)


def _listeners() -> dict[int, tuple[int, int]]:
    """Port -> (uid, socket inode) of every TCP socket listening on IPv4 (root reads all)."""
    found = {}
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if fields[3] == "0A":  # LISTEN
            found[int(fields[1].split(":")[1], 16)] = (int(fields[7]), int(fields[9]))
    return found


def _route_port(room, name: str) -> int | None:
    """The port the proxy sends ``/user/<name>/`` to (None: no route)."""
    routes = room.hub_api("GET", "/proxy").json()
    for spec, route in routes.items():
        if spec.rstrip("/").endswith(f"/user/{name}") and route.get("target"):
            return int(re.search(r":(\d+)$", route["target"].rstrip("/")).group(1))
    return None


def _server_state(room, name: str) -> dict:
    return room.hub_api("GET", f"/users/{name}").json()["servers"].get("", {})


def _stop(room, name: str) -> None:
    response = room.hub_api("DELETE", f"/users/{name}/server")
    assert response.status_code in (202, 204), response.text
    while _server_state(room, name):
        time.sleep(0.5)  # a condition, not a wait for an effect


def _start_and_settle(room, name: str) -> dict:
    """Ask for ``name``'s server; return its state once ready, or {} once the spawn failed."""
    response = room.hub_api("POST", f"/users/{name}/server")
    assert response.status_code in (201, 202, 400, 500), response.text
    while True:
        state = _server_state(room, name)
        if not state or state.get("ready"):
            return state
        time.sleep(0.5)  # a condition, not a wait for an effect


def _squat(room, mallory: str, victim: str, ports: tuple[int, int]) -> tuple[int, Path]:
    """Start mallory's squatter in her server against ``victim``; (its pid, its request log)."""
    home = Path(pwd.getpwnam(mallory).pw_dir)
    tag = secrets.token_hex(3)
    ready, log = home / f"squat-{tag}.ready", home / f"squat-{tag}.log"
    code = (
        "import subprocess, sys\n"
        f"open({str(home / 'squat.py')!r}, 'w').write({SQUATTER!r})\n"
        f"p = subprocess.Popen([sys.executable, {str(home / 'squat.py')!r}, "
        f"'{pwd.getpwnam(victim).pw_uid}', '{ports[0]}', '{ports[1]}', {str(ready)!r}, "
        f"{str(log)!r}], start_new_session=True)\n"
        "print(p.pid)\n"
    )
    pid = int(room.run_in_kernel(mallory, code).strip())
    while not ready.exists():
        time.sleep(0.2)  # a condition, not a wait for an effect
    return pid, log


def _end(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


@pytest.mark.parametrize("victim", ["teacher", "alice"])
def test_a_squatter_never_answers_in_place_of_the_victims_server(hub, victim):
    room, ports = hub
    alice, _, mallory = room.students
    name = room.instructor if victim == "teacher" else alice
    _stop(room, name)
    pid, log = _squat(room, mallory, name, ports)
    try:
        state = _start_and_settle(room, name)
        route = _route_port(room, name)
        held = log.read_text() if log.exists() else ""
        listeners = _listeners()
        owner = listeners.get(route, (None,))[0] if route else None
        # the squatter did hold ports of the range (else the attack did not happen)
        assert re.search(r"^HELD \d", held, re.M), held
        # never routed to a process the victim does not own ...
        assert route is None or owner == pwd.getpwnam(name).pw_uid, (state, route, owner, held)
        # ... and nothing of the victim's ever reached mallory
        assert "REQUEST" not in held, held
        # the spawner saw the port taken (the defence acted, not luck)
        assert f"{name}: another process listened on port" in room.hub_log.read_text()
    finally:
        _end(pid)
    # once she lets go, the victim's server starts as before
    if not _server_state(room, name):
        state = _start_and_settle(room, name)
        assert state.get("ready"), room.log_tail()
    assert _listeners()[_route_port(room, name)][0] == pwd.getpwnam(name).pw_uid
    response = room.hub_api("POST", f"/users/{name}/tokens", json={"expires_in": 600})
    room.tokens[name] = response.json()["token"]
    status = room.user_json(name, "GET", "/api/status")  # JSON: a Jupyter server, not her page
    assert "started" in status, status


def test_a_students_own_jupyter_config_serves_nothing_to_others(hub):
    """Mallory's ~/.jupyter config would serve her page from the hub's address to anyone."""
    import requests

    room, _ = hub
    mallory = room.students[2]
    home = Path(pwd.getpwnam(mallory).pw_dir)
    mark = secrets.token_hex(8)
    evil, config = home / "evil", home / ".jupyter"
    page_text = f"<script>/*{mark}*/</script>"
    config_text = f"c.ServerApp.extra_static_paths = [{str(evil)!r}]\n"
    room.run_in_kernel(mallory, (
        "import os\n"
        f"os.makedirs({str(evil)!r}, exist_ok=True)\n"
        f"open({str(evil / 'evil.html')!r}, 'w').write({page_text!r})\n"
        f"os.makedirs({str(config)!r}, exist_ok=True)\n"
        f"open({str(config / 'jupyter_server_config.py')!r}, 'w').write({config_text!r})\n"
    ))  # fmt: skip
    _stop(room, mallory)
    state = _start_and_settle(room, mallory)
    assert state.get("ready"), room.log_tail()
    page = requests.get(f"{room.url}/user/{mallory}/static/evil.html", timeout=60)
    assert mark not in page.text, (page.status_code, page.text[:200])
