"""``make test`` on several workers: what several modules read is built once, and one hub runs.

pytest-xdist runs each group of tests/support/worker_groups.py's ``xdist_group`` whole on one worker: a
module, tests/hub or tests/browser. What modules of several workers read (the lessons, the attack
batches, the graded classes of tests/support/graded_classes.py) is built once per run by whichever
worker asks first (tests/support/run_cache.py); here, that a graded class is named by all it is.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

from tests.support.graded_classes import STANDARD, ClassSpec, attack_class, run_key
from tests.support.grading_course import hand_in_class
from tests.support.worker_groups import xdist_group

HERE = Path(__file__).parent
ROOT = HERE.parent


def test_equal_class_specs_share_a_run_key_and_any_difference_parts_them(tmp_path):
    assert run_key(STANDARD) == run_key(ClassSpec("standard", hand_in=hand_in_class))
    assert run_key(STANDARD) != run_key(ClassSpec("standard", hand_in=hand_in_class, jobs=1))
    assert run_key(STANDARD) != run_key(ClassSpec("standard", hand_in=hand_in_class, due=None))
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "x").mkdir()  # attack_class reads the one assignment's name
    question = {"q": ("x = 1", "assert x == 1", "x = 2")}
    one, same, other = (
        attack_class("attack", tmp_path / "a", q, ("ann", "bo"), "bo")
        for q in (question, dict(question), {"q": ("x = 1", "assert x == 1", "x = 3")})
    )
    assert run_key(one) == run_key(same)
    assert run_key(one) != run_key(other)  # the same name and hand-in, another attack


@pytest.mark.slow
def test_a_class_is_built_once_and_each_route_grades_a_copy_of_its_own(tmp_path):
    """built_class: the standard class's one build of this run (test_grade's), copied; the copy
    names its own exchange and nothing done to one copy reaches another.
    """
    from dataclasses import replace

    from tests.support.graded_classes import built_class
    from tests.support.grading_course import FIXTURE
    from tests.support.run_cache import run_folder

    other = replace(STANDARD, name="other", route="nbgrader", jobs=1)
    a, b = built_class(tmp_path / "a", STANDARD), built_class(tmp_path / "b", other)
    assert len(list(run_folder().glob("built-*.lock"))) >= 1
    files = [sorted(p.relative_to(c.root) for p in c.root.rglob("*")) for c in (a, b)]
    assert files[0] == files[1] and Path("submitted/alice") in files[0]
    for course, folder in ((a, tmp_path / "a"), (b, tmp_path / "b")):
        assert str(folder / "exchange") in (course.root / "nbgrader_config.py").read_text()
        assert (folder / "exchange" / course.course_id / "outbound" / FIXTURE).is_dir()
    shutil.rmtree(a.root / "submitted" / "alice")
    assert (b.root / "submitted" / "alice" / FIXTURE).is_dir()


def test_each_module_is_its_own_group_and_the_hub_and_the_browser_are_one_each():
    assert xdist_group("tests/test_notebooks.py::test_x[a]") == "tests/test_notebooks.py"
    assert xdist_group("tests/hub/test_hub.py::test_a") == xdist_group(
        "tests/hub/test_hub_multi.py::b"
    )
    assert xdist_group("tests/browser/test_lab.py::test_a") == xdist_group(
        "tests/browser/test_a11y.py::b"
    )
    assert xdist_group("tests/browser/test_lab.py::a") != xdist_group("tests/hub/test_hub.py::a")
    assert xdist_group("tests/attention_grader/test_accuracy.py::t") != xdist_group(
        "tests/test_assignments.py::t"
    )


def _run_stand_ins(tmp_path: Path, tests_per_module: dict[str, int], workers: int) -> list[str]:
    """Run tests/conftest.py's scheduler under ``-n workers --dist loadgroup`` on stand-in
    modules (path -> number of tests); each test logs "<module file> <worker>": the lines in
    the order the tests ran.
    """
    (tmp_path / "tests").mkdir()
    shutil.copy(HERE / "conftest.py", tmp_path / "tests" / "conftest.py")
    (tmp_path / "tests" / "support").mkdir()
    for helper in ("__init__.py", "worker_groups.py", "run_cache.py"):  # what conftest.py imports
        shutil.copy(HERE / "support" / helper, tmp_path / "tests" / "support" / helper)
    for module, tests in tests_per_module.items():
        path = tmp_path / module
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            "import os, pytest\n"
            f"@pytest.mark.parametrize('i', range({tests}))\n"
            "def test_worker(i):\n"
            "    with open(os.environ['WORKERS_LOG'], 'a') as log:\n"
            "        log.write(f\"{__file__} {os.environ['PYTEST_XDIST_WORKER']}\\n\")\n"
        )
    (tmp_path / "pyproject.toml").write_text(
        '[tool.pytest.ini_options]\ntestpaths = ["tests"]\npythonpath = ["."]\n'
    )
    log = tmp_path / "workers.log"
    cmd = [sys.executable, "-m", "pytest", "-n", str(workers), "--dist", "loadgroup"]
    env = {**os.environ, "WORKERS_LOG": str(log)}
    run = subprocess.run(
        [*cmd, "-p", "no:cacheprovider"], cwd=tmp_path, env=env, capture_output=True,
        text=True, timeout=300,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    lines = log.read_text().splitlines()
    assert len(lines) == sum(tests_per_module.values()), run.stdout
    return [
        f"{xdist_group(Path(path).relative_to(tmp_path).as_posix() + '::t')} {worker}"
        for path, worker in (line.rsplit(" ", 1) for line in lines)
    ]


@pytest.mark.slow
def test_two_workers_run_each_group_whole_on_one_of_them(tmp_path):
    """Each group's tests report one worker (whichever is free first); the stand-ins are named
    as the browser's are (the hub's folder is collected only where JupyterHub is installed).
    """
    stand_ins = {
        "tests/browser/test_a.py": 4,
        "tests/browser/test_b.py": 4,
        "tests/test_alone.py": 4,
    }
    workers = defaultdict(set)
    for line in _run_stand_ins(tmp_path, stand_ins, workers=2):
        group, worker = line.rsplit(" ", 1)
        workers[group].add(worker)
    assert set(workers) == {"tests/browser", "tests/test_alone.py"}
    assert all(len(ran_on) == 1 for ran_on in workers.values()), dict(workers)


@pytest.mark.slow
def test_the_long_groups_start_first_however_few_their_tests(tmp_path):
    """tests/browser (8 tests) before a module of 12, which pytest-xdist alone would start first."""
    stand_ins = {
        "tests/test_big.py": 12,
        "tests/browser/test_a.py": 4,
        "tests/browser/test_b.py": 4,
    }
    ran = [line.rsplit(" ", 1)[0] for line in _run_stand_ins(tmp_path, stand_ins, workers=1)]
    assert ran == ["tests/browser"] * 8 + ["tests/test_big.py"] * 12
