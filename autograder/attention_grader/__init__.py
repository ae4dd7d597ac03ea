"""The teacher's tooling: release -> collect -> grade -> feedback -> grades -> report.

One subpackage per concern (docs/design.md, "House plan"; a subpackage imports only those below
it): ``common`` (the course, the batch summary, safe text), ``intake`` (a submission on its way
in), ``sandbox`` (where a student's kernel runs), ``pages`` (every HTML page); grading one
notebook by runtime boundary: ``wire`` (what crosses to and from the student's kernel as data),
``channel`` (the answer channel and its stand-ins), ``checking`` (the teacher's tests in the
grader's process), ``executor`` (one notebook through autograde), ``batch`` (a class's workers,
the release check); and ``term`` (the teacher's steps, each a small module with one function
taking a :class:`~attention_grader.config.course.Course`). ``python -m attention_grader <step>``
(:mod:`attention_grader.cli`, and the ``make`` targets in ``make/teacher.mk``) calls them;
:mod:`attention_grader.pipeline` installs the grading pipeline from ``nbgrader_config.py``.
Configs name :mod:`attention_grader.plugins` (its names stay when modules move); old module
names still import for one release (:mod:`attention_grader.renamed`). Heavy imports (nbgrader,
matplotlib) happen inside the steps, so importing this package is cheap.
"""

from attention_grader import renamed

renamed.install()

__all__ = [
    "batch", "channel", "checking", "cli", "common", "executor", "intake", "pages", "pipeline",
    "plugins", "sandbox", "term", "wire",
]  # fmt: skip
