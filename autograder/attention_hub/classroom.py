"""The JupyterHub side of an Attention Lab classroom, set on a hub config from a course list.

Both hub configs reach :func:`configure_classroom` through
:func:`attention_hub.configure.configure_hub`. It composes the parts, each a module of small
pure functions the test suite checks without starting a hub: the courses
(:mod:`attention_hub.course`), who may do what (:mod:`attention_hub.hub_access`: groups, roles,
token scopes, formgrader services), each user's config at spawn (:mod:`attention_hub.spawn_hook`)
and the courses' variant keys (:mod:`attention_hub.variant_keys`); and it refuses to start a hub
whose exchange folders or state folder are unsafe.

The names hub configs imported from here before those modules existed stay importable from
here (``Course``, ``hub_groups``, ``make_pre_spawn_hook``, ...).

This module imports only the standard library (and ``attention_lab.variants`` when a course
has variants).
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from attention_hub.course import (
    FORMGRADE_PREFIX,
    STUDENT_PREFIX,
    Course,
    formgrade_group,
    names_from_env,
    student_group,
)
from attention_hub.hub_access import (
    formgrader_services,
    hub_groups,
    hub_roles,
    server_token_scopes,
    user_path,
)
from attention_hub.spawn_hook import (
    frame_ancestors_arg,
    instructor_config_dir,
    make_pre_spawn_hook,
    student_config_dir,
)
from attention_hub.variant_keys import ensure_variant_keys, refuse_shared_keys, variant_seed

if TYPE_CHECKING:
    from traitlets.config import Config

__all__ = [
    "configure_classroom",
    "refuse_foreign_course_folders",
    "refuse_public_state_folder",
    "SERVER_LAUNCH",
    # where they live now: course, hub_access, spawn_hook, variant_keys
    "ensure_variant_keys",
    "refuse_shared_keys",
    "variant_seed",
    "FORMGRADE_PREFIX",
    "STUDENT_PREFIX",
    "Course",
    "formgrade_group",
    "student_group",
    "hub_groups",
    "hub_roles",
    "server_token_scopes",
    "formgrader_services",
    "student_config_dir",
    "instructor_config_dir",
    "frame_ancestors_arg",
    "make_pre_spawn_hook",
    "names_from_env",
]

#: What every user's server runs (with the course env's Python, ``-s``).
SERVER_LAUNCH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "server_launch.py")


def configure_classroom(
    c: Config,
    courses: Sequence[Course],
    *,
    exchange: str,
    config_root: str = "/etc/jupyter",
    venv: str = sys.prefix,
    formgrader_iframe: bool = False,
    subdomain_host: str = "",
) -> None:
    """Set the classroom part of a JupyterHub config object ``c``.

    Parameters
    ----------
    c : traitlets.config.Config
        The ``c = get_config()`` of a ``jupyterhub_config.py``.
    courses : sequence of Course
        The classes on this hub (one for one class).
    exchange : str
        The shared nbgrader exchange (``install.py system`` creates it); handed to every server
        as ``ATTENTION_LAB_EXCHANGE``, which the course's ``nbgrader_config.py`` reads.
    config_root : str
        Where ``install.py system`` wrote the system-wide ``nbgrader_config.py``.
    venv : str
        The course environment; its ``jupyterhub-singleuser`` runs every user's server, so its
        Python is every notebook's kernel. Must be readable and traversable by all users.
    formgrader_iframe : bool
        Send ``frame-ancestors 'self'`` from instructors' servers (see
        :func:`frame_ancestors_arg`: only with subdomains or trusted users).
    subdomain_host : str
        ``JupyterHub.subdomain_host`` (``https://hub.school.example``): each user's server on its
        own origin (``https://<user>.hub.school.example``), so a page one user serves can read
        nothing of another's server. Needs wildcard DNS and a wildcard certificate
        (docs/hub-admins.md, "Origins apart"). Empty: one origin for everyone, which the
        configs allow only on purpose (``origins.subdomain_host``).

    Raises
    ------
    ValueError
        Bad courses, or a course folder in the exchange that is missing or not its
        instructors' (:func:`refuse_foreign_course_folders`): the hub does not start.
    """
    if not courses:
        raise ValueError("configure_classroom needs at least one Course")
    ids = [course.course_id for course in courses]
    if len(set(ids)) != len(ids):
        raise ValueError(f"course ids must be unique, got {ids}")
    config_path = [config_root]

    if subdomain_host:
        c.JupyterHub.subdomain_host = subdomain_host
    elif formgrader_iframe:
        print(
            "attention-lab: ATTENTION_LAB_FORMGRADER_IFRAME=1 without subdomains "
            "(ATTENTION_LAB_ONE_ORIGIN=1): every user's pages share one origin, so a page a "
            "student serves can act in the instructor's framed formgrader. Safe only when every "
            "user is trusted (docs/hub-admins.md, 'Origins apart').",
            file=sys.stderr,
        )
    c.JupyterHub.load_groups = {**hub_groups(courses), **dict(c.JupyterHub.get("load_groups", {}))}
    c.JupyterHub.load_roles = list(c.JupyterHub.get("load_roles", [])) + hub_roles(courses)
    c.JupyterHub.services = list(c.JupyterHub.get("services", [])) + formgrader_services(
        courses, venv=venv, config_path=config_path, exchange=exchange
    )
    users = {name for course in courses for name in course.instructors + course.students}
    users |= {course.grader for course in courses if course.grader}
    c.Authenticator.allowed_users = set(c.Authenticator.get("allowed_users", set())) | users

    # jupyterhub-singleuser, serving on the socket the hub listens on for it, sealed from its
    # user's other processes (server_launch.py; -s: no user site-packages in the server)
    c.Spawner.cmd = [os.path.join(venv, "bin", "python"), "-s", SERVER_LAUNCH]
    c.Spawner.default_url = "/lab"
    c.Spawner.environment = {
        **dict(c.Spawner.get("environment", {})),
        "ATTENTION_LAB_EXCHANGE": exchange,
        "PATH": user_path(venv),
    }
    c.Spawner.server_token_scopes = server_token_scopes(courses)
    # A user's own ~/.jupyter and ~/.local/share/jupyter configure nothing of their server: a
    # student's jupyter_server_config.py served her page, from the hub's address, to anyone.
    c.Spawner.disable_user_config = True
    c.Spawner.pre_spawn_hook = make_pre_spawn_hook(
        config_root=config_root,
        formgrader_iframe=formgrader_iframe,
        services=any(course.has_service for course in courses),
        courses=courses,
    )
    refuse_foreign_course_folders(exchange, courses)
    ensure_variant_keys(courses)


def refuse_foreign_course_folders(exchange: str, courses: Sequence[Course]) -> None:
    """Refuse to start the hub while a course's exchange folders are missing or not the course's.

    Their owner must be its instructors, grader account or root (``install.py system --owner``
    makes them).

    Raises
    ------
    ValueError
        Every problem, each with its fix (:func:`exchange_folders.course_folder_problems`).
    """
    from attention_hub.exchange_folders import course_folder_problems

    problems = [
        problem
        for course in courses
        for problem in course_folder_problems(
            exchange, course.course_id, [*course.instructors, *filter(None, [course.grader])]
        )
    ]
    if problems:
        raise ValueError("the hub does not start: " + "; ".join(problems))


def refuse_public_state_folder(folder: str = ".") -> None:
    """Refuse to start the hub in a folder other users may enter.

    Its state there (the sqlite database with every user's tokens, the cookie secret, the log) is
    secret.

    Raises
    ------
    ValueError
        ``folder`` is group- or world-accessible; says how to make a private one.
    """
    path = os.path.abspath(folder)
    mode = stat.S_IMODE(os.stat(path).st_mode)
    if mode & 0o077:
        raise ValueError(
            f"the hub does not start in {path} (mode {mode:o}): its database, cookie secret and "
            "log would be readable by other users. Start it in a private folder: install -d -m "
            "700 /var/lib/attention-lab-hub && cd /var/lib/attention-lab-hub (docs/hub-admins.md)"
        )
