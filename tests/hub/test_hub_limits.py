"""The one-machine hub under load: a roster file, per-user memory and CPU limits, the idle culler.

Real hub, real local accounts (``limited_class`` in conftest.py): the roster makes the accounts,
the hub's groups and the gradebook's students; each server runs in its own cgroup
(autograder/attention_hub/user_cgroup.py); a kernel over its memory dies alone; an idle server is culled.
The tests run in file order: the culler test is last (by then the students may be culled too).
"""

from __future__ import annotations

import json
import os
import pwd
import re
import sqlite3
import time
from pathlib import Path

import install
import pytest
from attention_hub.roster import read_roster
from attention_hub.server_port import DEFAULT_RANGE, PortRange
from attention_hub.user_cgroup import HUB_GROUP, UserCgroup, _descendants, find_layout
from conftest import LIMITS

pytestmark = pytest.mark.timeout(300)


def server_pid(room, name: str) -> int:
    """The pid of ``name``'s single-user server (the spawner's state, read as hub admin)."""
    user = room.hub_api("GET", f"/users/{name}").json()
    return user["servers"][""]["state"]["pid"]


def group_of(name: str) -> tuple[UserCgroup, int]:
    layout = find_layout()
    assert layout is not None, "no writable cgroup on this machine: the limits cannot be tested"
    return UserCgroup.of(layout, name), layout.version


def read(group: UserCgroup, filename: str) -> str:
    for folder in group.folders:
        if (folder / filename).exists():
            return (folder / filename).read_text()
    raise FileNotFoundError(filename)


def oom_kills(group: UserCgroup, version: int) -> int:
    text = read(group, "memory.oom_control" if version == 1 else "memory.events")
    fields = dict(line.split() for line in text.splitlines())
    return int(fields.get("oom_kill", 0))


def test_the_roster_makes_accounts_hub_groups_and_gradebook_students(limited_class):
    room, roster_file = limited_class
    roster = read_roster(roster_file)
    for name in roster.students + roster.instructors:
        home = pwd.getpwnam(name).pw_dir
        assert os.stat(home).st_mode & 0o777 == 0o700  # private homes
    groups = {g: room.hub_api("GET", f"/groups/{g}").json()["users"] for g in
              ("nbgrader-attention-lab", "formgrade-attention-lab")}  # fmt: skip
    assert sorted(groups["nbgrader-attention-lab"]) == sorted(room.students)
    assert groups["formgrade-attention-lab"] == [room.instructor]

    install.import_students(roster, room.instructor, str(room.course_dir))
    book = room.course_dir / "gradebook.db"
    assert book.stat().st_uid == pwd.getpwnam(room.instructor).pw_uid  # still the teacher's
    with sqlite3.connect(f"file:{book}?mode=ro", uri=True) as db:
        rows = db.execute("SELECT id, first_name, last_name, email FROM student ORDER BY id")
        got = rows.fetchall()
    assert got == sorted(
        [
            (room.students[0], "Grace", "Hopper", "grace@example.org"),
            (room.students[1], "Alan", "Turing", None),
        ]
    )  # fmt: skip — the instructor is not a student


def test_each_server_runs_in_its_own_group_with_the_limits(limited_class):
    room, _ = limited_class
    for name in room.students:
        group, version = group_of(name)
        assert server_pid(room, name) in group.pids()
        if version == 1:
            assert int(read(group, "memory.limit_in_bytes")) == LIMITS["mem_bytes"]
            assert int(read(group, "cpu.cfs_quota_us")) == LIMITS["cpus"] * 100_000
        else:
            assert int(read(group, "memory.max")) == LIMITS["mem_bytes"]
            assert read(group, "cpu.max").split()[0] == str(int(LIMITS["cpus"] * 100_000))
    # The class weighs one process per user against the rest of the machine, not one in all
    # (which starved every student's server as soon as anything else ran).
    layout = find_layout()
    users = [p for p in layout.cpu.iterdir() if p.is_dir() and (p / "cgroup.procs").read_text()]
    assert len(users) >= 3, users
    if layout.version == 1:
        assert int((layout.cpu / "cpu.shares").read_text()) == 1024 * len(users)
    else:
        assert int((layout.cpu / "cpu.weight").read_text()) == min(10000, 100 * len(users))
    # The instructor grades in their server: the staff limits (2G by default), not the students'.
    staff, version = group_of(room.instructor)
    limit = read(staff, "memory.limit_in_bytes" if version == 1 else "memory.max")
    assert int(limit) == 2 * 1024**3


def test_the_hub_and_its_proxy_weigh_as_much_as_the_class(limited_class):
    """Every request goes through them: beside a class of N processes' weight they must not
    weigh one (30 students starting at once left the hub ~1/30 of the CPU).
    """
    room, _ = limited_class
    layout = find_layout()
    hub_pid = int((room.hub_log.parent / "jupyterhub.pid").read_text())
    group = layout.cpu.parent / HUB_GROUP
    sheltered = {int(p) for p in (group / "cgroup.procs").read_text().split()}
    assert hub_pid in sheltered
    proxy = [pid for pid in _descendants(hub_pid)
             if b"configurable-http-proxy" in Path(f"/proc/{pid}/cmdline").read_bytes()]  # fmt: skip
    assert proxy and set(proxy) <= sheltered, (proxy, sheltered)
    for name in [room.instructor, *room.students]:  # the servers stay in their users' groups
        pid = server_pid(room, name)
        assert pid not in sheltered and pid in group_of(name)[0].pids()
    weight = "cpu.shares" if layout.version == 1 else "cpu.weight"
    assert (group / weight).read_text() == (layout.cpu / weight).read_text()


def test_each_server_listens_on_a_port_no_kernel_takes_its_ports_from(limited_class):
    room, _ = limited_class
    routes = re.findall(r"Adding user (\S+) to proxy \S+ => http://127\.0\.0\.1:(\d+)",
                        room.hub_log.read_text())  # fmt: skip
    ports = {name: int(port) for name, port in routes}
    servers = PortRange.parse(DEFAULT_RANGE)
    for name in [room.instructor, *room.students]:
        assert servers.first <= ports[name] <= servers.last, (name, ports.get(name))
    assert len({ports[n] for n in [room.instructor, *room.students]}) == 3


def test_a_kernel_over_its_memory_limit_dies_alone(limited_class):
    room, _ = limited_class
    greedy, bystander = room.students
    kernels = {n: room.user_json(n, "POST", "/api/kernels", json={"name": "python3"})["id"]
               for n in (greedy, bystander)}  # fmt: skip
    try:
        probe = "import os; x = 41; print(os.getpid())"
        out, errors = room.execute(bystander, kernels[bystander], probe)
        assert not errors, errors
        bystander_pid = int(out)
        greedy_group, version = group_of(greedy)
        before = oom_kills(greedy_group, version)

        # Twice the limit, written to so that the pages are really used.
        hog = f"b = bytearray({2 * LIMITS['mem_bytes']})\nb[::4096] = b'x' * len(b[::4096])"
        t0 = time.monotonic()
        out, errors = room.execute(greedy, kernels[greedy], hog, timeout=120)
        died_after = time.monotonic() - t0
        assert errors and errors[0].startswith("KernelDied"), (out, errors)
        assert oom_kills(greedy_group, version) > before  # the cgroup's OOM killer did it

        # Alone: the student's own server still answers and its kernel restarts and runs;
        # the other student's kernel is the same process, with its state.
        assert room.user_api(greedy, "GET", "/api/status").status_code == 200
        # The restarted kernel runs code once it is up (minutes on a loaded machine).
        out, errors = room.execute_when_up(greedy, kernels[greedy], "print(6 * 7)", timeout=300)
        assert (out.strip(), errors) == ("42", [])
        code = "print(os.getpid(), x + 1)"
        out, errors = room.execute(bystander, kernels[bystander], code, timeout=300)
        assert (out.split(), errors) == ([str(bystander_pid), "42"], [])
        assert oom_kills(group_of(bystander)[0], version) == 0
        assert room.hub_api("GET", "/").status_code == 200
        print(f"greedy kernel killed {died_after:.1f} s after it started allocating")
    finally:
        for name, kernel in kernels.items():
            room.user_api(name, "DELETE", f"/api/kernels/{kernel}")


def test_a_busy_kernel_gets_its_cpu_share_and_no_more(limited_class):
    room, _ = limited_class
    name = room.students[1]
    code = (
        "import time, json\n"
        "w0, c0 = time.perf_counter(), time.process_time()\n"
        "while time.perf_counter() - w0 < 3: pass\n"
        "print(json.dumps((time.process_time() - c0) / (time.perf_counter() - w0)))"
    )
    group, version = group_of(name)
    stat = "cpu.stat"
    throttled_before = dict(line.split() for line in read(group, stat).splitlines())
    share = json.loads(room.run_in_kernel(name, code))
    throttled = dict(line.split() for line in read(group, stat).splitlines())
    assert share <= LIMITS["cpus"] + 0.15, f"the kernel used {share:.2f} CPUs"
    assert int(throttled["nr_throttled"]) > int(throttled_before["nr_throttled"])
    print(f"busy loop got {share:.2f} CPUs (limit {LIMITS['cpus']})")


def test_an_idle_server_is_culled_and_its_group_removed(limited_class):
    room, _ = limited_class
    idle = room.instructor  # started by the fixture, never used since
    group, _ = group_of(idle)
    deadline = time.monotonic() + LIMITS["cull_idle"] + 120
    while room.hub_api("GET", f"/users/{idle}").json()["servers"]:
        assert time.monotonic() < deadline, f"{idle}'s server not culled:\n{room.log_tail()}"
        time.sleep(2)
    # Stopped by the culler's request (the hub logs who asked), not by anything else.
    log = room.hub_log.read_text()
    assert re.search(rf"DELETE /hub/api/users/{idle}/server.*idle-culler", log), room.log_tail()
    assert not any(folder.exists() for folder in group.folders)  # the spawner cleaned up
    # Only a server was stopped: the account and its files stay, a new login starts it again.
    assert room.hub_api("GET", f"/users/{idle}").status_code == 200
    assert (room.course_dir / "nbgrader_config.py").exists()
