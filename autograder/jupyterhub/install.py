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
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

# the hub's package, autograder/attention_hub, beside this folder (this command runs by path)
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from attention_hub.course_install import (
    check_venv,
    create_accounts,
    import_students,
    install_course,
    untraversable_dirs,
)
from attention_hub.exchange_folders import COURSE_DIR_MODES, course_folder_problems
from attention_hub.roster import read_roster
from attention_hub.system_install import (
    EXCHANGE_ROOT_MODE,
    STUDENT_DISABLED_LAB_PLUGINS,
    STUDENT_DISABLED_SERVER_EXTENSIONS,
    course_owners,
    ensure_exchange,
    install_system,
    render_system_config,
    write_role_configs,
)

# the steps live in attention_hub.system_install and attention_hub.course_install; their names
# stay importable from here (``import install``), as before
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
