"""One nbgrader course on the hub, as data: its id, its people and its two hub groups.

nbgrader's conventions (docs: "Using nbgrader with JupyterHub"):

* group ``formgrade-<course>``: the instructors (and the course's grader account, if any);
* group ``nbgrader-<course>``: the students. nbgrader's ``JupyterHubAuthPlugin`` reads these
  groups to decide who may fetch/submit in which course, and adds students to ``nbgrader-<course>``
  when an instructor adds them to the gradebook;
* one class: the formgrader runs in the instructor's own server; several classes: one formgrader
  per course, run as a JupyterHub service named like the course by a ``grader-<course>`` account.

Standard library only.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass

__all__ = [
    "FORMGRADE_PREFIX",
    "STUDENT_PREFIX",
    "Course",
    "formgrade_group",
    "names_from_env",
    "student_group",
]

FORMGRADE_PREFIX = "formgrade-"
STUDENT_PREFIX = "nbgrader-"
# nbgrader course ids become group, service and folder names: keep them to a safe alphabet.
_COURSE_ID = re.compile(r"^[a-z0-9][a-z0-9_-]*$")


@dataclass(frozen=True)
class Course:
    """One nbgrader course on the hub.

    Parameters
    ----------
    course_id : str
        nbgrader course id (``attention-lab``); lower case letters, digits, ``-`` and ``_``.
    instructors : sequence of str
        Hub user names of the instructors (group ``formgrade-<course_id>``).
    students : sequence of str
        Hub user names of the students (group ``nbgrader-<course_id>``).
    grader : str, optional
        Several classes only: the local account that runs this course's formgrader service.
    service_port : int, optional
        Several classes only: the port of that service on 127.0.0.1.
    variant_key_file : str, optional
        The course key (``c.Variants.key_file``, made as the hub starts): the spawner gives
        each student's server her own variant seed, derived from it and her login
        (``attention_lab.variants``); the key itself never reaches a server.
    """

    course_id: str
    instructors: tuple[str, ...] = ()
    students: tuple[str, ...] = ()
    grader: str | None = None
    service_port: int | None = None
    variant_key_file: str | None = None

    def __post_init__(self) -> None:
        if not _COURSE_ID.match(self.course_id or ""):
            raise ValueError(
                f"course id {self.course_id!r} is not usable as a group/service name: use lower "
                "case letters, digits, '-' and '_' (e.g. 'attention-lab')"
            )
        object.__setattr__(self, "instructors", tuple(self.instructors))
        object.__setattr__(self, "students", tuple(self.students))
        overlap = set(self.instructors) & set(self.students)
        if overlap:
            raise ValueError(
                f"{sorted(overlap)} listed both as instructor and student of {self.course_id!r}: "
                "an account is one or the other (make a separate student account for testing)"
            )
        if (self.grader is None) != (self.service_port is None):
            raise ValueError(
                f"course {self.course_id!r}: give both grader and service_port (a formgrader "
                "service) or neither (the formgrader runs in the instructor's own server)"
            )

    @property
    def has_service(self) -> bool:
        """True when this course's formgrader runs as a hub service (several classes)."""
        return self.grader is not None


def formgrade_group(course_id: str) -> str:
    """Name of the instructors' group of a course (nbgrader's convention)."""
    return FORMGRADE_PREFIX + course_id


def student_group(course_id: str) -> str:
    """Name of the students' group of a course (nbgrader's convention)."""
    return STUDENT_PREFIX + course_id


def names_from_env(variable: str, environ: Mapping[str, str] = os.environ) -> tuple[str, ...]:
    """User names from a comma/space separated environment variable (empty when unset)."""
    return tuple(name for name in re.split(r"[,\s]+", environ.get(variable, "")) if name)
