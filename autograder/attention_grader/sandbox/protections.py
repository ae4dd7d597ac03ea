"""What a student kernel started now is protected by, in plain words (the ``[ON ]``/``[OFF]`` report).

Grading prints it when it starts (``make grade``, ``nbgrader autograde``) and ``make
sandbox-check`` prints it alone, so a teacher sees which walls this machine provides.

Grading refuses to start without the two walls -- filesystem isolation and no network --
unless the course switches the sandbox off on purpose (``c.SandboxedKernelManager.sandbox =
"off"``): :func:`unsandboxed_refusal`, whose message gives the one command that fixes it
(``make sandbox-deps``). In a Kubernetes pod (docs/kubernetes.md) a missing wall means a
misconfigured cluster, and grading refuses even then, unless the pod's own override is set:
:func:`pod_refusal`.
"""

from __future__ import annotations

import os
import pwd
import shutil
from collections.abc import Mapping
from dataclasses import dataclass

from attention_grader.config.settings import ALLOW_ENV, Protections
from attention_grader.sandbox.sandbox import SandboxedKernelManager
from attention_grader.sandbox.sandbox_host import bwrap_available, private_env, sandbox_user_ids

__all__ = [
    "Protection",
    "format_protections",
    "in_pod",
    "pod_refusal",
    "protections",
    "unsandboxed_refusal",
]

#: The kubelet sets it in every container (the API server's address): we run in a pod.
POD_ENV = "KUBERNETES_SERVICE_HOST"
#: The walls a grading pod must provide (prefixes of :class:`Protection` names).
POD_WALLS = ("filesystem isolation", "no network")


@dataclass(frozen=True)
class Protection:
    """One protection of the sandbox and whether this machine provides it.

    Attributes
    ----------
    name : str
        What is protected, in words a teacher understands.
    on : bool
        Whether the protection is active for kernels started now.
    detail : str
        How it is provided, or why it is off and how to turn it on.
    """

    name: str
    on: bool
    detail: str


def _protections_for(km: SandboxedKernelManager | None) -> list[Protection]:
    km = km or SandboxedKernelManager()
    bwrap_ok, why = (False, "sandbox switched off") if km.sandbox == "off" else bwrap_available()
    bw_detail = "bubblewrap mount namespace" if bwrap_ok else why
    prlimit = shutil.which("prlimit") is not None
    private = private_env() if (km.drop_user and bwrap_ok) else ""
    ids = sandbox_user_ids(create=False) if (km.drop_user and bwrap_ok and not private) else None
    if private:
        detail = f"the Python environment is not readable by other users ({private})"
        user = Protection("separate unprivileged user", False, detail)
    elif ids is not None:
        name = pwd.getpwuid(ids[0]).pw_name
        user = Protection("separate unprivileged user", True, f"uid {ids[0]} ({name})")
    elif os.geteuid() != 0:
        detail = "grading does not run as root: kernels keep the grader's uid (inside namespaces)"
        user = Protection("separate unprivileged user", False, detail)
    else:
        detail = "needs bubblewrap (the interpreter may sit in a private home folder)"
        user = Protection("separate unprivileged user", False, detail)
    fs = "no access to source/, gradebook, other submissions, autograded/, feedback/, exchange"
    lim = "prlimit" if prlimit else "prlimit missing (util-linux)"
    net_detail = "empty network namespace" if bwrap_ok else why
    return [
        Protection(f"filesystem isolation ({fs})", bwrap_ok, bw_detail),
        Protection("no network (not even the grader's loopback ports)", bwrap_ok, net_detail),
        user,
        Protection(
            "notebooks with hidden tests hidden from the kernel", True, "copy without .ipynb"
        ),
        Protection("clean environment (no grader tokens)", True, "minimal env"),
        Protection(
            "implement-it notebooks graded without attention_lab's numerics (stub mounted)",
            bwrap_ok,
            "bubblewrap mounts the stub" if bwrap_ok else f"{why}; only a plain import is stopped",
        ),
        Protection(f"CPU-time limit {km.cpu_seconds} s", prlimit, lim),
        Protection(f"memory limit {km.memory_mb} MiB", prlimit, lim),
        Protection(f"file-size limit {km.file_size_mb} MiB", prlimit, lim),
    ]


def protections(
    km: SandboxedKernelManager | None = None, execute: object = None
) -> list[Protection]:
    """Which protections a kernel started now gets on this machine.

    Parameters
    ----------
    km : SandboxedKernelManager, optional
        The configured manager; defaults to one with default settings.
    execute : GradingExecute or nbgrader Execute, optional
        Adds the per-cell and per-notebook timeouts it is configured with.

    Returns
    -------
    list of Protection
    """
    out = _protections_for(km)
    if execute is not None:
        cell = getattr(execute, "timeout", None)
        out.append(Protection(f"per-cell timeout {cell} s", bool(cell and cell > 0), "nbclient"))
        nb = getattr(execute, "notebook_timeout", None)
        detail = "GradingExecute" if nb else "use attention_grader.executor.execute.GradingExecute"
        out.append(Protection(f"per-notebook timeout {nb} s", bool(nb), detail))
        budget = getattr(execute, "submission_budget", None)
        detail = "a child process killed past it" if budget else "GradingExecute.submission_budget"
        out.append(Protection(f"grader's budget per submission {budget} s", bool(budget), detail))
    return out


def _allowed(allow: bool | None) -> bool:
    return Protections().allow_unsandboxed_in_pod if allow is None else allow


def in_pod(environ: Mapping[str, str] | None = None) -> bool:
    """Whether this process runs in a Kubernetes pod (the kubelet's service variables)."""
    return bool((os.environ if environ is None else environ).get(POD_ENV))


def pod_refusal(
    items: list[Protection],
    sandboxed: bool = True,
    environ: Mapping[str, str] | None = None,
    allow: bool | None = None,
) -> str | None:
    """Why grading must not start in this pod, or None (not a pod, walls up, or overridden).

    Parameters
    ----------
    items : list of Protection
        What :func:`protections` found.
    sandboxed : bool
        Whether the course config starts student kernels through the grading pipeline at all.
    environ : mapping, optional
        Where to look for the kubelet's variables; defaults to ``os.environ``.
    allow : bool, optional
        ``c.Protections.allow_unsandboxed_in_pod`` (:class:`attention_grader.config.settings.Protections`);
        defaults to that setting's default.
    """
    environ = os.environ if environ is None else environ
    if not in_pod(environ) or _allowed(allow):
        return None
    if not sandboxed:
        off = "the course config does not install the grading pipeline (pipeline.configure)"
    else:
        down = _walls_down(items)
        if down is None:
            return None
        off = down
    return (
        f"refusing to grade in a Kubernetes pod without the sandbox: {off}. Student code would "
        "read the solutions and other submissions and reach the network. Give the grading pod "
        "what bubblewrap needs (hostUsers: false, procMount: Unmasked, seccomp and AppArmor "
        "allowing user namespaces: docs/kubernetes.md, 'The sandbox in a pod'); to grade "
        f"trusted work anyway, set c.Protections.allow_unsandboxed_in_pod = True ({ALLOW_ENV}=1)."
    )


def _walls_down(items: list[Protection]) -> str | None:
    """Say which of the filesystem and network walls are off ("... is OFF (why)"), or None."""
    down = [p for p in items if p.name.startswith(POD_WALLS) and not p.on]
    if not down:
        return None
    return "; ".join(f"{p.name.split(' (')[0]} is OFF ({p.detail})" for p in down)


def unsandboxed_refusal(
    items: list[Protection],
    sandboxed: bool,
    sandbox: str,
    environ: Mapping[str, str] | None = None,
) -> str | None:
    """Why grading must not start on this machine, or None (walls up, or off on purpose).

    In a Kubernetes pod :func:`pod_refusal` decides instead (with the pod's own override).

    Parameters
    ----------
    items : list of Protection
        What :func:`protections` found.
    sandboxed : bool
        Whether the course config starts student kernels through the grading pipeline (a
        plain nbgrader config is the teacher's choice, warned about on its own).
    sandbox : str
        ``c.SandboxedKernelManager.sandbox``: ``"off"`` is the course's deliberate choice.
    environ : mapping, optional
        Where to look for the kubelet's variables; defaults to ``os.environ``.
    """
    if not sandboxed or sandbox == "off" or in_pod(environ):
        return None
    off = _walls_down(items)
    if off is None:
        return None
    return (
        f"refusing to grade without the sandbox: {off}. Student code would run with the "
        "grader's rights: read source/, the gradebook and other submissions, write outside its "
        "folder and reach the network. Fix: run `make sandbox-deps` as root (installs "
        "bubblewrap and the attention-sandbox user; `make sandbox-check` then shows every wall "
        "ON). To grade without the sandbox on purpose (trusted work only), set "
        'c.SandboxedKernelManager.sandbox = "off" in nbgrader_config.py.'
    )


def format_protections(
    items: list[Protection] | None = None,
    environ: Mapping[str, str] | None = None,
    allow: bool | None = None,
) -> str:
    """Return a plain-words report printed at the start of grading: ``ON``/``OFF`` per protection.

    In a Kubernetes pod it adds whether grading would start (:func:`pod_refusal`; ``allow`` as
    there).
    """
    items = protections() if items is None else items
    lines = ["Sandbox protections for student kernels:"]
    for p in items:
        lines.append(f"  [{'ON ' if p.on else 'OFF'}] {p.name} -- {p.detail}")
    off = [p for p in items if not p.on]
    if off:
        lines.append(
            f"  WARNING: {len(off)} protection(s) OFF: student code can do what they guard "
            "against (see docs/design.md, 'Grading safely: the threat model')."
        )
    environ = os.environ if environ is None else environ
    if in_pod(environ):
        refusal = pod_refusal(items, environ=environ, allow=False)
        if refusal and _allowed(allow):
            refusal = "allow_unsandboxed_in_pod: grading starts although the walls above are OFF"
        verdict = refusal or "grading may start (filesystem isolation and no network are ON)"
        lines.append(f"  In a Kubernetes pod: {verdict}")
    return "\n".join(lines)
