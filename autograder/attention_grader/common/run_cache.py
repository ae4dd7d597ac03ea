"""What one grading run reads once: the teacher's side of a notebook, the same for every submission.

A grading worker of ``make grade`` (:func:`attention_grader.batch.speedups.nbgrader_speedups`)
grades one assignment over a gradebook copy no one else writes; inside it :func:`read_once` keeps
what it read (the teacher's cells in the gradebook, the ``source/`` notebook and what is parsed
from them), so every submission and every grading child forked after the first read shares it.
Outside a worker (plain ``nbgrader autograde``, the formgrader) nothing is kept: each call reads.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

__all__ = ["keeping", "read_once", "reading_once"]

_T = TypeVar("_T")
#: One dict per :func:`keeping` block that is open (the innermost last).
_KEPT: list[dict[tuple[str, ...], Any]] = []


@contextlib.contextmanager
def keeping() -> Iterator[None]:
    """Inside, :func:`read_once` keeps what it reads; on exit it is forgotten."""
    _KEPT.append({})
    try:
        yield
    finally:
        _KEPT.pop()


def reading_once() -> bool:
    """Whether :func:`read_once` keeps what it reads (inside :func:`keeping`)."""
    return bool(_KEPT)


def read_once(key: tuple[str, ...], read: Callable[[], _T]) -> _T:
    """Return ``read()``, read once inside :func:`keeping` for ``key``; outside it, every time.

    ``key`` names what is read (its kind, the gradebook, assignment and notebook). Callers never
    change what they get.
    """
    if not _KEPT:
        return read()
    kept = _KEPT[-1]
    if key not in kept:
        kept[key] = read()
    result: _T = kept[key]
    return result
