"""``make check A=<assignment>``: practice feedback on a student's own working copy.

For a student alone on a laptop, before (or instead of) a teacher's grading. The working copy
is the notebook that nbgrader's Fetch put in ``work/assignments/<assignment>/`` (the
``Exchange.assignment_dir`` of ``jupyter-settings/laptop/nbgrader_config.py``). It is graded in
a scratch course (:func:`~attention_grader.config.course.new_course`, deleted afterwards) with the course's own
pipeline: :func:`~attention_grader.steps.release.release` builds the gradebook from ``source/``, :func:`~attention_grader.steps.grade.grade`
autogrades the copy with the hidden tests. Per question the student sees ✓ or what the check
says (``[forgot_scaling] ...``: the misconception in plain words), never the hidden test code,
the solution, an expected value or a score that could pass for an official grade. The course's
own gradebook, exchange and submissions are not touched, and nothing is submitted.

A multiple-choice or true/false answer is only reported as "checked" (its format is right) until
the teacher releases feedback for the assignment or the student has run the check
``SelfStudy.choice_tries`` times: with unlimited checks, a few tries would reveal any
choice by elimination. The printout says so. The count and whether feedback is released are
read only from what the check and the teacher's side keep (:mod:`attention_grader.term.check_tries`);
a try counts as soon as it is asked for, and an answer cell that raised shows its own error
whether the choice it bound was right or not.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import nbformat
from traitlets import Integer
from traitlets.config import Config, Configurable
from traitlets.config.loader import PyFileConfigLoader

from attention_grader.common.question_labels import question_label as _question_label
from attention_grader.config.course import Course, GradingStepError, load_course, new_course
from attention_grader.steps.grade import GradeOptions, grade
from attention_grader.steps.release import release
from attention_grader.term.check_tries import (
    ChoiceGate,
    choices_revealed,
    count_try,
    feedback_released,
)

__all__ = [
    "QuestionCheck",
    "SelfStudy",
    "check_working_copy",
    "choice_cells",
    "choices_revealed",
    "format_checks",
    "main",
    "working_copy_dir",
]

#: Where the laptop's nbgrader config lives, relative to the course root (``make lab`` uses it).
LAPTOP_CONFIG_DIR = Path("jupyter-settings") / "laptop"
#: The student id the scratch course grades the working copy under.
SELF = "you"
#: Errors raised by ``attention_lab.checks``: their message is written for the student and never
#: holds an expected value, so it is shown as it is. A bare ``AssertionError`` may quote a hidden
#: test (``assert x == 0.248``), so its message is never shown.
CHECK_ERRORS = frozenset({"Misconception", "WrongAnswer", "AnswerFormatError", "CheckFailure"})
#: A released answer cell's placeholder, and what a student is told while it is still there.
_BLANK_CODE = "replace None with your answer and delete the 'raise NotImplementedError()' line."
_BLANK_WRITTEN_MARK = "YOUR ANSWER HERE"
_BLANK_WRITTEN = "write your answer in place of YOUR ANSWER HERE."
_WRITTEN = ("written", "written answer: your teacher marks it.")
_NOT_GRADE = "Practice feedback on your working copy: not a grade, and nothing was submitted."
#: The checks that grade a choice: their verdict is held back (see the module docstring).
_CHOICE_CALLS = ("check_choice(", "check_true_false(")


class SelfStudy(Configurable):
    """Settings of ``make check`` (``c.SelfStudy.<name>`` in the course's nbgrader_config.py)."""

    choice_tries = Integer(
        5,
        help="How many `make check` runs of an assignment show its multiple-choice and "
        "true/false answers only as 'checked' (their format is right, whether they are right "
        "is not said). From the run after that, or as soon as the teacher has released "
        "feedback for the assignment, they show ✓ or the misconception. 0 = only after "
        "feedback is released.",
    ).tag(config=True)


@dataclass(frozen=True)
class QuestionCheck:
    """What the self-study check says about one graded cell.

    Attributes
    ----------
    question : str
        The question heading it belongs to (``"Q3"``, ``"Exercise 1a"``), or ``""``.
    cell : str
        The cell's nbgrader ``grade_id`` (``"launched_scores"``).
    status : str
        ``"pass"``, ``"not_yet"``, ``"written"`` (a written answer: the teacher marks it) or
        ``"checked"`` (a choice whose verdict is held back).
    message : str
        The line shown to the student (empty when it passes).
    error : str
        For ``"not_yet"``: the error's name (``"Misconception"``, ``"AnswerFormatError"`` ...).
    """

    question: str
    cell: str
    status: str
    message: str = ""
    error: str = ""


def working_copy_dir(course_root: str | Path, assignment: str) -> Path:
    """Return the folder nbgrader's Fetch puts ``assignment`` in on this laptop.

    Read from the laptop's nbgrader config (``Exchange.assignment_dir``), the one ``make lab``
    gives the Assignment List, so the two never disagree.
    """
    root = Path(course_root).resolve()
    config = PyFileConfigLoader("nbgrader_config.py", path=str(root / LAPTOP_CONFIG_DIR))
    assignment_dir = config.load_config().Exchange.assignment_dir
    return Path(root / assignment_dir).resolve() / assignment


def _message(outputs: list[Any]) -> str:
    """Return what a failed test cell says, safely: the check's message or the error's name."""
    for out in outputs:
        if out.get("output_type") != "error":
            continue
        name, value = out.get("ename", "Error"), str(out.get("evalue", "")).strip()
        if name in CHECK_ERRORS and value:
            return f"not yet: {value}"
        if name == "AssertionError":
            return "not yet: this answer does not pass the check."
        if name == "NotImplementedError":  # the released placeholder is still there
            return f"blank: {_BLANK_CODE}"
        first = value.splitlines()[0][:160] if value else ""
        return f"not yet: your code raised {name}" + (f": {first}" if first else ".")
    return "not yet: this answer does not pass the check."


def choice_cells(source_dir: Path) -> set[str]:
    """Return the grade ids of the test cells that grade a multiple-choice or true/false answer."""
    found = set()
    for path in sorted(Path(source_dir).glob("*.ipynb")):
        for cell in nbformat.read(path, as_version=4).cells:
            meta = cell.metadata.get("nbgrader", {})
            if cell.cell_type == "code" and meta.get("grade"):
                if any(call in cell.source for call in _CHOICE_CALLS):
                    found.add(meta.get("grade_id", ""))
    return found


#: Errors that carry a verdict on the answer (held back for a choice); a format error or an
#: error from the student's own code says nothing about which option is right, so it shows.
_VERDICTS = frozenset({"Misconception", "WrongAnswer", "CheckFailure", "AssertionError"})


def _gate(check: QuestionCheck, gate: ChoiceGate) -> QuestionCheck:
    """Show a choice's check: ✓ or a verdict becomes "checked" while choices are held back."""
    if gate.revealed or (check.status == "not_yet" and check.error not in _VERDICTS):
        return check
    if check.status not in ("pass", "not_yet"):
        return check
    return QuestionCheck(check.question, check.cell, "checked", _CHECKED)


_CHECKED = "checked: your choice is read; whether it is right is not shown yet (see below)."


def _answer_error(cell: Any) -> list[Any]:
    """Return an answer cell's error output, if its last run raised.

    A check after it fails because of it (``answer_q5 = [query, key, value]`` names ``query``;
    the test then says ``answer_q5``).
    """
    return [out for out in cell.get("outputs", []) if out.get("output_type") == "error"][:1]


def _read_checks(notebook: Path, scores: dict[str, tuple[float, float]]) -> list[QuestionCheck]:
    """One :class:`QuestionCheck` per graded cell of an autograded notebook, in order."""
    nb = nbformat.read(notebook, as_version=4)
    question = ""
    found: list[QuestionCheck] = []
    answer_error: list[Any] = []
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type == "markdown" and not meta.get("grade"):
            question = _question_label(cell.source) or question
            answer_error = []
            continue
        if cell.cell_type == "code" and meta.get("solution") and not meta.get("grade"):
            answer_error = _answer_error(cell) or answer_error
            continue
        if not meta.get("grade"):
            continue
        gid = meta.get("grade_id", "")
        if cell.cell_type == "markdown" or meta.get("task"):
            blank = _BLANK_WRITTEN_MARK in cell.source or not cell.source.strip()
            status, said = ("not_yet", f"blank: {_BLANK_WRITTEN}") if blank else _WRITTEN
            found.append(QuestionCheck(question, gid, status, said))
            continue
        auto, most = scores.get(gid, (0.0, 1.0))
        if auto is not None and auto >= most and not answer_error:
            found.append(QuestionCheck(question, gid, "pass"))
        else:  # her answer cell raised: that is the line, passed or not (a choice shows no verdict)
            outputs = answer_error or cell.get("outputs", [])
            found.append(
                QuestionCheck(question, gid, "not_yet", _message(outputs), _error_name(outputs))
            )
    return found


def _error_name(outputs: list[Any]) -> str:
    return next((str(o.get("ename", "")) for o in outputs if o.get("output_type") == "error"), "")


def _place(copy_dir: Path, submitted: Path) -> None:
    """Copy the working copy's notebooks in as a submission (``collect`` leaves the same)."""
    submitted.mkdir(parents=True)
    for nb in sorted(copy_dir.glob("*.ipynb")):
        shutil.copyfile(nb, submitted / nb.name)
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S.%f UTC")
    (submitted / "timestamp.txt").write_text(stamp)


def check_working_copy(
    course_root: str | Path, assignment: str, copy_dir: str | Path | None = None
) -> tuple[list[QuestionCheck], ChoiceGate | None]:
    """Grade a working copy of ``assignment`` in a scratch course; say what each check found.

    Parameters
    ----------
    course_root : path
        The course (its ``source/<assignment>`` has the hidden tests).
    assignment : str
    copy_dir : path, optional
        The student's folder of the assignment (default: :func:`working_copy_dir`).

    Returns
    -------
    list of QuestionCheck
        One per graded cell, in notebook order (a held-back choice is ``"checked"``).
    ChoiceGate or None
        Whether choices were revealed and the note that says so; None without choices.

    Raises
    ------
    FileNotFoundError
        No such source assignment, or no fetched notebook in ``copy_dir`` (the message says how
        to fetch it).
    """
    root = Path(course_root).resolve()
    copy_dir = Path(copy_dir) if copy_dir else working_copy_dir(root, assignment)
    if not (root / "source").is_dir():
        raise FileNotFoundError(
            "make check needs the course's source/ (the hidden tests), which the students' copy "
            "of the course leaves out: use Validate in the Assignment List, and your teacher's "
            "feedback after you submit"
        )
    if not (root / "source" / assignment).is_dir():
        known = sorted(p.name for p in (root / "source").iterdir() if p.is_dir())
        raise FileNotFoundError(f"no assignment {assignment!r} in this course; one of {known}")
    if not sorted(copy_dir.glob("*.ipynb")):
        raise FileNotFoundError(
            f"no working copy of {assignment} in {copy_dir}: fetch it first (JupyterLab: "
            "Nbgrader -> Assignment List -> Fetch; the assignment must have been released)"
        )
    choices = choice_cells(root / "source" / assignment)
    tries = count_try(root, assignment) if choices else 0  # before anything of hers runs
    with tempfile.TemporaryDirectory(prefix="attention-check-") as tmp:
        course = _own_work(new_course(tmp, root / "source", [assignment]))
        release(course, assignment)
        _place(copy_dir, course.root / "submitted" / SELF / assignment)
        summary = grade(course, assignment, GradeOptions(progress=False), students=[SELF])
        result = summary.results[0]
        if result.status == "missing":  # e.g. the notebook was renamed: the reason names it
            raise FileNotFoundError(f"{result.reason} (in {copy_dir})")
        if result.status == "error":
            raise GradingStepError(f"could not check {assignment}: {result.reason}")
        scores: dict[str, tuple[float, float]] = {}
        with course.gradebook() as gb:
            for nb in gb.find_submission(assignment, SELF).notebooks:
                scores.update({g.name: (g.auto_score, g.max_score) for g in nb.grades})
        graded = course.root / "autograded" / SELF / assignment
        checks = []
        for notebook in sorted(graded.glob("*.ipynb")):
            checks += _read_checks(notebook, scores)
    if not any(c.cell in choices for c in checks):
        return checks, None
    limit = SelfStudy(config=_course_config(root)).choice_tries
    gate = choices_revealed(feedback_released(root, assignment), tries, limit)
    return [_gate(c, gate) if c.cell in choices else c for c in checks], gate


def _own_work(course: Course) -> Course:
    """Return the scratch course, told to grade her own numbers and, where needed, unsandboxed.

    The scratch course has no course key: it grades the student's own seed (her server's, else
    the practice numbers), never refuses for want of a key.

    ``make check`` runs the student's own code on the student's own machine. Grading refuses
    to run students' code without the sandbox's walls (``protections.unsandboxed_refusal``),
    which guard a teacher from a class, not a student from herself: the scratch course says
    "off" on purpose, only where the walls are off anyway.
    """
    from attention_grader.sandbox.protections import protections, unsandboxed_refusal
    from attention_grader.sandbox.sandbox import SandboxedKernelManager

    lines = [
        'c.Variants.without_key = "own"  # make check: your own numbers\n',
        # the teacher's release sampled the variants already: 200 more would be ~15 s of waiting
        "c.CheckSolution.variant_samples = 0\n",
    ]
    km = SandboxedKernelManager(config=course.config)
    if unsandboxed_refusal(protections(km), True, km.sandbox) is not None:
        lines.append('c.SandboxedKernelManager.sandbox = "off"  # make check: your own code\n')
    with open(course.root / "nbgrader_config.py", "a") as config:
        config.writelines(lines)
    return load_course(course.root)


def _course_config(root: Path) -> Config:
    """Return the course's settings as every route reads them (the one config door)."""
    from attention_grader.config.config_door import load_config

    return load_config(root)


def format_checks(
    assignment: str, checks: list[QuestionCheck], gate: ChoiceGate | None = None
) -> str:
    """Return the lines ``make check`` prints: ✓ or what is not right yet, per question; no score.

    ``gate`` says whether choice answers were held back ("checked"), and why.
    """
    width = max((len(c.cell) for c in checks), default=0)
    lines = [f"Self-study check of {assignment}:"]
    for c in checks:
        verdict = "✓" if c.status == "pass" else c.message
        lines.append(f"  {c.question:<12} {c.cell:<{width}}  {verdict}")
    todo = sum(c.status == "not_yet" for c in checks)
    held = any(c.status == "checked" for c in checks)
    if not todo:
        lines.append(
            "Every other automatic check passes." if held else "Every automatic check passes."
        )
    else:
        lines.append(f"{todo} check(s) to look at again.")
    if gate is not None:
        lines.append(gate.note)
    lines.append(_NOT_GRADE + " Submit from the Assignment List when you are ready.")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Check a working copy from the command line; return the exit status."""
    p = argparse.ArgumentParser(
        prog="python -m attention_grader.term.selfstudy", description=__doc__
    )
    p.add_argument("assignment")
    p.add_argument("--course", default=".", help="course directory (default: .)")
    p.add_argument("--copy", help="folder of your working copy (default: where Fetch puts it)")
    args = p.parse_args(argv)
    print(
        f"Checking your copy of {args.assignment}: your code runs in a scratch course, "
        "as the grader will run it; this takes a little while…",
        file=sys.stderr,
        flush=True,
    )
    try:
        checks, gate = check_working_copy(args.course, args.assignment, args.copy)
    except (FileNotFoundError, GradingStepError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(format_checks(args.assignment, checks, gate))
    return 0


if __name__ == "__main__":
    sys.exit(main())
