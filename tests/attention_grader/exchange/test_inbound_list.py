"""``nbgrader list --inbound`` on both layouts of ``inbound/``, with collect's identity rule.

On a classroom hub with per-user disks each student hands in to ``inbound/<student>/`` (the
instructor's, 2770, an ACL for that student; ``inbound/`` 3731, which students cannot list); a
laptop keeps nbgrader's flat ``inbound/<student>+<assignment>+…``. The instructor's list shows
both; a student's shows their own folder only. As collect: the student of a submission is its
owner, a per-student folder's entries must name that folder's student, and hostile names
(``*``, ``..``, links, a classmate's name) are refused with collect's one line, never listed.

Real local accounts own the folders (tests/support/exchange_accounts.py's
helpers); the student's list runs as that student (``runuser``) with the hub's rendered
system-wide config. Needs root.
"""

from __future__ import annotations

import copy
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_notebook

from tests.support.exchange_accounts import (
    CLI,
    FUTURE,
    STUDENT_PYTHON,
    account_uid,
    chown_tree,
    hub_module,
    inbound_folder,
    own_folder,
    run_nbgrader,
    students_may_enter,
)
from tests.support.grading_course import FIXTURE, make_course

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(os.geteuid() != 0, reason="making accounts and chown need root"),
]

NOW = "2026-12-01 10:00:00.000000 UTC"
LATER = "2026-12-01 11:00:00.000000 UTC"
ROOT = Path(__file__).resolve().parents[3]
HUB_DIR = ROOT / "autograder" / "jupyterhub"


def _students(log: str) -> list[str]:
    """The student of each submission ``nbgrader list --inbound`` printed (``<course> <student> …``)."""
    lines = [ln.split() for ln in log.splitlines() if f" {FIXTURE} " in ln and "refused" not in ln]
    return sorted(words[words.index(FIXTURE) - 1] for words in lines)


def _handed_in(folder: Path, owner_uid: int) -> Path:
    """A submission folder as nbgrader's submit leaves it, handed to ``owner_uid``."""
    folder.mkdir()
    nbformat.write(new_notebook(), folder / f"{FIXTURE}.ipynb")
    (folder / "timestamp.txt").write_text(NOW)
    chown_tree(folder, owner_uid)
    return folder


def _listed(course, **settings: str) -> set[tuple[str, str]]:
    """(student, path relative to inbound/) of what ``ExchangeFactory.List`` returns (the API)."""
    from nbgrader.auth import Authenticator
    from nbgrader.coursedir import CourseDirectory
    from nbgrader.exchange import ExchangeFactory

    config = copy.deepcopy(course.config)
    config.ExchangeList.inbound = True
    for name, value in settings.items():
        setattr(config.CourseDirectory, name, value)
    lister = ExchangeFactory(config=config).List(
        coursedir=CourseDirectory(config=config),
        authenticator=Authenticator(config=config),
        config=config,
    )
    return {
        (sub["student_id"], os.path.relpath(sub["path"], inbound_folder(course)))
        for group in lister.start()
        for sub in group["submissions"]
    }


def test_the_instructor_lists_both_layouts_and_nothing_forged(tmp_path, accounts):
    alice, bob, mallory = accounts["alice"], accounts["bob"], accounts["mallory"]
    course = make_course(tmp_path)
    inbound = inbound_folder(course)
    inbound.mkdir(parents=True)
    for student in (alice, bob, mallory):
        own_folder(course, student)
    honest = {
        (alice, f"{alice}/{alice}+{FIXTURE}+{NOW}+a"),  # a per-student folder (the hub)
        (mallory, f"{mallory}/{mallory}+{FIXTURE}+{NOW}+m"),
        (bob, f"{bob}+{FIXTURE}+{NOW}+b"),  # directly in inbound/ (a laptop, an older hub)
    }
    for student, name in honest:
        _handed_in(inbound / name, account_uid(student))
    # mallory names alice in her own folder and (as if she could write there) in alice's;
    # bob hands in into alice's folder under his own name; a link in alice's folder to bob's
    _handed_in(inbound / mallory / f"{alice}+{FIXTURE}+{FUTURE}+x", account_uid(mallory))
    _handed_in(inbound / alice / f"{alice}+{FIXTURE}+{FUTURE}+y", account_uid(mallory))
    _handed_in(inbound / alice / f"{bob}+{FIXTURE}+{NOW}+z", account_uid(bob))
    os.symlink(inbound / f"{bob}+{FIXTURE}+{NOW}+b", inbound / alice / f"{alice}+{FIXTURE}+{NOW}+l")
    # names that are globs or paths, flat and as a "student's folder" (an older, open inbound/)
    _handed_in(inbound / f"*+{FIXTURE}+{NOW}+s", account_uid(mallory))
    _handed_in(inbound / f"..+{FIXTURE}+{NOW}+d", account_uid(mallory))
    (inbound / "*").mkdir()
    os.lchown(inbound / "*", account_uid(mallory), -1)
    _handed_in(inbound / "*" / f"*+{FIXTURE}+{NOW}+g", account_uid(mallory))

    assert _listed(course) == honest
    assert _listed(course, student_id=alice) == {(alice, f"{alice}/{alice}+{FIXTURE}+{NOW}+a")}
    assert _listed(course, student_id="*") == honest  # nbgrader's "every student"
    assert _listed(course, student_id=f"{alice[0]}*") == set()  # an id is compared, not globbed
    assert _listed(course, assignment_id="other") == set()

    # nbgrader's own command, with the course's config: each refused folder is one line
    out = run_nbgrader(course.root, "list", "--inbound")
    assert out.returncode == 0, out.stderr[-2000:]
    assert _students(out.stderr) == sorted([alice, bob, mallory]), out.stderr
    refused = [ln for ln in out.stderr.splitlines() if "refused:" in ln]
    assert any(f"folder owned by {mallory} names {alice}" in ln for ln in refused), out.stderr
    assert any(f"in {alice}'s folder names {bob}" in ln for ln in refused), out.stderr
    assert any("not a folder" in ln for ln in refused), out.stderr
    assert any("'*'" in ln and "not a student id" in ln for ln in refused), out.stderr
    assert ".." not in _students(out.stderr)  # a name starting with "." is never read

    # the roster collect uses decides here too
    (course.root / "roster.csv").write_text(f"id,first_name,last_name,email\n{alice},A,L,\n")
    assert {s for s, _ in _listed(course)} == {alice}


def _grant_folder(folder: Path, uid: int) -> None:
    """``inbound/<student>/`` as the hub's user_disk.py makes it: 2770 with an ACL for ``uid``."""
    folder.mkdir()
    os.chmod(folder, 0o2770)
    hub_module("mounts").grant_rwx(folder, uid)


def _course_folders(exchange: Path, course: str) -> Path:
    """A course's folders as ``install.py system`` makes them, ``inbound/`` closed to students."""
    folders = hub_module("exchange_folders")
    folders.make_course_folders(exchange, course, "root")
    inbound = exchange / course / "inbound"
    inbound.chmod(folders.INBOUND_PER_USER_MODE)
    return inbound


def _hub_config(exchange: Path, courses: tuple[str, ...] = ("attention-lab",)) -> str:
    """The hub's system-wide nbgrader_config.py (install.py's), without the hub's API for auth."""
    return (
        hub_module("install").render_system_config(str(exchange), list(courses))
        + "\nfrom nbgrader.auth import NoAuthPlugin\nc.Authenticator.plugin_class = NoAuthPlugin\n"
    )


def _list_as(user: str, home: Path, *args: str) -> subprocess.CompletedProcess:
    """``nbgrader list --inbound`` as ``user``, from their home (its nbgrader_config.py)."""
    site_packages = sysconfig.get_paths()["purelib"]
    cmd = ["runuser", "-u", user, "--", "env", f"HOME={home}", "PATH=/usr/bin:/bin",
           str(STUDENT_PYTHON), "-S", "-c", CLI, site_packages, "list", "--inbound", *args]  # fmt: skip
    return subprocess.run(cmd, cwd=home, capture_output=True, text=True, timeout=300)


@pytest.fixture
def hub_exchange(accounts):
    """An exchange laid out as on the hub with per-user disks, where students can reach it,
    and the venv and course packages their ``nbgrader list`` runs from.
    """
    top = Path(tempfile.mkdtemp(prefix="al-list-", dir="/var/tmp"))
    uids = [account_uid(user) for user in accounts.values()]
    code = [Path(sysconfig.get_paths()["purelib"]), ROOT / "attention_lab", ROOT / "autograder"]
    try:
        top.chmod(0o755)
        exchange = top / "exchange"
        exchange.mkdir()
        exchange.chmod(0o1777)
        inbound = _course_folders(exchange, "attention-lab")
        homes = {}
        for who, user in accounts.items():
            homes[who] = top / f"home-{who}"
            homes[who].mkdir()
            (homes[who] / "nbgrader_config.py").write_text(_hub_config(exchange))
            chown_tree(homes[who], account_uid(user))
        with students_may_enter(code, uids):
            yield inbound, homes
    finally:
        shutil.rmtree(top)


@pytest.mark.skipif(not STUDENT_PYTHON.exists(), reason=f"no {STUDENT_PYTHON} for students")
def test_a_student_lists_their_own_folder_only(hub_exchange, accounts):
    inbound, homes = hub_exchange
    alice, bob, mallory = accounts["alice"], accounts["bob"], accounts["mallory"]
    for student in (alice, bob):
        _grant_folder(inbound / student, account_uid(student))
    mine = [f"{alice}+{FIXTURE}+{NOW}+a", f"{alice}+{FIXTURE}+{LATER}+b"]
    for name in mine:
        _handed_in(inbound / alice / name, account_uid(alice))
    _handed_in(inbound / bob / f"{bob}+{FIXTURE}+{NOW}+c", account_uid(bob))
    _handed_in(inbound / f"{bob}+{FIXTURE}+{NOW}+d", account_uid(bob))  # the flat layout, too
    # in alice's folder: a folder naming bob (hers), one naming her (mallory's), a link to bob's
    _handed_in(inbound / alice / f"{bob}+{FIXTURE}+{NOW}+e", account_uid(alice))
    _handed_in(inbound / alice / f"{alice}+{FIXTURE}+{FUTURE}+f", account_uid(mallory))
    os.symlink(
        inbound / bob / f"{bob}+{FIXTURE}+{NOW}+c", inbound / alice / f"{alice}+{FIXTURE}+{NOW}+l"
    )

    out = _list_as(alice, homes["alice"])
    assert out.returncode == 0, out.stderr[-2000:]
    assert _students(out.stderr) == [alice, alice], out.stderr  # hers, in a folder only she reads

    # asking for a classmate, or for everyone, never widens it
    for args in ([f"--student={bob}"], ["--student=*"], [f"--student={bob}", FIXTURE]):
        out = _list_as(alice, homes["alice"], *args)
        assert out.returncode == 0, out.stderr[-2000:]
        assert bob not in _students(out.stderr), (args, out.stderr)
    # bob sees his own one; mallory, who has no folder here, sees nothing and no error
    out = _list_as(bob, homes["bob"])
    assert _students(out.stderr) == [bob], out.stderr
    out = _list_as(mallory, homes["mallory"])
    assert out.returncode == 0 and _students(out.stderr) == [], out.stderr


def test_what_nbgrader_would_read_is_checked_first(tmp_path, accounts):
    """The listing (nbgrader's) reads ``submission_secret.txt`` (else each notebook) whole,
    following links: a FIFO there would hang the instructor's list, ``/dev/zero`` fill memory.
    """
    alice, mallory = accounts["alice"], accounts["mallory"]
    course = make_course(tmp_path)
    inbound = inbound_folder(course)
    inbound.mkdir(parents=True)
    for student in (alice, mallory):
        own_folder(course, student)
    _handed_in(inbound / alice / f"{alice}+{FIXTURE}+{NOW}+a", account_uid(alice))
    stuck = inbound / mallory / f"{mallory}+{FIXTURE}+{NOW}+fifo"
    stuck.mkdir()
    os.mkfifo(stuck / f"{FIXTURE}.ipynb")  # no secret: nbgrader hashes the notebook instead
    linked = _handed_in(
        inbound / mallory / f"{mallory}+{FIXTURE}+{LATER}+link", account_uid(mallory)
    )
    os.symlink(course.root / "nbgrader_config.py", linked / "submission_secret.txt")
    chown_tree(stuck, account_uid(mallory))
    chown_tree(linked, account_uid(mallory))

    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}")
    out = subprocess.run([sys.executable, "-m", "nbgrader", "list", "--inbound"], cwd=course.root,
                         env=env, capture_output=True, text=True, timeout=120)  # fmt: skip
    assert out.returncode == 0, out.stderr[-2000:]
    assert _students(out.stderr) == [alice], out.stderr
    not_listed = [ln for ln in out.stderr.splitlines() if "not listed:" in ln]
    assert len(not_listed) == 2, out.stderr
    assert any("+fifo" in ln and f"{FIXTURE}.ipynb is not a plain file" in ln for ln in not_listed)
    assert any(
        "+link" in ln and "submission_secret.txt is not a plain file" in ln for ln in not_listed
    )


def test_with_several_classes_a_student_lists_their_folder_in_each(hub_exchange, accounts):
    """Several classes on one hub: no course id in the config, the course folders are read."""
    inbound, homes = hub_exchange
    alice, mallory = accounts["alice"], accounts["mallory"]
    exchange = inbound.parent.parent
    other = _course_folders(exchange, "other-class")
    for folder in (inbound, other):
        _grant_folder(folder / alice, account_uid(alice))
    _handed_in(inbound / alice / f"{alice}+{FIXTURE}+{NOW}+a", account_uid(alice))
    _handed_in(other / alice / f"{alice}+{FIXTURE}+{NOW}+o", account_uid(alice))
    # a "course" mallory made in the open exchange root, named as a glob, holding a folder of
    # alice's: not a course of this hub, never read
    fake = exchange / "*" / "inbound"
    fake.mkdir(parents=True)
    for folder in (fake.parent, fake):
        os.lchown(folder, account_uid(mallory), -1)
    _grant_folder(fake / alice, account_uid(alice))
    _handed_in(fake / alice / f"{alice}+{FIXTURE}+{LATER}+f", account_uid(alice))
    config = _hub_config(exchange, ("attention-lab", "other-class"))
    (homes["alice"] / "nbgrader_config.py").write_text(config)

    out = _list_as(alice, homes["alice"])
    assert out.returncode == 0, out.stderr[-2000:]
    assert _students(out.stderr) == [alice, alice], out.stderr
    for course in ("attention-lab", "other-class"):
        assert f"] {course} {alice} {FIXTURE} " in out.stderr, out.stderr
