"""Each classmate's numbers and right answers, worked once per grading run, not per submission.

Grading tries a student's answers on each classmate's variant (``other_variant`` for a failed
test, ``shared_answer`` for a passed one: :mod:`attention_grader.checking.variant_grading`).
Done naively, each submission rebuilds every classmate's read-only namespace and runs each
varied test on each of them: a cost per submission that grows with the class, so the class's
grows with its square.

A grading worker (:func:`~attention_grader.common.run_cache.read_once`) instead builds one
:class:`ClassmateTable` per notebook before it forks its first grading child, whom every child
inherits: each classmate's read-only namespace, and her right answers (the teacher's source
notebook, solutions in, run as her). A submission's answers are then compared with each
classmate's right answers
(:func:`~attention_grader.checking.variant_grading.far_apart`), and the test runs only on the classmates whose
right answers are near hers; the test still decides, so flags and points are what trying every
classmate gives. Outside a worker (plain ``nbgrader autograde``) there is no table: every
classmate is tried, as before.
"""

from __future__ import annotations

import io
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from nbformat import NotebookNode

from attention_grader.checking.cell_outputs import quiet_run
from attention_grader.checking.locked_names import is_plain_data
from attention_grader.checking.variant_grading import locked_namespace
from attention_grader.checking.variant_runs import code_cells, run_as
from attention_lab.variants import StudentSeed

__all__ = ["ClassmateTable", "build_table"]


@dataclass(frozen=True)
class ClassmateTable:
    """Every classmate's variant, worked once.

    Attributes
    ----------
    scopes : mapping of StudentSeed to dict or None
        Her read-only cells' namespace (None where they fail on her numbers).
    right : mapping of StudentSeed to mapping of str to object
        Her right answers, by name (only the names tests read, only plain data); a classmate
        missing here (no source notebook, or its solution failed on her numbers) is tried.
    """

    scopes: Mapping[StudentSeed, dict[str, object] | None]
    right: Mapping[StudentSeed, Mapping[str, object]]


def build_table(
    locked: Mapping[str, str],
    source: NotebookNode | None,
    seeds: Iterable[StudentSeed],
    names: Iterable[str],
    import_dirs: list[str],
    seconds: float | None = None,
) -> ClassmateTable:
    """Work each of ``seeds``' variants: the read-only namespace, and the right ``names``.

    Parameters
    ----------
    locked : mapping of str to str
        The read-only cells (grade_id -> code), in order, as the gradebook holds them.
    source : NotebookNode or None
        The teacher's source notebook (solutions in); None gives no right answers.
    seeds : iterable of StudentSeed
        The class: the practice seed and each student's.
    names : iterable of str
        The answers the notebook's tests read.
    import_dirs : list of str
        Where the course's own modules are imported from (the source folder).
    seconds : float, optional
        Stop adding classmates after this long (a slow solution times a large class): those
        left out are tried one by one, so only the cost changes, never what is found.
    """
    stop = None if seconds is None else time.monotonic() + seconds
    wanted = set(names)
    cells = code_cells(source) if source is not None else []
    scopes: dict[StudentSeed, dict[str, object] | None] = {}
    right: dict[StudentSeed, Mapping[str, object]] = {}
    with quiet_run(io.StringIO(), io.StringIO(), import_dirs):
        for seed in dict.fromkeys(seeds):
            if stop is not None and time.monotonic() >= stop:
                break
            scopes[seed] = locked_namespace(locked, seed)
            if not cells:
                continue
            failure, _, scope = run_as(cells, seed)
            if failure is None:
                right[seed] = {
                    n: scope[n] for n in wanted if n in scope and is_plain_data(scope[n])
                }
    return ClassmateTable(scopes, right)
