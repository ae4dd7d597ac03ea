"""What every test shares: warning filters, the ``slow`` marker on the browser and hub folders,
the graded classes (tests/support/graded_classes.py) and the two preset explorers (closed after each
test).
"""

import shutil
import sys
import tempfile
from importlib.util import find_spec
from pathlib import Path

import pytest

from attention_lab.explorer.query_explorer import QueryExplorer
from tests.support.run_cache import new_run_folder, remove_run_folder
from tests.support.worker_groups import FIRST_GROUPS, xdist_group


@pytest.fixture(scope="session")
def shared_class():
    """``shared_class(spec)``: the class a ``graded_classes.ClassSpec`` describes, built and
    graded through the real pipeline once per run, whichever modules and workers ask for it.
    """
    from tests.support.graded_classes import graded_class  # the grader extra, only when asked

    return graded_class


@pytest.fixture
def tiffin():
    explorer = QueryExplorer.tiffin()
    yield explorer
    explorer.close()


@pytest.fixture
def isro():
    explorer = QueryExplorer.isro()
    yield explorer
    explorer.close()


HERE = Path(__file__).parent


#: Every test in these folders drives Chromium or a real JupyterHub: marked ``slow`` here, so
#: ``make test-fast`` (``-m "not slow"``) leaves them out wherever the folders end up.
@pytest.fixture
def short_tmp():
    """A fresh folder with a short path in /tmp, removed afterwards.

    For a kernel's private folder: its Unix sockets' paths have at most 107 bytes, and
    pytest-xdist's ``tmp_path`` (``…/popen-gwN/<test name>N/``) can leave too few.
    """
    path = Path(tempfile.mkdtemp(prefix="t-"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


_RUN_FOLDER = pytest.StashKey[Path]()
HEAVY_FOLDERS = frozenset({"browser", "hub"})
#: The tests that import JupyterHub: tests/hub (a real hub), the hub's spawner and the shipped hub
#: configs (they configure the spawner).
NEEDS_JUPYTERHUB = (
    Path("hub"),
    Path("attention_hub", "test_spawner_limits.py"),
    Path("attention_hub", "test_classroom.py"),
    Path("attention_hub", "test_hub_config_ops.py"),
)
#: Warnings raised inside nbgrader, not by the code under test: SQLAlchemy's autoflush warning
#: for every new submission (attention_grader.config.course.quiet_autoflush_warning hides it from
#: teachers) and nbgrader's own call of a deprecated traitlets signature.
NBGRADER_WARNINGS = (
    "ignore::sqlalchemy.exc.SAWarning",
    "ignore:Passing unrecognized arguments:DeprecationWarning",
)


#: Programs ``make test-fast`` never starts (a kernel; bubblewrap, which needs root or user
#: namespaces; making accounts and running as one, root's): a test not marked ``slow`` that
#: starts one fails, naming it.
SLOW_PROGRAMS = ("ipykernel", "bwrap", "useradd", "runuser")


def _refuse_slow_programs(event: str, args: tuple) -> None:
    """An audit hook: ``subprocess.Popen`` of a :data:`SLOW_PROGRAMS` program raises."""
    if event != "subprocess.Popen":
        return
    argv = args[1] if isinstance(args[1], list | tuple) else [args[1]]
    started = " ".join(map(str, argv))
    for program in SLOW_PROGRAMS:
        if program in started:
            raise RuntimeError(
                f"a test not marked slow started {program} ({started[:120]}): mark it "
                "@pytest.mark.slow, or the test of the fixture that starts it"
            )


def pytest_configure(config):
    # `make test-fast` (-m "not slow"): whatever starts a kernel or a sandbox fails at once.
    if config.getoption("markexpr") == "not slow":
        sys.addaudithook(_refuse_slow_programs)
    # One folder per run for what is built once for every process (tests/support/run_cache.py): made by
    # the controller, before pytest-xdist starts its workers, which inherit its name.
    if not hasattr(config, "workerinput"):
        config.stash[_RUN_FOLDER] = new_run_folder()
    # A filter naming sqlalchemy's category cannot be resolved without sqlalchemy (the grader
    # extra), so it is added only where it can be: pyproject's filterwarnings would fail there.
    if find_spec("sqlalchemy") is not None:
        for line in NBGRADER_WARNINGS:
            config.addinivalue_line("filterwarnings", line)


def pytest_unconfigure(config):
    if _RUN_FOLDER in config.stash:
        remove_run_folder(config.stash[_RUN_FOLDER])


def pytest_ignore_collect(collection_path: Path, config):
    if HERE not in collection_path.parents:
        return None
    relative = collection_path.relative_to(HERE)
    parts = set(relative.parts)
    # What imports JupyterHub (the hub extra) is collected only when it is installed. `make test`
    # installs it; the header says when not.
    if find_spec("jupyterhub") is None and any(
        relative == path or path in relative.parents for path in NEEDS_JUPYTERHUB
    ):
        return True
    # Every test there is slow (below): `-m "not slow"` (make test-fast) need not import them.
    if HEAVY_FOLDERS & parts and config.getoption("markexpr") == "not slow":
        return True
    return None


def pytest_report_header(config):
    if find_spec("jupyterhub") is None:
        return (
            "tests/hub and the hub configs' and spawner's tests not collected: JupyterHub is not "
            "installed (make setup-hub, or make test)"
        )
    return None


def pytest_collection_modifyitems(items):
    for item in items:
        if HERE in item.path.parents and HEAVY_FOLDERS & set(item.path.relative_to(HERE).parts):
            item.add_marker(pytest.mark.slow)


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist (the test extra)
def pytest_xdist_make_scheduler(config, log):
    """``--dist loadgroup`` by :func:`xdist_group`, computed from each test's path, the long
    groups first.

    xdist's own loadgroup reads ``xdist_group`` marks by renaming node ids, which pytest 9.2's
    structured ids no longer allow: the marks are silently ignored (pytest-dev/pytest-xdist#1386).
    """
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class GroupScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return xdist_group(nodeid)

        def _assign_work_unit(self, node) -> None:
            # the long groups first (tests/support/worker_groups.py's FIRST_GROUPS)
            waiting = [g for g in FIRST_GROUPS if g in self.workqueue]
            if waiting:
                self.workqueue.move_to_end(waiting[0], last=False)
            super()._assign_work_unit(node)

    return GroupScheduling(config, log)
