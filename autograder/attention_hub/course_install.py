"""Install steps for a course and its people: the course copy, the env check, the roster.

``install.py instructor`` (:func:`install_course`: the course in the instructor's home, their
nbgrader pointed at it), ``install.py check`` (:func:`check_venv`: every user can run the
course env) and ``install.py roster`` (:func:`create_accounts`, :func:`import_students`), run
by path as root from autograder/jupyterhub/. Standard library only, so that it runs before the
course environment exists.
"""

from __future__ import annotations

import os
import pwd
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

from attention_hub.roster import Roster, students_csv

__all__ = [
    "check_venv",
    "create_accounts",
    "import_students",
    "install_course",
    "untraversable_dirs",
]


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
