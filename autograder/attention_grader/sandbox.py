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
  (:class:`attention_grader.execute.GradingExecute`, which also keeps the hidden tests out of
  the kernel altogether).

Where a layer is unavailable (no ``bwrap``, no user namespaces, not root), grading still works and
:func:`protections` / :func:`format_protections` say plainly which protections are off.

The course's pipeline (:func:`attention_grader.pipeline.configure`) starts every autograde
kernel with :class:`SandboxedKernelManager`.
"""

from __future__ import annotations

import functools
import glob
import os
import pwd
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass

from jupyter_client.manager import AsyncKernelManager
from traitlets import Bool, CaselessStrEnum, Integer, List, Unicode

__all__ = [
    "SANDBOX_USER",
    "SandboxedKernelManager",
    "bwrap_available",
    "sandbox_user_ids",
    "library_paths",
]

#: The unprivileged account kernels drop to when grading runs as root.
SANDBOX_USER = "attention-sandbox"


# --------------------------------------------------------------------------- probes (cached)


@functools.cache
def bwrap_available() -> tuple[bool, str]:
    """Whether bubblewrap can build a sandbox here: ``(ok, reason)``.

    Runs ``bwrap`` once with the namespaces we use; the answer is cached for the process.
    """
    exe = shutil.which("bwrap")
    if exe is None:
        return False, "bubblewrap is not installed (`make sandbox-deps` or apt install bubblewrap)"
    probe = [exe, *_namespace_args(), "--ro-bind", "/", "/", "--proc", "/proc", "true"]
    try:
        done = subprocess.run(probe, capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired) as err:
        return False, f"bwrap could not run: {err}"
    if done.returncode != 0:
        why = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "unknown error"
        return False, f"bwrap cannot create namespaces here ({why}); user namespaces may be off"
    return True, exe


def _namespace_args() -> list[str]:
    """Namespaces to unshare. As root we skip the user namespace and drop to a real user instead."""
    common = ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts"]
    common += ["--unshare-cgroup-try"]
    if os.geteuid() == 0:
        return common
    return ["--unshare-user", *common]


@functools.cache
def sandbox_user_ids(create: bool = True) -> tuple[int, int] | None:
    """``(uid, gid)`` of the sandbox user, creating it when root; None when not applicable.

    The account is a locked system user without a home (``useradd --system``); when it cannot be
    created, ``nobody`` is used.
    """
    if os.geteuid() != 0:
        return None
    try:
        entry = pwd.getpwnam(SANDBOX_USER)
        return entry.pw_uid, entry.pw_gid
    except KeyError:
        pass
    if create and shutil.which("useradd"):
        cmd = ["useradd", "--system", "--no-create-home", "--user-group"]
        cmd += ["--shell", "/usr/sbin/nologin", SANDBOX_USER]
        subprocess.run(cmd, capture_output=True, check=False)
        try:
            entry = pwd.getpwnam(SANDBOX_USER)
            return entry.pw_uid, entry.pw_gid
        except KeyError:
            pass
    try:
        entry = pwd.getpwnam("nobody")
        return entry.pw_uid, entry.pw_gid
    except KeyError:
        return None


@functools.cache
def _private_env() -> str:
    """A file of the Python environment other users cannot read ("" when all are readable).

    The sandbox user is "other" to the grader's files: a venv or interpreter under a private
    home (mode 0700, files 0600) would not start, so the user layer is skipped then.
    """
    import ipykernel
    import numpy

    for path in (sys.executable, os.__file__, numpy.__file__, ipykernel.__file__):
        real = os.path.realpath(path)
        if not os.stat(real).st_mode & 0o004 or not os.stat(os.path.dirname(real)).st_mode & 0o001:
            return real
    return ""


def library_paths() -> list[str]:
    """Folders a kernel needs to read: the Python install, the venv, the course library.

    ``sys.base_prefix`` holds the interpreter and standard library, ``sys.prefix`` the virtual
    environment; ``attention_lab`` may be an editable install living in the course repository,
    so only its package folder is exposed (never the repository root with ``source/``).
    """
    paths = {os.path.realpath(sys.base_prefix), os.path.realpath(sys.prefix)}
    try:
        import attention_lab

        # __path__ rather than __file__: editable installs may expose a namespace package.
        paths.update(os.path.realpath(p) for p in attention_lab.__path__ if os.path.isdir(p))
    except ImportError:  # pragma: no cover - the course library is always installed here
        pass
    return sorted(paths)


# --------------------------------------------------------------------------- kernel manager


class SandboxedKernelManager(AsyncKernelManager):
    """A kernel manager whose kernels run under bubblewrap, a sandbox user and rlimits.

    Use it from nbgrader config (``c.Execute.kernel_manager_class``) or pass it to
    ``attention_grader`` grading. Kernels talk to the grader over Unix sockets (ZeroMQ ``ipc``
    transport) in a private folder, since the sandbox has no network at all.
    """

    sandbox = CaselessStrEnum(
        ["auto", "require", "off"],
        default_value="auto",
        help="bubblewrap isolation: auto (use when possible), require (fail without it), off.",
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

    _ctl_dir: str | None = None
    _orig_cwd: str | None = None
    _log_path: str | None = None
    _log_file = None
    last_log: str = ""

    # jupyter_client hands the kernel's cwd and env to pre_start; we grab cwd there, pick an ipc
    # socket path in a private folder, and let the provisioner write the connection file in it.
    async def _async_pre_start_kernel(self, **kw):
        self._orig_cwd = os.path.abspath(kw.get("cwd") or os.getcwd())
        self._ctl_dir = tempfile.mkdtemp(prefix="attention-sandbox-", dir=self.control_root or None)
        ipc = os.path.join(self._ctl_dir, "ipc")
        os.makedirs(ipc)
        self.transport = "ipc"
        self.ip = os.path.join(ipc, "k")
        self.connection_file = os.path.join(ipc, "kernel.json")
        # Signals cannot cross into the sandbox's session; ipykernel interrupts itself on request.
        self.kernel_spec.interrupt_mode = "message"
        return await super()._async_pre_start_kernel(**kw)

    async def _async_launch_kernel(self, kernel_cmd, **kw):
        assert self._ctl_dir is not None and self._orig_cwd is not None
        try:
            plan = _LaunchPlan.build(self, kernel_cmd)
        except BaseException:
            shutil.rmtree(self._ctl_dir, ignore_errors=True)
            raise
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

    def kernel_log_tail(self, lines: int = 5) -> str:
        """The last lines the kernel process wrote to its own stdout/stderr (why it could not
        start, if it could not), joined into one line."""
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

    # AsyncKernelManager binds cleanup_resources to the base class's function, so the override
    # above would be skipped when nbclient cleans up after a dead kernel.
    cleanup_resources = _async_cleanup_resources


_SYS_PATH_LINE = "--IPKernelApp.exec_lines=__import__('sys').path.insert(0, '')"


@dataclass
class _LaunchPlan:
    """The wrapped command, environment and working folder of one sandboxed kernel."""

    argv: list[str]
    env: dict[str, str]
    host_cwd: str

    @classmethod
    def build(cls, km: SandboxedKernelManager, kernel_cmd: list[str]) -> _LaunchPlan:
        ctl, orig_cwd = km._ctl_dir, km._orig_cwd
        use_bwrap = _bwrap_decision(km)
        ids = sandbox_user_ids() if (km.drop_user and use_bwrap and not _private_env()) else None
        work = os.path.join(ctl, "work")
        _copy_submission(orig_cwd, work, km.copy_limit_mb)
        mpl = os.path.join(ctl, "matplotlib")
        _seed_matplotlib_cache(mpl)
        if ids is not None:
            for path in (ctl, os.path.join(ctl, "ipc"), work, mpl):
                _chown_tree(path, *ids)
        env = _clean_env(tmp="/tmp" if use_bwrap else os.path.join(ctl, "tmp"), mpl=mpl)
        if not use_bwrap:
            os.makedirs(env["TMPDIR"], exist_ok=True)
        # PYTHONSAFEPATH kept the folder off sys.path while the kernel started; put it back for
        # the notebook (helper modules next to it), as a normal kernel has it.
        argv = _limits_argv(km) + _resolved_kernel_cmd(kernel_cmd) + [_SYS_PATH_LINE]
        if ids is not None:
            drop = ["setpriv", f"--reuid={ids[0]}", f"--regid={ids[1]}", "--clear-groups"]
            argv = drop + ["--inh-caps=-all", "--bounding-set=-all", "--no-new-privs", "--"] + argv
        if use_bwrap:
            argv = _bwrap_argv(km, work, orig_cwd, mpl, keep_setuid=ids is not None) + argv
        return cls(argv=argv, env=env, host_cwd=ctl if use_bwrap else work)


def _resolved_kernel_cmd(kernel_cmd: list[str]) -> list[str]:
    """The kernel command with its interpreter's folder resolved (symlinks followed).

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


def _bwrap_decision(km: SandboxedKernelManager) -> bool:
    if km.sandbox == "off":
        return False
    ok, why = bwrap_available()
    if not ok and km.sandbox == "require":
        raise RuntimeError(f"Sandbox required but unavailable: {why}")
    return ok


def _bwrap_argv(
    km: SandboxedKernelManager, work: str, inner_cwd: str, mpl: str, keep_setuid: bool
) -> list[str]:
    exe = bwrap_available()[1]
    args = [exe, *_namespace_args(), "--die-with-parent", "--new-session"]
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
    ipc = os.path.join(km._ctl_dir, "ipc")
    # bwrap creates missing parents of mount points with mode 0700, which the sandbox user could
    # not traverse; create them first as plain 0755 folders (they stay empty).
    for parent in _parents([*readonly, ipc, inner_cwd]):
        args += ["--perms", "0755", "--dir", parent]
    for path in readonly:
        args += ["--ro-bind", path, path]
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


def _limits_argv(km: SandboxedKernelManager) -> list[str]:
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
    """A minimal environment: the grader's tokens and secrets never reach the kernel."""
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


def _copy_submission(src: str, dest: str, limit_mb: int) -> None:
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


def _seed_matplotlib_cache(dest: str) -> None:
    """Give the kernel a copy of the grader's font cache so matplotlib does not rebuild it."""
    os.makedirs(dest, exist_ok=True)
    try:
        import matplotlib

        for path in glob.glob(os.path.join(matplotlib.get_cachedir(), "fontlist-*.json")):
            shutil.copy(path, dest)
    except Exception:  # noqa: BLE001 - a missing cache only costs start-up time
        pass


def _chown_tree(path: str, uid: int, gid: int) -> None:
    os.chown(path, uid, gid)
    for root, dirs, files in os.walk(path):
        for name in dirs + files:
            os.chown(os.path.join(root, name), uid, gid, follow_symlinks=False)
