"""One machine, separate student accounts, no hub (issue 39, item 4), with real uids.

The teacher (root here) runs ``install.py system --no-hub``'s exchange and config; two ordinary
accounts fetch and submit with nbgrader's command line, as themselves, reading the rendered
system-wide config (from their home, where nbgrader finds it first). Each submission is private
to its student and the teacher (folder 2770, files 0640, nothing for others, never 0777); each
student's ``nbgrader list --inbound`` shows their own hand-in and not the classmate's; the
teacher's shows both and collect takes both. Needs root (accounts, runuser).
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sysconfig
import tempfile
from pathlib import Path

import pytest

from tests.support.exchange_accounts import (
    CLI,
    STUDENT_PYTHON,
    account_uid,
    chown_tree,
    hub_module,
    students_may_enter,
)
from tests.support.grading_course import FIXTURE, make_course

ROOT = Path(__file__).resolve().parents[3]

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(os.geteuid() != 0, reason="making accounts and runuser need root"),
    pytest.mark.skipif(not STUDENT_PYTHON.exists(), reason=f"no {STUDENT_PYTHON} for students"),
]

COURSE = "attention-lab"


def _as(user: str, home: Path, *args: str) -> subprocess.CompletedProcess:
    """``nbgrader <args>`` as ``user`` in ``home`` (its nbgrader_config.py), the course's packages."""
    site_packages = sysconfig.get_paths()["purelib"]
    cmd = ["runuser", "-u", user, "--", "env", f"HOME={home}", "PATH=/usr/bin:/bin",
           str(STUDENT_PYTHON), "-S", "-c", CLI, site_packages, *args]  # fmt: skip
    return subprocess.run(cmd, cwd=home, capture_output=True, text=True, timeout=300)


def _listed_students(log: str) -> list[str]:
    lines = [ln.split() for ln in log.splitlines() if f" {FIXTURE} " in ln and "refused" not in ln]
    return sorted(words[words.index(FIXTURE) - 1] for words in lines)


@pytest.fixture
def machine(accounts):
    """The teacher's course and an exchange made as ``install.py system --no-hub`` makes them."""
    install = hub_module("install")
    top = Path(tempfile.mkdtemp(prefix="al-accounts-", dir="/var/tmp"))
    try:
        top.chmod(0o755)
        course = make_course(top)  # top/course (the teacher's) and top/exchange
        exchange = top / "exchange"
        config_dir = top / "etc"
        install.install_system(str(exchange), str(config_dir), [COURSE], "root", hub=False)
        course.config.Exchange.root = str(exchange)
        from attention_grader.steps.release import release

        release(course, FIXTURE)
        system_config = (config_dir / "nbgrader_config.py").read_text()
        homes = {}
        for who in ("alice", "bob"):
            homes[who] = top / f"home-{who}"
            homes[who].mkdir()
            (homes[who] / "nbgrader_config.py").write_text(system_config)
            chown_tree(homes[who], account_uid(accounts[who]))
            homes[who].chmod(0o700)
        # a clone in ``mktemp -d`` (0700) holds the packages the students' nbgrader runs from
        code = [Path(sysconfig.get_paths()["purelib"]), ROOT / "attention_lab", ROOT / "autograder"]
        with students_may_enter(code, [account_uid(accounts[who]) for who in ("alice", "bob")]):
            yield course, exchange, homes
    finally:
        shutil.rmtree(top)


def test_the_no_hub_config_asks_no_hub(machine):
    _course, _exchange, homes = machine
    text = (homes["alice"] / "nbgrader_config.py").read_text()
    assert "c.Authenticator.plugin_class = NoAuthPlugin" in text
    assert "JupyterHubAuthPlugin" not in text
    assert "PrivateExchangeSubmit" in text and "SafeExchangeList" in text


def test_two_accounts_hand_in_privately_and_each_lists_their_own(machine, accounts):
    course, exchange, homes = machine
    inbound = exchange / COURSE / "inbound"
    for who in ("alice", "bob"):
        user, home = accounts[who], homes[who]
        for step in (["fetch_assignment", FIXTURE], ["submit", FIXTURE]):
            done = _as(user, home, *step)
            assert done.returncode == 0, (who, step, done.stderr[-3000:])

    folders = sorted(inbound.iterdir())
    assert len(folders) == 2
    for folder in folders:
        st = os.lstat(folder)
        assert stat.S_IMODE(st.st_mode) & 0o007 == 0, f"{folder.name}: others may enter or write"
        assert stat.S_IMODE(st.st_mode) & 0o070 == 0o070  # the teacher's group may collect
        for path in folder.rglob("*"):
            mode = stat.S_IMODE(os.lstat(path).st_mode)
            assert mode & 0o007 == 0, f"{path}: {oct(mode)}, readable or writable by others"

    for who, other in (("alice", "bob"), ("bob", "alice")):
        listed = _as(accounts[who], homes[who], "list", "--inbound")
        assert listed.returncode == 0, listed.stderr[-3000:]
        assert _listed_students(listed.stderr) == [accounts[who]], listed.stderr
        assert accounts[other] not in listed.stderr
        # the classmate's files cannot be read either, even knowing the folder's name
        theirs = next(f for f in folders if f.name.startswith(accounts[other] + "+"))
        peek = _as(accounts[who], homes[who], "list", "--inbound", f"--student={accounts[other]}")
        assert accounts[other] not in _listed_students(peek.stderr)
        read = subprocess.run(["runuser", "-u", accounts[who], "--", "cat",
                               str(theirs / f"{FIXTURE}.ipynb")],
                              capture_output=True, text=True, check=False)  # fmt: skip
        assert read.returncode != 0 and "Permission denied" in read.stderr

    from attention_grader.steps.collect import collect

    collect(course, FIXTURE)
    assert sorted(p.name for p in (course.root / "submitted").iterdir()) == sorted(
        accounts[w] for w in ("alice", "bob")
    )
