"""Check before release: the teacher's own solution must get every point through the real pipeline.

Trusted checking runs tests outside the student's kernel; a test written in a style it cannot
carry would mark correct answers wrong (or wrong ones right). So before an assignment is
released, :class:`CheckSolution` (a step of ``nbgrader generate_assignment`` with the course
config, hence of ``make release`` too) grades the source notebook, solutions filled in, with
the course's executor (:class:`~attention_grader.executor.execute.GradingExecute`: sandboxed kernel,
tests in the grader) and refuses to release while any test cell

* loses points on its own solution, or
* is written in a style trusted checking cannot follow
  (:func:`~attention_grader.checking.test_styles.uncarried_styles`), or
* for a notebook that draws each student's numbers, loses points, ties or cannot tell two
  misconceptions apart, or accepts a misconception's wrong answer as right, on one of
  :attr:`CheckSolution.variant_samples` sample students' variants
  (:mod:`~attention_grader.batch.variant_family`), or accepts one sample student's
  right answer on another's numbers in more than :attr:`CheckSolution.variant_collision_rate`
  of :attr:`CheckSolution.variant_pairs` pairs (:mod:`~attention_grader.batch.variant_collisions`),

printing, under one heading per kind of cause with what to do about it
(:mod:`~attention_grader.batch.refusals`), each cell's grade_id and the cause (``test_stack: `Stack` is a class (Stack): the
test needs the student's object, which stays in their kernel``). docs/authoring.md lists the
styles and how to rewrite one.
"""

from __future__ import annotations

import copy
import re
from logging import Logger
from pathlib import Path
from typing import Any

import nbformat
from nbformat import NotebookNode
from nbgrader import utils as nbutils
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Bool, Float, Integer
from traitlets.config import Config

from attention_grader.batch.refusals import Refusal, refusal_message
from attention_grader.checking.trusted_cells import (
    TrustedCells,
    solution_and_plain_cells,
    trusted_cells_of,
)
from attention_grader.common.flags import GRADER_METADATA
from attention_grader.executor.execute import LOCKED_FAILED, GradingExecute

__all__ = [
    "CheckSolution",
    "Refusal",
    "SolutionRefused",
    "check_course",
    "check_notebook",
    "refusal_message",
]


class SolutionRefused(Exception):
    """The release check refuses; the message lists each cause under its kind's heading."""


def notebook_cells(nb: NotebookNode) -> TrustedCells:
    """Return the teacher's cells of a source notebook, as the gradebook will hold them."""
    tests: dict[str, str] = {}
    locked: dict[str, str] = {}
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        meta = cell.metadata.get("nbgrader", {})
        grade_id = meta.get("grade_id")
        if meta.get("solution"):
            continue
        if meta.get("grade") and grade_id:
            tests[grade_id] = cell.source
        elif meta.get("locked") and grade_id:
            locked[grade_id] = cell.source
    return trusted_cells_of(solution_and_plain_cells(nb), tests, locked)


#: The way out of a refusal whose cause names none.
WAY_OUT = (
    "rewrite the test to compare the student's plain values, or mark the cell "
    '`"attention_grader": {"run_in_kernel": true}` (docs/authoring.md, "Test styles")'
)


def _with_way_out(cause: str) -> str:
    return cause if "run_in_kernel" in cause else f"{cause}: {WAY_OUT}"


#: A test that seeds a generator in the grader while the student's code draws in the kernel.
_SEEDS = re.compile(r"\b(random\.seed|manual_seed)\s*\(")


def _cause(cell: NotebookNode, test: str) -> str:
    for out in cell.get("outputs", []):
        if out.get("output_type") == "error":
            what = f"{out.get('ename', 'Error')}: {str(out.get('evalue', ''))[:300]}".rstrip(": ")
            if _SEEDS.search(test):
                return (
                    f"the test fails on your own solution ({what}): it seeds a random "
                    "generator in the grader, but the student's code draws from the one in "
                    "their kernel: pass a seed or a generator to the student's function, or "
                    "mark the cell run_in_kernel"
                )
            return (
                f"the test fails on your own solution ({what}): run the source notebook top to "
                "bottom to see whether the solution or the test is wrong, or, if the test "
                "passes there and needs the student's kernel, mark it run_in_kernel"
            )
        if out.get("output_type") == "stream" and out.get("name") == "stderr":
            return (
                "the test wrote to stderr on your own solution (nbgrader gives such a cell 0): "
                "silence the warning or the message the solution or the test prints there"
            )
    return (
        "the test gave partial credit on your own solution: make it return the cell's full "
        "points (or nothing) for a right answer"
    )


def _grade_of(cell: NotebookNode) -> tuple[float | None, float, str | None]:
    """Return the cell's score and points, or why nbgrader cannot read them."""
    try:
        score, points = nbutils.determine_grade(cell)
    except ValueError as exc:  # e.g. partial credit over the cell's points
        points = float(cell.metadata["nbgrader"].get("points", 0))
        return (
            0.0,
            points,
            (
                f"nbgrader cannot read the test's result on your own solution ({exc}): a test "
                f"that gives partial credit must return a number from 0 to its {points:g} points"
            ),
        )
    return score, points, None


def _locked_failures(graded: NotebookNode) -> list[str]:
    """Read-only cells that failed when the grader ran them, each with what to do."""
    found = []
    for cell in graded.cells:
        failed = cell.metadata.get(GRADER_METADATA, {}).get(LOCKED_FAILED)
        if not failed:
            continue
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        hint = "fix that cell"
        if failed.startswith(("ModuleNotFoundError", "ImportError")):
            hint = (
                "the grader's environment lacks a package that cell imports: install it where "
                "the grader runs (`.venv/bin/pip install <package>`), then release again"
            )
        found.append(f"the read-only cell {grade_id} failed in the grader ({failed}): {hint}")
    return found


def check_notebook(
    nb: NotebookNode,
    resources: dict[str, Any],
    config: Config | None = None,
    log: Logger | None = None,
) -> list[Refusal]:
    """Grade the source notebook ``nb`` with the course's executor; the cells it refuses.

    ``resources`` are nbgrader's (``resources["nbgrader"]["assignment"]``, ``"notebook"``) with
    ``resources["metadata"]["path"]``, the folder the kernel starts in.
    """
    from attention_grader.checking.code_sinks import code_sinks, notebook_aliases
    from attention_grader.checking.kernel_tests import kernel_test_ids
    from attention_grader.checking.needs_teacher import cells_needing_teacher
    from attention_grader.checking.test_styles import uncarried_styles

    cells = notebook_cells(nb)
    in_kernel = kernel_test_ids(nb, cells.tests)  # graded in the kernel: any style works there
    aliases = notebook_aliases(cells)
    causes: dict[str, list[str]] = {
        gid: []
        if gid in in_kernel
        else uncarried_styles(source, set(cells.answers))
        + code_sinks(source, cells.answers, aliases)
        for gid, source in cells.tests.items()
    }
    executor = GradingExecute(config=config, parent=None) if config else GradingExecute()
    if log is not None:
        executor.log = log
    executor.trusted_cells = cells
    executor.students_code = False  # the teacher's own solution: no wall needed to check it
    # The protections are reported once per process: a release check in the formgrader's
    # server must leave that report to the first autograde, whose log the teacher reads.
    reported = GradingExecute._reported
    try:
        graded, _ = executor.preprocess(copy.deepcopy(nb), copy.deepcopy(resources))
    finally:
        GradingExecute._reported = reported
    # Read from the graded notebook: the grading may have run in the budget's child process.
    needs_teacher = cells_needing_teacher(graded)
    locked = _locked_failures(graded)
    for cell in graded.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if cell.cell_type != "code" or grade_id not in cells.tests:
            continue
        score, points, unreadable = _grade_of(cell)
        if unreadable:
            causes[grade_id].append(unreadable)
        elif score is not None and score < points:
            if grade_id in needs_teacher:
                causes[grade_id] += needs_teacher[grade_id].split("; ")
            else:
                causes[grade_id] += locked or [_cause(cell, cells.tests[grade_id])]
    return [
        Refusal(gid, "; ".join(dict.fromkeys(_with_way_out(c) for c in found)))
        for gid, found in causes.items()
        if found
    ]


class CheckSolution(NbGraderPreprocessor):
    """``generate_assignment`` step: refuse to release while the solution loses points."""

    refuse = Bool(
        True,
        help="Refuse to generate (release) an assignment whose source solution loses points "
        "under the course's grading pipeline, or whose tests use a style it cannot carry. "
        "False only logs the cells (for tests of the grader; students would be graded wrong).",
    ).tag(config=True)
    variant_samples = Integer(
        200,
        help="Sample students whose variants the release check grades the solution on, for a "
        "notebook that draws each student's numbers; 0 checks none "
        "(attention_grader.batch.variant_family).",
    ).tag(config=True)
    variant_pairs = Integer(
        2000,
        help="Ordered pairs of those sample students on which the release check measures, for "
        "each test cell reading a variant's numbers, how often one student's right answer is "
        "right on the other's numbers too (a copy that would earn the points); 0 measures "
        "none (attention_grader.batch.variant_collisions).",
    ).tag(config=True)
    variant_collision_rate = Float(
        0.002,
        help="The highest share of those pairs in which a test cell may accept a classmate's "
        "right answer; above it the release is refused, naming the cell and a colliding pair. "
        "Answers with many possible values (scores, projections, outputs drawn in tenths) "
        "should never collide; three softmax weights at the hand tolerance collide now and "
        "then however wide the numbers, and the grader flags each such answer (shared_answer) "
        "for the teacher. A choice among a few options that depends on the variant collides "
        "by nature: do not vary it.",
    ).tag(config=True)

    def preprocess(
        self, nb: NotebookNode, resources: dict[str, Any]
    ) -> tuple[NotebookNode, dict[str, Any]]:
        refusals = check_notebook(nb, resources, self.config, self.log)
        refusals += self._variant_refusals(nb)
        if refusals:
            notebook = resources.get("nbgrader", {}).get("notebook", "notebook")
            message = refusal_message(notebook, refusals)
            if self.refuse:
                self.log.error("%s", message)
                raise SolutionRefused(message)
            self.log.warning("%s", message)
        return nb, resources

    def _variant_refusals(self, nb: NotebookNode) -> list[Refusal]:
        if not self.variant_samples:
            return []
        from attention_grader.batch.variant_collisions import collision_refusals
        from attention_grader.batch.variant_family import family_refusals, sample_runs

        samples = self.variant_samples
        runs = sample_runs(nb, samples)  # each sample student's run, for both checks
        found = family_refusals(nb, samples, runs)
        if self.variant_pairs:
            rate = self.variant_collision_rate
            found += collision_refusals(nb, samples, self.variant_pairs, rate, runs)
        return found


def check_course(root: Path, assignment: str) -> list[Refusal]:
    """Run the release check of every notebook of ``source/<assignment>`` (course config)."""
    from attention_grader.config.config_door import load_config

    root = Path(root)
    config = load_config(root)
    folder = root / "source" / assignment
    refusals = []
    for path in sorted(folder.glob("*.ipynb")):
        resources = {
            "nbgrader": {"assignment": assignment, "notebook": path.stem, "student": "."},
            "metadata": {"path": str(folder)},
        }
        refusals += check_notebook(nbformat.read(path, as_version=4), resources, config)
    return refusals
