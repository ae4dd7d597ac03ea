"""A kernel's private folder (attention_grader.sandbox.control_dir): never left behind in /tmp.

A grading process killed outright (the submission's budget, ``make grade``'s watch, SIGKILL)
cannot clean up its kernel's folder, which holds a copy of the student's files: the next
kernel reaps it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from attention_grader.sandbox.control_dir import OWNER, PREFIX, make_control_dir, reap_orphans
from attention_grader.sandbox.sandbox import reap_kernel_folders
from traitlets.config import Config

from tests.support.sandboxed_kernel import run_sandboxed


def _dead_pid() -> int:
    done = subprocess.Popen(["true"])
    done.wait()
    return done.pid


def test_only_the_folders_of_processes_that_are_gone_are_reaped(tmp_path):
    mine = Path(make_control_dir(str(tmp_path)))
    assert mine.name.startswith(PREFIX)
    assert (mine / OWNER).read_text().split()[0] == str(os.getpid())
    namespace = os.readlink("/proc/self/ns/pid")
    orphan = tmp_path / f"{PREFIX}orphan"
    (orphan / "work").mkdir(parents=True)
    (orphan / "work" / "data.csv").write_text("a student's file")
    (orphan / OWNER).write_text(f"{_dead_pid()} {namespace}")
    elsewhere = tmp_path / f"{PREFIX}other-container"  # its pids are not ours to look up
    elsewhere.mkdir()
    (elsewhere / OWNER).write_text(f"{_dead_pid()} pid:[1]")
    unsigned = tmp_path / f"{PREFIX}unsigned"  # says nothing of its owner: kept
    unsigned.mkdir()
    other = tmp_path / "someone-else"
    other.mkdir()
    (other / OWNER).write_text(f"{_dead_pid()} {namespace}")
    link = tmp_path / f"{PREFIX}link"
    link.symlink_to(orphan)

    assert reap_orphans(str(tmp_path)) == [str(orphan)]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [mine.name, elsewhere.name, unsigned.name, other.name, link.name]
    )
    assert reap_orphans(str(tmp_path / "missing")) == []


def test_the_folders_killed_graders_left_are_removed_where_the_course_puts_them(tmp_path):
    """The budget's child or a make grade worker SIGKILLed: its kernel's folder is removed from
    the course's control_root (reap_kernel_folders), a live grader's is kept.
    """
    killed = tmp_path / f"{PREFIX}killed"
    (killed / "work").mkdir(parents=True)
    (killed / "work" / "answers.csv").write_text("a student's file")
    (killed / OWNER).write_text(f"{_dead_pid()} {os.readlink('/proc/self/ns/pid')}")
    live = make_control_dir(str(tmp_path))
    config = Config()
    config.SandboxedKernelManager.control_root = str(tmp_path)

    assert reap_kernel_folders(config) == [str(killed)]
    assert [p.name for p in tmp_path.iterdir()] == [os.path.basename(live)]


_KILLED_GRADER = """
import sys, time
from jupyter_core.utils import run_sync
from traitlets.config import Config
from attention_grader.sandbox.sandbox import SandboxedKernelManager

config = Config({"SandboxedKernelManager": {"control_root": sys.argv[1]}})
km = SandboxedKernelManager(config=config)
run_sync(km.start_kernel)(cwd=sys.argv[2])
print("ready", flush=True)
time.sleep(600)
"""


@pytest.mark.slow
def test_the_folder_of_a_killed_grader_is_reaped_by_the_next_kernel(tmp_path, short_tmp):
    work = tmp_path / "work"
    work.mkdir()
    (work / "answers.csv").write_text("a student's file")
    control = short_tmp / "control"  # the kernel's sockets live there
    control.mkdir()
    grader = subprocess.Popen(
        [sys.executable, "-c", _KILLED_GRADER, str(control), str(work)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert grader.stdout is not None
        assert grader.stdout.readline().strip() == "ready"  # its kernel is running
    finally:
        os.kill(grader.pid, signal.SIGKILL)  # as the budget or make grade's watch kills it
        grader.wait()
    left = list(control.iterdir())
    assert len(left) == 1 and (left[0] / "work" / "answers.csv").exists()

    assert run_sandboxed(["print('next')"], work, control_root=str(control)) == ["next"]
    assert list(control.iterdir()) == []
