"""Who may do what on the hub: the groups, roles, token scopes and formgrader services of the courses.

Each function turns the course list (:class:`attention_hub.course.Course`) into one JupyterHub
setting, as plain data, so that the test suite checks them without starting a hub;
``classroom.configure_classroom`` sets them. Standard library only.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import Any

from attention_hub.course import Course, formgrade_group, student_group

__all__ = ["formgrader_services", "hub_groups", "hub_roles", "server_token_scopes", "user_path"]

# What every single-user server's $JUPYTERHUB_API_TOKEN may do (JupyterHub's default "server"
# role) plus reading the owner's own groups, which nbgrader's JupyterHubAuthPlugin needs.
_BASE_SERVER_SCOPES = (
    "users:activity!user",
    "access:servers!server",
    "read:users:name!user",
    "read:users:groups!user",
)


def hub_groups(courses: Iterable[Course]) -> dict[str, dict[str, Any]]:
    """``JupyterHub.load_groups``: ``formgrade-<id>`` and ``nbgrader-<id>`` for every course.

    Returns
    -------
    dict
        group name -> ``{"users": [...]}``; the grader account joins the instructors' group.
    """
    groups: dict[str, dict[str, Any]] = {}
    for course in courses:
        staff = list(course.instructors) + ([course.grader] if course.grader else [])
        groups[formgrade_group(course.course_id)] = {"users": staff}
        groups[student_group(course.course_id)] = {"users": list(course.students)}
    return groups


def _instructor_scopes(course: Course) -> list[str]:
    students = student_group(course.course_id)
    scopes = [
        # nbgrader's JupyterHubAuthPlugin keeps the hub group in step with the gradebook: it
        # lists the groups, then adds/removes students of this course's group (and no other).
        "list:groups",
        f"read:groups!group={students}",
        f"groups!group={students}",
        f"read:users:groups!group={students}",
        # nbgrader's exchange asks the hub for the groups of whoever runs it (the instructor,
        # or the grader account behind a formgrader service) to know their courses.
        f"read:users:name!group={formgrade_group(course.course_id)}",
        f"read:users:groups!group={formgrade_group(course.course_id)}",
    ]
    if course.has_service:
        # Reach (and discover) the course's formgrader service.
        scopes += [
            f"access:services!service={course.course_id}",
            "list:services",
            f"read:services!service={course.course_id}",
        ]
    return scopes


def _student_scopes(course: Course) -> list[str]:
    # The assignment list asks the hub for the student's own groups. The default "user" role
    # grants that already; it is stated here so that trimming the user role cannot break it.
    scopes = ["read:users:groups!user"]
    if course.has_service:
        # The course list discovers the course's service (nbgrader's multiple-classes demo).
        scopes += ["list:services", f"read:services!service={course.course_id}"]
    return scopes


def hub_roles(courses: Iterable[Course]) -> list[dict[str, Any]]:
    """``JupyterHub.load_roles``: what the two groups of every course may do.

    The instructors' role is also given to the course's formgrader service, which adds students
    to the hub group through the same API.
    """
    roles = []
    for course in courses:
        staff_role = {
            "name": formgrade_group(course.course_id),
            "description": f"instructors of {course.course_id}: roster and formgrader",
            "groups": [formgrade_group(course.course_id)],
            "scopes": _instructor_scopes(course),
        }
        if course.has_service:
            staff_role["services"] = [course.course_id]
        roles.append(staff_role)
        roles.append(
            {
                "name": student_group(course.course_id),
                "description": f"students of {course.course_id}: the assignment list",
                "groups": [student_group(course.course_id)],
                "scopes": _student_scopes(course),
            }
        )
    return roles


def server_token_scopes(courses: Iterable[Course]) -> list[str]:
    """``Spawner.server_token_scopes``: the scopes a single-user server's token may carry.

    JupyterHub gives each server the subset of these that its owner holds, so one list serves
    students (who hold only their own) and instructors (who hold their group's).
    """
    scopes = list(_BASE_SERVER_SCOPES)
    for course in courses:
        for scope in _instructor_scopes(course) + _student_scopes(course):
            if scope not in scopes:
                scopes.append(scope)
    return scopes


def formgrader_services(
    courses: Iterable[Course], *, venv: str, config_path: Sequence[str], exchange: str
) -> list[dict[str, Any]]:
    """``JupyterHub.services``: one formgrader per course that has a grader account.

    The service is a ``jupyterhub-singleuser`` run as ``grader-<course>`` from the course env and
    landing on ``/formgrader``; instructors reach it at ``/services/<course>/``.
    """
    services = []
    for course in courses:
        if not course.has_service:
            continue
        # The service's server root is the grader's home; the course lives below it (the
        # formgrader refuses a course directory outside its server root).
        home = os.path.expanduser(f"~{course.grader}")
        if home.startswith("~"):  # account not created yet on this machine: the usual place
            home = f"/home/{course.grader}"
        services.append(
            {
                "name": course.course_id,
                "url": f"http://127.0.0.1:{course.service_port}",
                "command": [os.path.join(venv, "bin", "jupyterhub-singleuser")],
                "user": course.grader,
                "cwd": home,
                "oauth_no_confirm": True,
                # the hub does not start until the formgrader answers (JupyterHub's default: 30 s);
                # it imports nbgrader, nbconvert and the grader: 31 s at load 27 on 2 cores
                "timeout": 180,
                "environment": {
                    "JUPYTERHUB_DEFAULT_URL": "/formgrader",
                    "JUPYTER_CONFIG_PATH": os.pathsep.join(config_path),
                    "ATTENTION_LAB_EXCHANGE": exchange,
                    "PATH": user_path(venv),
                },
            }
        )
    return services


def user_path(venv: str) -> str:
    """Return the ``PATH`` of every user's server and of the formgrader services.

    Terminals and ``!nbgrader ...`` in a notebook must find the course env's tools first, and
    nbgrader itself runs ``alembic`` from ``PATH`` when it creates a gradebook (nbgrader/api.py).
    """
    return os.pathsep.join([os.path.join(venv, "bin"), "/usr/local/bin", "/usr/bin", "/bin"])
