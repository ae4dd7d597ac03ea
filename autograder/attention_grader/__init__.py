"""The teacher's tooling: release -> collect -> grade -> feedback -> grades -> report.

Each step is a small module with one function taking a :class:`~attention_grader.common.course.Course`;
``python -m attention_grader <step>`` (and the ``make`` targets in ``make/teacher.mk``) call them.
Heavy imports (nbgrader, matplotlib) happen inside the steps, so importing this package is cheap.
"""

__all__ = [
    "cli",
    "collect",
    "course",
    "feedback",
    "feedback_page",
    "formgrader_view",
    "grade",
    "grades",
    "intake",
    "late",
    "lms",
    "outcomes",
    "progress",
    "release",
    "report",
    "report_page",
    "safe_exchange",
    "safe_text",
    "summary",
]
