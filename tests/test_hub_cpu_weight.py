"""The class's cgroup weighs one process per user (autograder/jupyterhub/user_cgroup.py).

With the kernel's default weight the parent group of all users' groups counted as ONE process
against everything else on the machine: on the shared test machine each student's server got
~2 % of a core and `make hub-load` spawns took 80 s and more. Checked here on plain folders
standing in for cgroupfs; tests/hub/test_hub_limits.py checks the real groups of a real hub.
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "autograder" / "jupyterhub"))
from user_cgroup import CgroupLayout, weigh_class  # noqa: E402


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
