"""The PostgreSQL gradebook for real: a throwaway Debian postgresql cluster (tests/support/pg_cluster.py),
`grade(..., jobs=2)` leaving the same gradebook as on SQLite, and the formgrader's REST API on it.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
import requests
from attention_grader.steps.grade import GradeOptions, grade
from browser.driver import start_jupyter

from tests.support.graded_classes import STANDARD
from tests.support.grading_course import FIXTURE, gradebook_state
from tests.support.pg_cluster import throwaway_cluster

pytestmark = [
    pytest.mark.slow,
    pytest.mark.timeout(420),
]
STUDENTS = ["alice", "bob", "dana", "eli"]


@pytest.fixture(scope="module")
def cluster():
    with throwaway_cluster() as running:
        yield running


@pytest.fixture(scope="module")
def graded(cluster, shared_class):
    """The same class graded twice with two workers: on SQLite (the session's shared class)
    and on PostgreSQL, its URL in nbgrader_config.py so nbgrader, `make grade` and the
    formgrader all read the same gradebook.
    """
    url = cluster.create_database()
    on_postgres = replace(STANDARD, name="postgres", config=f"c.CourseDirectory.db_url = {url!r}\n")
    return {
        name: (graded.course, graded.summary)
        for name, graded in [
            ("sqlite", shared_class(STANDARD)),
            ("postgres", shared_class(on_postgres)),
        ]
    }


def test_the_cluster_is_postgresql_on_a_socket_only(cluster):
    import psycopg

    dsn = f"host={cluster.socket_dir} user={cluster.user} dbname=postgres"
    with psycopg.connect(dsn, connect_timeout=10) as conn:
        assert conn.execute("SHOW listen_addresses").fetchone() == ("",)  # no TCP at all
        assert conn.info.server_version >= 150000


def test_parallel_grade_on_postgresql_leaves_the_gradebook_sqlite_leaves(graded):
    (lite, lite_summary), (pg, pg_summary) = graded["sqlite"], graded["postgres"]
    assert pg.db_url.startswith("postgresql+psycopg://")
    assert lite.db_url.startswith("sqlite:///")
    assert not (pg.root / "gradebook.db").exists()  # nothing fell back to SQLite
    pg_state = gradebook_state(pg, FIXTURE)
    assert sorted(pg_state) == STUDENTS
    assert pg_state == gradebook_state(lite, FIXTURE)
    assert [r.score for r in pg_summary.results] == [r.score for r in lite_summary.results]
    assert [pg_summary.by_student()[s].score for s in STUDENTS] == [3, 1, 0, 3]
    # A second run on PostgreSQL finds everything graded (nbgrader's rule) and changes nothing.
    again = grade(pg, FIXTURE, GradeOptions(jobs=2, progress=False))
    assert [r.status for r in again.results] == ["unchanged"] * len(STUDENTS)
    assert gradebook_state(pg, FIXTURE) == pg_state


def test_the_formgrader_reads_and_writes_grades_on_postgresql(graded, tmp_path):
    course, _ = graded["postgres"]
    server = start_jupyter(course.root, tmp_path / "jupyter")
    try:
        session = requests.Session()
        session.headers["Authorization"] = f"token {server.token}"
        base = f"http://127.0.0.1:{server.port}/formgrader/api"

        subs = session.get(f"{base}/submissions/{FIXTURE}", timeout=60)
        assert subs.status_code == 200, server.log()[-3000:]
        scores = {s["student"]: s["score"] for s in subs.json()}
        assert scores == {"alice": 3, "bob": 1, "dana": 0, "eli": 3}

        # A teacher's manual override through the API lands in the PostgreSQL gradebook.
        grades = session.get(
            f"{base}/grades", params={"submission_id": _notebook_submission(course, "bob")},
            timeout=30,
        ).json()  # fmt: skip
        q1 = next(g for g in grades if g["name"] == "q1_softmax")
        assert (q1["auto_score"], q1["max_score"]) == (0, 2)
        put = session.put(
            f"{base}/grade/{q1['id']}", json={**q1, "manual_score": 1.5}, timeout=30,
        )  # fmt: skip
        assert put.status_code == 200, put.text
    finally:
        server.stop()
    state = gradebook_state(course, FIXTURE)
    assert state["bob"]["notebooks"][FIXTURE]["grades"]["q1_softmax"][1] == 1.5
    assert state["bob"]["score"] == 2.5  # q1 by hand (1.5 of 2) + q2 automatic (1)


def _notebook_submission(course, student: str) -> str:
    """The id of ``student``'s notebook submission (the formgrader's grades are per notebook)."""
    with course.gradebook() as gb:
        return gb.find_submission_notebook(FIXTURE, FIXTURE, student).id


def test_a_failure_inside_the_cluster_still_stops_it_and_removes_its_files():
    with pytest.raises(RuntimeError, match="a test failed"), throwaway_cluster() as running:
        pid_file = running.socket_dir.parent / "data" / "postmaster.pid"
        pid = int(pid_file.read_text().split()[0])
        raise RuntimeError("a test failed")
    assert not running.socket_dir.parent.exists()
    assert not _alive(pid)  # the postmaster is gone, not orphaned


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie waiting for PID 1 to reap it has ended: state Z)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False
    return "\nState:\tZ" not in status
