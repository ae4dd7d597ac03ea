"""A server's processes bind no port of the servers' range (autograder/attention_hub/port_fence.py).

The fence is for good, so it is entered in a child process; tests/hub/test_hub_server_identity.py
checks it on a real hub, from a student's kernel.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from attention_hub.port_fence import fence_works

REPO = Path(__file__).resolve().parents[2]
HUB = REPO / "autograder"  # the hub's package, attention_hub, is in it

CHILD = r"""
import json, socket, sys
sys.path.insert(0, sys.argv[1])
from attention_hub.port_fence import enter_fence, fence_ruleset
from attention_hub.server_port import PortRange
first, own = int(sys.argv[2]), int(sys.argv[3])
fd = fence_ruleset(PortRange(first, first + 9))
enter_fence(fd)
result = {}
for name, port in (("its own", own), ("other in range", first + 5), ("kernel's choice", 0),
                   ("outside", first + 10)):
    sock = socket.socket()
    try:
        sock.bind(("127.0.0.1", port))
        result[name] = "bound"
    except OSError as err:
        result[name] = err.strerror
    sock.close()
print(json.dumps(result))
"""


@pytest.mark.slow
def test_a_fenced_process_binds_no_port_of_the_range_not_even_its_servers():
    """The hub listens for the server: its kernels cannot answer on its port once it is gone."""
    if os.geteuid() != 0:
        pytest.skip("entering the fence without no_new_privs needs root, as in the hub")
    assert fence_works() == "", fence_works()  # Linux >= 6.7 here; the hub log says otherwise
    first = 24100
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(HUB), str(first), str(first + 2)],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert json.loads(done.stdout) == {
        "its own": "Permission denied",
        "other in range": "Permission denied",
        "kernel's choice": "bound",
        "outside": "bound",
    }
