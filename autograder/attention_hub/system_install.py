"""Install step ``system``, once per machine: the shared exchange and the system-wide nbgrader config.

``install.py system`` (autograder/jupyterhub/, run by path as root) calls
:func:`install_system`: the exchange root (1777) with each course's folders owned by its
instructor (:mod:`attention_hub.exchange_folders`), ``<config_dir>/nbgrader_config.py`` from the
template ``autograder/jupyterhub/etc/nbgrader_config.py.in``, and the Jupyter config folders
the hub adds by role (:mod:`attention_hub.spawn_hook`). Standard library only, so that it runs
before the course environment exists.
"""

from __future__ import annotations

import json
import os
import string
from collections.abc import Sequence
from pathlib import Path

from attention_hub.exchange_folders import make_course_folders

__all__ = [
    "EXCHANGE_ROOT_MODE",
    "STUDENT_DISABLED_LAB_PLUGINS",
    "STUDENT_DISABLED_SERVER_EXTENSIONS",
    "TEMPLATE",
    "course_owners",
    "ensure_exchange",
    "install_system",
    "render_system_config",
    "write_role_configs",
]

#: The system config's template, beside the hub configs.
TEMPLATE = Path(__file__).resolve().parents[1] / "jupyterhub" / "etc" / "nbgrader_config.py.in"
# World-writable because nbgrader's `release` resets any other mode of the root to 0777; the
# sticky bit stops anyone deleting or renaming a folder that is not theirs. (nbgrader checks only
# the 0o777 bits.) Each course's own folders are made at install, owned by its instructor
# (exchange_folders.py), so nobody else can make them first.
EXCHANGE_ROOT_MODE = 0o1777
# nbgrader's JupyterLab plugins an instructor needs and a student does not.
STUDENT_DISABLED_LAB_PLUGINS = (
    "@jupyter/nbgrader:formgrader",
    "@jupyter/nbgrader:create-assignment",
    "@jupyter/nbgrader:course-list",
)
# ... and the matching server extensions (the formgrader's REST API answers 404 for students),
# with the course's own formgrader extensions (its pages' CSP, its final scores): a student's
# server has no formgrader to protect and should not pay for loading what protects it.
# jupyter_lsp goes too: no language server is installed for it to find, and looking for them
# is more than half of a server's start, which a class pays once per student at the same time.
# (attention_grader.term.validate_labels stays: it names the questions in the student's Validate.)
STUDENT_DISABLED_SERVER_EXTENSIONS = (
    "nbgrader.server_extensions.formgrader",
    "nbgrader.server_extensions.course_list",
    "attention_grader.pages.csp",
    "attention_grader.term.formgrader_scores",
    "jupyter_lsp",
)


_HUB_AUTH = (
    "JupyterHubAuthPlugin",
    "the hub groups nbgrader-<course> (students) and\n# formgrade-<course> (instructors), read "
    "through the hub API with each server's own token.",
)
_NO_HUB_AUTH = (
    "NoAuthPlugin",
    "every account of this machine (no hub: one machine,\n# separate accounts; "
    "the exchange's folders and modes keep each submission private).",
)


def render_system_config(exchange: str, course_ids: Sequence[str], hub: bool = True) -> str:
    """Text of the system-wide ``nbgrader_config.py`` (template ``etc/nbgrader_config.py.in``).

    One course id: students' assignment lists show that course. Several: the course comes from
    each student's hub groups and fetched copies go to ``~/<course>/<assignment>``. ``hub=False``
    (one machine with separate accounts, no hub): nbgrader's own authenticator, which asks no
    hub; the exchange's modes and the private submit are the same.
    """
    if not course_ids:
        raise ValueError("give at least one --course (the nbgrader course id, e.g. attention-lab)")
    if not os.path.isabs(exchange):
        raise ValueError(f"--exchange must be an absolute path, got {exchange!r}")
    several = len(course_ids) > 1
    course_setting = (
        "# (several classes: no single course id)"
        if several
        else f"c.CourseDirectory.course_id = {course_ids[0]!r}"
    )
    auth_plugin, auth_comment = _HUB_AUTH if hub else _NO_HUB_AUTH
    return string.Template(TEMPLATE.read_text()).substitute(
        auth_plugin=auth_plugin,
        auth_comment=auth_comment,
        exchange=repr(exchange),
        path_includes_course=repr(several),
        course_id_setting=course_setting,
    )


def course_owners(course_ids: Sequence[str], owner: str | Sequence[str] | None) -> dict[str, str]:
    """``{course: account}`` from ``--owner`` values: ``USER`` (every course) or ``COURSE=USER``.

    Raises
    ------
    ValueError
        No owner, or a course without one (the course folders must be made at install).
    """
    values = [owner] if isinstance(owner, str) else list(owner or ())
    owners: dict[str, str] = {}
    default: str | None = None
    for value in values:
        course, sep, user = value.partition("=")
        if sep:
            owners[course] = user
        else:
            default = value
    missing = [c for c in course_ids if c not in owners and default is None]
    if missing:
        raise ValueError(
            f"say who owns the course folders of {', '.join(missing)}: --owner <instructor> (or "
            "--owner <course>=<account> for each course); they are made now so that nobody else "
            "can make them first"
        )
    return {c: owners[c] if c in owners else str(default) for c in course_ids}


def ensure_exchange(
    root: str, course_ids: Sequence[str], owner: str | Sequence[str] | None
) -> None:
    """Create the exchange root (mode 1777) and each course's folders, owned by ``owner``.

    Parameters
    ----------
    root : str
        The exchange root (``/srv/nbgrader/exchange``).
    course_ids : sequence of str
        Courses whose ``<root>/<course>/{outbound,inbound,feedback}`` to create now.
    owner : str or sequence of str
        The account that releases and collects (instructor or grader): ``USER`` for every
        course, or ``COURSE=USER`` items (see :func:`course_owners`). A course folder already
        owned by someone else is refused (:func:`exchange_folders.make_course_folders`).
    """
    owners = course_owners(course_ids, owner)
    root_path = Path(root)
    root_path.mkdir(parents=True, exist_ok=True)
    os.chmod(root_path, EXCHANGE_ROOT_MODE)
    for course_id, user in owners.items():
        make_course_folders(root_path, course_id, user)


def _write_role_config(
    folder: Path, server_extensions: Sequence[str], lab_plugins: Sequence[str]
) -> Path:
    server_d = folder / "jupyter_server_config.d"
    labconfig = folder / "labconfig"
    for path in (folder, server_d, labconfig):
        path.mkdir(parents=True, exist_ok=True)
        os.chmod(path, 0o755)
    extensions = {"ServerApp": {"jpserver_extensions": dict.fromkeys(server_extensions, False)}}
    page_config = {"disabledExtensions": dict.fromkeys(lab_plugins, True)}
    for path, data in (
        (server_d / f"attention-lab-{folder.name}.json", extensions),
        (labconfig / "page_config.json", page_config),
    ):
        path.write_text(json.dumps(data, indent=2) + "\n")
        os.chmod(path, 0o644)
    return folder


def write_role_configs(config_dir: str) -> Path:
    """Write the Jupyter config folders that the hub adds by role (``spawn_hook.py``).

    ``<config_dir>/attention-lab/student``: nbgrader's instructor server extensions and JupyterLab
    plugins off. ``.../instructor-services``: the formgrader off in instructors' own servers when
    it runs as a per-course service (several classes). Returns the students' folder.
    """
    base = Path(config_dir) / "attention-lab"
    _write_role_config(
        base / "instructor-services",
        ["nbgrader.server_extensions.formgrader"],
        ["@jupyter/nbgrader:formgrader", "@jupyter/nbgrader:create-assignment"],
    )
    return _write_role_config(
        base / "student", STUDENT_DISABLED_SERVER_EXTENSIONS, STUDENT_DISABLED_LAB_PLUGINS
    )


def install_system(
    exchange: str,
    config_dir: str,
    course_ids: Sequence[str],
    owner: str | Sequence[str] | None,
    hub: bool = True,
) -> Path:
    """Exchange + ``<config_dir>/nbgrader_config.py`` + the students' config folder.

    ``hub=False``: one machine with separate accounts and no hub (:func:`render_system_config`).
    Returns the path of the written ``nbgrader_config.py``.
    """
    text = render_system_config(exchange, course_ids, hub)
    ensure_exchange(exchange, course_ids, owner)
    config_path = Path(config_dir)
    config_path.mkdir(parents=True, exist_ok=True)
    target = config_path / "nbgrader_config.py"
    target.write_text(text)
    os.chmod(target, 0o644)
    write_role_configs(config_dir)
    return target
