"""A student cannot answer in place of a classmate's or the teacher's server: attacks on a real hub.

A one-class hub (tests/hub/conftest.py: the shipped config) with a teacher and three students,
alice, bob and mallory; the servers' port range (``server_ports``) is narrowed to 20 ports so
that mallory can hold every free one with a handful of sockets, as she could hold the shipped
range's 10,000 with one process.

mallory attacks from her own server's kernel, as any student can:

* a squatter watches for the victim's next server (a new process in /proc, or the victim's
  control group holding a process) and binds and answers on every free port of the range before
  the victim's server binds the one the spawner chose (the issue's "Critical" finding). The
  victim's start must never be routed to her process, and no request of theirs reaches her;
  run on the shipped hub (its fence lets her bind nothing) and with ``fence_ports`` off (the
  hub listening on the victim's port before the server starts must hold alone);
* she holds every port of the range she can: classmates' and the teacher's spawns succeed;
* her own ``~/.jupyter`` config serves a page from the hub's address (ignored now);
* she lists /proc and the cgroups for others' processes and looks for the hub's log among her
  descriptors, then writes a forged hub line to her server's stdout;
* she replaces her own server on its route (on subdomains, as shipped, and on the admin's opt-in
  to one origin for everyone): reads its memory to run code in it, kills it and answers on its
  port; with the formgrader iframe switch on, a page on her origin acts in the teacher's Chromium.

The hub runs as shipped (a subdomain per user, the iframe switch off), with the iframe switch
on, and with one origin for everyone (``ATTENTION_LAB_ONE_ORIGIN=1``) (``hub``'s parameter);
each attack runs where it applies.
"""

from __future__ import annotations

import json
import os
import pwd
import re
import secrets
import signal
import socket
import threading
import time
from contextlib import ExitStack
from pathlib import Path

import pytest
from attention_hub.user_cgroup import find_layout
from conftest import _one_class_hub, _prepare_machine, _require_root_and_proxy

pytestmark = pytest.mark.slow

SERVERS = 4  # the teacher, alice, bob, mallory
# ports of the range left free once the four servers run: room for the restarts here, as a
# stopped server's port stays unbindable for a minute (connections in TIME_WAIT; pick_port)
FREE = 16

# mallory's squatter: argv = victim uid, first port, last port, ready file, request log, the
# victim's cgroup.procs, a go file. Her triggers: a new process of the victim's in /proc and the
# victim's control group holding a process (both hidden from her by the shipped hub), and the go
# file, which the test (root) makes the instant the victim's group holds a process: the precise
# timing those leaks gave, kept as an oracle so that the race itself stays tested
SQUATTER = r"""
import os, socket, sys, threading, time
victim, first, last, ready, log = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
procs, go = sys.argv[6], sys.argv[7]

def started():
    if os.path.exists(go):
        return True
    try:
        with open(procs) as handle:
            return bool(handle.read().strip())
    except OSError:
        return False

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
while not (victims() - before or started()):
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


# mallory holds every port of the range she can bind, at once: argv = first, last, log
HOLDER = r"""
import socket, sys, time
first, last, log = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
held = []
for port in range(first, last + 1):
    sock = socket.socket()
    try:
        sock.bind(("0.0.0.0", port))
        sock.listen(1)
        held.append(sock)
    except OSError as err:
        sock.close()
with open(log, "w") as out:
    out.write("HELD " + " ".join(str(s.getsockname()[1]) for s in held) + "\n")
while True:
    time.sleep(3600)
"""


# mallory's kernel replaces her own server on her route: argv = her server's pid, its port, log,
# the page. It tries its memory (to run code inside it), kills it, and binds its port to answer
# with her page: on one origin for everyone, her script would run beside the teacher's server
REPLACER = r"""
import os, signal, socket, sys, time
server, port, log, page = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4].encode()
while not os.path.exists(sys.argv[5]):  # until the test has its pid: killing the server first
    time.sleep(0.05)  # would close the websocket that brings the pid back
out = []
try:
    with open("/proc/%d/mem" % server, "rb"):
        out.append("MEM opened")
except OSError as err:  # refused, or not even shown to her
    out.append("MEM refused %d" % err.errno)
try:
    os.kill(server, signal.SIGKILL)
except OSError as err:
    out.append("KILL refused %d" % err.errno)
held, last, deadline = None, 0, time.time() + 30
while held is None and time.time() < deadline:  # until the dead server's socket is gone
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(("127.0.0.1", port))
        sock.listen(16)
        held = sock
    except OSError as err:
        last = err.errno
        sock.close()
        time.sleep(0.1)
out.append("BOUND" if held else "REFUSED %d" % last)
with open(log, "w") as handle:
    handle.write(chr(10).join(out) + chr(10))
while held is not None:
    conn, _ = held.accept()
    conn.recv(65536)
    conn.sendall(b"HTTP/1.1 200 OK" + bytes([13, 10]) + b"Content-Type: text/html"
                 + bytes([13, 10]) + b"Content-Length: " + str(len(page)).encode()
                 + bytes([13, 10, 13, 10]) + page)
    conn.close()
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


@pytest.fixture(scope="module", params=["shipped"])
def hub(request):
    """A running hub: a teacher, alice, bob and mallory, servers on a narrow port range.

    Indirect parameter: ``shipped`` (the shipped default: each server on its own origin,
    ``<user>.localhost``, the formgrader iframe switch off), ``iframe`` (shipped, with the
    iframe switch on), ``one_origin`` (the admin's opt-in to one origin for everyone,
    ``ATTENTION_LAB_ONE_ORIGIN=1``), ``unfenced`` (shipped, with ``fence_ports`` off, as on a
    kernel without Landlock).
    """
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
        if request.param == "iframe":
            env["ATTENTION_LAB_FORMGRADER_IFRAME"] = "1"
        extra = f'c.LimitedLocalProcessSpawner.server_ports = "{first}-{last}"\n'
        if request.param == "unfenced":
            extra += "c.LimitedLocalProcessSpawner.fence_ports = False\n"
        room = _one_class_hub(stack, request, tmp, teacher, students, env, extra,
                              subdomains=request.param != "one_origin")  # fmt: skip
        room.start_servers([teacher, *students], timeout=600)
        yield room, (first, last), request.param


def _listeners() -> dict[int, tuple[int | None, int]]:
    """Port -> (uid of the processes holding it, socket inode) of every listening IPv4 socket.

    The processes' uid, not the socket's: the hub (root) makes each server's socket and hands it
    down. None: no process holds it; -1: processes of several users (root reads all of /proc).
    """
    sockets = {}
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if fields[3] == "0A":  # LISTEN
            sockets[int(fields[9])] = int(fields[1].split(":")[1], 16)
    holders: dict[int, set[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            uid = int((entry / "status").read_text().split("\nUid:")[1].split()[0])
            links = [os.readlink(fd) for fd in (entry / "fd").iterdir()]
        except (OSError, IndexError):
            continue  # ended meanwhile
        for link in links:
            if link.startswith("socket:["):
                inode = int(link[8:-1])
                if inode in sockets:
                    holders.setdefault(inode, set()).add(uid)
    found: dict[int, tuple[int | None, int]] = {}
    for inode, port in sockets.items():
        uids = holders.get(inode, set())
        found[port] = (next(iter(uids)) if len(uids) == 1 else (-1 if uids else None), inode)
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


def _run_as(room, user: str, script: str, args: list[str]) -> int:
    """Start ``script`` from ``user``'s kernel, detached (it outlives the kernel); its pid."""
    home = Path(pwd.getpwnam(user).pw_dir)
    path = home / f"attack-{secrets.token_hex(3)}.py"
    code = (
        "import subprocess, sys\n"
        f"open({str(path)!r}, 'w').write({script!r})\n"
        f"p = subprocess.Popen([sys.executable, {str(path)!r}, *{args!r}], "
        "start_new_session=True)\n"
        "print(p.pid)\n"
    )
    return int(room.run_in_kernel(user, code).strip())


def _squat(room, mallory: str, victim: str, ports: tuple[int, int]) -> tuple[int, Path]:
    """Start mallory's squatter in her server against ``victim``; (its pid, its request log).

    A thread of the test (root) tells her, through a file in her home, the instant the victim's
    control group holds a process (what the world-readable cgroup.procs told her before).
    """
    home = Path(pwd.getpwnam(mallory).pw_dir)
    tag = secrets.token_hex(3)
    ready, log, go = (home / f"squat-{tag}.{kind}" for kind in ("ready", "log", "go"))
    uid = str(pwd.getpwnam(victim).pw_uid)
    layout = find_layout()
    assert layout is not None, "the shipped hub runs each server in a cgroup here"
    procs = layout.cpu / victim / "cgroup.procs"
    args = [uid, str(ports[0]), str(ports[1]), str(ready), str(log), str(procs), str(go)]
    pid = _run_as(room, mallory, SQUATTER, args)
    while not ready.exists():
        time.sleep(0.2)  # a condition, not a wait for an effect

    def oracle() -> None:
        while not go.exists() and os.path.exists(f"/proc/{pid}"):  # until she is ended
            try:
                if procs.read_text().strip():
                    go.touch()
            except OSError:
                pass
            time.sleep(0.002)  # polls a condition: the victim's group holds a process

    threading.Thread(target=oracle, daemon=True).start()
    return pid, log


def _end(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


@pytest.mark.parametrize("hub", ["shipped", "unfenced"], indirect=True)
@pytest.mark.parametrize("victim", ["teacher", "alice"])
def test_a_squatter_never_answers_in_place_of_the_victims_server(hub, victim):
    room, ports, setting = hub
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
        # the squatter saw the victim's process and tried every free port of the range ...
        assert re.search(r"^HELD", held, re.M), held
        if setting == "shipped":  # ... where the fence let her bind none
            assert re.search(r"^HELD *$", held, re.M), held
        else:  # ... and held them
            assert re.search(r"^HELD \d", held, re.M), held
        # never routed to a process the victim does not own ...
        assert route is None or owner == pwd.getpwnam(name).pw_uid, (state, route, owner, held)
        # ... and nothing of the victim's ever reached mallory
        assert "REQUEST" not in held, held
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


@pytest.mark.parametrize("hub", ["one_origin", "iframe"], indirect=True)
def test_a_students_own_jupyter_config_serves_nothing_to_others(hub):
    """Mallory's ~/.jupyter config would serve her page from the hub's address to anyone."""
    import requests

    room, _, _ = hub
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
    page = requests.get(f"{room.user_url(mallory)}/static/evil.html", timeout=60)
    assert mark not in page.text, (page.status_code, page.text[:200])


@pytest.mark.parametrize("victim", ["teacher", "alice"])
def test_a_student_holding_every_port_she_can_stops_no_ones_spawn(hub, victim):
    room, ports, _ = hub
    alice, _, mallory = room.students
    name = room.instructor if victim == "teacher" else alice
    log = Path(pwd.getpwnam(mallory).pw_dir) / f"hold-{secrets.token_hex(3)}.log"
    _stop(room, name)  # its port is free: she may try it too
    pid = _run_as(room, mallory, HOLDER, [str(ports[0]), str(ports[1]), str(log)])
    try:
        while not log.exists():
            time.sleep(0.2)  # a condition, not a wait for an effect
        own = _route_port(room, mallory)
        held = [int(p) for p in log.read_text().split()[1:]]
        state = _start_and_settle(room, name)
        assert state.get("ready"), (held, room.log_tail())
        assert set(held) <= {own}, (held, own)  # nothing of the range but her own server's
        assert _listeners()[_route_port(room, name)][0] == pwd.getpwnam(name).pw_uid
    finally:
        _end(pid)


def test_a_student_sees_no_one_elses_processes(hub):
    """/proc and the cgroups show her nothing of others': what made the hijack precise."""
    room, _, _ = hub
    mallory = room.students[2]
    others = sorted(
        pwd.getpwnam(n).pw_uid for n in (room.instructor, *room.students[:2])
    )  # fmt: skip
    seen = room.run_in_kernel(mallory, (
        "import os\n"
        "uids = set()\n"
        "for pid in os.listdir('/proc'):\n"
        "    if pid.isdigit():\n"
        "        try:\n"
        "            uids.add(os.stat('/proc/' + pid).st_uid)\n"
        "        except OSError:\n"
        "            pass\n"
        f"print(sorted(uids & set({others!r})))\n"
    ))  # fmt: skip
    assert seen.strip() == "[]", seen
    # the machine's own view is untouched: the hub (root) still sees every server
    assert all(any(u == uid for u, _ in _listeners().values()) for uid in others)
    # nor the users' control groups: whose servers run, and since when (their cgroup.procs)
    layout = find_layout()
    assert layout is not None, "the shipped hub runs each server in a cgroup here"
    paths = [
        str(layout.cpu),
        str(layout.memory),
        str(layout.cpu / room.instructor / "cgroup.procs"),
    ]
    tried = json.loads(room.run_in_kernel(mallory, (
        "import json, os\n"
        "out = {}\n"
        f"for path in {paths!r}:\n"
        "    try:\n"
        "        out[path] = os.listdir(path) if os.path.isdir(path) else open(path).read()\n"
        "    except PermissionError:\n"
        "        out[path] = 'refused'\n"
        "print(json.dumps(out))\n"
    )))  # fmt: skip
    assert tried == dict.fromkeys(paths, "refused"), tried


def test_a_kernel_holds_no_descriptor_of_the_hubs_log_and_forges_no_hub_line(hub):
    room, _, _ = hub
    mallory = room.students[2]
    forged = (
        f"[I 2026-12-04 09:00:00.000 JupyterHub log:192] {room.instructor} {secrets.token_hex(4)}"
    )
    # her server is hidden from her (undumpable: /proc shows it as root's); root reads its
    # descriptors, her kernel its own, and writes the line to those that are her server's stdout
    server = int(room.run_in_kernel(mallory, "import os; print(os.getppid())"))
    found = {f"{server}/{fd.name}": os.readlink(fd) for fd in Path(f"/proc/{server}/fd").iterdir()}
    out = found[f"{server}/1"]
    found |= json.loads(room.run_in_kernel(mallory, (
        "import json, os\n"
        "found = {f'{os.getpid()}/{fd}': os.readlink(f'/proc/self/fd/{fd}')\n"
        "         for fd in os.listdir('/proc/self/fd') if os.path.exists(f'/proc/self/fd/{fd}')}\n"
        f"for fd in [k for k, v in found.items() if v == {out!r}]:\n"
        f"    os.write(int(fd.split('/')[1]), {(forged + chr(10)).encode()!r})\n"
        "print(json.dumps(found))\n"
    )))  # fmt: skip
    fds = found
    hub_log = str(room.hub_log)
    assert not [fd for fd, target in fds.items() if target == hub_log], fds
    # her line may reach the hub's log only as her server's output, never as a line of its own
    text = room.hub_log.read_text()
    assert not any(line.startswith(forged) for line in text.splitlines())


@pytest.mark.parametrize("hub", ["iframe"], indirect=True)
def test_a_page_on_her_origin_reads_and_calls_nothing_of_the_teachers_server(hub):
    """Chromium, the teacher logged in: a script on mallory's origin tries his server."""
    from browser.driver import launch_chromium
    from playwright.sync_api import sync_playwright

    room, _, _ = hub
    teacher, mallory = room.instructor, room.students[2]
    assert room.subdomain_host, "this hub puts each server on its own origin"
    with sync_playwright() as pw:
        browser = launch_chromium(pw)
        try:
            page = browser.new_page()
            page.goto(f"{room.subdomain_host}/hub/login")
            page.fill("#username_input", teacher)
            page.fill("#password_input", room.password)
            page.click("#login_submit")
            page.wait_for_url(f"**/user/{teacher}/lab**", timeout=180_000)
            own = page.evaluate(
                """async (u) => {
                    const x = (document.cookie.match(/_xsrf=([^;]+)/) || [])[1] || '';
                    const r = await fetch(u, {credentials: 'include', headers: {'X-XSRFToken': x}});
                    return r.status;
                }""",
                f"{room.user_url(teacher)}/api/contents",
            )
            assert own == 200, own  # his own page calls his server as him
            page.goto(f"{room.user_url(mallory)}/api")  # a page on her server's origin
            # her script opens his Lab (he is logged in), reads its _xsrf cookie and calls his
            # server's API with it: what one origin for everyone allowed
            seen = page.evaluate(
                """async ([lab, api]) => {
                    const out = {cookie: ''};
                    const w = window.open(lab);
                    for (let i = 0; i < 600; i++) {  // until his page is there or closed to her
                        await new Promise((r) => setTimeout(r, 100));
                        try {
                            if (w.location.pathname.includes('/lab')
                                && w.document.readyState === 'complete') {
                                out.cookie = w.document.cookie;
                                break;
                            }
                        } catch (err) { out.error = String(err); break; }
                    }
                    const x = (out.cookie.match(/_xsrf=([^;]+)/) || [])[1] || '';
                    try {
                        const r = await fetch(api, {credentials: 'include',
                                                    headers: {'X-XSRFToken': x}});
                        out.status = r.status;
                    } catch (err) { out.fetch_error = String(err); }
                    return out;
                }""",
                [f"{room.user_url(teacher)}/lab", f"{room.user_url(teacher)}/api/contents"],
            )
        finally:
            browser.close()
    assert "_xsrf" not in seen["cookie"], seen  # his page is closed to her script ...
    assert "fetch_error" in seen and "status" not in seen, seen  # ... and so is his server


@pytest.mark.parametrize("hub", ["shipped", "one_origin"], indirect=True)
def test_her_kernel_cannot_take_her_servers_place_on_the_hubs_origin(hub):
    """She kills her server from her kernel and binds its port: her page at /user/mallory/.

    On one origin for everyone (the admin's opt-in) the teacher's browser would run it beside
    his own server; the proxy sends /user/mallory/ to that port until the hub sees the server
    gone.
    """
    import requests

    room, _, _ = hub
    mallory = room.students[2]
    home = Path(pwd.getpwnam(mallory).pw_dir)
    mark = secrets.token_hex(6)
    log = home / f"replace-{mark}.log"
    page = f"<html><title>x</title><script>document.title = {mark!r};</script></html>"
    port = _route_port(room, mallory)
    server = room.run_in_kernel(mallory, "import os; print(os.getppid())").strip()
    go = home / f"replace-{mark}.go"
    pid = _run_as(room, mallory, REPLACER, [server, str(port), str(log), page, str(go)])
    go.touch()
    try:
        while not log.exists():
            time.sleep(0.2)  # a condition, not a wait for an effect
        result = log.read_text()
        served = requests.get(f"{room.user_url(mallory)}/evil", timeout=60)
        title = _teacher_opens(room, f"{room.user_url(mallory)}/evil")
    finally:
        _end(pid)
    assert "MEM refused" in result, result  # no code of hers inside her server ...
    assert "REFUSED" in result, result  # ... nor her own listener on its port
    assert mark not in served.text, served.text[:200]
    assert title != mark, title  # the teacher's browser ran nothing of hers
    _stop(room, mallory)
    state = _start_and_settle(room, mallory)
    assert state.get("ready"), room.log_tail()


def _teacher_opens(room, url: str) -> str:
    """Log the teacher in with Chromium, open ``url`` (a link of mallory's); the page's title."""
    from browser.driver import launch_chromium
    from playwright.sync_api import sync_playwright

    base = room.subdomain_host or room.url
    with sync_playwright() as pw:
        browser = launch_chromium(pw)
        try:
            page = browser.new_page()
            page.goto(f"{base}/hub/login")
            page.fill("#username_input", room.instructor)
            page.fill("#password_input", room.password)
            page.click("#login_submit")
            page.wait_for_url(f"**/user/{room.instructor}/lab**", timeout=180_000)
            page.goto(url)
            page.wait_for_load_state("load")
            return page.title()
        finally:
            browser.close()
