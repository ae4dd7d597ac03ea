"""How one sandboxed kernel is launched: its wrapped command, clean environment and private folder.

:class:`LaunchPlan` turns a kernel manager's settings (:class:`KernelSettings`, what
:class:`~attention_grader.sandbox.sandbox.SandboxedKernelManager` has)
and the kernel spec's command into the argv it runs: ``bwrap`` (:func:`bwrap_argv`: what is
mounted, read-only or not), ``setpriv`` to the sandbox user, ``prlimit`` limits, then the
kernel (:func:`resolved_kernel_cmd`); a minimal environment without the grader's secrets; and
a working folder holding a copy of the submission without notebooks (:func:`copy_submission`).
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from attention_grader.sandbox.implement_it import STUB_FOLDER, hidden_library_mounts
from attention_grader.sandbox.sandbox_host import (
    bwrap_available,
    library_paths,
    namespace_args,
    private_env,
    sandbox_user_ids,
)
from attention_lab.variants import SEED_ENV

__all__ = ["KernelSettings", "LaunchPlan", "bwrap_argv", "copy_submission", "resolved_kernel_cmd"]

_SYS_PATH_LINE = "--IPKernelApp.exec_lines=__import__('sys').path.insert(0, '')"


class KernelSettings(Protocol):
    """What a launch reads of its kernel manager: the settings and folders of one kernel.

    :class:`~attention_grader.sandbox.sandbox.SandboxedKernelManager` has them (its traits
    say what each does); named here so that this module, which the manager imports, needs
    nothing of the manager's.
    """

    @property
    def sandbox(self) -> str: ...
    @property
    def drop_user(self) -> bool: ...
    @property
    def cpu_seconds(self) -> int: ...
    @property
    def memory_mb(self) -> int: ...
    @property
    def file_size_mb(self) -> int: ...
    @property
    def max_processes(self) -> int: ...
    @property
    def tmp_size_mb(self) -> int: ...
    @property
    def copy_limit_mb(self) -> int: ...
    @property
    def extra_readonly_paths(self) -> Sequence[str]: ...
    @property
    def hide_library(self) -> bool: ...
    @property
    def variant_seed(self) -> str: ...
    @property
    def work_later(self) -> bool: ...
    @property
    def _ctl_dir(self) -> str | None: ...
    @property
    def _orig_cwd(self) -> str | None: ...


@dataclass
class LaunchPlan:
    """The wrapped command, environment and working folder of one sandboxed kernel."""

    argv: list[str]
    env: dict[str, str]
    host_cwd: str
    #: the kernel's working folder (a copy of the submission) and who owns it in the sandbox
    work: str = ""
    owner: tuple[int, int] | None = None

    def fill_work(self, submission: str, limit_mb: int) -> None:
        """Copy the submission into the kernel's working folder (a kernel started ahead)."""
        copy_submission(submission, self.work, limit_mb)
        if self.owner is not None:
            _chown_tree(self.work, *self.owner)

    @classmethod
    def build(cls, km: KernelSettings, kernel_cmd: list[str]) -> LaunchPlan:
        ctl, orig_cwd = km._ctl_dir, km._orig_cwd
        assert ctl is not None and orig_cwd is not None, "set by the manager's pre-start"
        use_bwrap = _bwrap_decision(km)
        ids = sandbox_user_ids() if (km.drop_user and use_bwrap and not private_env()) else None
        work = os.path.join(ctl, "work")
        os.makedirs(work)
        if not km.work_later:  # else the submission's files come when she is graded
            copy_submission(orig_cwd, work, km.copy_limit_mb)
        mpl = os.path.join(ctl, "matplotlib")
        _seed_matplotlib_cache(mpl)
        if ids is not None:
            for path in (ctl, os.path.join(ctl, "ipc"), work, mpl):
                _chown_tree(path, *ids)
        env = _clean_env(tmp="/tmp" if use_bwrap else os.path.join(ctl, "tmp"), mpl=mpl)
        if km.hide_library and not use_bwrap:
            # Without a mount namespace the stub only comes first on the path: a plain import
            # finds it, sys.path games do not (the protections report says so).
            env["PYTHONPATH"] = str(STUB_FOLDER.parent)
        if km.variant_seed:  # her own numbers, as her server has them (attention_lab.variants)
            env[SEED_ENV] = km.variant_seed
        if not use_bwrap:
            os.makedirs(env["TMPDIR"], exist_ok=True)
        # PYTHONSAFEPATH kept the folder off sys.path while the kernel started; put it back for
        # the notebook (helper modules next to it), as a normal kernel has it.
        command = resolved_kernel_cmd(kernel_cmd)
        argv = _limits_argv(km) + command + [_SYS_PATH_LINE]
        if ids is not None:
            drop = ["setpriv", f"--reuid={ids[0]}", f"--regid={ids[1]}", "--clear-groups"]
            argv = drop + ["--inh-caps=-all", "--bounding-set=-all", "--no-new-privs", "--"] + argv
        if use_bwrap:
            keep = ids is not None
            argv = bwrap_argv(km, work, orig_cwd, mpl, keep_setuid=keep, kernel=command[0]) + argv
        return cls(argv, env, ctl if use_bwrap else work, work, ids)


def resolved_kernel_cmd(kernel_cmd: list[str]) -> list[str]:
    """Return the kernel command with its interpreter's folder resolved (symlinks followed).

    The sandbox mounts only real paths (:func:`library_paths`): through a symlinked venv
    (``.venv -> /opt/venv``) the unresolved ``.venv/bin/python`` does not exist inside it. The
    file name is kept, so Python still finds the venv's ``pyvenv.cfg`` next to its folder.
    """
    if not kernel_cmd:
        raise RuntimeError("the kernel spec has an empty command line")
    exe = kernel_cmd[0]
    if os.path.isabs(exe):
        exe = os.path.join(os.path.realpath(os.path.dirname(exe)), os.path.basename(exe))
    if not os.path.exists(exe):
        raise RuntimeError(
            f"cannot start a student kernel: its interpreter {kernel_cmd[0]!r} does not exist "
            "(check the python3 kernel spec: `jupyter kernelspec list`)"
        )
    return [exe, *kernel_cmd[1:]]


def _bwrap_decision(km: KernelSettings) -> bool:
    if km.sandbox == "off":
        return False
    ok, why = bwrap_available()
    if not ok and km.sandbox == "require":
        raise RuntimeError(f"Sandbox required but unavailable: {why}")
    return ok


def bwrap_argv(
    km: KernelSettings,
    work: str,
    inner_cwd: str,
    mpl: str,
    keep_setuid: bool,
    kernel: str | None = None,
) -> list[str]:
    """Return the bubblewrap command line that walls in one kernel (prefixed to its command).

    ``work`` is the kernel's copy of the submission, seen inside as ``inner_cwd``; ``mpl`` its
    matplotlib cache; ``keep_setuid`` keeps the capabilities setpriv needs to drop to the sandbox
    user; ``kernel`` the kernel's interpreter (an implement-it kernel gets the stub wherever it
    would import the library from).
    """
    exe = bwrap_available()[1]
    args = [exe, *namespace_args(), "--die-with-parent", "--new-session"]
    # As root, drop every capability -- unless setpriv still has to switch to the sandbox user
    # (it then clears capabilities and the bounding set itself).
    args += ["--cap-drop", "ALL"] if os.geteuid() == 0 and not keep_setuid else []
    args += ["--ro-bind", "/usr", "/usr"]
    for top in ("bin", "sbin", "lib", "lib32", "lib64"):
        host = "/" + top
        if os.path.islink(host):
            args += ["--symlink", os.readlink(host), host]
        elif os.path.isdir(host):
            args += ["--ro-bind", host, host]
    # Only the few /etc files a Python process reads; never the whole /etc.
    for name in ("ld.so.cache", "localtime", "nsswitch.conf", "passwd", "group", "hosts"):
        path = os.path.join("/etc", name)
        if os.path.exists(path):
            args += ["--ro-bind", path, path]
    args += ["--proc", "/proc", "--dev", "/dev"]
    args += ["--perms", "1777", "--size", str(km.tmp_size_mb * 2**20), "--tmpfs", "/tmp"]
    readonly = library_paths() + list(km.extra_readonly_paths)
    assert km._ctl_dir is not None, "set by the manager's pre-start"
    ipc = os.path.join(km._ctl_dir, "ipc")
    # bwrap creates missing parents of mount points with mode 0700, which the sandbox user could
    # not traverse; create them first as plain 0755 folders (they stay empty).
    for parent in _parents([*readonly, ipc, inner_cwd]):
        args += ["--perms", "0755", "--dir", parent]
    for path in readonly:
        args += ["--ro-bind", path, path]
    if km.hide_library:  # mounted over the library's own folders: the real files are gone
        for folder, stub in hidden_library_mounts(kernel):
            args += ["--ro-bind", stub, folder] if stub else ["--tmpfs", folder]
    args += ["--bind", ipc, ipc, "--bind", mpl, "/tmp/matplotlib"]
    args += ["--bind", work, inner_cwd, "--chdir", inner_cwd]
    args += ["--setenv", "HOME", "/tmp"]
    # ipykernel's parent poller sees PID 1 (bwrap's init) as parent and would quit at once;
    # --die-with-parent already ends the kernel with the grader.
    args += ["--setenv", "JPY_PARENT_PID", "1"]
    return args + ["--"]


def _parents(paths: list[str]) -> list[str]:
    """Every ancestor folder of ``paths`` (outside /usr and /tmp), shallowest first."""
    out: set[str] = set()
    for path in paths:
        parent = os.path.dirname(os.path.abspath(path))
        while parent not in ("/", "") and parent not in ("/usr", "/tmp"):
            out.add(parent)
            parent = os.path.dirname(parent)
    return sorted(out, key=lambda p: (p.count("/"), p))


def _limits_argv(km: KernelSettings) -> list[str]:
    if shutil.which("prlimit") is None:
        return []
    return [
        "prlimit",
        f"--cpu={km.cpu_seconds}",
        f"--as={km.memory_mb * 2**20}",
        f"--fsize={km.file_size_mb * 2**20}",
        f"--nproc={km.max_processes}",
        "--core=0",
        "--",
    ]


def _clean_env(tmp: str, mpl: str) -> dict[str, str]:
    """Return a minimal environment: the grader's tokens and secrets never reach the kernel."""
    venv_bin = os.path.dirname(sys.executable)
    env = {
        "PATH": f"{venv_bin}:/usr/local/bin:/usr/bin:/bin",
        "HOME": tmp,
        "TMPDIR": tmp,
        "LANG": "C.UTF-8",
        "MPLBACKEND": "Agg",
        "MPLCONFIGDIR": "/tmp/matplotlib" if tmp == "/tmp" else mpl,
        "IPYTHONDIR": os.path.join(tmp, ".ipython"),
        "PYTHONNOUSERSITE": "1",
        # `python -m ipykernel_launcher` would otherwise import a handed-in ipykernel_launcher.py
        # from the submission folder: a fake kernel. The folder goes back on sys.path for the
        # notebook's own imports once the real kernel runs (_SYS_PATH_LINE).
        "PYTHONSAFEPATH": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYDEVD_DISABLE_FILE_VALIDATION": "1",
        # One BLAS thread per kernel: parallel grading stays fair and the address space small.
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "NBGRADER_EXECUTION": os.environ.get("NBGRADER_EXECUTION", "autograde"),
    }
    if "VIRTUAL_ENV" in os.environ or sys.prefix != sys.base_prefix:
        env["VIRTUAL_ENV"] = sys.prefix
    return env


def copy_submission(src: str, dest: str, limit_mb: int) -> None:
    """Copy the submission folder without notebooks (the on-disk notebook has hidden tests).

    Symlinks are not followed (a link to ``../../source`` copies nothing); the sandbox's own
    folder is skipped (it may sit inside ``src``); more than ``limit_mb`` MiB is refused with a
    clear error, since a kernel's working folder is a student's submission, not a whole disk.
    """
    os.makedirs(dest, exist_ok=True)
    if not os.path.isdir(src):
        return
    skip_names = {".ipynb_checkpoints", "__pycache__"}
    own = os.path.realpath(os.path.dirname(dest))
    budget = limit_mb * 2**20
    for root, dirs, files in os.walk(src):
        dirs[:] = [
            d
            for d in dirs
            if d not in skip_names
            and not os.path.islink(os.path.join(root, d))
            and os.path.realpath(os.path.join(root, d)) != own
        ]
        target = os.path.join(dest, os.path.relpath(root, src))
        os.makedirs(target, exist_ok=True)
        for name in files:
            path = os.path.join(root, name)
            if name.endswith(".ipynb") or os.path.islink(path) or not os.path.isfile(path):
                continue
            budget -= os.path.getsize(path)
            if budget < 0:
                raise RuntimeError(
                    f"{src} holds more than {limit_mb} MiB: too much to copy into the sandbox. "
                    "Grade from the submission folder, or raise SandboxedKernelManager.copy_limit_mb."
                )
            shutil.copy2(path, os.path.join(target, name))


def _matplotlib_cache_dir() -> str:
    """Return where matplotlib keeps the grader's font cache, found as matplotlib finds it on Linux.

    Not by importing matplotlib: every grading child would pay that import (0.4 s) for a path.
    (Where that folder is not writable matplotlib uses a fresh temporary one: nothing to copy.)
    """
    given = os.environ.get("MPLCONFIGDIR")
    if given:
        return os.path.abspath(given)
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(cache, "matplotlib")


def _seed_matplotlib_cache(dest: str) -> None:
    """Give the kernel a copy of the grader's font cache so matplotlib does not rebuild it."""
    os.makedirs(dest, exist_ok=True)
    for path in glob.glob(os.path.join(_matplotlib_cache_dir(), "fontlist-*.json")):
        with contextlib.suppress(OSError):  # a missing cache only costs start-up time
            shutil.copy(path, dest)


def _chown_tree(path: str, uid: int, gid: int) -> None:
    os.chown(path, uid, gid)
    for root, dirs, files in os.walk(path):
        for name in dirs + files:
            os.chown(os.path.join(root, name), uid, gid, follow_symlinks=False)
