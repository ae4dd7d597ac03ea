"""The grading Job's own command line (autograder/jupyterhub/k8s-grade-job.yaml), run here as its
pods would run it, as far as this machine can emulate a pod: three shard processes at once, each
with its JOB_COMPLETION_INDEX, as uid 1000 (not root, as the Job's runAsUser), in a course it can
write only in autograded/ and reports/, with the kubelet's KUBERNETES_SERVICE_HOST set, against
one throwaway PostgreSQL gradebook (tests/support/pg_cluster.py). They must leave the gradebook one
`grade` run leaves, each student graded once, the sandbox ON -- and refuse to grade at all when
bubblewrap cannot build its sandbox (a fake bwrap failing as it does under a default seccomp).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.support.graded_classes import ClassSpec, build_class
from tests.support.grading_course import (
    CORRECT,
    FIXTURE,
    answer,
    gradebook_state,
    hand_in_class,
    place_submission,
    released_notebook,
)
from tests.support.k8s_files import find
from tests.support.pg_cluster import throwaway_cluster
from tests.support.pod_packages import copy_installed

pytestmark = [
    pytest.mark.slow,
    pytest.mark.timeout(1800),  # a hang guard: setup grades a class and runs four pods
]
# The Job's runAsUser / runAsGroup; a developer who is not root runs the pods as themself.
ROOT = os.geteuid() == 0
UID, GID = (1000, 100) if ROOT else (os.geteuid(), os.getegid())
STUDENTS = ["alice", "bob", "dana", "eli", "mallory"]
JOB = find("Job", "grade-intro-attention")
(CONTAINER,) = JOB["spec"]["template"]["spec"]["containers"]
SHARDS = JOB["spec"]["completions"]
# The Job's command line, for the fixture's assignment instead of the course's.
COMMAND = [*CONTAINER["command"], CONTAINER["args"][0].replace("intro_attention", FIXTURE)]
FAILING_BWRAP = "#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n"


@pytest.fixture(scope="module")
def cluster():
    with throwaway_cluster() as running:
        os.chmod(running.socket_dir.parent, 0o711)  # uid 1000 reaches the socket, nothing more
        yield running


# mallory answers correctly and, in the same cell, looks for what the pod holds: the solutions,
# the other submissions, the gradebook's URL (a password) in her environment, the PostgreSQL
# socket, the network. Her kernel prints what it found into her autograded notebook.
PROBE = """def double(x):
    return 2 * x

import os, socket
_seen = {{
    "source": os.path.exists({root!r} + "/source"),
    "submitted": os.path.exists({root!r} + "/submitted"),
    "gradebook url": any("postgresql" in v for v in os.environ.values()),
    "postgres socket": os.path.exists({socket!r}),
}}
try:
    socket.create_connection(("1.1.1.1", 53), timeout=3).close()
    _seen["network"] = True
except OSError:
    _seen["network"] = False
print("PROBE", sorted(k for k, v in _seen.items() if v))"""


def _class_spec(name: str, url: str, socket_dir: Path) -> ClassSpec:
    """The fixture class and mallory, on the gradebook at ``url``."""

    def hand_in(course):
        hand_in_class(course)
        probe = PROBE.format(root=str(course.root), socket=str(socket_dir))
        work = answer(released_notebook(course, FIXTURE), {**CORRECT, "q2_answer": probe})
        place_submission(course, FIXTURE, "mallory", work)

    return ClassSpec(name, hand_in=hand_in, db_url=url)


def _as_pod_user() -> None:
    if not ROOT:
        return
    os.setgid(GID)
    os.setgroups([])
    os.setuid(UID)


def _pod_python(where: Path) -> Path:
    """The pod's ``python``: Debian's python3.11 in a venv of its own holding what the image's
    /opt/venv holds, attention-lab with its grader and postgres extras (tests/support/pod_packages.py).

    The packages are copied, not referred to: this checkout and its .venv may sit where uid 1000
    cannot enter (a clone in a 0700 folder, as ``mktemp -d`` makes, or a private home; the
    venv's own interpreter may be a pyenv build under /root). Same CPython minor version, so
    the venv's compiled packages load unchanged; the sandbox shows kernels the pod venv's
    prefix, so they see the same copy.
    """
    done = subprocess.run(["/usr/bin/python3", "-c", "import sys; print(sys.version_info[:2])"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    assert done.stdout.strip() == str(tuple(sys.version_info[:2])), "need Debian's python3.11"
    subprocess.run(["/usr/bin/python3", "-m", "venv", "--without-pip", where], check=True)
    copy_installed(("grader", "postgres"), next(where.glob("lib/python3*/site-packages")))
    return where / "bin"


def _pod(course, url: str, index: int, home: Path, path: str) -> subprocess.Popen:
    """One pod of the Indexed Job: its env, its uid, its working directory (the course)."""
    env = {
        "PATH": os.pathsep.join([path, "/usr/bin", "/bin"]),
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "KUBERNETES_SERVICE_HOST": "10.96.0.1",
        "JOB_COMPLETION_INDEX": str(index),
        "ATTENTION_LAB_SHARDS": str(SHARDS),
        "ATTENTION_LAB_GRADEBOOK": url,
    }
    return subprocess.Popen(
        COMMAND, cwd=course.root, env=env, preexec_fn=_as_pod_user, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )  # fmt: skip


@pytest.fixture(scope="module")
def runs(cluster, shared_class):
    """One `grade` run (the reference), then the Job: first with bwrap failing, then for real."""
    reference_class = _class_spec("reference", cluster.create_database(), cluster.socket_dir)
    reference = shared_class(reference_class).course

    base = Path(tempfile.mkdtemp(prefix="attention-k8s-"))  # not pytest's: private to root
    try:
        os.chmod(base, 0o755)
        url = cluster.create_database()
        course = build_class(base / "class", _class_spec("sharded", url, cluster.socket_dir))
        for writable in ("autograded", "reports"):  # what the pod may write in the course
            (course.root / writable).mkdir()
            os.chown(course.root / writable, UID, GID)
        home = base / "home"
        home.mkdir()
        os.chown(home, UID, GID)
        fake = base / "fake-bin"
        fake.mkdir()
        (fake / "bwrap").write_text(FAILING_BWRAP)
        (fake / "bwrap").chmod(0o755)

        python = str(_pod_python(base / "pod-venv"))

        refused = _pod(course, url, 0, home, path=f"{fake}{os.pathsep}{python}")
        refused_out = refused.communicate(timeout=900)[0]
        after_refusal = sorted(p.name for p in (course.root / "autograded").iterdir())

        pods = [_pod(course, url, i, home, python) for i in range(SHARDS)]  # at once, as the Job
        outs = [p.communicate(timeout=1200)[0] for p in pods]
        yield {
            "reference": gradebook_state(reference, FIXTURE),
            "sharded": gradebook_state(course, FIXTURE),
            "course": course,
            "refused": (refused.returncode, refused_out, after_refusal),
            "pods": [(p.returncode, out) for p, out in zip(pods, outs, strict=True)],
        }
    finally:
        shutil.rmtree(base, ignore_errors=True)


def test_the_shard_pods_leave_the_gradebook_one_grade_run_leaves(runs):
    for code, out in runs["pods"]:
        assert code == 0, out[-3000:]
    assert sorted(runs["sharded"]) == STUDENTS
    assert runs["sharded"] == runs["reference"]  # every score, cell, comment, late penalty


def test_each_student_is_graded_by_exactly_one_pod(runs):
    reports = runs["course"].root / "reports" / FIXTURE
    seen = []
    for i in range(SHARDS):
        summary = json.loads(
            (reports / f"shard-{i}-of-{SHARDS}" / "batch_summary.json").read_text()
        )
        seen += [r["student"] for r in summary["results"] if r["status"] == "graded"]
    assert sorted(seen) == STUDENTS  # nobody twice, nobody missed
    for i, (_, out) in enumerate(runs["pods"]):
        assert f"shard {i}/{SHARDS}: " in out


def test_the_pods_graded_sandboxed_as_their_own_user(runs):
    for _, out in runs["pods"]:
        assert "[ON ] filesystem isolation" in out and "[ON ] no network" in out
        assert "In a Kubernetes pod: grading may start" in out
    root = runs["course"].root
    mallory = json.loads(
        (root / "autograded" / "mallory" / FIXTURE / f"{FIXTURE}.ipynb").read_text()
    )
    printed = ["".join(o.get("text", "")) for c in mallory["cells"] for o in c.get("outputs", [])]
    assert [t for t in printed if "PROBE" in t] == ["PROBE []\n"]  # saw nothing of all that
    assert runs["sharded"]["mallory"]["score"] == 3  # and was graded like anyone else
    for student in STUDENTS:
        assert (root / "autograded" / student / FIXTURE).stat().st_uid == UID
    if ROOT:  # the course belongs to someone else and is read-only for the pod's user
        assert root.stat().st_uid == 0 and not root.stat().st_mode & 0o022


def test_a_pod_without_a_working_sandbox_refuses_before_grading_anything(runs):
    code, out, graded = runs["refused"]
    assert code == 2, out[-3000:]
    assert "[OFF] filesystem isolation" in out
    assert "refusing to grade in a Kubernetes pod without the sandbox" in out
    assert graded == []  # nothing autograded: the refusal came first
