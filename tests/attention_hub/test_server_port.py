"""Each server's port comes from a range kernels never take theirs from (autograder/attention_hub/server_port.py).

JupyterHub's own choice (bind port 0, close, let the server bind it later) draws from the kernel's
ephemeral range, where every notebook kernel takes its ports the same way: in a class starting at
once a classmate's kernel took a server's port first and that spawn never ended. Checked here on
this machine's sockets; tests/hub/test_hub_limits.py checks the ports of a real hub's servers.
"""

from __future__ import annotations

import os
import socket
import sys
from pathlib import Path

import pytest
from attention_hub.server_port import (
    DEFAULT_RANGE,
    Listener,
    PortRange,
    ephemeral_range,
    listener,
    pick_port,
)

REPO = Path(__file__).resolve().parents[2]


def test_what_port_0_hands_out_lands_in_the_ephemeral_range_never_in_the_servers_range():
    ephemeral, servers = ephemeral_range(), PortRange.parse(DEFAULT_RANGE)
    assert ephemeral is not None, "Linux tells its ephemeral range in /proc"
    assert not servers.overlaps(ephemeral)
    socks = [socket.socket() for _ in range(200)]  # what 40 kernels take as they start
    try:
        for sock in socks:
            sock.bind(("127.0.0.1", 0))
        ports = [sock.getsockname()[1] for sock in socks]
    finally:
        for sock in socks:
            sock.close()
    assert all(ephemeral.first <= p <= ephemeral.last for p in ports)
    assert not [p for p in ports if servers.first <= p <= servers.last]


def _listening(port: int) -> socket.socket:
    sock = socket.socket()
    sock.bind(("127.0.0.1", port))
    sock.listen()
    return sock


def test_a_port_something_listens_on_or_given_to_another_server_is_not_handed_out():
    taken = _listening(0)  # a free port, then a range of it and the next one
    first = taken.getsockname()[1]
    try:
        ports = PortRange(first, first + 1)
        assert pick_port(ports, given=()) == first + 1  # `first` is listened on
        with pytest.raises(RuntimeError, match=r"no free port left .*server_ports"):
            pick_port(ports, given={first + 1})  # given to a server still starting
    finally:
        taken.close()
    assert pick_port(PortRange(first, first), given=()) == first  # free again


def test_a_range_that_is_not_one_says_what_to_write():
    assert PortRange.parse(" 20000 - 20010 ") == PortRange(20000, 20010)
    for text in ("20000", "a-b", "30000-20000", "80-90", "20000-70000"):
        with pytest.raises(ValueError, match=r"server_ports .*e\.g\. '20000-29999'"):
            PortRange.parse(text)


def test_only_the_process_holding_the_listening_socket_is_the_server_on_a_port():
    import os
    import subprocess

    sock = _listening(0)
    port = sock.getsockname()[1]
    try:
        other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        try:
            # this process listens: it is the one on the port; any other process is not
            assert listener(os.getpid(), port) == Listener(os.getuid(), True)
            assert listener(other.pid, port) == Listener(os.getuid(), False)
        finally:
            other.kill()
            other.wait()
    finally:
        sock.close()
    assert listener(os.getpid(), port) is None  # nobody listens any more
    bound = socket.socket()  # bound but not listening: not a server
    bound.bind(("127.0.0.1", 0))
    try:
        assert listener(os.getpid(), bound.getsockname()[1]) is None
    finally:
        bound.close()


def test_the_hub_holds_a_servers_port_and_skips_one_someone_holds():
    """The hub listens on a server's port itself before the server starts (server_port.hold)."""
    from attention_hub.server_port import hold

    held = hold("127.0.0.1", 0)
    assert held is not None
    port = held.getsockname()[1]
    try:
        assert listener(os.getpid(), port) == Listener(os.getuid(), True)  # listening, by us
        assert hold("127.0.0.1", port) is None  # someone holds it: not taken, no error
    finally:
        held.close()
    again = hold("127.0.0.1", port)  # free again
    assert again is not None
    again.close()


@pytest.mark.slow
def test_the_server_launcher_refuses_to_run_with_user_site_packages():
    """A .pth file in ~/.local ran a student's code inside her server: it runs with python -s."""
    import subprocess

    launch = str(REPO / "autograder" / "attention_hub" / "server_launch.py")
    done = subprocess.run([sys.executable, launch], capture_output=True, text=True, timeout=60)
    assert done.returncode != 0 and "python -s" in done.stderr, done.stderr
