"""Each user's Jupyter config, chosen as their server starts: the spawner's ``pre_spawn_hook``.

Students get nbgrader's instructor tools switched off (:func:`student_config_dir`, written by
``install.py system``) and, in a course with variants, their own variant seed; instructors get
the formgrader (framed in JupyterLab only on purpose: :func:`frame_ancestors_arg`).
Standard library only (and ``attention_lab.variants`` when a course has variants).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

from attention_hub.course import FORMGRADE_PREFIX, Course
from attention_hub.variant_keys import variant_seed

__all__ = [
    "frame_ancestors_arg",
    "instructor_config_dir",
    "make_pre_spawn_hook",
    "student_config_dir",
]


def student_config_dir(config_root: str) -> str:
    """Jupyter config folder added for students only (written by ``install.py system``).

    It switches off nbgrader's instructor tools (formgrader, create assignment, course list).
    """
    return os.path.join(config_root, "attention-lab", "student")


def instructor_config_dir(config_root: str) -> str:
    """Jupyter config folder added for instructors when formgraders run as services.

    Several classes: the formgrader lives in each course's service, so the instructor's own
    server keeps the assignment and course lists only (nbgrader's table of extensions).
    """
    return os.path.join(config_root, "attention-lab", "instructor-services")


def frame_ancestors_arg() -> str:
    """Return the single-user server flag that lets JupyterLab show the formgrader in its iframe.

    JupyterHub >= 4.1 sends ``Content-Security-Policy: frame-ancestors 'none'`` from every
    single-user server, which blanks the formgrader panel. nbgrader's docs: restore
    ``frame-ancestors 'self'`` only with subdomains (``JupyterHub.subdomain_host``: each server
    its own origin), or knowingly when all users are trusted; otherwise open the formgrader in its own
    browser tab (``/user/<name>/formgrader``).
    """
    return (
        '--ServerApp.tornado_settings={"headers": '
        '{"Content-Security-Policy": "frame-ancestors \'self\'"}}'
    )


def make_pre_spawn_hook(
    *,
    config_root: str,
    formgrader_iframe: bool,
    services: bool = False,
    courses: Sequence[Course] = (),
) -> Callable[[Any], None]:
    """Make a ``Spawner.pre_spawn_hook`` choosing each user's Jupyter config by hub group.

    A student of a course with a ``variant_key_file`` gets her variant seed in her server's
    environment (:func:`attention_hub.variant_keys.variant_seed`).

    Membership is read from the hub's database at spawn time, so a roster change made through
    the hub API takes effect at the user's next server start. ``services``: the formgraders run
    as hub services (several classes), so instructors' own servers leave it out.
    """
    student_dir = student_config_dir(config_root)
    teacher_dirs = [instructor_config_dir(config_root)] if services else []

    def pre_spawn_hook(spawner: Any) -> None:  # a JupyterHub Spawner
        groups = {group.name for group in spawner.user.groups}
        teaches = any(name.startswith(FORMGRADE_PREFIX) for name in groups)
        paths = [*teacher_dirs, config_root] if teaches else [student_dir, config_root]
        env = dict(spawner.environment)
        env["JUPYTER_CONFIG_PATH"] = os.pathsep.join(paths)
        keyed = any(course.variant_key_file for course in courses)
        seed = variant_seed(courses, groups, spawner.user.name) if keyed else ""
        if seed:  # the library (and numpy) only for a course with variants
            from attention_lab.variants import SEED_ENV

            env[SEED_ENV] = seed
        spawner.environment = env
        if teaches and formgrader_iframe:
            spawner.args = [*spawner.args, frame_ancestors_arg()]

    return pre_spawn_hook
