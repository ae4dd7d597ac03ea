"""The exchange on Kubernetes, where every pod is one uid: run here with stand-in pods.

Each student's pod (z2jh-values.yaml's pre_spawn_hook) is stood in for by a process of ONE
shared account, ``jovyan-test`` (as every z2jh pod is ``jovyan``), inside a bubblewrap mount
namespace that holds what the pod would: the image's files (/usr, /etc, a venv of the course's
packages at /opt/venv; no ``source/``), her own home, and of the exchange exactly the hook's
three mounts, the same paths and read-only flags (read from the hook itself, run on a stand-in
spawner): ``outbound/`` read-only, her own ``inbound/<folder>/`` read-write, her own
``feedback/<folder>/`` read-only as ``feedback/``; the exchange root is a folder of the pod's
own (the hook's emptyDir), the course folder and ``inbound/`` around the mounts read-only (as
the mount points runc makes, root's, are to ``jovyan``). Every folder of the exchange belongs to
``jovyan-test``: the uid keeps nobody apart, only the mounts do.

alice and bob hand in honestly (fetch, submit, fetch_feedback with nbgrader's own commands in
their pods, the system ``nbgrader_config.py`` of the values); the teacher releases, collects
(the course's config with ``ATTENTION_LAB_PER_STUDENT_MOUNTS=1``, as the collect Job), grades
and releases feedback. mallory attacks from her pod: hand in as alice, read or replace alice's
work, backdate, squat the course or write ``outbound/``, link tricks. Needs root (to make the
account) and bubblewrap.
"""

from __future__ import annotations

import json
import os
import pwd
import re
import shutil
import subprocess
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

import nbformat
import pytest
import yaml

from tests.support.exchange_attempts import attempts_code
from tests.support.grading_course import CORRECT, FIXTURE, MISCONCEIVED, answer, make_course
from tests.support.k8s_files import VALUES
from tests.support.pod_packages import copy_installed

pytestmark = [
    pytest.mark.slow,
    pytest.mark.timeout(1800),
    pytest.mark.skipif(os.geteuid() != 0, reason="making the pods' shared account needs root"),
]

POD_USER = "jovyan-test"
COURSE_ID = "attention-lab"
POD_EXCHANGE = "/srv/nbgrader/exchange"
STUDENTS = ("alice", "bob", "mallory")
PAST = "2020-01-01 00:00:00.000000 UTC"


def _hook_mounts(student: str) -> tuple[list[dict], dict]:
    """The exchange mounts and init container the values' pre_spawn_hook gives ``student``."""
    import asyncio
    import sys
    from types import ModuleType, SimpleNamespace

    from attention_grader.exchange.exchange_mounts import folder_slug
    from traitlets.config import Config

    slugs = ModuleType("kubespawner.slugs")
    slugs.safe_slug = folder_slug  # KubeSpawner's, checked in tests/attention_grader/exchange/test_exchange_mounts.py
    saved = {k: sys.modules.get(k) for k in ("kubespawner", "kubespawner.slugs")}
    sys.modules.update({"kubespawner": ModuleType("kubespawner"), "kubespawner.slugs": slugs})
    try:
        c = Config()
        code = yaml.safe_load(VALUES.read_text())["hub"]["extraConfig"]["attention-lab-classroom"]
        exec(compile(code, str(VALUES), "exec"), {"c": c})
        user = SimpleNamespace(name=student, groups=[SimpleNamespace(name="nbgrader-" + COURSE_ID)])
        spawner = SimpleNamespace(user=user, environment={}, volumes=[], volume_mounts=[],
                                  init_containers=[], image="course-image")  # fmt: skip
        asyncio.run(c.KubeSpawner.pre_spawn_hook(spawner))
    finally:
        for key, module in saved.items():
            if module is None:
                sys.modules.pop(key, None)
            else:
                sys.modules[key] = module
    (init,) = spawner.init_containers
    return [m for m in spawner.volume_mounts if m["name"] == "nbgrader-exchange"], init


def _pod_config(where: Path) -> Path:
    """The values' system ``nbgrader_config.py``, but for the hub's auth plugin (no hub here)."""
    text = yaml.safe_load(VALUES.read_text())["singleuser"]["extraFiles"]["nbgrader-config"]
    lines = [ln for ln in text["stringData"].splitlines() if "JupyterHubAuthPlugin" not in ln]
    where.mkdir()
    (where / "nbgrader_config.py").write_text("\n".join(lines) + "\n")
    return where


class Pods:
    """The stand-in pods of one class: one account, one bubblewrap namespace per student."""

    def __init__(self, base: Path, exchange: Path, venv: Path, config: Path):
        self.base, self.exchange, self.venv, self.config = base, exchange, venv, config
        entry = pwd.getpwnam(POD_USER)
        self.uid, self.gid = entry.pw_uid, entry.pw_gid

    def home(self, student: str) -> Path:
        return self.base / "homes" / student

    def init(self, student: str) -> None:
        """What the pod's init container does: ``mkdir -p`` her folders, as the pod's uid."""
        _, init = _hook_mounts(student)
        (mount,) = init["volumeMounts"]
        args = [a.replace(mount["mountPath"], str(self.exchange / mount["subPath"]))
                for a in init["command"]]  # fmt: skip
        subprocess.run(args, check=True, preexec_fn=self._drop)

    def _drop(self) -> None:
        os.setgid(self.gid)
        os.setgroups([])
        os.setuid(self.uid)

    def argv(self, student: str, command: list[str], env: dict[str, str]) -> list[str]:
        mounts, _ = _hook_mounts(student)
        binds = []
        for m in mounts:
            kind = "--ro-bind" if m.get("readOnly") else "--bind"
            binds += [kind, str(self.exchange / m["subPath"]), m["mountPath"]]
        usr = ["--ro-bind", "/usr", "/usr"]
        for link in ("bin", "sbin", "lib", "lib64"):
            if os.path.islink(f"/{link}"):
                usr += ["--symlink", os.readlink(f"/{link}"), f"/{link}"]
            elif os.path.isdir(f"/{link}"):
                usr += ["--ro-bind", f"/{link}", f"/{link}"]
        setenv = []
        for key, value in {"HOME": "/home/jovyan", "PATH": "/opt/venv/bin:/usr/bin:/bin",
                           "LANG": "C.UTF-8", "JUPYTERHUB_USER": student,
                           "JUPYTER_CONFIG_PATH": "/opt/jupyter", **env}.items():  # fmt: skip
            setenv += ["--setenv", key, value]
        return [
            "bwrap", "--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent",
            "--new-session", "--clearenv", *setenv, *usr,
            "--ro-bind", "/etc", "/etc", "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp",
            "--ro-bind", str(self.venv), "/opt/venv", "--ro-bind", str(self.config), "/opt/jupyter",
            "--bind", str(self.home(student)), "/home/jovyan",
            # /srv read-only (the image's), the exchange root the pod's own emptyDir, the
            # course folder and inbound/ read-only (runc makes mount points as root, 0755)
            "--tmpfs", "/srv", "--tmpfs", POD_EXCHANGE, "--tmpfs", f"{POD_EXCHANGE}/{COURSE_ID}",
            *binds, "--remount-ro", f"{POD_EXCHANGE}/{COURSE_ID}", "--remount-ro", "/srv",
            "--chdir", "/home/jovyan", *command,
        ]  # fmt: skip

    def run(self, student: str, command: list[str], env: dict[str, str] | None = None):
        return subprocess.run(
            self.argv(student, command, env or {}), preexec_fn=self._drop, text=True,
            capture_output=True, timeout=600,
        )  # fmt: skip

    def nbgrader(self, student: str, *args: str, env: dict[str, str] | None = None) -> str:
        done = self.run(student, ["/opt/venv/bin/python", "-m", "nbgrader", *args], env)
        assert done.returncode == 0, f"{student}: nbgrader {args}: {done.stdout}{done.stderr}"
        return done.stdout + done.stderr

    def collect(self, course_root: Path, per_student_mounts: bool) -> str:
        """The collect Job's command, as the pods' uid, with the pod venv's packages."""
        env = {"PATH": f"{self.venv}/bin:/usr/bin:/bin", "HOME": str(self.base), "LANG": "C.UTF-8"}
        if per_student_mounts:
            env["ATTENTION_LAB_PER_STUDENT_MOUNTS"] = "1"
        done = subprocess.run(
            [f"{self.venv}/bin/python", "-m", "attention_grader", "--course", str(course_root),
             "collect", FIXTURE], env=env, preexec_fn=self._drop, capture_output=True, text=True,
            timeout=600, check=False, cwd=course_root,
        )  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    def attempt(self, student: str, attempts: dict[str, str]) -> dict[str, str]:
        """Run each snippet in ``student``'s pod: ``ok`` or the name of the error it raised."""
        code = attempts_code(attempts)
        done = self.run(student, ["/opt/venv/bin/python", "-c", code])
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def pod_account():
    """The one account every stand-in pod runs as (made here, removed afterwards)."""
    made = False
    try:
        pwd.getpwnam(POD_USER)
    except KeyError:
        subprocess.run(["useradd", "-M", "-U", "-s", "/usr/sbin/nologin", POD_USER], check=True)
        made = True
    yield POD_USER
    if made:
        subprocess.run(["userdel", POD_USER], check=False)


def _chown_tree(path: Path, uid: int, gid: int) -> None:
    for root, dirs, files in os.walk(path):
        for name in [*dirs, *files]:
            os.lchown(os.path.join(root, name), uid, gid)
    os.lchown(path, uid, gid)


def _answer_in_home(pods: Pods, student: str, answers: dict[str, str], mark: str) -> None:
    path = pods.home(student) / FIXTURE / f"{FIXTURE}.ipynb"
    nb = nbformat.read(path, as_version=4)
    answers = {**answers, "q2_answer": answers["q2_answer"] + "\n" + mark}
    nbformat.write(answer(nb, answers), path)  # an existing file: it keeps the pod's owner


def _per_student_course(base: Path):
    """The fixture course, its config as the collect Job reads it.

    ``c.ExchangeLayout.per_student_mounts`` takes the Job's ATTENTION_LAB_PER_STUDENT_MOUNTS=1
    as its default (attention_grader.config.environment): the course file names nothing.
    """
    from attention_grader.config.course import load_course

    return load_course(make_course(base).root)


@pytest.fixture(scope="module")
def story(pod_account):
    from attention_grader.cli import main
    from attention_grader.steps.release import release

    with ExitStack() as stack:
        base = Path(tempfile.mkdtemp(prefix="attention-k8s-exchange-"))
        stack.callback(shutil.rmtree, base, True)
        os.chmod(base, 0o755)
        stack.enter_context(pytest.MonkeyPatch.context()).setenv(
            "ATTENTION_LAB_PER_STUDENT_MOUNTS", "1"
        )
        course = _per_student_course(base)
        venv = base / "pod-venv"
        subprocess.run(["/usr/bin/python3", "-m", "venv", "--without-pip", venv], check=True)
        copy_installed(("grader",), next(venv.glob("lib/python3*/site-packages")))
        pods = Pods(base, course.exchange, venv, _pod_config(base / "pod-config"))
        for student in STUDENTS:
            pods.home(student).mkdir(parents=True)
            os.chown(pods.home(student), pods.uid, pods.gid)
        release(course, FIXTURE)
        _chown_tree(course.exchange, pods.uid, pods.gid)  # the instructor's pod is jovyan too
        for student in STUDENTS:
            pods.init(student)
        started = time.time()

        before_hand_in = pods.attempt("mallory", {
            "squat another course": f"os.mkdir('{POD_EXCHANGE}/other-course')",
            "take the course folder": f"os.rename('{POD_EXCHANGE}/{COURSE_ID}', '{POD_EXCHANGE}/x')",
            "plant in outbound": f"open('{POD_EXCHANGE}/{COURSE_ID}/outbound/x.ipynb', 'w').write('{{}}')",
            "replace the released notebook": (
                f"open('{POD_EXCHANGE}/{COURSE_ID}/outbound/{FIXTURE}/{FIXTURE}.ipynb', 'w')"
                ".write('{{}}')"),
            "rename outbound": f"os.rename('{POD_EXCHANGE}/{COURSE_ID}/outbound', '/srv/o')",
            "write feedback": f"open('{POD_EXCHANGE}/{COURSE_ID}/feedback/x.html', 'w').write('x')",
            "make alice's folder": f"os.mkdir('{POD_EXCHANGE}/{COURSE_ID}/inbound/alice')",
            "remove her own folder": f"os.rmdir('{POD_EXCHANGE}/{COURSE_ID}/inbound/mallory')",
        })  # fmt: skip
        views = {
            s: pods.run(
                s,
                [
                    "/bin/sh",
                    "-c",
                    f"ls -A {POD_EXCHANGE} {POD_EXCHANGE}/{COURSE_ID} "
                    f"{POD_EXCHANGE}/{COURSE_ID}/inbound",
                ],
            ).stdout  # fmt: skip
            for s in STUDENTS
        }

        for student, answers in (("alice", CORRECT), ("bob", MISCONCEIVED), ("mallory", CORRECT)):
            pods.nbgrader(student, "fetch_assignment", FIXTURE)
            _answer_in_home(pods, student, answers, f"# {student}-own-work")
        for student in ("alice", "bob"):
            pods.nbgrader(student, "submit", FIXTURE)
        listed = pods.nbgrader("alice", "list", "--inbound")
        inbound = course.exchange / COURSE_ID / "inbound"
        (alice_folder,) = list((inbound / "alice").iterdir())
        alice_nb = f"{POD_EXCHANGE}/{COURSE_ID}/inbound/alice/{alice_folder.name}/{FIXTURE}.ipynb"

        mine = f"{POD_EXCHANGE}/{COURSE_ID}/inbound/mallory"
        after_submit = pods.attempt("mallory", {
            "read alice's notebook": f"open({alice_nb!r}).read()",
            "replace alice's notebook": f"open({alice_nb!r}, 'w').write('{{}}')",
            "list inbound": f"assert os.listdir('{POD_EXCHANGE}/{COURSE_ID}/inbound') == ['mallory']",
            "link to alice's folder as hers": (
                f"os.symlink('../alice/{alice_folder.name}', '{mine}/mallory+{FIXTURE}+2026-12-01 "
                "00:00:00.000000 UTC+l')"),
            "link named alice's": (
                f"os.symlink('../alice/{alice_folder.name}', '{mine}/alice+{FIXTURE}+2099-01-01 "
                "00:00:00.000000 UTC+k')"),
            "a notebook linking to alice's": (
                f"os.mkdir('{mine}/mallory+{FIXTURE}+2099-01-01 00:00:00.000000 UTC+n'); "
                f"os.symlink('{inbound / 'alice' / alice_folder.name / (FIXTURE + '.ipynb')}', "
                f"'{mine}/mallory+{FIXTURE}+2099-01-01 00:00:00.000000 UTC+n/{FIXTURE}.ipynb')"),
            "read the course": f"os.listdir({str(course.root)!r})",
            "read the host's exchange": f"os.listdir({str(course.exchange)!r})",
        })  # fmt: skip

        # mallory: her own work, backdated in every way a student can
        before = set((inbound / "mallory").iterdir())
        pods.nbgrader("mallory", "submit", FIXTURE)
        (own,) = set((inbound / "mallory").iterdir()) - before
        pod_own = f"{POD_EXCHANGE}/{COURSE_ID}/inbound/mallory/{own.name}"
        backdated = f"mallory+{FIXTURE}+{PAST}"
        backdate = pods.attempt("mallory", {
            "a data file linking to alice's": (
                f"os.symlink({str(inbound / 'alice' / alice_folder.name / (FIXTURE + '.ipynb'))!r}, "
                f"'{pod_own}/notes.csv')"),
            "stamp 2020": f"open('{pod_own}/timestamp.txt', 'w').write({PAST!r})",
            "name 2020": f"os.rename('{pod_own}', '{POD_EXCHANGE}/{COURSE_ID}/inbound/mallory/{backdated}')",
            "utime 2020": (
                f"[os.utime(os.path.join(r, n), (1577836800, 1577836800)) for r, ds, fs in "
                f"os.walk('{POD_EXCHANGE}/{COURSE_ID}/inbound/mallory') for n in ds + fs"
                " if not os.path.islink(os.path.join(r, n))]"),
            "utime 2020, links too": (
                f"[os.utime(os.path.join(r, n), (1577836800, 1577836800), follow_symlinks=False)"
                f" for r, ds, fs in os.walk('{POD_EXCHANGE}/{COURSE_ID}/inbound/mallory')"
                " for n in ds + fs]"),
        })  # fmt: skip
        # ...and as alice: through nbgrader, by its name, and pretending to be her
        as_alice = pods.run("mallory", ["/opt/venv/bin/python", "-m", "nbgrader", "submit",
                                        FIXTURE, "--student", "alice"])  # fmt: skip
        pretend = pods.run("mallory", ["/opt/venv/bin/python", "-m", "nbgrader", "submit",
                                       FIXTURE], env={"JUPYTERHUB_USER": "alice"})  # fmt: skip
        # the collect Job: uid 1000 (the pods' own), the course volume its own; first a copy
        # with per-student mounts off, to see what the owner rule believes with one uid
        unprotected = base / "off" / "course"
        shutil.copytree(course.root, unprotected)
        _chown_tree(course.root, pods.uid, pods.gid)
        _chown_tree(unprotected, pods.uid, pods.gid)
        pods.collect(unprotected, per_student_mounts=False)
        collect = pods.collect(course.root, per_student_mounts=True)
        _chown_tree(course.root, 0, 0)  # the grading Job's own steps: root here
        assert main(["--course", str(course.root), "grade", FIXTURE, "--no-progress"]) == 0
        # the teacher's steps run as root here, the teacher's pod is the exchange's uid there:
        # nbgrader's release_feedback wants to own feedback/, so root owns it for that step
        os.lchown(course.exchange / COURSE_ID / "feedback", 0, 0)
        assert main(["--course", str(course.root), "feedback", FIXTURE]) == 0
        _chown_tree(course.exchange / COURSE_ID / "feedback", pods.uid, pods.gid)
        fetched = {s: pods.nbgrader(s, "fetch_feedback", FIXTURE) for s in ("alice", "bob")}
        feedback_view = pods.run("mallory", ["ls", "-A", f"{POD_EXCHANGE}/{COURSE_ID}/feedback"])
        yield {
            "course": course, "pods": pods, "started": started, "views": views,
            "before": before_hand_in, "backdate": backdate, "after": after_submit,
            "as_alice": as_alice, "pretend": pretend, "collect": collect, "off": unprotected,
            "fetched": fetched, "listed": listed, "feedback_view": feedback_view, "alice_folder": alice_folder,
        }  # fmt: skip


def _submitted(course, student: str) -> str:
    return (course.root / "submitted" / student / FIXTURE / f"{FIXTURE}.ipynb").read_text()


def test_a_pod_sees_only_its_own_folders_of_the_exchange(story):
    for student, view in story["views"].items():
        assert view.split() == [
            f"{POD_EXCHANGE}:", COURSE_ID, f"{POD_EXCHANGE}/{COURSE_ID}:", "feedback", "inbound",
            "outbound", f"{POD_EXCHANGE}/{COURSE_ID}/inbound:", student,
        ]  # fmt: skip


def test_mallory_cannot_squat_the_course_or_write_what_the_teacher_released(story):
    assert story["before"] == {
        "squat another course": "ok",  # in her pod's own emptyDir: it reaches nobody
        "take the course folder": "OSError",  # a mount point (busy), in a read-only folder
        "plant in outbound": "OSError",
        "replace the released notebook": "OSError",
        "rename outbound": "OSError",
        "write feedback": "OSError",
        "make alice's folder": "OSError",
        "remove her own folder": "OSError",  # a mount point: busy
    }, story["before"]
    outbound = story["course"].exchange / COURSE_ID / "outbound"
    assert sorted(p.name for p in outbound.iterdir()) == [FIXTURE]
    assert sorted(os.listdir(story["course"].exchange)) == [COURSE_ID]  # not other-course


def test_a_student_lists_her_own_submission_only(story):
    listed = story["listed"]
    assert f"attention-lab alice {FIXTURE}" in listed, listed
    assert "bob" not in listed and "refused" not in listed


def test_mallory_can_neither_read_nor_replace_alices_work(story):
    after = story["after"]
    assert after["read alice's notebook"] == "FileNotFoundError"
    assert after["replace alice's notebook"] == "FileNotFoundError"
    assert after["list inbound"] == "ok"  # the assert in the snippet held: only her own folder
    assert after["read the course"] == after["read the host's exchange"] == "FileNotFoundError"
    assert "# alice-own-work" in _submitted(story["course"], "alice")


def test_handing_in_as_alice_is_refused_with_one_line_and_kept(story):
    course = story["course"]
    # nbgrader's --student names alice inside mallory's own folder: collect refuses it
    lines = [ln for ln in story["collect"].splitlines() if "refused:" in ln]
    assert any("in mallory's folder names 'alice'" in ln for ln in lines), story["collect"]
    # pretending to be alice to the submit finds no folder of alice's in her pod: nbgrader fails
    assert story["pretend"].returncode != 0
    assert not any("mallory" in n for n in os.listdir(course.exchange / COURSE_ID / "inbound" / "alice"))  # fmt: skip
    kept = list((course.root / "quarantine" / "refused" / FIXTURE).glob("*/refusal.json"))
    reasons = [json.loads(p.read_text())["reason"] for p in kept]
    assert len(reasons) == len(lines)  # one kept folder per line
    assert "# mallory-own-work" not in _submitted(course, "alice")
    assert "# alice-own-work" in _submitted(course, "alice")


def test_links_from_mallorys_folder_are_refused_or_not_followed(story):
    after = story["after"]
    assert after["link to alice's folder as hers"] == "ok"  # made, in her own folder...
    lines = story["collect"]
    assert "not a folder (in mallory's folder)" in lines  # ...and refused by collect
    folder = story["course"].root / "submitted" / "mallory" / FIXTURE
    assert "# mallory-own-work" in _submitted(story["course"], "mallory")
    assert not (folder / "notes.csv").exists()  # a link: not copied (and flagged)
    for path in folder.rglob("*"):  # no copy of alice's work reached her submission
        assert "# alice-own-work" not in path.read_text(errors="replace")


def test_mallory_cannot_backdate_her_own_submission(story):
    assert set(story["backdate"].values()) == {"ok"}, story["backdate"]  # all in her folder
    stamp = (story["course"].root / "submitted" / "mallory" / FIXTURE / "timestamp.txt").read_text()
    from attention_grader.intake.intake import parse_timestamp

    when = parse_timestamp(stamp.strip())
    assert when is not None and when.timestamp() > story["started"] - 5  # the exchange's time
    # ...taken after a utime to 2020 and a folder named 2020: the ctime, which only the kernel sets


def test_with_the_owner_rule_one_uid_would_believe_mallorys_dates(story):
    """The attack without the defence: per-student mounts off, the uid-1000 collect trusts every
    folder as its own (their owner is its uid) and dates each by its name: mallory's folder
    named 2099 (holding only a link) beats her real, later work; with them on, the ctime does.
    """
    off = story["off"] / "submitted" / "mallory" / FIXTURE
    assert off.is_dir() and not (off / f"{FIXTURE}.ipynb").exists()
    assert "# mallory-own-work" in _submitted(story["course"], "mallory")


def test_the_honest_flow_grades_and_returns_feedback_as_on_one_machine(story):
    from attention_grader.config.course import load_course
    from nbgrader.api import Gradebook

    course = load_course(story["course"].root)
    with Gradebook(course.db_url, course.course_id) as gb:
        scores = {s: gb.find_submission(FIXTURE, s).score for s in ("alice", "bob")}
        top = gb.find_assignment(FIXTURE).max_score
    assert scores["alice"] == top and 0 < scores["bob"] < top
    for student in ("alice", "bob"):
        pages = list((story["pods"].home(student) / FIXTURE / "feedback").rglob("*.html"))
        assert pages, story["fetched"][student]
        assert all(f"# {student}-own-work" in re.sub(r"<[^>]+>", "", p.read_text()) for p in pages)
    feedback = story["course"].exchange / COURSE_ID / "feedback"
    assert sorted(p.name for p in feedback.iterdir()) == sorted(STUDENTS)  # one folder each
    own = sorted(p.name for p in (feedback / "mallory").iterdir())
    assert own and story["feedback_view"].stdout.split() == own  # mallory sees her pages only
