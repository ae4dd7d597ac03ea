"""Per-student variants in grading: whose numbers a test checks, and a classmate's numbers.

A read-only cell that calls ``variants.draw(...)`` (:mod:`attention_lab.variants`) is a
*variant cell*: it gives each student her own numbers. In the grader

* every read-only cell runs under the seed of the student the exchange says handed in
  (``resources["nbgrader"]["student"]``, never a name in her notebook), derived from the course
  key (:mod:`attention_grader.common.variant_key`), so the hidden tests recompute the expected
  answer and every misconception's wrong answer for *her* variant;
* what a variant cell binds is always the grader's: her cells may rebind ``K`` to a classmate's
  numbers, a test still reads her own (:func:`variant_names`);
* a test that fails without a misconception named on her own numbers is run again, with the
  same answers, against each classmate's variant (the gradebook's students, the ``submitted/``
  folders, and the practice numbers): when it passes there, the answer fits a classmate's
  numbers and not hers, and the notebook is flagged ``other_variant``, naming every variant
  it fits (:func:`classmate_match`); the score stays that of a wrong answer.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import io
import warnings
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

import numpy as np

from attention_grader.checking.locked_names import is_plain_data, locked_bindings
from attention_grader.checking.trusted_scope import private_builtins
from attention_grader.wire.cell_code import parse_cell, python_code
from attention_lab import variants
from attention_lab.variants import StudentSeed

__all__ = [
    "classmate_match",
    "classmates",
    "copied_cells",
    "draws_variant",
    "far_apart",
    "locked_namespace",
    "roster",
    "what_the_test_read",
    "variant_names",
    "variant_shown",
]


def draws_variant(source: str) -> bool:
    """Whether a read-only cell draws a variant (calls ``variants.draw`` or ``draw``)."""
    tree = parse_cell(source)
    if tree is None:
        return False
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr == "draw":
                if isinstance(func.value, ast.Name) and func.value.id == "variants":
                    return True
    return False


def variant_names(locked: Mapping[str, str]) -> frozenset[str]:
    """Return the names the variant cells among ``locked`` (grade_id -> source) bind."""
    return locked_bindings(s for s in locked.values() if draws_variant(s))[0]


def roster(db_url: str | None, submitted: Path | None) -> tuple[str, ...]:
    """Return the class: the gradebook's students and whoever has a ``submitted/`` folder.

    Both are ids the course trusts (collect checked each folder's owner); sorted.
    """
    found: set[str] = set()
    if db_url:
        from nbgrader.api import Gradebook

        with Gradebook(db_url) as gb:
            found.update(s.id for s in gb.students)
    if submitted is not None and submitted.is_dir():
        found.update(p.name for p in submitted.iterdir() if p.is_dir() and not p.is_symlink())
    return tuple(sorted(found))


def classmates(db_url: str | None, student: str | None, submitted: Path | None) -> tuple[str, ...]:
    """Return the other students of the :func:`roster` (``student`` left out), sorted."""
    if not student:
        return ()
    return tuple(s for s in roster(db_url, submitted) if s != student)


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    with (
        contextlib.redirect_stdout(io.StringIO()),
        contextlib.redirect_stderr(io.StringIO()),
        warnings.catch_warnings(),
        np.errstate(all="ignore"),
    ):
        warnings.simplefilter("ignore")
        yield


def _exec(source: str, scope: dict[str, object], label: str) -> None:
    exec(compile(python_code(source), label, "exec"), scope)  # noqa: S102 -- the teacher's code


def locked_namespace(locked: Mapping[str, str], seed: StudentSeed) -> dict[str, object] | None:
    """Run the read-only cells, in order, as ``seed``'s student; None if one of them fails."""
    scope: dict[str, object] = {"__name__": "__main__", "__builtins__": builtins}
    try:
        with _quiet(), variants.graded_as(seed):
            for grade_id, source in locked.items():
                _exec(source, scope, f"<read-only cell {grade_id}>")
    except Exception:  # noqa: BLE001 -- that classmate's numbers cannot be rebuilt: skip her
        return None
    return scope


def _passes(test: str, scope: dict[str, object], answers: Mapping[str, object]) -> bool:
    run = dict(scope)
    run.update(answers)
    run["__builtins__"] = private_builtins().__dict__
    try:
        with _quiet():
            _exec(test, run, "<test against a classmate's variant>")
    except Exception:  # noqa: BLE001 -- failed there too
        return False
    return True


#: Test cells that must fit one classmate's numbers before a notebook is flagged. One step of
#: small whole numbers has few possible values, so one cell fitting some classmate's happens by
#: chance in a class (the accuracy class of 26 showed it: a projection read by rows equalled a
#: classmate's right one); two cells fitting the same classmate's do not.
MIN_CELLS = 2


def copied_cells(
    matches: Mapping[str, tuple[StudentSeed, ...]],
) -> dict[str, tuple[StudentSeed, ...]]:
    """Keep the cells (grade_id -> seeds) fitting one classmate's in :data:`MIN_CELLS` or more.

    Each kept cell names only those of its classmates who reach :data:`MIN_CELLS`.
    """
    count: dict[StudentSeed, int] = {}
    for others in matches.values():
        for other in others:
            count[other] = count.get(other, 0) + 1
    kept = {
        gid: tuple(o for o in others if count[o] >= MIN_CELLS) for gid, others in matches.items()
    }
    return {gid: others for gid, others in kept.items() if others}


#: An answer further than this from a classmate's right one cannot pass her test: ten times
#: the hand checks' tolerances (:data:`attention_lab.checks._base.HAND_ATOL`), so a test that
#: accepts a little more than its check (rounding) is still run.
NEAR_ATOL, NEAR_RTOL = 0.06, 0.01


def _numbers(value: object) -> np.ndarray | None:
    if isinstance(value, bool | str) or value is None:
        return None
    try:
        return np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        return None


def far_apart(answers: Mapping[str, object], right: Mapping[str, object]) -> bool:
    """Whether a numeric answer is far from the same name's right value (same shape only).

    Text, a choice, a name ``right`` lacks or a shape other than the right one's: not far
    (the test decides).
    """
    for name, value in answers.items():
        mine, theirs = _numbers(value), _numbers(right.get(name))
        if mine is None or theirs is None or mine.shape != theirs.shape:
            continue
        if not np.allclose(mine, theirs, rtol=NEAR_RTOL, atol=NEAR_ATOL, equal_nan=True):
            return True
    return False


def classmate_match(
    locked: Mapping[str, str],
    test: str,
    answers: Mapping[str, object],
    others: Iterable[StudentSeed],
    scopes: dict[StudentSeed, dict[str, object] | None] | None = None,
    right: Mapping[StudentSeed, Mapping[str, object]] | None = None,
) -> tuple[StudentSeed, ...]:
    """Return every classmate's seed, in ``others``' order, whose variant ``test`` passes.

    The seeds, not names: the practice variant is a seed (:data:`~attention_lab.variants.PRACTICE`)
    that a student whose id happens to be "practice" is not.

    Every one, not the first: where the practice numbers and a classmate's coincide on a
    question, answers fitting both may be a laptop's work or a copy, and naming only one of
    them would hide the other from the teacher (or accuse a classmate for a laptop's work).
    Only answers that are plain data are tried (a student's function would run again in her
    kernel, on a classmate's inputs). ``scopes`` keeps each classmate's read-only namespace
    between the tests of one notebook (drawing a variant may take many draws); ``right``,
    each classmate's right answers where known
    (:class:`~attention_grader.checking.classmate_table.ClassmateTable`): the test is not run
    on a classmate whose right answers are :func:`far_apart` from ``answers``.
    """
    if not answers or not all(is_plain_data(v) for v in answers.values()):
        return ()
    scopes = {} if scopes is None else scopes
    found = []
    for seed in others:
        if right is not None and seed in right and far_apart(answers, right[seed]):
            continue  # cannot pass there: no need to rebuild her numbers and run the test
        if seed not in scopes:
            scopes[seed] = locked_namespace(locked, seed)
        scope = scopes[seed]
        if scope is not None and _passes(test, scope, answers):
            found.append(seed)
    return tuple(found)


def variant_shown(source: str, namespace: Mapping[str, object], student: str) -> str:
    """Return the numbers a variant cell drew in the grader, as text for the graded notebook.

    The formgrader and the feedback show them in place of what her kernel printed: the
    teacher sees the numbers her answers were checked against, next to those answers.
    """
    lines = [f"The numbers of {student}'s variant, as the grader drew them:"]
    for name in sorted(locked_bindings([source])[1]):
        value = namespace.get(name)
        if isinstance(value, np.ndarray | int | float | list | tuple):
            shown = np.asarray(value).tolist() if not isinstance(value, int | float) else value
            lines.append(f"{name} = {shown}")
    return "\n".join(lines) + "\n"


def what_the_test_read(
    source: str,
    namespace: Mapping[str, object],
    drawn: frozenset[str],
    answers: Mapping[str, object],
) -> tuple[dict[str, object], dict[str, object]]:
    """Return the student's numbers a test reads and her answers it read, both as data.

    Parameters
    ----------
    source : str
        The test's code (the gradebook's).
    namespace : mapping
        The grader's namespace, where the variant cells drew her numbers.
    drawn : frozenset of str
        The names the variant cells bind (:func:`variant_names`).
    answers : mapping
        What her kernel gave the test (only plain data is kept: no handle, no module).

    Returns
    -------
    numbers, answers : dict
        Name -> value, for :func:`attention_grader.common.variant_record.record_variant`.
    """
    tree = parse_cell(source)
    read = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} if tree else set()
    numbers = {
        name: namespace[name]
        for name in sorted(read & drawn)
        if name in namespace and isinstance(namespace[name], np.ndarray | int | float | list)
    }
    given = {k: v for k, v in answers.items() if is_plain_data(v)}
    return numbers, given
