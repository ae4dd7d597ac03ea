"""Whether grading may start a student's kernel here, decided once per process.

:class:`~attention_grader.executor.execute.GradingExecute` asks before any kernel starts, so
that every route that grades (``make grade``, plain ``nbgrader autograde``, the formgrader's
autograde button) refuses alike: in a Kubernetes pod without the sandbox, or wherever the
sandbox's filesystem or network wall is off for a student's code (unless the course turned
the sandbox off on purpose). The protections report is logged with the first decision.
"""

from __future__ import annotations

from typing import Any

from attention_grader.config.settings import Protections
from attention_grader.sandbox.protections import (
    format_protections,
    pod_refusal,
    protections,
    unsandboxed_refusal,
)
from attention_grader.sandbox.sandbox import SandboxedKernelManager

__all__ = ["grading_refusal"]


def grading_refusal(executor: Any, owner: Any) -> str | None:
    """Return why ``executor`` must not start a kernel here, or None.

    The machine's protections are read once per process and kept on ``owner`` (the executor's
    class: ``_reported``, ``_refusal`` for the pod, ``_wall_refusal`` for the walls); the walls
    count only for a student's code (``executor.students_code``).
    """
    if not owner._reported:
        owner._reported = True
        manager = executor.kernel_manager_class
        sandboxed = isinstance(manager, type) and issubclass(manager, SandboxedKernelManager)
        items = protections(manager(config=executor.config) if sandboxed else None, executor)
        allow = Protections(config=executor.config).allow_unsandboxed_in_pod
        owner._refusal = pod_refusal(items, sandboxed=sandboxed, allow=allow)
        setting = manager(config=executor.config).sandbox if sandboxed else "off"
        owner._wall_refusal = unsandboxed_refusal(items, sandboxed, setting)
        if executor.print_protections:
            executor.log.info("%s", format_protections(items, allow=allow))
    refusal: str | None = owner._refusal
    if executor.students_code:
        refusal = refusal or owner._wall_refusal
    return refusal
