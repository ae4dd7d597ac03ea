"""Implement-it notebooks: their graded kernel has no working library to hand in.

When a question asks the student to implement softmax or attention, reading the student's
code for library calls can always be evaded (an annotated assignment, a walrus, ``importlib``,
``exec(open(path).read())`` ...). So the kernel that grades such a notebook does not see the
library at all: bubblewrap mounts a stub (``library_stub/attention_lab``: inert checks, every
other name is a stand-in raising ``LibraryHidden`` when used) over ``attention_lab``'s folder and an empty folder over
any other finished implementation installed (:data:`HIDDEN_ROOTS`). Handing in the library
then earns what a blank earns; the stub's message in an output is flagged ``library_use``, as
is what the static reading of the source finds (:func:`attention_grader.executor.library_use.library_in_source`,
a flag only). The lessons' kernels and the other assignments' keep the library.

A notebook is implement-it when, in the teacher's own copy (the gradebook and ``source/``, never
the submission): a test cell calls one of :data:`IMPLEMENT_IT_CHECKS`, or a cell of the source
notebook carries the tag :data:`IMPLEMENT_IT_TAG`.
"""

from __future__ import annotations

import ast
import functools
import importlib.util
import os
import subprocess
from collections.abc import Iterable
from pathlib import Path

import nbformat

from attention_lab.checks._library import FORBIDDEN_ROOTS, HIDDEN_LIBRARY

__all__ = [
    "HIDDEN_ROOTS",
    "IMPLEMENT_IT_CHECKS",
    "IMPLEMENT_IT_TAG",
    "STUB_FOLDER",
    "STUB_MARKER",
    "hidden_library_mounts",
    "is_implement_it",
    "kernel_library_folders",
]

#: Cell tag a teacher puts on a question (in source/) to grade its notebook without the library.
IMPLEMENT_IT_TAG = "implement-it"
#: attention_lab.checks functions that check a student's own implementation.
IMPLEMENT_IT_CHECKS = frozenset(
    {
        "check_function",
        "check_softmax_function",
        "check_attention_function",
        "check_causal_mask_function",
    }
)
#: What replaces ``attention_lab`` in such a kernel.
STUB_FOLDER = Path(__file__).with_name("library_stub") / "attention_lab"
#: The start of every ``LibraryHidden`` message (the stub's ``MARKER``, the checks' own copy).
STUB_MARKER = HIDDEN_LIBRARY
#: Other finished implementations hidden too, when installed (each an empty folder instead): the
#: checks' forbidden libraries (one list, ``attention_lab.checks.FORBIDDEN_ROOTS``) but the stub's.
HIDDEN_ROOTS = tuple(root for root in FORBIDDEN_ROOTS if root != "attention_lab")


def _calls_implement_check(source: str) -> bool:
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return False
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in IMPLEMENT_IT_CHECKS:
                return True
    return False


def _tagged(source_notebook: Path | None) -> bool:
    if source_notebook is None or not source_notebook.is_file():
        return False
    try:
        nb = nbformat.read(source_notebook, as_version=4)
    except Exception:  # noqa: BLE001 -- the teacher's file; nbgrader reports it elsewhere
        return False
    return any(IMPLEMENT_IT_TAG in cell.metadata.get("tags", []) for cell in nb.cells)


def is_implement_it(tests: Iterable[str], source_notebook: Path | None = None) -> bool:
    """Whether a notebook asks for an implementation (see the module doc).

    Parameters
    ----------
    tests : iterable of str
        Sources of the notebook's test cells, from the gradebook.
    source_notebook : Path, optional
        The teacher's notebook in ``source/``.
    """
    return any(_calls_implement_check(s) for s in tests) or _tagged(source_notebook)


def _package_folders(root: str) -> list[str]:
    """Real folders of an installed top-level package (nothing imported), or []."""
    try:
        spec = importlib.util.find_spec(root)
    except (ImportError, ValueError):
        return []
    locations = (spec.submodule_search_locations or []) if spec else []
    return sorted({os.path.realpath(p) for p in locations if os.path.isdir(p)})


#: Run by the kernel's own interpreter: every folder it would import ``attention_lab`` from
#: (its finder's answer, and an ``attention_lab`` folder in any entry of its ``sys.path``).
_WHERE_THE_KERNEL_IMPORTS = """
import importlib.util, os, sys
spec = importlib.util.find_spec("attention_lab")
found = set(spec.submodule_search_locations or []) if spec else set()
found |= {os.path.join(p, "attention_lab") for p in sys.path if p}
print("\\n".join(sorted(p for p in found if os.path.isdir(p))))
"""


@functools.lru_cache(maxsize=8)
def kernel_library_folders(interpreter: str) -> tuple[str, ...]:
    """Real folders the kernel's interpreter imports ``attention_lab`` from (cached per interpreter).

    The grader's own import may differ: run in a course checkout, it finds the checkout's
    ``attention_lab/`` first, while the kernel (another working folder, the venv's
    ``sys.path``) imports the installed copy. So the kernel's interpreter is asked, from ``/``
    (no course folder on its path) and with an environment as bare as the kernel's.
    """
    try:
        done = subprocess.run(
            [interpreter, "-c", _WHERE_THE_KERNEL_IMPORTS],
            cwd="/",
            env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
            capture_output=True,
            text=True,
            timeout=120,
        )
    except (OSError, subprocess.TimeoutExpired):
        return ()
    return tuple(sorted({os.path.realpath(p) for p in done.stdout.splitlines() if p.strip()}))


def hidden_library_mounts(interpreter: str | None = None) -> list[tuple[str, str | None]]:
    """``(folder, replacement)`` to mount in an implement-it kernel; None = an empty folder.

    Every folder ``attention_lab`` may come from gets the stub: the grader's own import and
    what the kernel's ``interpreter`` imports (:func:`kernel_library_folders`).
    """
    import attention_lab

    folders = {os.path.realpath(p) for p in attention_lab.__path__ if os.path.isdir(p)}
    if interpreter:
        folders |= set(kernel_library_folders(interpreter))
    mounts: list[tuple[str, str | None]] = [(f, str(STUB_FOLDER)) for f in sorted(folders)]
    mounts += [(folder, None) for root in HIDDEN_ROOTS for folder in _package_folders(root)]
    return mounts
