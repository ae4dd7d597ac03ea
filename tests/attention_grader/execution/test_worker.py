"""make grade's workers (attention_grader.execution.worker)."""

from __future__ import annotations

import os
import subprocess

from attention_grader.execution.worker import reap_kernel_folders
from attention_grader.sandbox.control_dir import OWNER, make_control_dir
from traitlets.config import Config


def test_the_kernel_folders_of_killed_workers_are_removed_where_the_course_puts_them(tmp_path):
    """Make grade's watch SIGKILLs a worker past its budget: its kernel's folder (a copy of the
    submission) is removed from the course's control_root, a live grader's is kept.
    """
    worker = subprocess.Popen(["true"])
    worker.wait()  # a worker that is gone
    killed = tmp_path / "attention-sandbox-killed"
    (killed / "work").mkdir(parents=True)
    (killed / "work" / "answers.csv").write_text("a student's file")
    (killed / OWNER).write_text(f"{worker.pid} {os.readlink('/proc/self/ns/pid')}")
    live = make_control_dir(str(tmp_path))
    config = Config()
    config.SandboxedKernelManager.control_root = str(tmp_path)

    assert reap_kernel_folders(config) == [str(killed)]
    assert [p.name for p in tmp_path.iterdir()] == [os.path.basename(live)]
