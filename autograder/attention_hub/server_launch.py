"""Each user's server, serving on the listening socket the hub made for it (``Spawner.cmd``).

    <course env>/bin/python -s server_launch.py [jupyterhub-singleuser's arguments]

The server runs as its user, like everything the user starts from it, so without more a
student's own code could answer on her server's route; on one origin for everyone (no
subdomains: the ``ATTENTION_LAB_ONE_ORIGIN=1`` opt-in) the teacher's browser would run her page beside his own server.
What answers there is always the process the hub started, running only the course env's code:

* the hub binds the server's port and listens on it itself, as root, before the server starts
  (``spawner_limits.py``), and hands the socket down as the descriptor named by
  :data:`SOCKET_ENV`: the server never binds, and nothing the user runs may bind any port of
  the servers' range (``port_fence.py``), so a kernel that kills its server finds the port
  closed to it;
* ``-s``: no user site-packages in the server (a ``.pth`` file in ``~/.local`` ran the student's
  code inside her server at its every start; her kernels keep it);
* not dumpable (``PR_SET_DUMPABLE`` 0): her kernels and terminals, the same uid, cannot trace it,
  read or write its memory, or take its socket.
"""

from __future__ import annotations

import ctypes
import os
import socket
import sys

__all__ = ["SOCKET_ENV", "main", "seal", "serve_from"]

#: The environment variable naming the descriptor of the server's listening socket.
SOCKET_ENV = "ATTENTION_LAB_SERVER_SOCKET"
_PR_SET_DUMPABLE = 4


def seal() -> None:
    """Make this process undumpable: no process of its user may trace it or read its memory.

    Raises
    ------
    OSError
        The kernel refused (the server does not start).
    """
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"prctl(PR_SET_DUMPABLE, 0): {os.strerror(err)}")


def serve_from(fd: int) -> None:
    """Make the Jupyter server serve on the listening socket ``fd`` instead of binding a port.

    Raises
    ------
    RuntimeError
        This jupyter_server binds differently (its private ``_bind_http_server_tcp`` and
        ``_find_http_port`` are what is replaced; checked against the pinned version).
    """
    from jupyter_server.serverapp import ServerApp

    for name in ("_bind_http_server_tcp", "_find_http_port"):
        if not callable(getattr(ServerApp, name, None)):
            raise RuntimeError(
                f"jupyter_server has no ServerApp.{name}: server_launch.py must follow it"
            )
    os.set_inheritable(fd, False)  # for the server alone: no kernel or terminal gets it
    listening = socket.socket(fileno=fd)
    listening.setblocking(False)

    def bind(app: ServerApp) -> bool:
        app.http_server.add_sockets([listening])
        return True

    ServerApp._bind_http_server_tcp = bind  # type: ignore[method-assign,assignment]
    ServerApp._find_http_port = lambda app: None  # type: ignore[method-assign,assignment]


def main() -> None:
    """Seal this process, take the hub's socket, then run ``jupyterhub-singleuser``."""
    if not sys.flags.no_user_site:
        raise SystemExit("server_launch.py runs with python -s (no user site-packages)")
    if sys.path and os.path.abspath(sys.path[0]) == os.path.dirname(os.path.abspath(__file__)):
        del sys.path[0]  # the hub's modules are not the server's
    seal()
    fd = os.environ.pop(SOCKET_ENV, "")  # the kernels it starts get no such name
    if fd:
        serve_from(int(fd))
    from jupyterhub.singleuser import main as singleuser

    sys.argv[0] = "jupyterhub-singleuser"
    sys.exit(singleuser())


if __name__ == "__main__":
    main()
