"""Is a process using this course's gradebook right now? `make reset-course` asks before it removes it.

A Jupyter server (`make lab`, the formgrader) that keeps running after the class's data is
removed still holds the deleted gradebook.db: every submission then reads "404 : Not Found"
until it is restarted. So reset-course refuses while

- a process has the gradebook (or its journal) open: /proc/<pid>/fd, Linux; or
- a Jupyter server whose root folder is inside the course is running: Jupyter's runtime files
  (``jpserver-<pid>.json``, what ``jupyter server list`` reads), with a live pid; the
  formgrader opens the gradebook only when a page needs it, so the fds alone miss an idle one.

Standard library only: reset-course must work with or without the course's .venv.
Usage: ``python3 make/course_in_use.py <course folder>``; exit 1 and one line per user when in
use, exit 0 and no output otherwise.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path

GRADEBOOK_FILES = ("gradebook.db", "gradebook.db-journal", "gradebook.db-wal")


@dataclass(frozen=True)
class User:
    """One process that uses the course: its pid, its command line and how it uses the course."""

    pid: int
    command: str
    how: str


def _command(pid: int) -> str:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return "?"
    return " ".join(part.decode(errors="replace") for part in raw.split(b"\0") if part)[:120]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's live process
        return True
    return True


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def gradebook_holders(course: Path) -> list[User]:
    """List processes with one of the course's gradebook files open (Linux /proc; [] elsewhere)."""
    targets = {str(course / name) for name in GRADEBOOK_FILES}
    users = []
    for fd_dir in Path("/proc").glob("[0-9]*/fd"):
        pid = int(fd_dir.parent.name)
        if pid == os.getpid():
            continue
        try:
            links = {os.readlink(fd) for fd in fd_dir.iterdir()}
        except OSError:  # gone, or another user's process
            continue
        held = sorted(link for link in links if link.removesuffix(" (deleted)") in targets)
        if held:
            users.append(User(pid, _command(pid), f"has {Path(held[0]).name} open"))
    return users


def runtime_dir() -> Path:
    """Jupyter's runtime folder, as jupyter_core.paths.jupyter_runtime_dir() finds it."""
    if os.environ.get("JUPYTER_RUNTIME_DIR"):
        return Path(os.environ["JUPYTER_RUNTIME_DIR"])
    if os.environ.get("JUPYTER_DATA_DIR"):
        return Path(os.environ["JUPYTER_DATA_DIR"]) / "runtime"
    data = os.environ.get("XDG_DATA_HOME") or os.path.expanduser("~/.local/share")
    return Path(data) / "jupyter" / "runtime"


def jupyter_servers(course: Path) -> list[User]:
    """List running Jupyter servers whose root folder is the course or inside it."""
    users = []
    for info_file in sorted(runtime_dir().glob("jpserver-*.json")):
        try:
            info = json.loads(info_file.read_text())
            pid, root = int(info["pid"]), Path(info.get("root_dir") or info["notebook_dir"])
        except (OSError, ValueError, KeyError, TypeError):
            continue
        if _alive(pid) and _inside(root.resolve(), course):
            where = info.get("url", "")
            users.append(User(pid, _command(pid), f"serves {root} {where}".rstrip()))
    return users


def course_users(course: Path) -> list[User]:
    """Every process using the course, each pid once."""
    course = course.resolve()
    seen, users = set(), []
    for user in [*jupyter_servers(course), *gradebook_holders(course)]:
        if user.pid not in seen:
            seen.add(user.pid)
            users.append(user)
    return users


def main(argv: list[str]) -> int:
    """Exit 1, naming each one, if a process or a Jupyter server uses the course; else 0."""
    users = course_users(Path(argv[1] if len(argv) > 1 else "."))
    for user in users:
        print(f"  pid {user.pid} ({user.command}) {user.how}")
    return 1 if users else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
