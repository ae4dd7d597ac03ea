"""What the grading machine offers a sandbox: bubblewrap, the sandbox user, readable libraries.

Probes, each cached for the process: can bubblewrap build our namespaces here
(:func:`bwrap_available`), which account a kernel drops to when grading runs as root
(:func:`sandbox_user_ids`), whether the Python environment is readable by that account
(:func:`private_env`), and which host folders a kernel must see (:func:`library_paths`).
:mod:`attention_grader.sandbox.sandbox_launch` builds the command from them;
:mod:`attention_grader.sandbox.protections` reports them.
"""

from __future__ import annotations

import functools
import os
import pwd
import shutil
import subprocess
import sys

__all__ = [
    "SANDBOX_USER",
    "bwrap_available",
    "library_paths",
    "namespace_args",
    "private_env",
    "sandbox_user_ids",
]

#: The unprivileged account kernels drop to when grading runs as root.
SANDBOX_USER = "attention-sandbox"


@functools.cache
def bwrap_available() -> tuple[bool, str]:
    """Whether bubblewrap can build a sandbox here: ``(ok, reason)``.

    Runs ``bwrap`` once with the namespaces we use; the answer is cached for the process.
    """
    exe = shutil.which("bwrap")
    if exe is None:
        return False, "bubblewrap is not installed (`make sandbox-deps` or apt install bubblewrap)"
    probe = [exe, *namespace_args(), "--ro-bind", "/", "/", "--proc", "/proc", "true"]
    try:
        done = subprocess.run(probe, capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired) as err:
        return False, f"bwrap could not run: {err}"
    if done.returncode != 0:
        why = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "unknown error"
        return False, f"bwrap cannot create namespaces here ({why}); user namespaces may be off"
    return True, exe


def namespace_args() -> list[str]:
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
def private_env() -> str:
    """Return a file of the Python environment other users cannot read ("" when all are readable).

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
    paths.update(_editable_library())
    return sorted(paths)


def _editable_library() -> list[str]:
    """Return the package folder of the venv's editable install of the library, if any.

    The grader imports ``attention_lab`` from its working folder first; a kernel imports it
    from where the venv's install points. They differ when a course folder is another checkout
    than the one the venv was installed from (a fresh clone reusing a venv): the kernel then
    needs the installed one (a notebook's read-only cell may call the library there).
    """
    import json
    from importlib.metadata import PackageNotFoundError, distribution
    from urllib.parse import unquote, urlparse

    try:
        text = distribution("attention-lab").read_text("direct_url.json") or "{}"
        url = urlparse(json.loads(text).get("url", ""))
    except (PackageNotFoundError, ValueError, AttributeError):
        return []
    folder = os.path.join(unquote(url.path), "attention_lab") if url.scheme == "file" else ""
    return [os.path.realpath(folder)] if folder and os.path.isdir(folder) else []
