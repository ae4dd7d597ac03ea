"""What a test run builds once for all its processes (the executed lessons), in one folder.

``make test`` runs on two pytest-xdist workers, and each used to execute the lessons for itself
(a ``functools.cache`` holds only within one process). :func:`once_per_run` builds a thing once
per run, whichever process asks first, into a folder of :func:`run_folder`; the others wait on
its file lock and read what it wrote. tests/conftest.py makes the folder on the controller and
names it in :data:`RUN_FOLDER_ENV`, which every worker inherits; without it (a module imported
outside pytest) each process gets a folder of its own.

Its own module, with no import of the course's code: tests/test_xdist_groups.py copies
tests/conftest.py into a scratch project.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar, cast

T = TypeVar("T")

#: The environment variable naming the run's folder (set by tests/conftest.py's controller).
RUN_FOLDER_ENV = "ATTENTION_LAB_TEST_RUN_FOLDER"
#: The file in a thing's folder that says its build finished.
DONE = "done"
_read: dict[tuple[str, str], object] = {}


def new_run_folder() -> Path:
    """A fresh folder for one run, named in the environment (for the processes started later)."""
    folder = Path(tempfile.mkdtemp(prefix="attention-lab-run-"))
    os.environ[RUN_FOLDER_ENV] = str(folder)
    return folder


def remove_run_folder(folder: Path) -> None:
    """Remove what :func:`new_run_folder` made."""
    shutil.rmtree(folder, ignore_errors=True)
    if os.environ.get(RUN_FOLDER_ENV) == str(folder):
        del os.environ[RUN_FOLDER_ENV]


def run_folder() -> Path:
    """The run's folder (this process's own when no run named one)."""
    if RUN_FOLDER_ENV not in os.environ:
        new_run_folder()
    return Path(os.environ[RUN_FOLDER_ENV])


def once_per_run(key: str, build: Callable[[Path], None], read: Callable[[Path], T]) -> T:
    """``read(folder)`` after ``build(folder)`` ran once in this run, in whichever process first.

    Parameters
    ----------
    key : str
        Names the thing (its folder under :func:`run_folder`, and its lock).
    build : callable
        ``build(folder)`` writes the thing into the empty ``folder``. When it raises, nothing is
        kept and the next process to ask builds it again (as ``functools.cache`` would).
    read : callable
        ``read(folder)`` returns the thing from what ``build`` wrote; called once per process.
    """
    root = run_folder()
    if (str(root), key) in _read:
        return cast(T, _read[(str(root), key)])
    folder = root / key
    with open(root / f"{key}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not (folder / DONE).exists():
            shutil.rmtree(folder, ignore_errors=True)  # what a failed build left
            folder.mkdir()
            build(folder)
            (folder / DONE).touch()
    thing = _read[(str(root), key)] = read(folder)
    return thing
