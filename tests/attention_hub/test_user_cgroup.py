"""The class's cgroup weighs one process per user, the hub as much as the class (user_cgroup.py).

With the kernel's default weight the parent group of all users' groups counted as ONE process
against everything else on the machine: on the shared test machine each student's server got
~2 % of a core and `make hub-load` spawns took 80 s and more. Checked here on plain folders
standing in for cgroupfs; tests/hub/test_hub_limits.py checks the real groups of a real hub.
"""

from __future__ import annotations

import os
import secrets
import subprocess
from pathlib import Path

import pytest
from attention_hub.user_cgroup import (
    HUB_GROUP,
    CgroupLayout,
    UserCgroup,
    _descendants,
    _hub_base,
    find_layout,
    shelter_hub,
    weigh_class,
)

REPO = Path(__file__).resolve().parents[2]


def _class_of(parent: Path, users: int, stale: int = 0) -> None:
    """``users`` groups with a process in them, ``stale`` empty ones (a crashed hub's)."""
    parent.mkdir(exist_ok=True)
    for i in range(users + stale):
        (parent / f"student{i}").mkdir()
        (parent / f"student{i}" / "cgroup.procs").write_text(f"{1000 + i}\n" if i < users else "")


def test_v1_the_class_weighs_one_process_per_user(tmp_path):
    parent = tmp_path / "attention-lab"
    _class_of(parent, 30, stale=5)
    (parent / "cpu.shares").write_text("1024")  # the kernel's default: one process
    weigh_class(CgroupLayout(1, tmp_path / "memory", parent, None))
    assert (parent / "cpu.shares").read_text() == str(30 * 1024)
    # a server about to start counts before its process joins
    weigh_class(CgroupLayout(1, tmp_path / "memory", parent, None), starting=1)
    assert (parent / "cpu.shares").read_text() == str(31 * 1024)


def test_v2_weight_is_capped_at_the_kernels_maximum(tmp_path):
    parent = tmp_path / "attention-lab"
    _class_of(parent, 150)
    weigh_class(CgroupLayout(2, parent, parent, parent))
    assert (parent / "cpu.weight").read_text() == "10000"


def test_an_empty_class_keeps_one_process_weight_and_a_missing_parent_is_no_error(tmp_path):
    parent = tmp_path / "attention-lab"
    _class_of(parent, 0)
    weigh_class(CgroupLayout(1, tmp_path, parent, None))
    assert (parent / "cpu.shares").read_text() == "1024"
    weigh_class(CgroupLayout(1, tmp_path, tmp_path / "gone", None))  # no exception


def test_the_hub_keeps_the_class_weight_as_the_class_grows_and_shrinks(tmp_path):
    parent = tmp_path / "attention-lab"
    _class_of(parent, 30)
    (tmp_path / HUB_GROUP).mkdir()
    layout = CgroupLayout(1, tmp_path / "memory", parent, None)
    weigh_class(layout)
    assert (tmp_path / HUB_GROUP / "cpu.shares").read_text() == str(30 * 1024)
    (tmp_path / "v2" / HUB_GROUP).mkdir(parents=True)
    _class_of(tmp_path / "v2" / "attention-lab", 3)
    v2 = tmp_path / "v2" / "attention-lab"
    weigh_class(CgroupLayout(2, v2, v2, v2))
    assert (tmp_path / "v2" / HUB_GROUP / "cpu.weight").read_text() == "300"


def test_shelter_moves_the_hub_but_not_a_server_that_is_in_its_users_group(tmp_path):
    """Only processes still beside the class move: a student's server stays in their group."""
    import subprocess

    parent = tmp_path / "attention-lab"
    _class_of(parent, 2)
    server = subprocess.Popen(["sleep", "30"])  # a child of this "hub", in a user's group
    try:
        assert server.pid in _descendants(os.getpid())
        (tmp_path / "cgroup.procs").write_text(f"{os.getpid()}\n")  # the server is not beside
        shelter_hub(CgroupLayout(1, tmp_path / "memory", parent, None))
        hub = tmp_path / HUB_GROUP
        assert (hub / "cgroup.procs").read_text() == str(os.getpid())  # one write: the hub
        assert (hub / "cpu.shares").read_text() == str(2 * 1024)
    finally:
        server.kill()
        server.wait()


def test_the_class_stays_beside_the_hub_once_the_hub_moved_into_its_group():
    assert _hub_base("/") == "/"
    assert _hub_base(f"/{HUB_GROUP}") == "/"
    assert _hub_base(f"/system.slice/jh.service/{HUB_GROUP}") == "/system.slice/jh.service"
    assert _hub_base("/system.slice/jh.service") == "/system.slice/jh.service"


@pytest.mark.slow  # root's, a real control group and a child process: never in make test-fast
@pytest.mark.skipif(os.geteuid() != 0, reason="making control groups needs root, as in the hub")
def test_a_stopped_servers_group_is_deleted_even_while_its_last_process_is_dying():
    """``remove`` kills what is left in a user's group, then deletes the group: a killed process
    leaves it only once it has exited, and an immediate delete failed (the group stayed behind
    on the machine, one per stopped server).
    """
    layout = find_layout()
    assert layout is not None, "no writable cgroup on this machine: the hub's limits cannot work"
    group = UserCgroup.create(layout, f"al_gone_{secrets.token_hex(3)}", None, None)
    procs = [subprocess.Popen(["sleep", "300"], preexec_fn=group.join) for _ in range(8)]
    try:
        assert sorted(group.pids()) == sorted(p.pid for p in procs)
        group.remove(wait=60)  # exited within milliseconds here; a busy machine may take longer
        assert not any(folder.exists() for folder in group.folders)
    finally:
        for proc in procs:
            proc.kill()
            proc.wait()
