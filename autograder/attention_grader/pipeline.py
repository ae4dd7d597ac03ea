"""The course's one grading pipeline, switched on in one place: ``nbgrader_config.py``.

::

    from attention_grader.pipeline import configure
    configure(c)

sets every step nbgrader runs for the course, for ``nbgrader autograde``, the formgrader and
``make grade`` alike (the parallel grader runs exactly the pipeline the course config names and
adds nothing). Each list is written here whole, once; nothing else edits it, so the order of the
lines in ``nbgrader_config.py`` does not matter:

* intake: collect copies from the exchange without following links
  (:mod:`attention_grader.exchange.safe_exchange`), each submission folder is cleaned before
  nbgrader reads it (:mod:`attention_grader.intake.intake_guard`), feedback is released only as
  the generated pages (:mod:`attention_grader.exchange.release_feedback`);
* autograde's sanitise steps: :class:`~attention_grader.executor.tamper.ScanSubmission` (flags; drops
  forged metadata and forged cells), :class:`~attention_grader.intake.intake_guard.IntakeGuard`
  (execution-changing cell metadata such as ``skip-execution`` removed, size caps), then
  nbgrader's own steps, which restore read-only and test cells from the gradebook (deleted
  test cells come back), then :class:`~attention_grader.executor.cell_order.RestoreCellOrder`
  (those cells back in the teacher's order);
* autograde's execute: :class:`~attention_grader.executor.execute.GradingExecute`: student cells in the
  sandboxed kernel, hidden tests in the grader's process against answers read as plain data,
  output capped while it streams, a time budget per notebook; then nbgrader's output limits,
  grades and late penalties; last, :class:`~attention_grader.pages.html_safety.SanitizeStudentContent`
  (outputs and written answers cleaned for the formgrader, after every score is fixed);
* release: the source's own solution is graded first (:func:`with_solution_check`);
* feedback: hidden tests stripped (nbgrader puts them back by default, jupyter/nbgrader#917),
  "not graded yet" on ungraded written answers, student content sanitised, and the course's
  page (:class:`~attention_grader.pages.feedback_page.FeedbackPageExporter`: plain words, offline
  maths, a CSP);
* formgrader: each written answer's rubric beside it, maths as MathML, every output cleaned
  again as the page is built (:mod:`attention_grader.pages.formgrader_view`);
* ``nbgrader validate`` names the question of each failing cell
  (:mod:`attention_grader.term.validate_labels`).

The limits these steps enforce are traitlets set in the same file (``c.Execute.timeout``,
``c.Intake.max_cells`` ...): :mod:`attention_grader.limits` lists them all.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from traitlets.config import Config

__all__ = ["configure", "with_solution_check"]


def configure(c: Config) -> None:
    """Install the course's steps into the nbgrader config ``c`` (idempotent).

    Raises
    ------
    ValueError
        When ``c`` already has another ``Autograde.pre_convert_hook``: the intake must run
        first, so a teacher's own hook calls :func:`~attention_grader.intake.intake_guard.intake_hook` itself.
    """
    from attention_grader.term.validate_labels import name_questions

    _autograde(c)
    _exchange(c)
    _release(c)
    _feedback(c)
    _formgrader(c)
    name_questions()


def _autograde(c: Config) -> None:
    from nbconvert.preprocessors import ClearMetadataPreprocessor
    from nbgrader.preprocessors import (
        AssignLatePenalties,
        CheckCellMetadata,
        ClearOutput,
        DeduplicateIds,
        IgnorePattern,
        LimitOutput,
        OverwriteCells,
        OverwriteKernelspec,
        SaveAutoGrades,
    )

    from attention_grader.checking.needs_teacher import MarkNeedsTeacher
    from attention_grader.executor.cell_order import RestoreCellOrder
    from attention_grader.executor.execute import GradingExecute
    from attention_grader.executor.flag_limited_output import FlagLimitedOutput
    from attention_grader.executor.tamper import ScanSubmission
    from attention_grader.intake.intake_guard import IntakeGuard, hooks_see_run_config, intake_hook
    from attention_grader.pages.html_safety import SanitizeStudentContent

    previous = c.Autograde.get("pre_convert_hook")
    if previous is not None and previous is not intake_hook:
        raise ValueError(
            "c.Autograde.pre_convert_hook is already set: call "
            "attention_grader.intake.intake_guard.intake_hook(**kwargs) first in your own hook"
        )
    # Submissions are made safe before nbgrader reads them: links, special and unexpected files
    # are refused without being followed.
    c.Autograde.pre_convert_hook = intake_hook
    hooks_see_run_config()  # nbgrader calls the hook without the run's config
    c.Autograde.sanitize_preprocessors = [
        ScanSubmission,
        IntakeGuard,
        ClearOutput,
        DeduplicateIds,
        OverwriteKernelspec,
        OverwriteCells,
        RestoreCellOrder,
        CheckCellMetadata,
    ]
    c.Autograde.autograde_preprocessors = [
        GradingExecute,
        IgnorePattern,
        ClearMetadataPreprocessor,
        LimitOutput,
        FlagLimitedOutput,
        SaveAutoGrades,
        MarkNeedsTeacher,
        AssignLatePenalties,
        CheckCellMetadata,
        # Last, so that no score can depend on it: the formgrader shows this notebook.
        SanitizeStudentContent,
    ]
    # A deleted test cell comes back and is graded, instead of silently missing.
    c.OverwriteCells.add_missing_cells = True


def _exchange(c: Config) -> None:
    from attention_grader.exchange.inbound_list import SafeExchangeList
    from attention_grader.exchange.release_feedback import SafeExchangeReleaseFeedback
    from attention_grader.exchange.safe_exchange import SafeExchangeCollect

    c.ExchangeFactory.collect = SafeExchangeCollect
    # `nbgrader list --inbound` reads what collect reads, as collect judges it
    c.ExchangeFactory.list = SafeExchangeList
    c.ExchangeFactory.release_feedback = SafeExchangeReleaseFeedback


def _release(c: Config) -> None:
    # generate_assignment (make release) grades the source's own solution through this
    # pipeline and refuses while a test cell loses points on it.
    c.GenerateAssignment.preprocessors = with_solution_check()
    # ... and `nbgrader validate` of a source notebook (the Validate button too) runs the same
    # check (nbgrader's Validator is not configurable: wrapped once, as validate_labels does).
    from attention_grader.term.validate_check import check_on_validate

    check_on_validate()


def _feedback(c: Config) -> None:
    from nbconvert.preprocessors import CSSHTMLHeaderPreprocessor
    from nbgrader.preprocessors import ClearHiddenTests, GetGrades

    from attention_grader.pages.feedback_page import FeedbackPageExporter, MarkUngraded
    from attention_grader.pages.html_safety import SanitizeStudentContent

    # Feedback never reveals answers: hidden tests are stripped as in the released notebook;
    # test outputs are the grader's own lines (attention_grader.checking.trusted), never test code.
    # Sanitised again here, so notebooks autograded before a fix are cleaned too.
    c.GenerateFeedback.preprocessors = [
        GetGrades,
        MarkUngraded,
        ClearHiddenTests,
        SanitizeStudentContent,
        CSSHTMLHeaderPreprocessor,
    ]
    c.GenerateFeedback.exporter_class = FeedbackPageExporter


def _formgrader(c: Config) -> None:
    from attention_grader.pages.formgrader_view import (
        EscapePageText,
        ShowRubric,
        ShowVariant,
        markdown2html,
    )
    from attention_grader.pages.html_safety import SanitizeStudentContent

    # The formgrader renders the autograded notebook, cleaned when it was graded; cleaning its
    # outputs again as the page is built covers a notebook graded before a fix, or changed since.
    c.HTMLExporter.preprocessors = [SanitizeStudentContent, EscapePageText, ShowRubric, ShowVariant]
    c.HTMLExporter.filters = {"markdown2html": markdown2html}


def with_solution_check() -> list[Any]:
    """Return nbgrader's generate_assignment steps with a solution check before clearing.

    :class:`~attention_grader.batch.solution_check.CheckSolution` comes before the solutions
    are cleared (it grades the notebook as the teacher wrote it).
    """
    from nbgrader.converters import GenerateAssignment
    from nbgrader.preprocessors import ClearSolutions

    from attention_grader.batch.solution_check import CheckSolution

    steps = list(GenerateAssignment.class_traits()["preprocessors"].default())
    steps.insert(steps.index(ClearSolutions), CheckSolution)
    return steps
