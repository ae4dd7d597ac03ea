"""The namespace a trusted test runs in: the grader's own libraries and a private builtins.

* :func:`library` resolves a name the released notebook imports (``assert_allclose`` from
  ``from numpy.testing import assert_allclose``) to the grader's own object. The student's
  binding of that name is never asked for, so rebinding it (``assert_allclose = lambda *a: None``)
  changes nothing.
* :func:`private_builtins` gives a test its own copy of the ``builtins`` module: a test that
  patches ``builtins.max`` patches the copy, which its own code sees, and never the grader's
  (whose answer channel and checks keep the real ones).
* :func:`teacher_exception` finds an exception class the teacher's read-only cells define, so an
  error the student's code raises in the kernel arrives as that class.
"""

from __future__ import annotations

import builtins
import importlib
import types
from collections.abc import Mapping, Sequence

__all__ = ["library", "patched_builtins", "private_builtins", "teacher_exception"]


class LibraryUnavailable(Exception):
    """The grader cannot import a library the released notebook imports."""


def library(path: str) -> object:
    """Return the grader's own object for a dotted path (``"numpy.testing.assert_allclose"``)."""
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        try:
            for attr in parts[cut:]:
                obj = getattr(obj, attr)
        except AttributeError:
            break
        return obj
    raise LibraryUnavailable(f"the grader cannot import {path}")


def private_builtins() -> types.ModuleType:
    """Return a copy of ``builtins`` whose ``import builtins`` gives the copy back."""
    copy = types.ModuleType("builtins")
    copy.__dict__.update(builtins.__dict__)
    real_import = builtins.__import__

    def _import(
        name: str,
        globals: Mapping[str, object] | None = None,  # noqa: A002
        locals: Mapping[str, object] | None = None,  # noqa: A002
        fromlist: Sequence[str] = (),
        level: int = 0,
    ) -> types.ModuleType:
        if name == "builtins" and level == 0:
            return copy
        return real_import(name, globals, locals, fromlist, level)

    copy.__import__ = _import  # type: ignore[attr-defined]  # a ModuleType takes any attribute
    return copy


def patched_builtins(copy: types.ModuleType) -> list[str]:
    """Names a test changed in its copy of builtins (``["builtins.max"]``)."""
    real = builtins.__dict__
    changed = [
        name
        for name, value in copy.__dict__.items()
        if name not in ("__import__", "__name__", "__doc__", "__spec__", "__loader__")
        and real.get(name, object()) is not value
    ]
    return [f"builtins.{name}" for name in sorted(changed)]


def teacher_exception(namespace: dict[str, object], name: str) -> type | None:
    """Return the exception class ``name`` of the teacher's cells (or their imports), or None."""
    value = namespace.get(name)
    if isinstance(value, type) and issubclass(value, BaseException):
        if getattr(builtins, name, None) is not value:  # builtins are mapped by answer_errors.py
            return value
    return None
