"""What a server's child does between fork and exec (autograder/attention_hub/server_child.py),
in a real child process without a hub: with no control group its address space is limited,
and it becomes the user last (tests/hub/test_hub_limits.py checks the groups on a real hub).
"""

from __future__ import annotations

import os
import resource
import subprocess

import pytest
from attention_hub.server_child import ChildSetup

pytestmark = [
    pytest.mark.slow,  # root's, and a child process: never in make test-fast
    pytest.mark.skipif(os.geteuid() != 0, reason="dropping to another user needs root"),
]
NOBODY = 65534


def _drop() -> None:
    os.setgid(NOBODY)
    os.setuid(NOBODY)


def _child(mem: int | None, script: str) -> list[str]:
    """What ``script`` prints in a child set up with no group and the memory limit ``mem``."""
    setup = ChildSetup(
        group=None, mem=mem, tmp=None, keep=(), shielded=(), fence=None, drop_to_user=_drop
    )
    run = subprocess.run(
        ["sh", "-c", script], preexec_fn=setup, capture_output=True, text=True, check=True, cwd="/"
    )
    return run.stdout.split()


def test_without_a_group_the_child_gets_the_memory_limit_then_becomes_the_user():
    mem = 768 * 2**20
    limit_kib, uid = _child(mem, "ulimit -v; id -u")
    assert (int(limit_kib) * 1024, int(uid)) == (mem, NOBODY)
    assert resource.getrlimit(resource.RLIMIT_AS)[0] != mem  # the hub itself keeps its own


def test_no_memory_limit_and_no_group_leave_the_address_space_alone():
    assert _child(None, "ulimit -v; id -u") == ["unlimited", str(NOBODY)]
