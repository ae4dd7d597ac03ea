"""Submissions nobody can forge, replace, read or backdate: attacks from a student on a real hub.

A one-class hub (tests/hub/conftest.py: the shipped config, ``install.py system --owner``) with
an instructor and three students: alice and bob are honest, mallory attacks from her own
server's kernel, as any student can:

* before the first release she tries to take the course's exchange folder (it is already the
  instructor's, made at install) and to plant a notebook in ``outbound/``;
* knowing alice's submission folder's name (as if read from a log), she tries to read alice's
  notebook and ``submission_secret.txt``, replace the notebook and rename the folder;
* she hands in a folder named as alice's, dated 2099, holding junk;
* she reads the hub's working folder (config with the admin token, database, log).

Then the instructor collects through the formgrader's Collect and through ``make collect``'s
command (``python -m attention_grader collect``, as the instructor): mallory's folder is refused
with one line naming her, alice's own work is collected and graded in full.
"""

from __future__ import annotations

import json
import os
import pwd
import secrets
import shutil
import subprocess
import sys
import time
from contextlib import ExitStack
from pathlib import Path

import pytest
from conftest import COURSE_ID, _one_class_hub, _prepare_machine, _require_root_and_proxy
from hub_steps import (
    action,
    answer_with_solutions,
    autograded_points,
    choose_assignment,
    formgrader,
)

from tests.support.exchange_attempts import attempts_code

pytestmark = pytest.mark.slow

FUTURE = "2099-01-01 00:00:00.000000 UTC"
DISK_SIZE, DISK_BYTES = "64M", 64 * 2**20  # each student's own filesystem (user_disk.py), small
BEFORE_DISK = ("before-disk.txt", "alice's notes from before the disk 5e1c\n")


@pytest.fixture(scope="module")
def attacked(request):
    """A running hub with an instructor, alice, bob and mallory; torn down even on failure."""
    _require_root_and_proxy()
    tag = secrets.token_hex(3)
    instructor = f"al_instr_{tag}"
    students = (f"al_alice_{tag}", f"al_bob_{tag}", f"al_mallory_{tag}")
    with ExitStack() as stack:
        tmp = _prepare_machine(stack, [instructor, *students])
        # a file alice had before the hub gave her a disk of her own: carried onto it
        before = Path(pwd.getpwnam(students[0]).pw_dir) / BEFORE_DISK[0]
        before.write_text(BEFORE_DISK[1])
        os.chown(before, pwd.getpwnam(students[0]).pw_uid, -1)
        env = {
            "ATTENTION_LAB_INSTRUCTORS": instructor,
            "ATTENTION_LAB_STUDENTS": ",".join(students),
            "ATTENTION_LAB_DISK_SIZE": DISK_SIZE,
        }
        room = _one_class_hub(stack, request, tmp, instructor, students, env)
        # four servers at once on a busy machine: wait on readiness, generously
        room.start_servers([instructor, *students], timeout=600)
        yield room


def _try(room, user: str, attempts: dict[str, str]) -> dict[str, str]:
    """Run each snippet in ``user``'s kernel; ``ok`` or the name of the error it raised."""
    code = attempts_code(attempts)
    return json.loads(room.run_in_kernel(user, code))


@pytest.fixture(scope="module")
def story(attacked):
    room = attacked
    alice, bob, mallory = room.students
    course = room.exchange / COURSE_ID
    before_release = _try(room, mallory, {
        "take the course folder": f"os.mkdir({str(course)!r})",
        "plant in outbound": f"open({str(course / 'outbound' / 'x.ipynb')!r}, 'w').write('{{}}')",
        "rename the course folder": f"os.rename({str(course)!r}, {str(course) + '.old'!r})",
    })  # fmt: skip

    assignment = choose_assignment(room.course_dir, room.instructor)
    formgrader(room, "generate", f"assignment/{assignment}/assign")
    formgrader(room, "release", f"assignment/{assignment}/release")
    import nbformat

    source_nb = nbformat.read(
        room.course_dir / "source" / assignment / f"{assignment}.ipynb", as_version=4
    )
    notebook = f"{assignment}/{assignment}.ipynb"
    for student in (alice, bob, mallory):
        action(room, student, "fetch", assignment)
    model = room.user_json(alice, "GET", f"/api/contents/{notebook}", params={"content": 1})
    answered = answer_with_solutions(model["content"], source_nb)
    room.user_json(alice, "PUT", f"/api/contents/{notebook}",
                   json={"type": "notebook", "format": "json", "content": answered})  # fmt: skip
    for student in (alice, bob):
        action(room, student, "submit", assignment)

    inbound = course / "inbound"
    # each student hands in to inbound/<student>/, on their own disk
    (alice_folder,) = [p for p in (inbound / alice).iterdir() if p.name.startswith(f"{alice}+")]
    home = Path(pwd.getpwnam(mallory).pw_dir)
    forged = inbound / mallory / f"{alice}+{assignment}+{FUTURE}+x"
    state = room.hub_log.parent
    after_submit = _try(room, mallory, {
        "read alice's notebook": f"open({str(alice_folder / f'{assignment}.ipynb')!r}).read()",
        "read alice's secret": f"open({str(alice_folder / 'submission_secret.txt')!r}).read()",
        "replace alice's notebook": f"open({str(alice_folder / f'{assignment}.ipynb')!r}, 'w').write('{{}}')",
        "rename alice's folder": f"os.rename({str(alice_folder)!r}, {str(inbound / f'{mallory}+{assignment}+{FUTURE}+y')!r})",
        "list inbound": f"os.listdir({str(inbound)!r})",
        "write into inbound": f"os.mkdir({str(inbound / f'{alice}+{assignment}+{FUTURE}+i')!r})",
        "write into alice's folder": f"os.mkdir({str(inbound / alice / f'{alice}+{assignment}+{FUTURE}+a')!r})",
        "hand in as alice": (
            f"os.mkdir({str(forged)!r}); "
            f"shutil.copy({str(home / notebook)!r}, {str(forged)!r}); "
            f"open({str(forged / 'timestamp.txt')!r}, 'w').write({FUTURE!r})"
        ),
        "read the hub's config": f"open({str(state / 'jupyterhub_test_config.py')!r}).read()",
        "read the hub's database": f"open({str(state / 'jupyterhub.sqlite')!r}, 'rb').read(1)",
        "read the hub's log": f"open({str(room.hub_log)!r}).read()",
    })  # fmt: skip

    collected = formgrader(room, "collect", f"assignment/{assignment}/collect")
    graded = {
        s: formgrader(room, "autograde", f"submission/{assignment}/{s}/autograde")
        for s in (alice, bob)
    }
    submissions = room.user_json(
        room.instructor, "GET", f"/formgrader/api/submissions/{assignment}"
    )
    formgrader(room, "generate feedback", f"assignment/{assignment}/generate_feedback")
    formgrader(room, "release feedback", f"assignment/{assignment}/release_feedback")
    action(room, alice, "fetch_feedback", assignment)
    alice_uid = pwd.getpwnam(alice).pw_uid
    pages = [p for p in (course / "feedback").iterdir()
             if any(line.startswith(f"user:{alice}:") or f"user:{alice_uid}:" in line
                    for line in _acl(p))]  # fmt: skip
    feedback_read = _try(room, mallory, {
        f"read alice's feedback {i}": f"open({str(p)!r}).read()" for i, p in enumerate(pages)
    })  # fmt: skip
    alice_copy = list((Path(pwd.getpwnam(alice).pw_dir) / assignment / "feedback").rglob("*.html"))
    return {
        "feedback_pages": pages,
        "feedback_read": feedback_read,
        "alice_feedback": alice_copy,
        "assignment": assignment,
        "before_release": before_release,
        "after_submit": after_submit,
        "collect_log": collected.get("log", ""),
        "graded": graded,
        "scores": {entry["student"]: entry for entry in submissions},
        "forged": forged,
        "expected_points": autograded_points(source_nb),
        "alice_folder": alice_folder,
    }


def _acl(path: Path) -> list[str]:
    """``path``'s access ACL as getfacl would list its named users (``user:<uid>:r--``)."""
    import struct

    try:
        blob = os.getxattr(path, "system.posix_acl_access")
    except OSError:
        return []
    entries = [struct.unpack_from("<HHI", blob, 4 + 8 * i) for i in range((len(blob) - 4) // 8)]
    return [f"user:{uid}:{perm}" for tag, perm, uid in entries if tag == 0x02]


def test_released_feedback_reaches_alice_and_nobody_else(attacked, story):
    assert story["alice_feedback"], "alice fetched no feedback"
    assert story["feedback_pages"], "no feedback page of alice's carries her ACL"
    assert set(story["feedback_read"].values()) == {"PermissionError"}, story["feedback_read"]
    for page in story["feedback_pages"]:
        assert page.stat().st_mode & 0o077 == 0o040  # the ACL mask: group/others get nothing


def test_the_course_folder_is_the_instructors_from_the_start(attacked, story):
    assert story["before_release"] == {
        "take the course folder": "FileExistsError",
        "plant in outbound": "PermissionError",
        "rename the course folder": "PermissionError",
    }


def test_a_classmate_cannot_read_replace_or_take_a_submission(attacked, story):
    result = story["after_submit"]
    for key in ("read alice's notebook", "read alice's secret", "replace alice's notebook",
                "rename alice's folder", "list inbound", "write into inbound",
                "write into alice's folder"):  # fmt: skip
        assert result[key] == "PermissionError", (key, result)
    folder = story["alice_folder"]
    assert folder.exists()
    # hers and the instructors': every file in the instructors' group (inbound's, by setgid)
    group = folder.parent.stat().st_gid
    assert {p.stat().st_gid for p in [folder, *folder.iterdir()]} == {group}
    assert {p.stat().st_mode & 0o7777 for p in folder.iterdir()} == {0o640}
    assert result["hand in as alice"] == "ok"  # her own folder is hers: collect must refuse it


def test_nbgrader_list_inbound_shows_a_student_their_own_and_the_teacher_everyones(attacked, story):
    """On the hub, where inbound/ is closed and each student hands in to inbound/<student>/."""
    alice, bob, mallory = attacked.students
    assignment = story["assignment"]
    code = (
        "import os, subprocess, sys\n"
        "done = subprocess.run([sys.executable, '-m', 'nbgrader', 'list', '--inbound'],\n"
        "                      capture_output=True, text=True, cwd={cwd!r}, timeout=300)\n"
        "print(done.stdout + done.stderr)\n"
    )

    def students_listed(name: str, cwd: str) -> list[str]:
        log = attacked.run_in_kernel(name, code.format(cwd=cwd), timeout=300)
        rows = [
            ln.split()
            for ln in log.splitlines()
            if f" {assignment} " in ln and "refused" not in ln and "not listed" not in ln
        ]
        return sorted(words[words.index(assignment) - 1] for words in rows)  # fmt: skip

    home = {n: pwd.getpwnam(n).pw_dir for n in (alice, mallory)}
    assert students_listed(alice, home[alice]) == [alice]
    assert students_listed(mallory, home[mallory]) == []  # her forgery naming alice: refused
    teacher = students_listed(attacked.instructor, str(attacked.course_dir))
    assert sorted(set(teacher)) == sorted([alice, bob]), teacher  # and not mallory's forgery


def test_the_hubs_secrets_are_private(attacked, story):
    result = story["after_submit"]
    for key in ("read the hub's config", "read the hub's database", "read the hub's log"):
        assert result[key] == "PermissionError", (key, result)
    state = attacked.hub_log.parent
    assert state.stat().st_mode & 0o077 == 0
    for path in (state / "jupyterhub_test_config.py", attacked.hub_log):
        assert path.stat().st_mode & 0o077 == 0, path


def test_formgrader_collect_refuses_the_forgery_and_keeps_alices_work(attacked, story):
    alice, bob, mallory = attacked.students
    assert f"refused: folder owned by {mallory} names {alice}" in story["collect_log"]
    assert f"{alice}: unsafe_file" not in story["collect_log"]  # all of her submission collected
    scores = story["scores"]
    assert set(scores) == {alice, bob}, scores  # nothing under mallory's or anyone else's name
    assert story["expected_points"] > 0
    assert scores[alice]["score"] == pytest.approx(story["expected_points"])  # hers, in full
    assert scores[bob]["score"] == 0
    kept = attacked.course_dir / "quarantine" / "refused" / story["assignment"]
    reasons = [json.loads((k / "refusal.json").read_text())["reason"] for k in kept.iterdir()]
    assert reasons == [f"folder owned by {mallory} names {alice}"]


def test_make_collect_refuses_it_too(attacked, story):
    alice, _, mallory = attacked.students
    done = _make_collect(attacked, story["assignment"])
    assert done.returncode == 0, done.stderr[-2000:]
    lines = [ln for ln in done.stdout.splitlines() if "refused:" in ln]
    assert len(lines) == 1 and f"folder owned by {mallory} names {alice}" in lines[0], done.stdout
    assert os.path.isdir(story["forged"])  # left where it is; kept once in the quarantine


# -- disk: each student's own filesystem (autograder/attention_hub/user_disk.py) -------------------
FILL = """
import errno, json, os
def fill(path, limit):
    # write 1 MiB at a time, unbuffered, until the limit or an error: (bytes written, error)
    written, chunk = 0, b"x" * (1 << 20)
    try:
        with open(path, "wb", buffering=0) as fh:
            while written < limit:
                written += fh.write(chunk)
    except OSError as err:
        return written, errno.errorcode.get(err.errno, str(err.errno))
    return written, "none"
"""


def _junk_folder(room, story) -> Path:
    """Mallory's hand-made 0700 folder in her own exchange folder (named as a submission)."""
    mallory = room.students[2]
    inbound = room.exchange / COURSE_ID / "inbound"
    return inbound / mallory / f"{mallory}+{story['assignment']}+{FUTURE}+junk"


def test_an_existing_home_is_carried_onto_the_students_disk(attacked, story):
    alice = attacked.students[0]
    home = Path(pwd.getpwnam(alice).pw_dir)
    assert os.path.ismount(home)  # her home is her own filesystem now
    seen = attacked.run_in_kernel(alice, f"print(open({BEFORE_DISK[0]!r}).read(), end='')")
    assert seen == BEFORE_DISK[1]
    kept = home.parent / ".attention-lab-homes-before-disk" / alice / BEFORE_DISK[0]
    assert kept.read_text() == BEFORE_DISK[1]  # the original is kept, out of her reach
    assert kept.parent.parent.stat().st_mode & 0o777 == 0o700


def test_a_student_stops_at_her_own_cap_in_home_and_exchange(attacked, story):
    alice, _, mallory = attacked.students
    home = Path(pwd.getpwnam(mallory).pw_dir)
    junk = _junk_folder(attacked, story)
    code = FILL + (
        f"os.mkdir({str(junk)!r}, 0o700)\n"
        f"home = fill({str(home / 'junk')!r}, 3 << 30)\n"
        f"exchange = fill({str(junk / 'junk')!r}, 3 << 30)\n"
        f"root = fill({str(attacked.exchange / 'junk')!r}, 3 << 30)\n"  # beside the course
        "print(json.dumps({'home': home, 'exchange': exchange, 'root': root}))\n"
    )
    try:
        out = json.loads(attacked.run_in_kernel(mallory, code, timeout=600))
    finally:  # her home has room again for the tests after (a kernel writes its runtime file)
        (home / "junk").unlink(missing_ok=True)
    print(f"\nmallory's 3 GiB writes stopped at (bytes, error): {out}")
    assert out["home"][1] == out["exchange"][1] == out["root"][1] == "ENOSPC", out
    # the exchange's root (1777 for nbgrader) is a 1 MiB tmpfs in her own namespace
    assert out["root"][0] <= 2**20 and not os.path.lexists(attacked.exchange / "junk"), out
    assert out["home"][0] + out["exchange"][0] <= DISK_BYTES, out  # one cap for both
    image = attacked.hub_log.parent / "user-disks" / "images" / f"{mallory}.img"
    assert image.stat().st_blocks * 512 <= DISK_BYTES  # all the machine's disk gave her
    assert os.lstat(junk).st_dev == os.stat(home).st_dev  # the exchange folder is on her disk

    # alice is untouched: she writes in her home and hands in again, into her own folder
    attacked.run_in_kernel(alice, "open('after-mallory.bin', 'wb').write(b'a' * (1 << 20))")
    inbound = attacked.exchange / COURSE_ID / "inbound" / alice
    before = set(inbound.iterdir())
    action(attacked, alice, "submit", story["assignment"])
    assert len(set(inbound.iterdir()) - before) == 1


def _as_instructor(room, *args: str) -> subprocess.CompletedProcess:
    """``args`` as the instructor, in a terminal of her own server: the hub's system config
    (its JupyterHub auth plugin, read by every route since the one config door) asks the hub
    who she is with the token and address her server's environment holds.
    """
    instructor = pwd.getpwnam(room.instructor)
    venv = Path(sys.prefix)
    return subprocess.run(
        [shutil.which("runuser") or "/usr/sbin/runuser", "-u", room.instructor, "--", *args],
        capture_output=True, text=True, timeout=600, cwd=room.course_dir,
        env={"HOME": instructor.pw_dir, "USER": room.instructor,
             "PATH": f"{venv}/bin:/usr/bin:/bin", "ATTENTION_LAB_EXCHANGE": str(room.exchange),
             "JUPYTER_CONFIG_PATH": str(room.config_dir),
             "JUPYTERHUB_USER": room.instructor, "JUPYTERHUB_API_URL": f"{room.url}/hub/api",
             "JUPYTERHUB_API_TOKEN": room.tokens[room.instructor]},
    )  # fmt: skip


def _make_collect(room, assignment: str) -> subprocess.CompletedProcess:
    return _as_instructor(room, str(Path(sys.prefix) / "bin" / "python"), "-m",
                          "attention_grader", "--course", str(room.course_dir), "collect",
                          assignment)  # fmt: skip


def test_the_teacher_moves_a_closed_folder_out_of_the_exchange_without_root(attacked, story):
    mallory = attacked.students[2]
    junk = _junk_folder(attacked, story)
    st = os.lstat(junk)
    assert (st.st_mode & 0o777, st.st_uid) == (0o700, pwd.getpwnam(mallory).pw_uid)
    done = _make_collect(attacked, story["assignment"])
    # in the collect path: collect cannot read it (flagged "not collected: PermissionError")
    where = f"{mallory}: unsafe_file: not collected: PermissionError"
    assert done.returncode == 0 and where in done.stdout, done.stdout[-2000:]

    aside = junk.with_name(".removed-" + junk.name)  # as docs/hub-admins.md says
    moved = _as_instructor(attacked, "mv", str(junk), str(aside))
    assert moved.returncode == 0, moved.stderr
    assert not os.path.lexists(junk) and os.path.isdir(aside)  # out of the way, not destroyed
    done = _make_collect(attacked, story["assignment"])
    assert done.returncode == 0, done.stderr[-2000:]
    assert where not in done.stdout + done.stderr, done.stdout[-2000:]


# -- resources: private /tmp, /var/tmp, /run/lock, /dev/shm, pids.max (autograder/attention_hub/server_namespace.py, user_cgroup.py) ----------
JUNK = "mallory-junk-7d1e"


def test_every_folder_all_may_write_is_each_servers_own_and_capped(attacked, story):
    """/tmp, /var/tmp, /run/lock, /dev/shm: mallory's files stay hers, capped, off the machine."""
    from attention_hub.server_namespace import PRIVATE_MOUNTS

    alice, _, mallory = attacked.students
    code = (
        "import json, os\n"
        "out = {}\n"
        f"for d in {PRIVATE_MOUNTS!r}:\n"
        f"    open(os.path.join(d, {JUNK!r}), 'wb').write(b'x' * (4 << 20))\n"
        "    st = os.statvfs(d)\n"
        "    out[d] = st.f_blocks * st.f_frsize\n"
        "print(json.dumps(out))\n"
    )
    sizes = json.loads(attacked.run_in_kernel(mallory, code))
    assert set(sizes) == set(PRIVATE_MOUNTS), sizes
    assert all(0 < size <= 256 * 2**20 for size in sizes.values()), sizes  # capped
    seen = attacked.run_in_kernel(
        alice, f"import os; print([os.path.exists(d + '/{JUNK}') for d in {PRIVATE_MOUNTS!r}])"
    )
    assert seen.strip() == str([False] * len(PRIVATE_MOUNTS))  # alice does not see them
    assert not any(os.path.exists(f"{d}/{JUNK}") for d in PRIVATE_MOUNTS)  # nor the machine


def test_a_student_cannot_take_the_machines_pids(attacked, story):
    _, _, mallory = attacked.students
    code = (
        "import threading, time\n"
        "threading.stack_size(64 * 1024)\n"
        "stop, started = threading.Event(), 0\n"
        "try:\n"
        "    for _ in range(2000):\n"
        "        threading.Thread(target=stop.wait, daemon=True).start()\n"
        "        started += 1\n"
        "except RuntimeError:\n"
        "    pass\n"
        "stop.set()\n"
        "print(started)\n"
    )
    started = int(attacked.run_in_kernel(mallory, code, timeout=120).strip())
    assert 0 < started < 512, started  # stopped by her own pids.max, long before pid_max


def test_a_stopped_servers_tmp_is_gone(attacked, story):
    from conftest import pids_of_uid

    _, _, mallory = attacked.students
    response = attacked.hub_api("DELETE", f"/users/{mallory}/server")
    assert response.status_code in (202, 204), response.text
    uid = pwd.getpwnam(mallory).pw_uid
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        server = attacked.hub_api("GET", f"/users/{mallory}").json()["servers"].get("")
        if not server and not pids_of_uid(uid):
            break
        time.sleep(0.5)
    # no process of hers is left, so no mount namespace holds her private folders: freed
    from attention_hub.server_namespace import PRIVATE_MOUNTS

    assert not pids_of_uid(uid)
    assert not any(os.path.exists(f"{d}/{JUNK}") for d in PRIVATE_MOUNTS)
