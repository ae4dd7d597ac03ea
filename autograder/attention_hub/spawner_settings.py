"""The hub configs' one call for their spawner: the limited spawner, its limits from the environment.

Both shipped configs (one class, several classes) call :func:`configure_spawner`; the spawner
itself and what it enforces: ``spawner_limits.py``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from traitlets.config import Config

from attention_hub.spawner_limits import LimitedLocalProcessSpawner

__all__ = ["configure_spawner"]


def configure_spawner(c: Config, inbound: list[str], env: Mapping[str, str] = os.environ) -> None:
    """Set the limited spawner and its per-user limits from the environment (both hub configs).

    ``ATTENTION_LAB_MEM_LIMIT`` (1G), ``ATTENTION_LAB_CPU_LIMIT`` (1),
    ``ATTENTION_LAB_STAFF_MEM_LIMIT`` (2G), ``ATTENTION_LAB_STAFF_CPU_LIMIT`` (0: all cores),
    ``ATTENTION_LAB_DISK_SIZE`` (2G); a size of 0 means none. ``inbound``: each course's
    ``<exchange>/<course>/inbound`` (closed to students; each student's own folder in it).
    """

    def size(name: str, default: str) -> str | None:
        value = env.get(name, default).strip()
        return None if value in ("", "0") else value  # "2G", "512M"

    c.JupyterHub.spawner_class = LimitedLocalProcessSpawner
    c.Spawner.mem_limit = size("ATTENTION_LAB_MEM_LIMIT", "1G")
    c.Spawner.cpu_limit = float(env.get("ATTENTION_LAB_CPU_LIMIT", "1"))
    c.LimitedLocalProcessSpawner.staff_mem_limit = size("ATTENTION_LAB_STAFF_MEM_LIMIT", "2G")
    c.LimitedLocalProcessSpawner.staff_cpu_limit = float(
        env.get("ATTENTION_LAB_STAFF_CPU_LIMIT", "0")
    )
    c.LimitedLocalProcessSpawner.disk_size = size("ATTENTION_LAB_DISK_SIZE", "2G")
    c.LimitedLocalProcessSpawner.disk_inbound = list(inbound)
