"""The course's one grading pipeline, switched on in one place: ``nbgrader_config.py``.

::

    from attention_grader.pipeline import configure
    configure(c)

sets nbgrader's ``Autograde`` steps for ``nbgrader autograde``, the formgrader and ``make grade``
alike (the parallel grader runs exactly the pipeline the course config names and adds nothing):

* intake (:mod:`attention_grader.safe_exchange`): collect copies from the exchange without
  following links, each submission folder is cleaned before nbgrader reads it, feedback is
  released only as the generated pages;
* sanitise: :class:`~attention_grader.tamper.ScanSubmission` (flags; drops forged metadata and
  forged cells), :class:`~attention_grader.safe_exchange.IntakeGuard` (execution-changing cell
  metadata such as ``skip-execution`` removed, size caps), then nbgrader's own steps, which
  restore read-only and test cells from the gradebook (deleted test cells come back);
* execute: :class:`~attention_grader.execute.GradingExecute`: student cells in the sandboxed
  kernel, hidden tests in the grader's process against answers read as plain data, output
  capped while it streams, a time budget per notebook;
* then nbgrader's output limits, grades and late penalties;
* last, :class:`~attention_grader.html_safety.SanitizeStudentContent`: outputs and written
  answers cleaned for the formgrader and feedback (feedback pages also carry a CSP).

What the sandbox allows is set in the same file through the classes' own options, e.g.
``c.SandboxedKernelManager.sandbox = "require"`` or ``c.GradingExecute.notebook_timeout = 120``.
"""

from __future__ import annotations

__all__ = ["configure", "with_solution_check"]


def configure(c) -> None:
    """Install the course's autograde pipeline into the nbgrader config ``c``."""
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

    from . import html_safety
    from .execute import GradingExecute
    from .flag_limited_output import FlagLimitedOutput
    from .needs_teacher import MarkNeedsTeacher
    from .safe_exchange import IntakeGuard, configure_intake
    from .tamper import ScanSubmission

    c.Autograde.sanitize_preprocessors = [
        ScanSubmission,
        IntakeGuard,
        ClearOutput,
        DeduplicateIds,
        OverwriteKernelspec,
        OverwriteCells,
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
    ]
    # Check before release: generate_assignment (make release) grades the source's own solution
    # through this pipeline and refuses while a test cell loses points on it.
    c.GenerateAssignment.preprocessors = with_solution_check()
    # ... and `nbgrader validate` of a source notebook (the Validate button too) runs the same
    # check (nbgrader's Validator is not configurable: wrapped once, as validate_labels does).
    from .validate_check import check_on_validate

    check_on_validate()
    # A deleted test cell comes back and is graded, instead of silently missing.
    c.OverwriteCells.add_missing_cells = True
    # Submissions are made safe wherever they enter or leave (collect, autograde,
    # release_feedback): links, special and unexpected files are refused without being followed.
    configure_intake(c)
    # Nothing a student wrote runs in a browser: outputs and written answers are sanitised last
    # in autograde (what the formgrader shows) and in feedback, which gets a CSP. Keep it last.
    html_safety.configure(c)


def with_solution_check() -> list:
    """nbgrader's generate_assignment steps with :class:`~.solution_check.CheckSolution` before
    the solutions are cleared (it grades the notebook as the teacher wrote it)."""
    from nbgrader.converters import GenerateAssignment
    from nbgrader.preprocessors import ClearSolutions

    from .solution_check import CheckSolution

    steps = list(GenerateAssignment.class_traits()["preprocessors"].default())
    steps.insert(steps.index(ClearSolutions), CheckSolution)
    return steps
