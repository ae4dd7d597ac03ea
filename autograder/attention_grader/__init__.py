"""The teacher's tooling: release -> collect -> grade -> feedback -> grades -> report.

One subpackage per concern (docs/design.md, "House plan"; a subpackage imports only those below
it): ``common`` (the course, the batch summary, safe text), ``intake`` (a submission on its way
in), ``sandbox`` (where a student's kernel runs), ``execution`` (grading one notebook),
``pages`` (every HTML page) and ``term`` (the teacher's steps, each a small module with one
function taking a :class:`~attention_grader.common.course.Course`). ``python -m attention_grader
<step>`` (:mod:`attention_grader.cli`, and the ``make`` targets in ``make/teacher.mk``) calls
them; :mod:`attention_grader.pipeline` installs the grading pipeline from ``nbgrader_config.py``.
Heavy imports (nbgrader, matplotlib) happen inside the steps, so importing this package is cheap.
"""

__all__ = ["cli", "common", "execution", "intake", "pages", "pipeline", "sandbox", "term"]
