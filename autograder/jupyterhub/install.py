r"""Install the Attention Lab classroom on a JupyterHub machine (run as root).

Three steps, each idempotent::

    # 1. once per machine: the shared exchange and the system-wide nbgrader config
    python autograder/jupyterhub/install.py system --owner teacher \
        --exchange /srv/nbgrader/exchange --config-dir /etc/jupyter --course attention-lab

    # 2. once per course: the course directory in the instructor's (or grader's) home
    python autograder/jupyterhub/install.py instructor --user teacher \
        --course-dir /home/teacher/attention-lab --from /path/to/this/repo

    # 3. check that every user can run the course environment (the users' kernel)
    #    and that the course folders are the instructor's
    python autograder/jupyterhub/install.py check --venv /opt/attention-lab/.venv \
        --exchange /srv/nbgrader/exchange --course attention-lab --owner teacher

    # 4. a class: accounts for everyone on the roster, its students in the gradebook
    python autograder/jupyterhub/install.py roster --file /etc/attention-lab/roster.csv \
        --user teacher --course-dir /home/teacher/attention-lab --create-accounts

Standard library only, so that it runs before the course environment exists.
"""

from __future__ import annotations

import argparse
import json
import os
import pwd
import shutil
import stat
import string
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

# the hub's package, autograder/attention_hub, beside this folder (this command runs by path)
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from attention_hub.exchange_folders import (
    COURSE_DIR_MODES,
    course_folder_problems,
    make_course_folders,
)
from attention_hub.roster import Roster, read_roster, students_csv

__all__ = [
    "EXCHANGE_ROOT_MODE",
    "COURSE_DIR_MODES",
    "course_owners",
    "STUDENT_DISABLED_LAB_PLUGINS",
    "STUDENT_DISABLED_SERVER_EXTENSIONS",
    "render_system_config",
    "ensure_exchange",
    "write_role_configs",
    "install_system",
    "install_course",
    "untraversable_dirs",
    "check_venv",
    "create_accounts",
    "import_students",
    "main",
]

HERE = Path(__file__).resolve().parent
TEMPLATE = HERE / "etc" / "nbgrader_config.py.in"
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
    """Write the Jupyter config folders that the hub adds by role (``classroom.py``).

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


def install_course(
    user: str, course_dir: str, source_repo: str, course_id: str | None = None
) -> Path:
    """Copy the course into ``course_dir`` for ``user`` and point their nbgrader at it.

    Copies ``nbgrader_config.py`` and ``source/`` of ``source_repo`` (this repository), makes the
    user own them, writes ``~user/.jupyter/nbgrader_config.py`` (which loads the course's config,
    as nbgrader's "one class, one grader" set-up asks) and makes the home private (0700): the
    course source holds the answers. ``course_id`` overrides the course's own id (several
    classes: one copy per class, each with its id). Returns the user's ``nbgrader_config.py``.
    """
    entry = pwd.getpwnam(user)
    home = Path(entry.pw_dir)
    course = Path(course_dir)
    if home not in course.parents:
        raise ValueError(
            f"--course-dir {course} must be inside {user}'s home {home}: the formgrader only "
            "serves a course below the server's root folder"
        )
    repo = Path(source_repo)
    if not (repo / "nbgrader_config.py").is_file() or not (repo / "source").is_dir():
        raise ValueError(
            f"--from {repo}: expected the course repository (nbgrader_config.py, source/)"
        )
    course.mkdir(parents=True, exist_ok=True)
    shutil.copy2(repo / "nbgrader_config.py", course / "nbgrader_config.py")
    shutil.copytree(repo / "source", course / "source", dirs_exist_ok=True)
    jupyter_dir = home / ".jupyter"
    jupyter_dir.mkdir(exist_ok=True)
    user_config = jupyter_dir / "nbgrader_config.py"
    user_config.write_text(
        "# Written by autograder/jupyterhub/install.py: this account's course directory.\n"
        "c = get_config()  # noqa: F821\n"
        f"load_subconfig({str(course / 'nbgrader_config.py')!r})  # noqa: F821\n"
        + (f"c.CourseDirectory.course_id = {course_id!r}\n" if course_id else "")
        # Kubernetes: the hub hands instructors (only) the PostgreSQL gradebook's URL.
        + "import os\n"
        "if os.environ.get('ATTENTION_LAB_GRADEBOOK'):\n"
        "    c.CourseDirectory.db_url = os.environ['ATTENTION_LAB_GRADEBOOK']\n"
    )
    # The user owns everything from their home down to the course's files.
    between = [p for p in course.parents if home in p.parents]
    for path in [jupyter_dir, user_config, *between, course, *course.rglob("*")]:
        os.chown(path, entry.pw_uid, entry.pw_gid)
    os.chmod(home, 0o700)
    return user_config


def untraversable_dirs(path: str) -> list[str]:
    """List folders on the way to ``path`` that other users cannot enter (no ``o+x``).

    Symlinks' targets count too: each such folder blocks the users' servers from running the
    course env.
    """
    blocked: list[str] = []
    targets = {os.path.abspath(path), os.path.realpath(path)}
    for target in sorted(targets):
        for folder in reversed(Path(target).parents):
            mode = folder.stat().st_mode
            if not mode & stat.S_IXOTH and str(folder) not in blocked:
                blocked.append(str(folder))
    return blocked


def check_venv(venv: str, user: str = "nobody") -> tuple[bool, str]:
    """Check that ``user`` can start the course env's Python and import the course's packages.

    Returns ``(ok, message)``; the message names the folders to fix when it cannot.
    """
    python = os.path.join(venv, "bin", "python")
    blocked = untraversable_dirs(python)
    # Import the course package (numpy, matplotlib below it) and find the servers' packages
    # without importing them: importing nbgrader costs seconds of a parser build, not a check.
    code = (
        "import importlib.util as u, attention_lab; "
        "missing = [m for m in ('nbgrader', 'jupyterhub', 'ipykernel') if u.find_spec(m) is None]; "
        "print('missing ' + ' '.join(missing) if missing else 'ok')"
    )
    run = subprocess.run(
        ["runuser", "-u", user, "--", python, "-c", code],
        capture_output=True,
        text=True,
        cwd="/",
        check=False,
    )
    if run.returncode == 0 and run.stdout.strip() == "ok":
        return True, f"{python} runs for {user!r}"
    hint = (
        f"; these folders lack o+x: {', '.join(blocked)} (chmod o+x them, or build the env "
        "under /opt with a system Python: see docs/hub-admins.md, Classroom JupyterHub)"
        if blocked
        else ""
    )
    return False, f"{python} fails for {user!r}: {(run.stderr or run.stdout).strip()[-300:]}{hint}"


def create_accounts(roster: Roster) -> list[str]:
    """Create the roster's missing local accounts; return the names created.

    Private 0700 homes, no password: set one, or let the hub's authenticator decide.
    """
    created = []
    for person in roster.people:
        try:
            pwd.getpwnam(person.id)
            continue
        except KeyError:
            pass
        comment = f"{person.first_name} {person.last_name}".strip()
        subprocess.run(
            ["useradd", "-m", "-s", "/bin/bash", *(["-c", comment] if comment else []), person.id],
            check=True, capture_output=True,
        )  # fmt: skip
        os.chmod(pwd.getpwnam(person.id).pw_dir, 0o700)
        created.append(person.id)
    return created


def import_students(roster: Roster, user: str, course_dir: str, venv: str = sys.prefix) -> str:
    """Add (or update) the roster's students in ``user``'s gradebook; return nbgrader's log.

    Run as ``user`` with ``nbgrader db student import``, so that the gradebook stays theirs.
    """
    entry = pwd.getpwnam(user)
    # Root never writes into the instructor's folders (a planted symlink would redirect the
    # write): the list goes to a fresh private folder, handed over once written.
    folder = Path(tempfile.mkdtemp(prefix="attention-roster-"))
    try:
        listing = students_csv(roster, folder / "students.csv")
        for path in (listing, folder):
            os.chown(path, entry.pw_uid, entry.pw_gid)
        result = subprocess.run(
            ["runuser", "-u", user, "--", os.path.join(venv, "bin", "nbgrader"), "db",
             "student", "import", str(listing)],
            cwd=course_dir, capture_output=True, text=True, timeout=300,
            env={"HOME": entry.pw_dir, "USER": user, "PATH": f"{venv}/bin:/usr/sbin:/usr/bin:/bin"},
        )  # fmt: skip
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    if result.returncode != 0:
        raise ValueError(f"nbgrader db student import failed:\n{result.stderr[-2000:]}")
    return result.stderr


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: ``system``, ``instructor``, ``check`` and ``roster`` (module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="step", required=True)
    system = sub.add_parser("system", help="exchange + system-wide nbgrader config")
    system.add_argument("--exchange", required=True, help="shared exchange root")
    system.add_argument("--config-dir", default="/etc/jupyter", help="system Jupyter config dir")
    system.add_argument("--course", action="append", required=True, help="course id (repeat)")
    system.add_argument(
        "--no-hub", dest="hub", action="store_false",
        help="one machine with separate accounts and no JupyterHub (no hub groups to ask)",
    )  # fmt: skip
    system.add_argument(
        "--owner", action="append", required=True,
        help="account owning the course folders: USER, or COURSE=USER per course (repeat)",
    )  # fmt: skip
    course = sub.add_parser("instructor", help="course directory in an instructor's home")
    course.add_argument("--user", required=True)
    course.add_argument("--course-dir", required=True)
    course.add_argument("--from", dest="repo", default=str(HERE.parents[1]))
    course.add_argument("--course", help="course id of this copy (several classes)")
    check = sub.add_parser("check", help="can every user run the course environment?")
    check.add_argument("--venv", default=sys.prefix)
    check.add_argument("--user", default="nobody")
    check.add_argument("--exchange", help="also check the course folders in this exchange")
    check.add_argument("--course", action="append", default=[], help="course id (repeat)")
    check.add_argument("--owner", action="append", help="USER or COURSE=USER (as for system)")
    roster = sub.add_parser("roster", help="accounts + gradebook students from a roster CSV")
    roster.add_argument("--file", required=True, help="roster CSV (see roster.py)")
    roster.add_argument("--user", required=True, help="the instructor owning the gradebook")
    roster.add_argument("--course-dir", required=True)
    roster.add_argument("--venv", default=sys.prefix)
    roster.add_argument("--create-accounts", action="store_true", help="useradd the missing")
    args = parser.parse_args(argv)
    try:
        if args.step == "system":
            path = install_system(args.exchange, args.config_dir, args.course, args.owner, args.hub)
            owners = course_owners(args.course, args.owner)
            made = ", ".join(f"{c} (owner {u})" for c, u in owners.items())
            print(f"exchange {args.exchange} (1777), course folders {made}, wrote {path}")
        elif args.step == "instructor":
            path = install_course(args.user, args.course_dir, args.repo, args.course)
            print(f"course in {args.course_dir}, wrote {path}")
        elif args.step == "roster":
            people = read_roster(args.file)
            if args.create_accounts:
                print(f"created {len(create_accounts(people))} accounts")
            import_students(people, args.user, args.course_dir, args.venv)
            print(f"{len(people.students)} students in {args.user}'s gradebook")
        else:
            ok, message = check_venv(args.venv, args.user)
            print(message)
            if args.exchange:
                owners = course_owners(args.course, args.owner)
                problems = [p for c, u in owners.items()
                            for p in course_folder_problems(args.exchange, c, [u])]  # fmt: skip
                for problem in problems:
                    print(f"course folder: {problem}")
                ok = ok and not problems
                if not problems:
                    print(f"course folders of {', '.join(owners)}: owned by their owners")
            return 0 if ok else 1
    except (ValueError, KeyError, PermissionError, subprocess.CalledProcessError) as err:
        print(f"install.py {args.step}: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
