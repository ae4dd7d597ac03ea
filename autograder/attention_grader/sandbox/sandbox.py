"""Run every student kernel started by autograde inside a sandbox.

nbgrader runs a submission's code in a kernel with the grader's rights: it could read ``source/``,
rewrite ``gradebook.db`` or read other students' work. This module closes that hole for the kernels
nbgrader starts, with tools found on any Debian machine:

* **bubblewrap** (``bwrap``): a fresh mount namespace where only the Python install, the virtual
  environment, the course library (``attention_lab``) and ``/usr`` are visible, all read-only; a
  private, size-capped ``/tmp``; a *copy* of the submission folder without notebooks (the notebook
  on disk during autograde already holds the hidden tests); no network (a new, empty network
  namespace: even loopback ports of the host are unreachable); a new PID namespace.
* **a separate unprivileged user** (``attention-sandbox``, created on demand when grading runs as
  root): the kernel drops to it inside the sandbox, so an escape from the namespaces gains nothing.
* **resource limits** (``prlimit``): CPU seconds, address space, file size, process count, no core.
* **timeouts**: nbgrader's per-cell ``Execute.timeout`` plus a per-notebook budget
  (:class:`attention_grader.executor.execute.GradingExecute`, which also keeps the hidden tests out of
  the kernel altogether).

This module holds the kernel manager; :mod:`attention_grader.sandbox.sandbox_host` probes what the
machine offers and :mod:`attention_grader.sandbox.sandbox_launch` builds each kernel's command.

Where a layer is unavailable (no ``bwrap``, no user namespaces, not root), grading still works and
:func:`protections` / :func:`format_protections` say plainly which protections are off.

The course's pipeline (:func:`attention_grader.pipeline.configure`) starts every autograde
kernel with :class:`SandboxedKernelManager`.
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
from typing import Any

from jupyter_client.manager import AsyncKernelManager
from traitlets import Bool, CaselessStrEnum, Integer, List, Unicode
from traitlets.config import Config

from attention_grader.sandbox.control_dir import make_control_dir, reap_orphans
from attention_grader.sandbox.sandbox_launch import LaunchPlan

__all__ = ["SandboxedKernelManager", "reap_kernel_folders"]


class SandboxedKernelManager(AsyncKernelManager):
    """A kernel manager whose kernels run under bubblewrap, a sandbox user and rlimits.

    Use it from nbgrader config (``c.Execute.kernel_manager_class``) or pass it to
    ``attention_grader`` grading. Kernels talk to the grader over Unix sockets (ZeroMQ ``ipc``
    transport) in a private folder, since the sandbox has no network at all.
    """

    sandbox = CaselessStrEnum(
        ["auto", "require", "off"],
        default_value="auto",
        help="bubblewrap isolation: auto and require (grading refuses to start when its "
        "filesystem or network wall is off; `make sandbox-deps` installs it), off (grade "
        "without the sandbox on purpose: trusted work only).",
    ).tag(config=True)
    drop_user = Bool(True, help="When root, run the kernel as the sandbox user.").tag(config=True)
    cpu_seconds = Integer(120, help="RLIMIT_CPU of a kernel (CPU seconds).").tag(config=True)
    memory_mb = Integer(3072, help="RLIMIT_AS of a kernel (address space, MiB).").tag(config=True)
    file_size_mb = Integer(64, help="RLIMIT_FSIZE: largest file a kernel may write.").tag(
        config=True
    )
    max_processes = Integer(512, help="RLIMIT_NPROC for the sandbox user (threads count too).").tag(
        config=True
    )
    tmp_size_mb = Integer(256, help="Size of the kernel's private /tmp.").tag(config=True)
    control_root = Unicode(
        "", help="Where each kernel's private folder (sockets, work copy) is made; '' = $TMPDIR."
    ).tag(config=True)
    copy_limit_mb = Integer(
        256, help="Largest submission folder copied into the sandbox (MiB)."
    ).tag(config=True)
    extra_readonly_paths = List(
        Unicode(), help="More host folders to show read-only inside the sandbox."
    ).tag(config=True)
    hide_library = Bool(
        False,
        help="Mount a stub over attention_lab (and an empty folder over scipy, torch, ...) in "
        "this kernel: set per kernel by GradingExecute for implement-it notebooks "
        "(attention_grader.sandbox.implement_it); setting it in the course config hides the library "
        "from every graded kernel.",
    ).tag(config=True)

    variant_seed = Unicode(
        "",
        help="The graded student's variant seed, given to this kernel as "
        "ATTENTION_LAB_VARIANT_SEED: set per kernel by GradingExecute from the id the exchange "
        "trusts (attention_grader.checking.variant_grading); never set it in the course config.",
    )

    work_later = Bool(
        False,
        help="Start the kernel with an empty working folder; fill_work() copies the submission "
        "in before her first cell (a kernel started ahead: attention_grader.executor.ahead).",
    )

    _ctl_dir: str | None = None
    _plan: LaunchPlan | None = None
    _orig_cwd: str | None = None
    _log_path: str | None = None
    _log_file = None
    last_log: str = ""

    # jupyter_client hands the kernel's cwd and env to pre_start; we grab cwd there, pick an ipc
    # socket path in a private folder, and let the provisioner write the connection file in it.
    async def _async_pre_start_kernel(self, **kw: Any) -> tuple[list[str], dict[str, Any]]:
        self._orig_cwd = os.path.abspath(kw.get("cwd") or os.getcwd())
        # a grader killed outright left its kernel's folder (a copy of a submission among it)
        reap_orphans(self.control_root or None)
        self._ctl_dir = make_control_dir(self.control_root or None)
        ipc = os.path.join(self._ctl_dir, "ipc")
        os.makedirs(ipc)
        self.transport = "ipc"
        self.ip = os.path.join(ipc, "k")
        self.connection_file = os.path.join(ipc, "kernel.json")
        # Signals cannot cross into the sandbox's session; ipykernel interrupts itself on request.
        assert self.kernel_spec is not None, "jupyter_client found the kernel's spec"
        self.kernel_spec.interrupt_mode = "message"
        return await super()._async_pre_start_kernel(**kw)

    async def _async_launch_kernel(self, kernel_cmd: list[str], **kw: Any) -> None:
        assert self._ctl_dir is not None and self._orig_cwd is not None
        try:
            plan = LaunchPlan.build(self, kernel_cmd)
        except BaseException:
            shutil.rmtree(self._ctl_dir, ignore_errors=True)
            raise
        self._plan = plan
        kw["env"] = plan.env
        kw["cwd"] = plan.host_cwd
        # The kernel process's own stdout/stderr (not the notebook's outputs) go to a file: if the
        # kernel cannot start, that is where the reason is (kernel_log_tail); else it is noise.
        self._log_path = os.path.join(self._ctl_dir, "kernel.log")
        self._log_file = open(self._log_path, "wb")  # noqa: SIM115 -- closed at cleanup
        kw["stdout"] = kw["stderr"] = self._log_file
        self.log.debug("Sandboxed kernel: %s", plan.argv)
        await super()._async_launch_kernel(plan.argv, **kw)

    async def _async_cleanup_resources(self, restart: bool = False) -> None:
        await super()._async_cleanup_resources(restart=restart)
        if not restart and self._ctl_dir:
            self.last_log = self.kernel_log_tail()
            if self._log_file is not None:
                self._log_file.close()
                self._log_file = None
            shutil.rmtree(self._ctl_dir, ignore_errors=True)
            self._ctl_dir = None

    def fill_work(self) -> None:
        """Copy the submission into the working folder of a kernel started with ``work_later``."""
        assert self._plan is not None and self._orig_cwd is not None, "the kernel is started"
        self._plan.fill_work(self._orig_cwd, self.copy_limit_mb)

    def kernel_log_tail(self, lines: int = 5) -> str:
        """Return the last lines the kernel process wrote to its stdout/stderr, as one line.

        They say why it could not start, if it could not.
        """
        path = self._log_path
        if not path or not os.path.exists(path):
            return self.last_log
        with open(path, "rb") as fh:
            fh.seek(max(0, os.path.getsize(path) - 4096))
            text = fh.read().decode("utf-8", "replace")
        kept = [ln.strip() for ln in text.splitlines() if ln.strip()]
        kept = [ln for ln in kept if "without encryption" not in ln]
        # Tracebacks end in frames: the lines that name an error say more.
        errors = [ln for ln in kept if re.search(r"error|denied|no such|cannot|fail", ln, re.I)]
        return " | ".join((errors or kept)[-lines:])

    async def _async_wait(self, pollinterval: float = 0.1) -> None:
        """Wait until the kernel process is gone, looking every 10 ms.

        jupyter_client looks every ``pollinterval`` (0.1 s): a killed kernel is gone within a few
        ms, and every graded submission waited idle for the rest of the first interval.
        """
        while await self._async_is_alive():
            await asyncio.sleep(min(pollinterval, 0.01))

    # AsyncKernelManager binds cleanup_resources to the base class's function, so the override
    # above would be skipped when nbclient cleans up after a dead kernel.
    cleanup_resources = _async_cleanup_resources


def reap_kernel_folders(config: Config | None = None) -> list[str]:
    """Remove the kernel folders (copies of submissions) grading processes killed outright left.

    Where the course makes them (``SandboxedKernelManager.control_root``); see
    :mod:`attention_grader.sandbox.control_dir`. Called after the submission's budget or
    ``make grade``'s watch killed a grading process, which could not clean up itself.
    """
    return reap_orphans(SandboxedKernelManager(config=config).control_root or None)
