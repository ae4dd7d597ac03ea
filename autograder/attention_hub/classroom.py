"""The JupyterHub side of an Attention Lab classroom, as plain data built from a course list.

Both hub configs reach :func:`configure_classroom` through
:func:`attention_hub.configure.configure_hub`; everything else here is a small pure function so that the test suite
can check the groups, roles and services without starting a hub.

nbgrader's conventions (docs: "Using nbgrader with JupyterHub"):

* group ``formgrade-<course>``: the instructors (and the course's grader account, if any);
* group ``nbgrader-<course>``: the students. nbgrader's ``JupyterHubAuthPlugin`` reads these
  groups to decide who may fetch/submit in which course, and adds students to ``nbgrader-<course>``
  when an instructor adds them to the gradebook;
* one class: the formgrader runs in the instructor's own server; several classes: one formgrader
  per course, run as a JupyterHub service named like the course by a ``grader-<course>`` account.

This module imports only the standard library (and ``attention_lab.variants`` when a course
has variants).
"""

from __future__ import annotations

import logging
import os
import re
import secrets
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from traitlets.config import Config

__all__ = [
    "ensure_variant_keys",
    "refuse_foreign_course_folders",
    "refuse_public_state_folder",
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
    "configure_classroom",
    "names_from_env",
]

FORMGRADE_PREFIX = "formgrade-"
#: What every user's server runs (with the course env's Python, ``-s``).
SERVER_LAUNCH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "server_launch.py")
STUDENT_PREFIX = "nbgrader-"
# nbgrader course ids become group, service and folder names: keep them to a safe alphabet.
log = logging.getLogger("attention_lab.classroom")
_COURSE_ID = re.compile(r"^[a-z0-9][a-z0-9_-]*$")
# What every single-user server's $JUPYTERHUB_API_TOKEN may do (JupyterHub's default "server"
# role) plus reading the owner's own groups, which nbgrader's JupyterHubAuthPlugin needs.
_BASE_SERVER_SCOPES = (
    "users:activity!user",
    "access:servers!server",
    "read:users:name!user",
    "read:users:groups!user",
)


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
                    "PATH": _user_path(venv),
                },
            }
        )
    return services


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


def _user_path(venv: str) -> str:
    # Terminals and `!nbgrader ...` in a notebook must find the course env's tools first, and
    # nbgrader itself runs `alembic` from PATH when it creates a gradebook (nbgrader/api.py).
    return os.pathsep.join([os.path.join(venv, "bin"), "/usr/local/bin", "/usr/bin", "/bin"])


def variant_seed(courses: Sequence[Course], groups: set[str], login: str) -> str:
    """Return the variant seeds of a student's server (``SEED_ENV``'s text), or "".

    For each course she studies (hub group ``nbgrader-<course>``) that names a key file:
    ``HMAC(course key, login)``, the login being the id the exchange trusts for her. Several
    courses: one line each (``attention_lab.variants.seeds_text``); a notebook draws with the
    seed of the course whose folder it is in (``~/<course>/<assignment>``, as fetched).
    """
    from attention_lab.variants import StudentSeed, seeds_text

    keyed = [c for c in courses if c.variant_key_file and f"nbgrader-{c.course_id}" in groups]
    seeds = {}
    for course in keyed:
        try:
            with open(str(course.variant_key_file), encoding="ascii") as key:
                secret = bytes.fromhex(key.read().strip())
        except (OSError, ValueError) as err:  # the hub made it at start: gone or spoilt since
            log.error(
                "%s: variant key unreadable (%s): %s gets the practice numbers (answers "
                "worked on them are flagged other_variant); restore the key from a backup",
                course.course_id, err, login,
            )  # fmt: skip
            continue
        seeds[course.course_id] = StudentSeed.from_key(secret, login)
    return seeds_text(seeds) if seeds else ""


def make_pre_spawn_hook(
    *,
    config_root: str,
    formgrader_iframe: bool,
    services: bool = False,
    courses: Sequence[Course] = (),
) -> Callable[[Any], None]:
    """Make a ``Spawner.pre_spawn_hook`` choosing each user's Jupyter config by hub group.

    A student of a course with a ``variant_key_file`` gets her variant seed in her server's
    environment (:func:`variant_seed`).

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
        "PATH": _user_path(venv),
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


def ensure_variant_keys(courses: Sequence[Course]) -> list[str]:
    """Make each course's missing variant key now, as the hub starts; return the keys made.

    A server started before the key existed would hold no seed: its student would work on the
    practice numbers and be marked wrong (flagged ``other_variant``) at grading. So the key is
    made before any server: 32 random bytes as 64 hex digits, the form ``make release`` reads
    and writes, mode 0600, owned by whoever owns the folder it is in (the instructor's course
    folder), so that her grading reads it and no student does. An existing key is left alone.

    Raises
    ------
    ValueError
        The key's folder is missing: the hub does not start (a key made elsewhere would not be
        the one the teacher grades with).
    """
    refuse_shared_keys(courses)
    made = []
    for course in courses:
        path = course.variant_key_file
        if not path or os.path.lexists(path):
            continue
        folder = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(folder):
            raise ValueError(
                f"the hub does not start: ATTENTION_LAB_VARIANT_KEY ({path}) is in no folder "
                f"yet; install the course first (install.py instructor), or point it at "
                f"<course folder>/variant.key"
            )
        owner = os.stat(folder)
        key = secrets.token_hex(32)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        try:
            if os.geteuid() == 0:
                os.fchown(fd, owner.st_uid, owner.st_gid)
            os.write(fd, (key + "\n").encode("ascii"))
        finally:
            os.close(fd)
        # so that grading refuses if the key is lost, even where the config does not name it
        from attention_grader.common.variant_key import note_issued

        mine = (owner.st_uid, owner.st_gid) if os.geteuid() == 0 else None
        note_issued(Path(path), bytes.fromhex(key), mine)
        log.warning("%s: made the course's variant key %s", course.course_id, path)
        made.append(path)
    return made


def refuse_shared_keys(courses: Sequence[Course]) -> None:
    """Refuse two courses naming one variant key: each class gets its own.

    With one key, a student of both would get the same numbers in both, and either class's
    teacher could compute every student's numbers of the other.

    Raises
    ------
    ValueError
        Two courses name the same key file.
    """
    seen: dict[str, str] = {}
    for course in courses:
        if not course.variant_key_file:
            continue
        path = os.path.realpath(course.variant_key_file)
        if path in seen:
            raise ValueError(
                f"the hub does not start: courses {seen[path]!r} and {course.course_id!r} name "
                f"one variant key ({course.variant_key_file}); give each class its own, e.g. "
                "<its course folder>/variant.key"
            )
        seen[path] = course.course_id


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


def names_from_env(variable: str, environ: Mapping[str, str] = os.environ) -> tuple[str, ...]:
    """User names from a comma/space separated environment variable (empty when unset)."""
    return tuple(name for name in re.split(r"[,\s]+", environ.get(variable, "")) if name)


def refuse_public_state_folder(folder: str = ".") -> None:
    """Refuse to start the hub in a folder other users may enter.

    Its state there (the sqlite database with every user's tokens, the cookie secret, the log) is
    secret.

    Raises
    ------
    ValueError
        ``folder`` is group- or world-accessible; says how to make a private one.
    """
    import stat

    path = os.path.abspath(folder)
    mode = stat.S_IMODE(os.stat(path).st_mode)
    if mode & 0o077:
        raise ValueError(
            f"the hub does not start in {path} (mode {mode:o}): its database, cookie secret and "
            "log would be readable by other users. Start it in a private folder: install -d -m "
            "700 /var/lib/attention-lab-hub && cd /var/lib/attention-lab-hub (docs/hub-admins.md)"
        )
