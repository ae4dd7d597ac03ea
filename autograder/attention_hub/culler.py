"""The idle culler: stop the servers of students who left (jupyterhub-idle-culler, pinned).

A server whose last activity (the user's browser traffic through the proxy, or its kernels
running, reported by the server itself) is older than ``timeout`` seconds is stopped, which frees
its memory for the rest of the class. The student's files stay; the next login starts a new
server. Only servers are stopped, never users removed. Standard library only (the hub loads it).
"""

from __future__ import annotations

import os

from traitlets.config import Config

__all__ = ["SERVICE_NAME", "configure_idle_culler"]

SERVICE_NAME = "idle-culler"
# What the culler needs, and nothing more (jupyterhub-idle-culler's README).
CULLER_SCOPES = ["list:users", "read:users:activity", "read:servers", "delete:servers"]


def configure_idle_culler(c: Config, *, timeout: int, every: int | None = None, venv: str) -> None:
    """Run jupyterhub-idle-culler as a hub service on config ``c`` (``timeout`` 0: no culler).

    Activity must reach the hub well within ``timeout``, or a student who is working could be
    culled: the single-user servers report it and the hub polls the proxy every quarter of the
    timeout (JupyterHub's defaults, 5 min, stay when the timeout is an hour or more).
    """
    if timeout <= 0:
        return
    every = every or max(10, min(300, timeout // 4))
    report = max(5, min(300, timeout // 4))
    c.JupyterHub.services = [
        *c.JupyterHub.get("services", []),
        {
            "name": SERVICE_NAME,
            "command": [
                os.path.join(venv, "bin", "python"),
                "-m",
                "jupyterhub_idle_culler",
                f"--timeout={timeout}",
                f"--cull-every={every}",
            ],  # fmt: skip
        },
    ]
    c.JupyterHub.load_roles = [
        *c.JupyterHub.get("load_roles", []),
        {"name": SERVICE_NAME, "scopes": CULLER_SCOPES, "services": [SERVICE_NAME]},
    ]
    c.JupyterHub.last_activity_interval = report
    c.Spawner.environment = {
        **dict(c.Spawner.get("environment", {})),
        "JUPYTERHUB_ACTIVITY_INTERVAL": str(report),
    }
