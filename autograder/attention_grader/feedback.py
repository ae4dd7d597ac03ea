"""Step 4: generate HTML feedback from the autograded notebooks and release it to the exchange."""

from __future__ import annotations

from .course import Course, check_result

__all__ = ["feedback"]


def feedback(course: Course, assignment: str) -> list[str]:
    """``nbgrader generate_feedback`` + ``nbgrader release_feedback`` for every graded student.

    Returns
    -------
    list of str
        The students whose feedback was released (those with an autograded submission).
    """
    api = course.api()
    check_result(api.generate_feedback(assignment, force=True), f"generate feedback {assignment}")
    check_result(api.release_feedback(assignment), f"release feedback {assignment}")
    root = course.root / "feedback"
    return sorted(p.parent.name for p in root.glob(f"*/{assignment}") if p.is_dir())
