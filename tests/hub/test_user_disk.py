"""Each student's own filesystem (autograder/attention_hub/user_disk.py), without a hub.

Real local accounts and loop mounts (root): the home is carried onto the image and never lost,
a home too large for the image is left as it was, a mount point someone planted in ``inbound/``
(a link to a classmate's home) is moved aside and never mounted over, and a second prepare
changes nothing. tests/hub/test_hub_exchange_attacks.py attacks it on a real hub.
"""

from __future__ import annotations

import os
import pwd
import secrets
import stat
import subprocess
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

import pytest
from attention_hub.user_disk import KEPT_HOMES, UserDisk, prepare
from conftest import create_user, release_disks, remove_user

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(os.geteuid() != 0, reason="accounts and loop mounts need root"),
]
SIZE = 32 * 2**20


@pytest.fixture
def machine():
    """Two accounts (a student and a classmate), a private hub folder and an ``inbound/``."""
    tag = secrets.token_hex(3)
    users = [f"al_dsk_{tag}", f"al_dsc_{tag}"]
    with ExitStack() as stack:
        tmp = Path(tempfile.mkdtemp(prefix="al-disk-", dir="/var/tmp"))
        stack.callback(subprocess.run, ["rm", "-rf", "--one-file-system", str(tmp)], check=False)
        for name in users:
            stack.callback(remove_user, name)
            create_user(name)
        stack.callback(release_disks, tmp, users)
        hub = tmp / "hub"
        hub.mkdir(mode=0o700)
        inbound = tmp / "exchange" / "course" / "inbound"
        inbound.mkdir(parents=True)
        os.chmod(inbound, 0o3733)
        yield {"users": users, "hub": hub, "inbound": inbound}


def _write_as(user: str, path: Path, data: bytes) -> None:
    path.write_bytes(data)
    os.chown(path, pwd.getpwnam(user).pw_uid, -1)


def test_a_home_is_carried_never_lost_and_capped(machine):
    student = machine["users"][0]
    home = Path(pwd.getpwnam(student).pw_dir)
    (home / "work").mkdir()
    _write_as(student, home / "work" / "notes.txt", b"before the disk\n")
    os.symlink("work/notes.txt", home / "link")
    disk = UserDisk.of(machine["hub"] / "user-disks", student)

    said = prepare(disk, SIZE, [str(machine["inbound"])])
    assert any("home carried" in line for line in said), said
    assert os.path.ismount(home)
    assert (home / "work" / "notes.txt").read_bytes() == b"before the disk\n"
    assert os.readlink(home / "link") == "work/notes.txt"
    assert home.stat().st_uid == pwd.getpwnam(student).pw_uid
    kept = home.parent / KEPT_HOMES / student
    assert (kept / "work" / "notes.txt").read_bytes() == b"before the disk\n"  # kept, not deleted
    assert stat.S_IMODE(kept.parent.stat().st_mode) == 0o700

    # the student's folder in inbound/ is on the same disk; inbound/ is closed to students
    own = machine["inbound"] / student
    assert os.path.ismount(own) and own.stat().st_dev == home.stat().st_dev
    assert stat.S_IMODE(machine["inbound"].stat().st_mode) & 0o002 == 0
    assert own.stat().st_uid == machine["inbound"].stat().st_uid  # the instructor's (no sticky)

    # writing as the student stops at the size
    done = subprocess.run(
        ["runuser", "-u", student, "--", "sh", "-c", f"head -c 100M /dev/zero > {home}/big"],
        capture_output=True, text=True,
    )  # fmt: skip
    assert "No space left" in done.stderr
    assert (home / "big").stat().st_size < SIZE

    assert prepare(disk, SIZE, [str(machine["inbound"])]) == []  # a later spawn: nothing to do


def test_a_home_larger_than_the_disk_is_left_as_it_was(machine):
    student = machine["users"][0]
    home = Path(pwd.getpwnam(student).pw_dir)
    _write_as(student, home / "big.bin", b"x" * (2 * SIZE))
    disk = UserDisk.of(machine["hub"] / "user-disks", student)
    with pytest.raises(OSError, match="could not be copied"):
        prepare(disk, SIZE)
    assert not os.path.ismount(home)
    assert (home / "big.bin").stat().st_size == 2 * SIZE  # untouched
    assert not (home.parent / KEPT_HOMES / student).exists()


def test_a_planted_mount_point_is_moved_aside_not_mounted_over(machine):
    student, classmate = machine["users"]
    classmate_home = Path(pwd.getpwnam(classmate).pw_dir)
    planted = machine["inbound"] / student
    os.symlink(classmate_home, planted)  # as a classmate could, while inbound/ was open
    disk = UserDisk.of(machine["hub"] / "user-disks", student)
    said = prepare(disk, SIZE, [str(machine["inbound"])])
    assert any("moved to" in line for line in said), said
    assert not os.path.ismount(classmate_home)
    assert os.path.ismount(planted) and not planted.is_symlink()
    aside = [p for p in machine["inbound"].iterdir() if p.name.startswith(f".not-{student}")]
    assert len(aside) == 1 and aside[0].is_symlink()  # kept, as found


def test_a_closed_inbound_is_accepted_and_stays_closed(machine):
    """``install.py check`` and the hub's start accept inbound/ closed by the first disk; a new
    ``install.py system`` does not open it again.
    """
    from attention_hub.exchange_folders import (
        COURSE_DIR_MODES,
        INBOUND_PER_USER_MODE,
        course_folder_problems,
        make_course_folders,
    )

    exchange = machine["inbound"].parent.parent
    make_course_folders(exchange, "course", "root")
    assert course_folder_problems(exchange, "course", ["root"]) == []
    disk = UserDisk.of(machine["hub"] / "user-disks", machine["users"][0])
    prepare(disk, SIZE, [str(machine["inbound"])])
    assert stat.S_IMODE(machine["inbound"].stat().st_mode) == INBOUND_PER_USER_MODE
    assert course_folder_problems(exchange, "course", ["root"]) == []
    make_course_folders(exchange, "course", "root")
    assert stat.S_IMODE(machine["inbound"].stat().st_mode) == INBOUND_PER_USER_MODE
    os.chmod(machine["inbound"], 0o777)  # any other mode is still a problem, with its fix
    (problem,) = course_folder_problems(exchange, "course", ["root"])
    assert f"chmod {COURSE_DIR_MODES['inbound']:o}" in problem


def test_one_disk_gives_a_folder_in_each_course_and_closes_the_others(machine):
    """Several classes: the student's folder in each of their courses is on their one disk, kept
    by course name (the same whatever the order); a course they are not in is closed, no folder.
    """
    from attention_hub.exchange_folders import INBOUND_PER_USER_MODE
    from attention_hub.user_disk import close_inbound

    student = machine["users"][0]
    exchange = machine["inbound"].parent.parent
    other, foreign = (exchange / name / "inbound" for name in ("other", "foreign"))
    for inbound in (other, foreign):
        inbound.mkdir(parents=True)
        os.chmod(inbound, 0o3733)
    disk = UserDisk.of(machine["hub"] / "user-disks", student)
    prepare(disk, SIZE, [str(machine["inbound"]), str(other)])
    close_inbound(foreign)
    home = Path(pwd.getpwnam(student).pw_dir)
    for inbound in (machine["inbound"], other):
        assert os.path.ismount(inbound / student), inbound
        assert (inbound / student).stat().st_dev == home.stat().st_dev
    (other / student / "mine").write_text("x")
    assert (disk.root / "inbound" / "other" / "mine").read_text() == "x"
    assert not os.path.lexists(foreign / student)
    assert stat.S_IMODE(foreign.stat().st_mode) == INBOUND_PER_USER_MODE
    done = subprocess.run(["runuser", "-u", student, "--", "sh", "-c", f"echo x > {foreign}/x"],
                          capture_output=True, text=True)  # fmt: skip
    assert done.returncode != 0 and not (foreign / "x").exists()
    # a later spawn listing the courses the other way round finds the same folders
    assert prepare(disk, SIZE, [str(other), str(machine["inbound"])]) == []


def test_what_a_student_deletes_is_given_back_to_the_host(machine):
    student = machine["users"][0]
    home = Path(pwd.getpwnam(student).pw_dir)
    disk = UserDisk.of(machine["hub"] / "user-disks", student)
    prepare(disk, SIZE, [])
    write = f"head -c 16M /dev/urandom > {home}/big && sync"
    subprocess.run(["runuser", "-u", student, "--", "sh", "-c", write], check=True)
    full = disk.image.stat().st_blocks * 512
    subprocess.run(["runuser", "-u", student, "--", "rm", f"{home}/big"], check=True)
    deadline = time.monotonic() + 120  # ext4 discards at its next commit, which sync forces
    while disk.image.stat().st_blocks * 512 > full - 12 * 2**20:
        assert time.monotonic() < deadline, (full, disk.image.stat().st_blocks * 512)
        subprocess.run(["sync", "-f", str(home)], check=True)
        time.sleep(0.5)  # polls a condition: the image's blocks given back


def test_a_disk_the_host_could_not_hold_is_refused_with_the_numbers(machine):
    student = machine["users"][0]
    home = Path(pwd.getpwnam(student).pw_dir)
    disk = UserDisk.of(machine["hub"] / "user-disks", student)
    images = disk.image.parent
    images.mkdir(parents=True)
    fs = os.statvfs(images)
    other = images / "classmate.img"  # sparse: may still grow past what the host has free
    with open(other, "wb") as handle:
        handle.truncate(fs.f_bavail * fs.f_frsize)
    with pytest.raises(OSError, match=r"MiB disk is refused: .* could still grow by .* MiB free"):
        prepare(disk, SIZE, [])
    assert not disk.image.exists() and not os.path.ismount(home)
