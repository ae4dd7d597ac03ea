"""``make test`` on two cores: what is built once per process is built once, and one hub runs.

pytest-xdist runs each group of tests/worker_groups.py's ``xdist_group`` whole on one worker. The
modules that read the same graded class (tests/graded_classes.py) must share a group, or a
second worker grades it again; found here by what they import, so a new reader cannot be
forgotten in ``SHARED_GROUPS``. (The lessons and the attack batches are built once per run for
every worker: tests/run_cache.py.)
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import graded_classes
import pytest
from worker_groups import SHARED_GROUPS, xdist_group

HERE = Path(__file__).parent
ROOT = HERE.parent
#: What a module imports to read something built once per process, by the module defining it.
CACHED = {
    "graded_classes": {
        name
        for name, value in vars(graded_classes).items()
        if isinstance(value, graded_classes.ClassSpec)
    },
}


def _readers() -> dict[str, set[str]]:
    """``module:name`` of each cached thing -> the test modules (as node ids start) importing it."""
    readers = defaultdict(set)
    for path in sorted(HERE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module in CACHED:
                for alias in node.names:
                    if alias.name in CACHED[node.module]:
                        readers[f"{node.module}:{alias.name}"].add(
                            path.relative_to(ROOT).as_posix()
                        )
    return readers


@pytest.mark.slow
def test_the_readers_of_a_cached_batch_or_class_share_a_group():
    readers = _readers()
    assert readers["graded_classes:STANDARD"] >= {"tests/attention_grader/test_postgres.py"}
    for thing, modules in readers.items():
        groups = {module: xdist_group(f"{module}::test") for module in modules}
        assert len(set(groups.values())) == 1, f"{thing} is read in several groups: {groups}"


def test_each_module_is_its_own_group_and_the_hub_and_the_browser_are_one_each():
    assert xdist_group("tests/test_notebooks.py::test_x[a]") == "tests/test_notebooks.py"
    assert xdist_group("tests/hub/test_hub.py::test_a") == xdist_group(
        "tests/hub/test_hub_multi.py::b"
    )
    assert xdist_group("tests/browser/test_lab.py::test_a") == xdist_group(
        "tests/browser/test_a11y.py::b"
    )
    assert xdist_group("tests/browser/test_lab.py::a") != xdist_group("tests/hub/test_hub.py::a")
    shared = [module for modules in SHARED_GROUPS.values() for module in modules]
    assert len(shared) == len(set(shared)), "a module is listed in two groups"
    assert all((ROOT / module).is_file() for module in shared), "SHARED_GROUPS names a lost module"


@pytest.mark.slow
def test_two_workers_run_each_group_whole_on_one_of_them(tmp_path):
    """Run tests/conftest.py's scheduler under ``-n 2 --dist loadgroup``, on stand-in modules named as the
    shared and hub modules are: each group's tests report one worker (whichever is free first).
    """
    (tmp_path / "tests").mkdir()
    shutil.copy(HERE / "conftest.py", tmp_path / "tests" / "conftest.py")
    for helper in ("worker_groups.py", "run_cache.py"):  # what conftest.py imports
        shutil.copy(HERE / helper, tmp_path / "tests" / helper)
    stand_ins = [*SHARED_GROUPS["standard-class"], "tests/hub/test_a.py", "tests/hub/test_b.py"]
    stand_ins += ["tests/test_alone.py"]
    for module in stand_ins:
        path = tmp_path / module
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            "import os, pytest\n"
            "@pytest.mark.parametrize('i', range(4))\n"
            "def test_worker(i):\n"
            "    with open(os.environ['WORKERS_LOG'], 'a') as log:\n"
            "        log.write(f\"{__file__} {os.environ['PYTEST_XDIST_WORKER']}\\n\")\n"
        )
    (tmp_path / "pyproject.toml").write_text('[tool.pytest.ini_options]\ntestpaths = ["tests"]\n')
    log = tmp_path / "workers.log"
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        "-n",
        "2",
        "--dist",
        "loadgroup",
        "-p",
        "no:cacheprovider",
    ]
    env = {**os.environ, "WORKERS_LOG": str(log)}
    run = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    workers = defaultdict(set)
    for line in log.read_text().splitlines():
        path, worker = line.rsplit(" ", 1)
        module = Path(path).relative_to(tmp_path).as_posix()
        workers[xdist_group(f"{module}::test")].add(worker)
    assert len(log.read_text().splitlines()) == 4 * len(stand_ins)
    assert set(workers) == {"standard-class", "tests/hub", "tests/test_alone.py"}
    assert all(len(ran_on) == 1 for ran_on in workers.values()), dict(workers)
