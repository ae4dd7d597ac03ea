"""The trusted checker of one notebook, and what the teacher's source says about the notebook.

:class:`~attention_grader.executor.execute.GradingExecute` grades a notebook's tests with a
:class:`~attention_grader.checking.trusted.TrustedChecker`. :func:`notebook_checker` builds it
from the teacher's cells (read from the gradebook, or given directly by the release check) and
reads, from the teacher's notebook in ``source/`` (never the submission), the tests marked to
run in the student's kernel and whether the notebook asks for an implementation (its kernel
then has no library). From the student's cells it reads what of the library they rebind;
:meth:`NotebookChecker.record` turns what the checker found into the notebook's flags.
"""

from __future__ import annotations

import ast
import contextlib
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nbformat import NotebookNode
from traitlets.config import Config

from attention_grader.channel.answer_channel import AnswerChannel, RunRequest
from attention_grader.checking.classmate_table import ClassmateTable, build_table
from attention_grader.checking.kernel_tests import kernel_test_ids
from attention_grader.checking.locked_names import student_changes
from attention_grader.checking.needs_teacher import record_cells
from attention_grader.checking.trusted import TrustedChecker
from attention_grader.checking.trusted_cells import TrustedCells, load_trusted_cells
from attention_grader.checking.variant_grading import (
    classmates,
    copied_cells,
    roster,
    variant_names,
)
from attention_grader.common.flags import (
    KERNEL_TEST,
    LIBRARY_USE,
    MONKEYPATCH,
    OTHER_VARIANT,
    REBOUND_DATA,
    SHARED_ANSWER,
    UNREADABLE_ANSWER,
    Flag,
)
from attention_grader.common.run_cache import read_once, reading_once
from attention_grader.common.variant_key import student_seed
from attention_grader.config.course import source_dirs, source_notebook
from attention_grader.config.settings import answer_limits
from attention_grader.executor.library_flags import STUB_SEEN, library_flags, stub_seen
from attention_grader.sandbox.implement_it import is_implement_it
from attention_grader.wire.cell_code import answer_names, parse_cell
from attention_lab.variants import PRACTICE, StudentSeed

__all__ = [
    "NotebookChecker",
    "keep_teacher_side",
    "kernel_seed",
    "library_hidden",
    "notebook_checker",
    "rebound_libraries",
]


@dataclass(frozen=True)
class NotebookChecker:
    """The checker of one notebook and what grading it must know besides.

    Parameters
    ----------
    checker : TrustedChecker
        Runs the notebook's tests in the grader against the answers read from the kernel.
    kernel_tests : frozenset of str
        grade_ids of the tests the teacher's source marks to run in the student's kernel.
    hide_library : bool
        An implement-it notebook: its kernel gets no library.
    library_flags : tuple of str
        What the student's cells show of the library, statically (implement-it only).
    rebound_libraries : tuple of str
        Names the released notebook imports that the student's cells assign or define again.
    variant_seed : str
        The student's variant seed as her graded kernel gets it (``SEED_ENV``), "" for the
        practice numbers (:mod:`attention_grader.checking.variant_grading`).
    """

    checker: TrustedChecker
    kernel_tests: frozenset[str]
    hide_library: bool
    library_flags: tuple[str, ...]
    rebound_libraries: tuple[str, ...]
    variant_seed: str = ""

    def record(self, nb: NotebookNode, name: str, kernel_graded: list[str]) -> list[Flag]:
        """Record the cells needing a teacher in ``nb``; return what else the checker found.

        ``name`` names the notebook in the flags; ``kernel_graded`` are the grade_ids of the
        tests that ran in the student's kernel (the teacher's mark).
        """
        flags = [Flag(UNREADABLE_ANSWER, f"{name}/{u}") for u in self.checker.unreadable]
        flags += [
            Flag(MONKEYPATCH, f"{name}: rebinds `{n}`, which the notebook imports (the "
                 "tests use the library's own)")
            for n in self.rebound_libraries
        ]  # fmt: skip
        flags += [
            Flag(REBOUND_DATA, f"{name}: the tests read the student's `{n}`, which a read-only "
                 "cell binds and her code changes")
            for n in self.checker.rebound_data
        ]  # fmt: skip
        flags += [
            Flag(OTHER_VARIANT, f"{name}/{gid}: the answer fits the numbers of "
                 + " and of ".join(map(_whose, others)) + ", not the student's own")
            for gid, others in copied_cells(self.checker.other_variant).items()
        ]  # fmt: skip
        flags += [
            Flag(SHARED_ANSWER, f"{name}/{gid}: the answer is right on the student's own "
                 "numbers and on " + " and on ".join(map(_whose, others)) + " too")
            for gid, others in self.checker.shared_answer.items()
        ]  # fmt: skip
        record_cells(nb, name, self.checker.needs_teacher)
        flags += [
            Flag(KERNEL_TEST, f"{name}/{gid}: graded in the student's kernel (the teacher's "
                 "mark): the student's code could change this result")
            for gid in kernel_graded
        ]  # fmt: skip
        if self.hide_library:
            flags += [Flag(LIBRARY_USE, f"{name}: {d}") for d in self.library_flags]
            flags += [Flag(LIBRARY_USE, f"{name}/{c}: {STUB_SEEN}") for c in stub_seen(nb)]
        return flags


def _whose(other: StudentSeed) -> str:
    if other.practice:
        return "the practice variant (worked without the hub's seed, e.g. on a laptop)"
    return f"{other.student}'s variant"


def teacher_side(
    info: dict[str, Any], config: Config, log: logging.Logger
) -> tuple[NotebookNode | None, TrustedCells]:
    """Return the teacher's ``source/`` notebook and cells of the notebook ``info`` names.

    The same for every submission: a grading worker reads them once (:func:`read_once`), before
    it forks the child that grades (:meth:`GradingExecute.preprocess`).
    """
    db_url, assignment, notebook = info["db_url"], info["assignment"], info["notebook"]

    def read() -> tuple[NotebookNode | None, TrustedCells]:
        source = source_notebook(assignment, notebook, config, log)
        return source, load_trusted_cells(db_url, assignment, notebook, source)

    return read_once(("teacher_side", db_url, assignment, notebook), read)


def keep_teacher_side(
    resources: dict[str, Any] | None,
    config: Config,
    log: logging.Logger,
    budget: float = 0.0,
) -> None:
    """Read the teacher's side of the notebook ``resources`` name now, where it is kept.

    In a grading worker (:func:`~attention_grader.common.run_cache.reading_once`), before it
    forks the child that grades: every child inherits it, and, for a notebook that draws each
    student's numbers, each classmate's variant worked once (:func:`classmate_table`, in at
    most a quarter of ``budget``, the submission's seconds; 0: no table). Elsewhere nothing
    is kept.
    """
    info = (resources or {}).get("nbgrader", {})
    if reading_once() and all(info.get(k) for k in ("db_url", "assignment", "notebook")):
        source, cells = teacher_side(info, config, log)
        if variant_names(cells.locked) and budget > 0:
            try:
                classmate_table(info, cells, source, config, budget / 4)
            except Exception as exc:  # noqa: BLE001 -- each classmate is then tried one by one
                log.debug("no classmates' table for %s: %s", info["notebook"], exc)


def notebook_checker(
    nb: NotebookNode,
    resources: dict[str, Any] | None,
    trusted_cells: TrustedCells | None,
    run_request: RunRequest,
    config: Config,
    log: logging.Logger,
) -> NotebookChecker | None:
    """Return the checker of ``nb``, or None when there are no teacher's cells to grade with.

    Parameters
    ----------
    nb : NotebookNode
        The (sanitised) submitted notebook.
    resources : dict or None
        nbgrader's resources: ``resources["nbgrader"]`` names the gradebook, assignment and
        notebook.
    trusted_cells : TrustedCells or None
        The teacher's cells when given directly (the release check grades a source notebook
        before any gradebook has it); None reads them from the gradebook.
    run_request : callable
        Runs one hidden request in the student's kernel (the answer channel's transport).
    config : Config
        The course config (the answer reader's caps, the course directory).
    log : logging.Logger
        Where a teacher's notebook that cannot be read is reported.
    """
    info = (resources or {}).get("nbgrader", {})
    cells = trusted_cells
    if cells is None:
        if not all(info.get(k) for k in ("db_url", "assignment", "notebook")):
            return None  # not autograde (e.g. a test calling preprocess directly): no tests
        source, cells = teacher_side(info, config, log)
    else:
        source = nb  # the release check grades the teacher's own notebook
    # The teacher's last resort, read from source/ only (docs/authoring.md).
    kernel_tests = frozenset(kernel_test_ids(source, cells.tests))
    students = [
        c.source
        for c in nb.cells
        if c.cell_type == "code"
        and c.metadata.get("nbgrader", {}).get("grade_id") not in (*cells.tests, *cells.locked)
    ]
    folders = source_dirs(info.get("assignment") or "", config)
    hide_library = library_hidden(cells, info, config)
    flags: list[str] = []
    if hide_library:  # the static reading is a flag only: the kernel has no library
        graded = sorted({n for source in cells.tests.values() for n in answer_names(source)})
        flags = library_flags(students, graded)
    checker = TrustedChecker(cells, AnswerChannel(run_request, answer_limits(config)), folders)
    # What a variant cell binds is always the grader's: her K may be a classmate's numbers.
    drawn = variant_names(cells.locked)
    checker.student_data = student_changes(students, cells.locked_data - cells.answers - drawn)
    checker.drawn = drawn
    seed_text = _variants(checker, info, config, source) if drawn else ""
    return NotebookChecker(
        checker,
        kernel_tests,
        hide_library,
        tuple(flags),
        tuple(rebound_libraries(students, cells.libraries)),
        seed_text,
    )


def library_hidden(cells: TrustedCells, info: dict[str, Any], config: Config) -> bool:
    """Whether the notebook ``info`` names asks for an implementation (its kernel: no library)."""
    folders = source_dirs(info.get("assignment") or "", config)
    notebook = info.get("notebook")
    source_nb = Path(folders[0], f"{notebook}.ipynb") if folders and notebook else None
    return is_implement_it(cells.tests.values(), source_nb)


def kernel_seed(cells: TrustedCells, student: str | None, config: Config) -> str:
    """Return the variant seed text the student's kernel gets ("" for the practice numbers)."""
    if not variant_names(cells.locked):
        return ""
    seed = student_seed(config, student)
    return "" if seed.practice else seed.to_text()


def _submitted(config: Config) -> Path:
    root = Path(config.CourseDirectory.get("root") or ".")
    return root / str(config.CourseDirectory.get("submitted_directory") or "submitted")


def classmate_table(
    info: dict[str, Any],
    cells: TrustedCells,
    source: NotebookNode | None,
    config: Config,
    seconds: float = 0.0,
) -> ClassmateTable | None:
    """Each classmate's variant of the notebook ``info`` names, worked once per grading worker.

    None outside a worker (:func:`~attention_grader.common.run_cache.reading_once`): there each
    classmate is tried one by one, as building the table would cost more for one submission.
    The first call builds it, in at most ``seconds`` (the worker's, before it forks: see
    :func:`keep_teacher_side`); a grading child looks it up (0: it adds no classmate if the
    worker kept none). Classmates the build did not reach are tried one by one.
    """
    if not reading_once():
        return None
    assignment = str(info.get("assignment") or "")

    def build() -> ClassmateTable:
        ids = roster(info.get("db_url"), _submitted(config))
        seeds = [PRACTICE, *(student_seed(config, s) for s in ids)]
        names = {n for test in cells.tests.values() for n in answer_names(test)}
        folders = [str(d) for d in source_dirs(assignment, config)]
        return build_table(cells.locked, source, seeds, names, folders, seconds)

    key = ("classmate_table", str(info.get("db_url")), assignment, str(info.get("notebook")))
    return read_once(key, build)


def _variants(
    checker: TrustedChecker, info: dict[str, Any], config: Config, source: NotebookNode | None
) -> str:
    """Give the checker the student's seed and her classmates'; return her kernel's seed text."""
    student = info.get("student")
    checker.variant_seed = student_seed(config, student)
    if checker.variant_seed.practice:
        return ""
    others = classmates(info.get("db_url"), student, _submitted(config))
    # The practice numbers too: her answers worked on a laptop without the hub's seed.
    checker.classmate_seeds = (PRACTICE, *(student_seed(config, other) for other in others))
    with contextlib.suppress(Exception):  # without it each classmate is tried one by one
        checker.classmate_table = classmate_table(info, checker.cells, source, config)
    return checker.variant_seed.to_text()


def rebound_libraries(student_sources: list[str], libraries: dict[str, str]) -> list[str]:
    """Names the released notebook imports that the student's cells assign or define again."""
    found = []
    for tree in filter(None, map(parse_cell, student_sources)):
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
                name = node.id
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                name = node.name
            else:
                continue
            if name in libraries and name not in found:
                found.append(name)
    return found
