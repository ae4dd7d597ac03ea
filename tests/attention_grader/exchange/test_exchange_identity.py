"""Hostile exchange folders through `make collect`, plain `nbgrader collect` and the formgrader's
Collect: the student and the time of a submission come from the system, never from the folder.

Real local accounts (``alice``, ``bob``, ``mallory``, with a random suffix) own the folders, as
on a classroom hub's filesystem exchange; honest students submit through nbgrader's own submit
and their folder is then handed to their account (``chown``), as if they had submitted
themselves. Each attack is one folder in ``inbound/``:

* mallory's folder named ``alice+<A>+2099-…`` (a newer "alice" submission holding junk);
* a folder of an account that no longer exists (``uid 59999``) naming alice;
* ids that are not ids: ``<img src=x onerror=…>``, ``=HYPERLINK(…)``, ``*``;
* a symbolic link in ``inbound/`` named as alice's submission;
* bob, not on the roster, when the course has ``roster.csv``;
* alice's own folder named 2099 (it must not beat her later resubmission) and a backdated one
  (name and ``timestamp.txt`` before the due date, handed in after it).

Needs root (to make the accounts and hand folders to them).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
import uuid
from datetime import datetime
from pathlib import Path

import nbformat
import pytest
from attention_grader.cli import main
from attention_grader.common.flag_store import read_flags
from attention_grader.config.course import load_course
from attention_grader.intake.intake import default_quarantine, read_timestamp
from attention_grader.steps.release import release

from tests.support.exchange_accounts import (
    FUTURE,
    account_uid,
    chown_tree,
    inbound_folder,
    own_folder,
    run_nbgrader,
)
from tests.support.grading_course import (
    CORRECT,
    FIXTURE,
    MISCONCEIVED,
    Student,
    answer,
    make_course,
)

pytestmark = [
    pytest.mark.skipif(os.geteuid() != 0, reason="making accounts and chown need root"),
]

ALICE_MARK = "# alice-honest-4b1d"
JUNK_MARK = "# mallory-junk-9c2e"
DUE = "2026-11-30 12:00:00"


def _submit(course, tmp: Path, student: str, answers: dict, mark: str, owner: str | None) -> Path:
    """Submit through nbgrader as ``student`` (fresh home each time); hand the new folder to
    ``owner``'s account. Returns the new inbound folder.
    """
    before = set(inbound_folder(course).iterdir()) if inbound_folder(course).exists() else set()
    home = tmp / "homes" / uuid.uuid4().hex[:8]
    who = Student.__new__(Student)
    who.course, who.id, who.home = course, student, home / student
    who.home.mkdir(parents=True)
    path = who.fetch(FIXTURE)
    nb = nbformat.read(path, as_version=4)
    nbformat.write(answer(nb, {**answers, "q2_answer": answers["q2_answer"] + "\n" + mark}), path)
    who.submit(FIXTURE)
    (folder,) = set(inbound_folder(course).iterdir()) - before
    if owner is not None:
        chown_tree(folder, account_uid(owner))
    return folder


def _forge(course, name: str, owner_uid: int, *, stamp: str = FUTURE) -> Path:
    """A folder someone made by hand in inbound/, holding a junk notebook and ``timestamp.txt``."""
    folder = inbound_folder(course) / name
    folder.mkdir()
    released = nbformat.read(course.root / "release" / FIXTURE / f"{FIXTURE}.ipynb", 4)
    junk = {"q1_answer": "def softmax(xs):\n    return xs", "q2_answer": JUNK_MARK}
    nbformat.write(answer(released, junk), folder / f"{FIXTURE}.ipynb")
    (folder / "timestamp.txt").write_text(stamp)
    chown_tree(folder, owner_uid)
    return folder


def _wait_past(path: Path) -> None:
    """Wait until the clock is past ``path``'s ctime (so the next folder is newer by the system)."""
    ctime = os.lstat(path).st_ctime
    while time.time() <= ctime + 0.01:
        time.sleep(0.01)


def _collected_notebook(course, student: str) -> str:
    return (course.root / "submitted" / student / FIXTURE / f"{FIXTURE}.ipynb").read_text()


def _class(tmp_path, accounts):
    course = make_course(tmp_path)
    release(course, FIXTURE, duedate=DUE)
    return load_course(course.root)


@pytest.mark.slow
def test_forged_foreign_and_unsafe_folders_are_refused_and_listed(tmp_path, accounts, capsys):
    course = _class(tmp_path, accounts)
    alice, bob, mallory = accounts["alice"], accounts["bob"], accounts["mallory"]
    _submit(course, tmp_path, alice, CORRECT, ALICE_MARK, owner=alice)
    _submit(course, tmp_path, bob, MISCONCEIVED, "# bob", owner=bob)
    # mallory "submits as alice", dated 2099 so that it is alice's newest
    _forge(course, f"{alice}+{FIXTURE}+{FUTURE}+x", account_uid(mallory))
    _forge(course, f"{alice}+{FIXTURE}+{FUTURE}+gone", 59999)  # no such account
    hostile_ids = ["<img src=x onerror=alert(1)>", '=HYPERLINK("evil.example")', "*"]
    for sid in hostile_ids:
        _forge(course, f"{sid}+{FIXTURE}+{FUTURE}+y", account_uid(mallory))
    # a link named as alice's, pointing at bob's folder
    (bob_folder,) = inbound_folder(course).glob(f"{bob}+*")
    os.symlink(bob_folder, inbound_folder(course) / f"{alice}+{FIXTURE}+{FUTURE}+link")

    assert main(["--course", str(course.root), "collect", FIXTURE]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()

    assert f"collected 2 submission(s) of {FIXTURE}" in out
    assert ALICE_MARK in _collected_notebook(course, alice)  # her own work, not mallory's
    assert "# bob" in _collected_notebook(course, bob)
    assert sorted(p.name for p in (course.root / "submitted").iterdir()) == sorted([alice, bob])
    refused = [ln for ln in lines if "refused:" in ln]
    assert len(refused) == 6, out  # one line each, none dropped silently
    assert any(f"folder owned by {mallory} names {alice}" in ln for ln in refused), out
    assert any(f"folder owned by uid 59999 names {alice}" in ln for ln in refused), out
    assert any("not a folder" in ln for ln in refused), out
    for sid in hostile_ids:
        assert any(repr(sid) in ln and "not a student id" in ln for ln in refused), (sid, out)
    assert all("not collected" in ln for ln in refused)
    # each refused folder is kept for the teacher, with its reason and a safe copy
    kept = sorted((course.root / "quarantine" / "refused" / FIXTURE).iterdir())
    assert len(kept) == 6
    reasons = [json.loads((k / "refusal.json").read_text())["reason"] for k in kept]
    assert any(r == f"folder owned by {mallory} names {alice}" for r in reasons)
    forged = [k for k in kept if k.name.startswith(mallory)]
    assert any(JUNK_MARK in (k / "files" / f"{FIXTURE}.ipynb").read_text() for k in forged
               if (k / "files" / f"{FIXTURE}.ipynb").exists())  # fmt: skip
    # collecting again refuses them again (listed again), keeps each once, and alice stays alice
    assert main(["--course", str(course.root), "collect", FIXTURE]) == 0
    again = capsys.readouterr().out
    assert len([ln for ln in again.splitlines() if "refused:" in ln]) == 6
    assert len(list((course.root / "quarantine" / "refused" / FIXTURE).iterdir())) == 6
    assert ALICE_MARK in _collected_notebook(course, alice)


@pytest.mark.slow
def test_time_is_the_exchanges_not_the_students(tmp_path, accounts, capsys):
    course = _class(tmp_path, accounts)
    alice, bob = accounts["alice"], accounts["bob"]
    # alice's own folder named 2099 (and timestamp.txt 2099), then an honest resubmission
    first = _forge(course, f"{alice}+{FIXTURE}+{FUTURE}+old", account_uid(alice))
    _wait_past(first)
    _submit(course, tmp_path, alice, CORRECT, ALICE_MARK, owner=alice)
    # bob hands in now (after the due date) with his folder name and timestamp.txt backdated
    late = _submit(course, tmp_path, bob, CORRECT, "# bob-late", owner=None)
    backdated = "2026-11-29 10:00:00.000000 UTC"
    (late / "timestamp.txt").write_text(backdated)
    renamed = late.with_name(f"{bob}+{FIXTURE}+{backdated}+z")
    late.rename(renamed)
    chown_tree(renamed, account_uid(bob))
    os.utime(renamed, (0, datetime(2026, 11, 29, 10).timestamp()))  # mtime backdated too

    assert main(["--course", str(course.root), "collect", FIXTURE]) == 0
    out = capsys.readouterr().out
    assert ALICE_MARK in _collected_notebook(course, alice)  # the resubmission, not the 2099 one
    stamp_alice, _ = read_timestamp(course.root / "submitted" / alice / FIXTURE)
    stamp_bob, _ = read_timestamp(course.root / "submitted" / bob / FIXTURE)
    now = datetime.utcnow()
    assert stamp_alice.year == now.year and abs((now - stamp_alice).total_seconds()) < 3600
    # bob's time is when the exchange got his folder: after the due date, so counted late
    assert stamp_bob > datetime.fromisoformat(DUE) and abs((now - stamp_bob).total_seconds()) < 3600
    flags = read_flags(quarantine=default_quarantine(course.root / "submitted" / bob / FIXTURE))
    assert any(f.kind == "bad_timestamp" and "2026-11-29 10:00" in f.detail for f in flags)
    assert any(bob in ln and "bad_timestamp" in ln and "exchange" in ln for ln in out.splitlines())


@pytest.mark.slow
def test_roster_decides_who_is_a_student(tmp_path, accounts, capsys):
    course = _class(tmp_path, accounts)
    alice, bob = accounts["alice"], accounts["bob"]
    (course.root / "roster.csv").write_text(f"id,first_name,last_name,email\n{alice},A,L,\n")
    _submit(course, tmp_path, alice, CORRECT, ALICE_MARK, owner=alice)
    _submit(course, tmp_path, bob, CORRECT, "# bob", owner=bob)
    assert main(["--course", str(course.root), "collect", FIXTURE]) == 0
    out = capsys.readouterr().out
    assert f"collected 1 submission(s) of {FIXTURE}" in out
    assert any(f"names {bob}, who is not on the roster" in ln for ln in out.splitlines()), out


@pytest.mark.slow
def test_plain_nbgrader_collect_and_the_formgrader_refuse_too(tmp_path, accounts):
    course = _class(tmp_path, accounts)
    alice, mallory = accounts["alice"], accounts["mallory"]
    _submit(course, tmp_path, alice, CORRECT, ALICE_MARK, owner=alice)
    _forge(course, f"{alice}+{FIXTURE}+{FUTURE}+x", account_uid(mallory))
    out = run_nbgrader(course.root, "collect", FIXTURE, "--update")
    assert out.returncode == 0, out.stderr[-2000:]
    assert f"refused: folder owned by {mallory} names {alice}" in out.stderr
    assert ALICE_MARK in _collected_notebook(course, alice)

    # the formgrader's Collect button calls NbGraderAPI.collect and shows its log
    shutil.rmtree(course.root / "submitted")
    result = course.api().collect(FIXTURE)
    assert result["success"], result
    assert f"refused: folder owned by {mallory} names {alice}" in result["log"]
    assert ALICE_MARK in _collected_notebook(course, alice)


@pytest.mark.slow
def test_a_submission_is_private_to_its_student_and_the_instructors(request, accounts):
    """The hub's submit (PrivateExchangeSubmit): a classmate who knows the folder's name reads
    neither the notebook nor the secret, and cannot replace the notebook.
    """
    import grp

    from attention_grader.exchange.private_submit import PrivateExchangeSubmit
    from nbgrader.auth import Authenticator
    from nbgrader.coursedir import CourseDirectory

    # Not under pytest's tmp_path: its 0700 parent would stop mallory whatever the folder's modes.
    base = Path("/var/tmp") / f"al-private-{uuid.uuid4().hex[:6]}"
    base.mkdir(mode=0o755)
    request.addfinalizer(lambda: shutil.rmtree(base, ignore_errors=True))
    course = _class(base, accounts)
    alice, mallory = accounts["alice"], accounts["mallory"]
    inbound = inbound_folder(course)
    inbound.mkdir(exist_ok=True)
    inbound.chmod(0o3733)  # as install.py makes it (setgid: the instructor's group)
    who = Student(course, base, alice)
    who.fetch(FIXTURE)
    config = who._config()
    cd = CourseDirectory(config=config)
    cd.assignment_id = FIXTURE
    PrivateExchangeSubmit(coursedir=cd, authenticator=Authenticator(config=config),
                          config=config).start()  # fmt: skip
    (folder,) = inbound.glob(f"{alice}+{FIXTURE}+*")
    chown_tree(folder, account_uid(alice))  # alice's own, as when she submits on the hub
    modes = {p.name: oct(p.stat().st_mode & 0o7777) for p in [folder, *folder.iterdir()]}
    assert modes[folder.name] == oct(0o2770), modes
    assert {m for n, m in modes.items() if n != folder.name} == {oct(0o640)}, modes
    assert folder.stat().st_gid == inbound.stat().st_gid  # the instructors' group
    assert grp.getgrgid(folder.stat().st_gid).gr_name != mallory
    reach = subprocess.run(
        ["runuser", "-u", mallory, "--", "stat", str(inbound)], capture_output=True
    )
    assert reach.returncode == 0, reach.stderr  # she gets as far as inbound/: only modes stop her
    for what in (["cat", str(folder / "submission_secret.txt")],
                 ["cp", "/etc/hostname", str(folder / f"{FIXTURE}.ipynb")],
                 ["mv", str(folder), str(inbound / f"{mallory}+{FIXTURE}+x")]):  # fmt: skip
        done = subprocess.run(["runuser", "-u", mallory, "--", *what], capture_output=True)
        assert done.returncode != 0, what
    assert folder.exists()


@pytest.mark.slow
def test_released_feedback_is_readable_by_its_student_only(tmp_path, accounts):
    from attention_grader.exchange.private_submit import readable_only_by

    alice, mallory = accounts["alice"], accounts["mallory"]
    folder = Path("/var/tmp") / f"al-feedback-{uuid.uuid4().hex[:6]}"  # a filesystem with ACLs
    folder.mkdir(mode=0o711)
    try:
        page = folder / "0123abcd.html"
        page.write_text("<p>alice's feedback</p>")
        page.chmod(0o600)
        assert readable_only_by(page, alice)
        assert not readable_only_by(page, "no-such-account-here")
        for who, ok in ((alice, True), (mallory, False)):
            done = subprocess.run(
                ["runuser", "-u", who, "--", "cat", str(page)], capture_output=True
            )
            assert (done.returncode == 0) is ok, (who, done.stderr)
    finally:
        shutil.rmtree(folder)


@pytest.mark.slow
def test_a_refused_submission_is_accepted_by_hand_as_the_docs_say(tmp_path, accounts, capsys):
    """docs/teachers.md, "Refused submissions": the teacher's commands, run as written, put the
    kept copy in submitted/ with the exchange's time, and it is graded.
    """
    import re

    alice, mallory = accounts["alice"], accounts["mallory"]
    course = _class(tmp_path, accounts)
    released = nbformat.read(course.root / "release" / FIXTURE / f"{FIXTURE}.ipynb", 4)
    folder = _forge(course, f"{alice}+{FIXTURE}+{FUTURE}+x", account_uid(mallory))
    nbformat.write(answer(released, CORRECT), folder / f"{FIXTURE}.ipynb")  # her work after all
    chown_tree(folder, account_uid(mallory))
    assert main(["--course", str(course.root), "collect", FIXTURE]) == 0
    kept = re.search(r"not collected; kept in (\S+)", capsys.readouterr().out).group(1)
    docs = (Path(__file__).parents[3] / "docs" / "teachers.md").read_text()
    block = docs.split("kept=quarantine/refused/")[1].split("make grade")[0]
    script = f"kept={kept}\n" + block.split("\n", 1)[1]
    script = script.replace("alice", alice).replace("intro_attention", FIXTURE)
    subprocess.run(["bash", "-euc", script], cwd=course.root, check=True)
    stamp, flags = read_timestamp(course.root / "submitted" / alice / FIXTURE)
    assert not flags and abs((datetime.utcnow() - stamp).total_seconds()) < 3600
    assert main(["--course", str(course.root), "grade", FIXTURE, "--jobs", "1", "--no-progress"]) == 0  # fmt: skip
    from nbgrader.api import Gradebook

    with Gradebook(course.db_url, course.course_id) as gb:
        assert gb.find_submission(FIXTURE, alice).score == 3.0


@pytest.mark.slow
def test_every_submission_is_in_the_history_and_the_graded_one_is_marked(tmp_path, accounts, capsys):  # fmt: skip
    """Three submissions of alice over time, each collected: three rows dated by the exchange
    (the first named 2099 by her), the newest graded; mallory's folder naming alice is a
    refused row under mallory, in nobody's history; collecting again adds nothing.
    """
    from attention_grader.common.safe_text import html_text
    from attention_grader.exchange.exchange_identity import exchange_time
    from attention_grader.exchange.submission_history import read_history, student_submissions
    from attention_grader.reports.report import write_report

    course = _class(tmp_path, accounts)
    alice, mallory = accounts["alice"], accounts["mallory"]
    collect = ["--course", str(course.root), "collect", FIXTURE]
    folders = [
        _forge(course, f"{alice}+{FIXTURE}+{FUTURE}+old", account_uid(alice))
    ]  # her own, "2099"
    times = [exchange_time(folders[0])]
    assert main(collect) == 0
    for n in (1, 2):
        _wait_past(folders[-1])
        folders.append(_submit(course, tmp_path, alice, CORRECT, f"# alice-try-{n}", owner=alice))
        times.append(exchange_time(folders[-1]))
        assert main(collect) == 0
    _forge(course, f"{alice}+{FIXTURE}+{FUTURE}+x", account_uid(mallory))
    evil = "<img src=x onerror=alert(1)>"
    _forge(course, f"{evil}+{FIXTURE}+{FUTURE}+y", account_uid(mallory))
    assert main(collect) == 0
    assert "2 new in submission_history" in capsys.readouterr().out  # the two refused folders
    assert main(["--course", str(course.root), "grade", FIXTURE, "--jobs", "1", "--no-progress"]) == 0  # fmt: skip
    assert main(collect) == 0  # seen again as they are: nothing new

    rows = read_history(course.root, FIXTURE)
    received = [r for r in rows if r.event == "received"]
    assert [r.received for r in received] == times  # the exchange's times, not 2099
    assert {r.student for r in received} == {alice} and {r.owner for r in received} == {alice}
    assert len({r.sha256 for r in received}) == 3  # three different contents
    assert len([r for r in rows if r.event == "collected"]) == 3  # each copied once
    refused = [r for r in rows if r.event == "refused"]
    assert len(refused) == 2 and {r.owner for r in refused} == {mallory}
    assert all(r.student == "" for r in refused)
    assert any(r.reason == f"folder owned by {mallory} names {alice}" for r in refused)

    lines, refused_folders = student_submissions(course, FIXTURE)
    assert list(lines) == [alice]  # mallory's forgery is in nobody's history
    assert [line.status for line in lines[alice]] == ["earlier", "earlier", "graded"]
    due = datetime.fromisoformat(DUE)
    assert [line.late_seconds for line in lines[alice]] == [(t - due).total_seconds() for t in times]  # fmt: skip
    assert len(refused_folders) == 2

    page = write_report(course, FIXTURE)
    text = page.read_text()
    assert "<img src=x" not in text and html_text(evil) in text
    section = text.split("<h2>Submissions")[1].split("<h2>")[0]
    assert section.count("<td>graded</td>") == 1 and section.count("<td>earlier</td>") == 2
    assert f"{times[2]:%Y-%m-%d %H:%M:%S} UTC" in section and "2099" not in section
    assert (page.parent / "submissions.csv").read_text().count(alice) == 3


@pytest.mark.slow
def test_a_resubmission_collected_after_grading_waits_for_grading(tmp_path, accounts):
    from attention_grader.exchange.submission_history import student_submissions

    course = _class(tmp_path, accounts)
    alice = accounts["alice"]
    first = _submit(course, tmp_path, alice, CORRECT, "# one", owner=alice)
    assert main(["--course", str(course.root), "collect", FIXTURE]) == 0
    assert main(["--course", str(course.root), "grade", FIXTURE, "--jobs", "1", "--no-progress"]) == 0  # fmt: skip
    _wait_past(first)
    _submit(course, tmp_path, alice, MISCONCEIVED, "# two", owner=alice)
    assert main(["--course", str(course.root), "collect", FIXTURE]) == 0
    lines, _ = student_submissions(course, FIXTURE)
    assert [line.status for line in lines[alice]] == ["earlier", "collected, not graded yet"]


@pytest.mark.slow
def test_students_own_folders_in_inbound_are_read_and_checked(tmp_path, accounts, capsys):
    """A hub with per-user disks: each student hands in to ``inbound/<student>/``."""
    course = _class(tmp_path, accounts)
    alice, bob, mallory = accounts["alice"], accounts["bob"], accounts["mallory"]
    for student in (alice, bob, mallory):
        own_folder(course, student)
    honest = _submit(course, tmp_path, alice, CORRECT, ALICE_MARK, owner=alice)
    honest.rename(
        inbound_folder(course) / alice / honest.name
    )  # where her submit puts it on the hub
    # mallory, in her own folder, names alice; a folder of hers in alice's folder (as if she
    # could write there); bob's folder in alice's folder, naming himself
    _forge(course, f"{mallory}/{alice}+{FIXTURE}+{FUTURE}+x", account_uid(mallory))
    _forge(course, f"{alice}/{alice}+{FIXTURE}+{FUTURE}+y", account_uid(mallory))
    _forge(course, f"{alice}/{bob}+{FIXTURE}+{FUTURE}+z", account_uid(bob))
    # what the teacher moved out of the collect path (docs/hub-admins.md) is not looked at
    _forge(course, f"{mallory}/.removed-{mallory}+{FIXTURE}+{FUTURE}+w", account_uid(mallory))

    assert main(["--course", str(course.root), "collect", FIXTURE]) == 0
    out = capsys.readouterr().out
    assert f"collected 1 submission(s) of {FIXTURE}" in out, out
    assert ALICE_MARK in _collected_notebook(course, alice)
    assert sorted(p.name for p in (course.root / "submitted").iterdir()) == [alice]
    refused = [ln for ln in out.splitlines() if "refused:" in ln]
    assert len(refused) == 3, out
    assert any(f"folder owned by {mallory} names {alice}" in ln for ln in refused), out
    assert any(f"folder owned by {bob} in {alice}'s folder names {bob}" in ln for ln in refused)
    assert not any(".removed-" in ln for ln in refused), out

    # the formgrader's Collect (NbGraderAPI.collect) reads the same layout
    shutil.rmtree(course.root / "submitted")
    result = course.api().collect(FIXTURE)
    assert result["success"], result
    assert f"refused: folder owned by {mallory} names {alice}" in result["log"]
    assert ALICE_MARK in _collected_notebook(course, alice)
