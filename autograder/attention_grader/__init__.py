"""The teacher's tooling: release -> collect -> grade -> feedback -> grades -> report.

Each step is a small module with one function taking a :class:`~attention_grader.course.Course`;
``python -m attention_grader <step>`` (and the ``make`` targets in ``make/teacher.mk``) call them.
Heavy imports (nbgrader, matplotlib) happen inside the steps, so importing this package is cheap.
"""

__all__ = [
    "cli",
    "collect",
    "course",
    "feedback",
    "grade",
    "grades",
    "intake",
    "release",
    "report",
    "safe_exchange",
    "safe_text",
    "summary",
]
