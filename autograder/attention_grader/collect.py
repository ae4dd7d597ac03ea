"""Step 2: collect the students' submissions from the exchange into ``submitted/``."""

from __future__ import annotations

from .course import Course, check_result

__all__ = ["collect"]


def collect(course: Course, assignment: str) -> list[str]:
    """``nbgrader collect --update`` via ``NbGraderAPI``; return the ids of students collected.

    A student who submitted again after an earlier collect gets the newer submission (the
    grader then re-grades it, because its timestamp is newer than the autograded copy).
    """
    api = course.api()
    if not api.exchange_is_functional:
        raise FileNotFoundError(
            f"the exchange {course.exchange} is missing or unreadable; run `make release` first"
            " or set ATTENTION_LAB_EXCHANGE to the shared exchange folder"
        )
    check_result(api.collect(assignment, update=True), f"collect {assignment}")
    submitted = course.root / "submitted"
    return sorted(p.parent.name for p in submitted.glob(f"*/{assignment}") if p.is_dir())
