"""`make hub-load N=30`: N real local students use the real one-class hub at once (not in `make test`).

Each student, starting STAGGER seconds after the previous one (a class arriving): logs in through
the hub's login form (which starts their server), opens a lesson notebook, runs the query explorer
in a kernel and moves its first query slider MOVES times through the widget protocol (a
``comm_msg`` update, as JupyterLab sends when a slider moves), then fetches and submits the
released assignment. Printed: spawn time p50/p95, slider round trip p50/p95 (from the update sent
to the kernel idle again, the figure's new PNG sent on the way), memory per student (their cgroup:
server + kernel), failures, the load average and the wall time.

The driver stands for the students' browsers, which run on other machines: it gets a CPU group
of its own weighing as much as the class (:func:`_driver_group`), so that what it measures is the
hub's time, not its own wait for a core on the machine it loads.

``HUB_LOAD_ARMS`` (``make hub-load ARMS=shipped,no_private_tmp``) compares spawner settings side
by side in ONE run, on a machine whose load drifts: students take the arms in turn (student i
the arm i mod k) and each figure is printed per arm. The arms (:data:`ARMS`) switch off one
protection or extension each, for measuring only. Loopback only; every step has a timeout; accounts,
servers and files are removed afterwards (conftest.py's teardown).
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import statistics
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field

import pytest
import requests
from attention_hub.user_cgroup import UserCgroup, find_layout
from conftest import REPO, _one_class_hub, _prepare_machine, _require_root_and_proxy

N = int(os.environ.get("HUB_LOAD_N", "30"))
STAGGER = float(os.environ.get("HUB_LOAD_STAGGER", "2"))  # seconds between two arrivals
MOVES = int(os.environ.get("HUB_LOAD_MOVES", "20"))
ARM_NAMES = [a for a in os.environ.get("HUB_LOAD_ARMS", "shipped").split(",") if a]
#: What each arm changes in a student's spawner (pre_spawn_hook, after the shipped one).
ARMS = {
    "shipped": {},
    "no_private_tmp": {"private_tmp_size": 0},
    "no_pids": {"pids_limit": 0},
    # the course's formgrader extensions loaded by students too (as before issue 24's fix)
    "grader_ext": {
        "extensions": {
            "attention_grader.pages.csp": True,
            "attention_grader.term.formgrader_scores": True,
        }
    },  # fmt: skip
    # jupyter_lsp loaded by students too (it looks for language servers at each start)
    "with_lsp": {"extensions": {"jupyter_lsp": True}},
    # what a student server needs of nbgrader, switched off: a floor for comparison
    "no_nbgrader_ext": {
        "extensions": {
            "attention_grader.term.validate_labels": False,
            "nbgrader.server_extensions.assignment_list": False,
            "nbgrader.server_extensions.validate_assignment": False,
        }
    },
}
LESSON = "01_the_bottleneck.ipynb"
ASSIGNMENT = "intro_attention"
EXPLORER = """\
import json
from attention_lab.explorer.query_explorer import QueryExplorer
explorer = QueryExplorer.isro()
first = explorer.query_sliders[0]
first.value = first.min
print(json.dumps([first.model_id, first.min, first.step]))
"""


@dataclass
class StudentRun:
    """What one simulated student measured (times in seconds, memory in bytes)."""

    name: str
    arm: str = "shipped"
    spawn: float | None = None
    slider: list[float] = field(default_factory=list)
    memory: int | None = None
    error: str = ""


def _msg(msg_type: str, content: dict, channel: str = "shell") -> dict:
    header = {"msg_id": uuid.uuid4().hex, "msg_type": msg_type, "username": "load",
              "session": uuid.uuid4().hex, "version": "5.3"}  # fmt: skip
    return {"header": header, "parent_header": {}, "metadata": {}, "channel": channel,
            "content": content, "buffers": []}  # fmt: skip


async def _until_idle(conn, msg_id: str, timeout: float) -> list[dict]:
    """Messages answering ``msg_id`` until the kernel is idle again."""
    seen, deadline = [], time.monotonic() + timeout
    while True:
        raw = await asyncio.wait_for(conn.read_message(), max(0.1, deadline - time.monotonic()))
        if raw is None:
            raise RuntimeError("kernel websocket closed")
        if isinstance(raw, bytes):  # binary frame (a widget buffer): not needed here
            continue
        msg = json.loads(raw)
        if msg.get("parent_header", {}).get("msg_id") != msg_id:
            continue
        seen.append(msg)
        if msg["msg_type"] == "error":
            raise RuntimeError(f"{msg['content']['ename']}: {msg['content']['evalue']}")
        if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
            return seen


async def _slider(room, name: str, kernel_id: str) -> list[float]:
    """Run the explorer, then move its first slider MOVES times; round trips in seconds."""
    from tornado.httpclient import HTTPRequest
    from tornado.websocket import websocket_connect

    url = room.user_url(name).replace("http", "ws", 1) + f"/api/kernels/{kernel_id}/channels"
    # JupyterLab keeps retrying a kernel's websocket; tornado's own 20 s would count as a failure
    request = HTTPRequest(url, headers={"Authorization": f"token {room.tokens[name]}"},
                          connect_timeout=120, request_timeout=120)  # fmt: skip
    conn = await websocket_connect(request)
    try:
        run = _msg("execute_request", {"code": EXPLORER, "silent": False, "store_history": False,
                                       "user_expressions": {}, "allow_stdin": False,
                                       "stop_on_error": True})  # fmt: skip
        conn.write_message(json.dumps(run))
        replies = await _until_idle(conn, run["header"]["msg_id"], 120)
        out = "".join(m["content"]["text"] for m in replies if m["msg_type"] == "stream")
        comm_id, low, step = json.loads(out.strip().splitlines()[-1])
        times = []
        for i in range(1, MOVES + 1):
            state = {"value": round(low + i * step, 6)}
            move = _msg("comm_msg", {"comm_id": comm_id, "data": {
                "method": "update", "state": state, "buffer_paths": []}})  # fmt: skip
            t0 = time.perf_counter()
            conn.write_message(json.dumps(move))
            answer = await _until_idle(conn, move["header"]["msg_id"], 60)
            times.append(time.perf_counter() - t0)
            if not any(m["msg_type"] == "comm_msg" and m["content"]["comm_id"] != comm_id
                       for m in answer):  # fmt: skip
                raise RuntimeError(f"move {i}: the explorer sent no new figure")
        return times
    finally:
        conn.close()


def _login_and_spawn(room, name: str, timeout: float = 300) -> float:
    """The hub's login form (which starts the server); seconds until the server is ready.

    Readiness is awaited as the spawn-pending page does: on the hub's progress event stream (one
    request), not by polling the hub (30 students polling twice a second cost the hub more than
    all its other work).
    """
    session = requests.Session()
    session.get(f"{room.url}/hub/login", timeout=60)
    form = {"username": name, "password": room.password, "_xsrf": session.cookies.get("_xsrf")}
    t0 = time.monotonic()
    page = session.post(f"{room.url}/hub/login?next=", data=form, timeout=120)
    if page.status_code != 200:
        raise RuntimeError(f"login answered {page.status_code}")
    progress = f"{room.url}/hub/api/users/{name}/server/progress"
    headers = {"Authorization": f"token {room.driver_token}"}
    while time.monotonic() - t0 < timeout:
        with requests.get(progress, headers=headers, stream=True, timeout=(60, timeout)) as events:
            for line in events.iter_lines():
                if not line.startswith(b"data:"):
                    continue  # the hub's keepalive lines
                event = json.loads(line[len(b"data:") :])
                if event.get("ready"):
                    return time.monotonic() - t0
                if event.get("failed"):
                    raise RuntimeError(f"spawn failed: {event.get('message')}")
        if room.hub_api("GET", f"/users/{name}").json()["servers"].get("", {}).get("ready"):
            return time.monotonic() - t0  # ready between the login and the stream
        time.sleep(1)
    raise RuntimeError(f"server not ready after {timeout} s")


def _token(room, name: str) -> None:
    response = room.hub_api("POST", f"/users/{name}/tokens", json={"expires_in": 3600})
    response.raise_for_status()
    room.tokens[name] = response.json()["token"]


def _student(room, name: str, delay: float, lesson: dict, arm: str) -> StudentRun:
    run = StudentRun(name, arm)
    time.sleep(delay)
    try:
        run.spawn = _login_and_spawn(room, name)
        _token(room, name)
        # The lesson: uploaded to the student's home (as a course's first-day set-up would), opened.
        body = {"type": "notebook", "format": "json", "content": lesson}
        room.user_json(name, "PUT", f"/api/contents/{LESSON}", json=body)
        room.user_json(name, "GET", f"/api/contents/{LESSON}", params={"content": 1})
        kernel = room.user_json(name, "POST", "/api/kernels", json={"name": "python3"})
        run.slider = asyncio.run(_slider(room, name, kernel["id"]))
        layout = find_layout()
        if layout is not None:
            group = UserCgroup.of(layout, name)
            usage = "memory.usage_in_bytes" if layout.version == 1 else "memory.current"
            run.memory = int((group.folders[0] / usage).read_text())
        for action in ("fetch", "submit"):
            body = {"course_id": "attention-lab", "assignment_id": ASSIGNMENT}
            result = room.user_json(name, "POST", f"/assignments/{action}", json=body)
            if not result.get("success"):
                raise RuntimeError(f"{action}: {result.get('error', result)}"[:300])
    except Exception as err:  # one student's failure is counted, the class goes on
        run.error = f"{type(err).__name__}: {err}"[:300]
    return run


def _pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, round(q * (len(values) - 1)))]


def report(runs: list[StudentRun], wall: float, loads=()) -> str:
    arms = list(dict.fromkeys(r.arm for r in runs))
    head = _report(runs, wall)
    if loads:
        head += "\n  load average: " + ", ".join(f"{x:.1f}" for x in loads)
    if len(arms) < 2:
        return head
    parts = [head, "  per arm (students take the arms in turn, same period):"]
    for arm in arms:
        text = _report([r for r in runs if r.arm == arm], wall).splitlines()[1:]
        parts += [f"  [{arm}]"] + ["  " + line for line in text]
    return "\n".join(parts)


def _report(runs: list[StudentRun], wall: float) -> str:
    spawns = [r.spawn for r in runs if r.spawn is not None]
    moves = [t * 1e3 for r in runs for t in r.slider]
    mems = [r.memory / 2**20 for r in runs if r.memory]
    lines = [f"hub-load: {len(runs)} students, arrivals {STAGGER:g} s apart, {MOVES} slider "
             f"moves each, wall {wall:.0f} s, {os.cpu_count()} CPUs"]  # fmt: skip
    if spawns:
        lines.append(f"  spawn (login -> server ready): p50 {_pct(spawns, .5):.1f} s, "
                     f"p95 {_pct(spawns, .95):.1f} s, max {max(spawns):.1f} s")  # fmt: skip
    if moves:
        lines.append(f"  slider round trip under load: p50 {_pct(moves, .5):.0f} ms, "
                     f"p95 {_pct(moves, .95):.0f} ms ({len(moves)} moves)")  # fmt: skip
    if mems:
        lines.append(f"  memory per student (server + kernel): mean {statistics.mean(mems):.0f} "
                     f"MB, max {max(mems):.0f} MB, total {sum(mems):.0f} MB")  # fmt: skip
    failed = [r for r in runs if r.error]
    lines.append(f"  failures: {len(failed)}")
    lines += [f"    {r.name}: {r.error}" for r in failed]
    return "\n".join(lines)


def _arm_config(tmp, arms: dict[str, str]) -> str:
    """Hub config lines applying each student's arm (nothing when every arm is "shipped")."""
    unknown = sorted(set(arms.values()) - set(ARMS))
    if unknown:
        raise ValueError(f"HUB_LOAD_ARMS: unknown arm(s) {unknown}; known: {sorted(ARMS)}")
    settings = {}
    for name, arm in arms.items():
        change = dict(ARMS[arm])
        if "extensions" in change:  # a Jupyter config folder put first on the user's path
            folder = tmp / "arms" / arm
            (folder / "jupyter_server_config.d").mkdir(parents=True, exist_ok=True)
            ext = {"ServerApp": {"jpserver_extensions": change.pop("extensions")}}
            (folder / "jupyter_server_config.d" / "arm.json").write_text(json.dumps(ext))
            for path in (tmp / "arms", folder, folder / "jupyter_server_config.d"):
                path.chmod(0o755)
            change["config_first"] = str(folder)
        if change:
            settings[name] = change
    if not settings:
        return ""
    return f"""
import json as _json, os as _os
_ARMS = _json.loads({json.dumps(settings)!r})
_shipped_hook = c.Spawner.pre_spawn_hook
def _arm_hook(spawner):
    _shipped_hook(spawner)
    change = dict(_ARMS.get(spawner.user.name, {{}}))
    first = change.pop("config_first", None)
    if first:
        env = dict(spawner.environment)
        env["JUPYTER_CONFIG_PATH"] = first + _os.pathsep + env["JUPYTER_CONFIG_PATH"]
        spawner.environment = env
    for key, value in change.items():
        setattr(spawner, key, value)
c.Spawner.pre_spawn_hook = _arm_hook
"""


@contextmanager
def _driver_group(students: int):
    """Run this process (the simulated browsers) in a cpu group weighing ``students`` processes."""
    layout = find_layout()
    if layout is None or layout.version != 1:  # v2 (untested here): the driver stays put
        yield
        return
    base = layout.cpu.parent
    group = base / "attention-lab-load-driver"
    group.mkdir(exist_ok=True)
    (group / "cpu.shares").write_text(str(1024 * students))
    (group / "cgroup.procs").write_text(str(os.getpid()))
    try:
        yield
    finally:
        for pid in [os.getpid(), *(group / "cgroup.procs").read_text().split()]:
            (base / "cgroup.procs").write_text(str(pid))  # with anything it started meanwhile
        group.rmdir()


@pytest.mark.timeout(1800)
def test_a_class_uses_the_hub_at_once(request):
    _require_root_and_proxy()
    import nbformat

    tag = secrets.token_hex(3)
    instructor = f"al_ldi_{tag}"
    students = [f"al_ld{i:03d}_{tag}" for i in range(N)]
    lesson = nbformat.read(REPO / "notebooks" / LESSON, as_version=4)
    with ExitStack() as stack:
        tmp = _prepare_machine(stack, [instructor, *students])
        env = {
            "ATTENTION_LAB_INSTRUCTORS": instructor,
            "ATTENTION_LAB_STUDENTS": ",".join(students),
            "ATTENTION_LAB_CULL_IDLE": "0",
        }
        arms = {name: ARM_NAMES[i % len(ARM_NAMES)] for i, name in enumerate(students)}
        extra = _arm_config(tmp, arms)
        room = _one_class_hub(stack, request, tmp, instructor, students, env, extra)
        room.start_servers([instructor])
        for action in ("assign", "release"):
            result = room.user_json(
                instructor, "POST", f"/formgrader/api/assignment/{ASSIGNMENT}/{action}"
            )
            assert result.get("success"), result
        room.hub_api("DELETE", f"/users/{instructor}/server")  # the class's memory is measured
        stack.enter_context(_driver_group(N))  # after the hub started: it is not the browsers
        t0, load0 = time.monotonic(), os.getloadavg()[0]
        with ThreadPoolExecutor(N) as pool:
            runs = list(pool.map(
                lambda i: _student(room, students[i], i * STAGGER, lesson, arms[students[i]]),
                range(N)))  # fmt: skip
        text = report(runs, time.monotonic() - t0, (load0, *os.getloadavg()))
        print("\n" + text)
        (REPO / "build").mkdir(exist_ok=True)
        (REPO / "build" / "hub-load.txt").write_text(text + "\n")
        assert not [r for r in runs if r.error], text
