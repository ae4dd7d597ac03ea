"""tools/move_plan.py: moves what is at an old place, rewrites every reference, and a second
run changes nothing (the integrator re-runs it after each merge). Each plan (the grader's house
plan, the library's, the tests' helpers) is tried on a small temporary git repository holding a
few files at their old places, then all on this repository (``--check``, what `make lint` runs).
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def plan(monkeypatch, tmp_path):
    spec = importlib.util.spec_from_file_location("move_plan", ROOT / "tools" / "move_plan.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setattr(module, "ROOT", tmp_path)
    return module


OLD_FILES = {
    # a grader module with relative imports, one to a module that moves, one to an entry point
    "autograder/attention_grader/trusted.py": (
        '"""See :func:`~.needs_teacher.record_cells`."""\n'
        "from .needs_teacher import CannotGrade\n"
        "from .pipeline import configure\n"
    ),
    "autograder/attention_grader/needs_teacher.py": "CannotGrade = 1\n",
    "autograder/attention_grader/pipeline.py": "from . import html_safety\n",
    "autograder/attention_grader/html_safety.py": "",
    "autograder/attention_grader/intake.py": "def prepare_submission(): ...\n",
    "autograder/attention_grader/library_stub/README.md": "stub\n",
    # a test that reaches the repository by its depth, and patches by dotted name
    "tests/test_grader_trusted.py": (
        "from pathlib import Path\n"
        "from attention_grader import intake, trusted\n"
        "from attention_grader.intake import prepare_submission\n"
        "REPO = Path(__file__).resolve().parents[1]\n"
        "FIXTURES = Path(__file__).parent / 'fixtures'\n"
        "PATCH = 'attention_grader.trusted.CannotGrade'\n"
        "from test_grader_answers import kernel\n"
    ),
    "tests/test_grader_answers.py": "def kernel(): ...\n",
    "docs/design.md": (
        "`autograder/attention_grader/trusted.py` and `attention_grader.intake`'s rules; "
        "`python -m attention_grader.html_safety`; tests in `tests/test_grader_trusted.py`.\n"
    ),
    "jupyter-settings/server.json": '{"attention_grader.html_safety": true}\n',
    # history is kept as written
    "CHANGELOG.md": "attention_grader.trusted was added\n",
}


def make_repo(root: Path, files: dict[str, str] = OLD_FILES) -> None:
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    for args in (["init", "-q"], ["add", "-A"]):
        subprocess.run(["git", *args], cwd=root, check=True)


def snapshot(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): p.read_text()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.parts
    }


def test_the_move_lands_everything_at_its_new_place(plan, tmp_path):
    make_repo(tmp_path)
    assert plan.main(["--check", "grader"]) == 1  # things are at old places: make lint fails
    assert plan.main(["grader"]) == 0
    files = snapshot(tmp_path)

    grader = "autograder/attention_grader"
    assert f"{grader}/trusted.py" not in files and f"{grader}/intake.py" not in files
    assert f"{grader}/sandbox/library_stub/README.md" in files
    # an execution module goes straight to where grader-split put it
    assert files[f"{grader}/checking/trusted.py"] == (
        '"""See :func:`~attention_grader.checking.needs_teacher.record_cells`."""\n'
        "from attention_grader.checking.needs_teacher import CannotGrade\n"
        "from attention_grader.pipeline import configure\n"
    )
    assert files[f"{grader}/pipeline.py"] == "from attention_grader.pages import html_safety\n"
    assert f"{grader}/execution/__init__.py" not in files  # grader-split emptied it

    test = files["tests/attention_grader/checking/test_trusted.py"]
    assert "from attention_grader.checking import trusted\n" in test
    assert "from attention_grader.intake import intake\n" in test
    assert "from attention_grader.intake.intake import prepare_submission\n" in test
    assert "Path(__file__).resolve().parents[3]" in test  # still the repository
    assert "Path(__file__).parents[2] / 'fixtures'" in test  # still tests/fixtures
    assert "'attention_grader.checking.trusted.CannotGrade'" in test
    assert "from test_answers import kernel\n" in test  # a helper from a moved test module
    assert "tests/attention_grader/channel/test_answers.py" in files

    assert files["docs/design.md"] == (
        "`autograder/attention_grader/checking/trusted.py` and `attention_grader.intake`'s "
        "rules; `python -m attention_grader.pages.html_safety`; tests in "
        "`tests/attention_grader/checking/test_trusted.py`.\n"
    )
    assert files["jupyter-settings/server.json"] == '{"attention_grader.pages.html_safety": true}\n'
    assert files["CHANGELOG.md"] == OLD_FILES["CHANGELOG.md"]


def test_a_second_run_changes_nothing(plan, tmp_path):
    make_repo(tmp_path)
    plan.main(["grader"])
    first = snapshot(tmp_path)
    assert plan.main(["--check", "grader"]) == 0
    assert plan.main(["grader"]) == 0
    assert snapshot(tmp_path) == first


def test_a_file_added_at_an_old_place_after_the_move_is_moved_too(plan, tmp_path):
    """What the integrator meets: a merged branch brings an edit to a file at its old place."""
    make_repo(tmp_path)
    plan.main(["grader"])
    old = tmp_path / "autograder/attention_grader/needs_teacher.py"
    old.write_text("from .trusted import X\n")
    subprocess.run(["git", "add", "-A"], cwd=tmp_path, check=True)
    (tmp_path / "autograder/attention_grader/checking/needs_teacher.py").unlink()
    assert plan.main(["--check", "grader"]) == 1
    plan.main(["grader"])
    moved = tmp_path / "autograder/attention_grader/checking/needs_teacher.py"
    assert not old.exists()
    assert moved.read_text() == "from attention_grader.checking.trusted import X\n"


@pytest.mark.slow
def test_this_repository_has_nothing_left_at_an_old_place():
    """What `make lint` runs: every module and test is where its plan puts it, every plan."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "move_plan.py"), "--check"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr


# -- the library's plan -------------------------------------------------------------------------

NOTEBOOK = {
    "cells": [
        {
            "cell_type": "code",
            "execution_count": None,
            "id": "c1",
            "metadata": {},
            "outputs": [],
            "source": [
                "from attention_lab import core, widgets\n",
                "widgets.QueryExplorer.tiffin()",
            ],
        }
    ],
    "metadata": {},
    "nbformat": 4,
    "nbformat_minor": 5,
}

LAB_FILES = {
    "attention_lab/widgets.py": (
        "from attention_lab import explorer_model\n"
        "from attention_lab.explorer_figure import ExplorerFigure\n"
    ),
    "attention_lab/explorer_model.py": "",
    "attention_lab/explorer_figure.py": "ExplorerFigure = 1\n",
    "tests/test_widgets.py": (
        "from pathlib import Path\n"
        "from attention_lab import core, widgets as w\n"
        "REPO = Path(__file__).resolve().parents[1]\n"
    ),
    "notebooks/01_lesson.ipynb": json.dumps(NOTEBOOK, indent=1) + "\n",
    "docs/design.md": "`attention_lab/widgets.py`, tested in `tests/test_widgets.py`.\n",
    "pyproject.toml": '[tool.setuptools]\npackages = ["attention_lab", "attention_grader"]\n',
}


def test_the_library_plan_moves_renamed_modules_and_keeps_the_names_code_uses(plan, tmp_path):
    make_repo(tmp_path, LAB_FILES)
    assert plan.main(["--check", "lab"]) == 1
    assert plan.main(["lab"]) == 0
    files = snapshot(tmp_path)

    assert "attention_lab/widgets.py" not in files
    assert files["attention_lab/explorer/query_explorer.py"] == (
        "from attention_lab.explorer import model as explorer_model\n"
        "from attention_lab.explorer.figure import ExplorerFigure\n"
    )
    assert files["attention_lab/explorer/__init__.py"].startswith('"""The lessons\' live widgets')
    test = files["tests/attention_lab/explorer/test_query_explorer.py"]
    assert "from attention_lab import core\n" in test
    assert "from attention_lab.explorer import query_explorer as w\n" in test
    assert "Path(__file__).resolve().parents[3]" in test  # still the repository
    assert files["tests/attention_lab/explorer/__init__.py"] == ""
    assert "tests/attention_lab/__init__.py" not in files  # pytest would import it as the library

    nb = files["notebooks/01_lesson.ipynb"]
    assert nb == json.dumps(json.loads(nb), indent=1, ensure_ascii=False) + "\n"  # nbformat's
    assert json.loads(nb)["cells"][0]["source"] == [
        "from attention_lab import core\n",
        "from attention_lab.explorer import query_explorer as widgets\n",
        "widgets.QueryExplorer.tiffin()",
    ]
    assert files["docs/design.md"] == (
        "`attention_lab/explorer/query_explorer.py`, tested in "
        "`tests/attention_lab/explorer/test_query_explorer.py`.\n"
    )
    assert '"attention_lab.explorer"' in files["pyproject.toml"]

    assert plan.main(["--check", "lab"]) == 0  # a second run has nothing to do
    plan.main(["lab"])
    assert snapshot(tmp_path) == files


def test_an_unknown_plan_is_an_error_naming_the_plans(plan, capsys):
    with pytest.raises(SystemExit):
        plan.main(["--check", "library"])
    assert (
        "no plan library: the plans are grader-folders, grader, lab, grader-split, hub, tests"
        in capsys.readouterr().err
    )


HUB_FILES = {
    # the hub's modules were scripts beside its configs, importing each other by bare name
    "autograder/jupyterhub/classroom.py": (
        '"""The classroom."""\ndef f():\n    from exchange_folders import problems\n'
    ),
    "autograder/jupyterhub/exchange_folders.py": "problems = 1\n",
    "autograder/jupyterhub/install.py": "from exchange_folders import problems\n",
    "autograder/jupyterhub/jupyterhub_config.py": "from classroom import Course\n",
    "tests/hub/test_classroom.py": "import classroom  # noqa: E402\nimport install\n",
    # a bare name elsewhere means something else; prose keeps its words
    "tools/other.py": "import classroom\n",
    "docs/hub-admins.md": "Each classroom: `autograder/jupyterhub/classroom.py`.\n",
    "pyproject.toml": 'packages = [\n    "attention_lab",\n]\n',
}


def test_the_hub_plan_makes_its_scripts_a_package_and_leaves_other_words_alone(
    plan, monkeypatch, tmp_path
):
    hub = plan.PLANS["hub"]
    small = plan.Plan(**{**hub.__dict__, "modules": {m: f"attention_hub.{m}" for m in
                                                      ("classroom", "exchange_folders")}})  # fmt: skip
    monkeypatch.setitem(plan.PLANS, "hub", small)
    make_repo(tmp_path, HUB_FILES)
    assert plan.main(["--check", "hub"]) == 1
    assert plan.main(["hub"]) == 0
    files = snapshot(tmp_path)

    assert "autograder/jupyterhub/classroom.py" not in files
    assert files["autograder/attention_hub/__init__.py"].startswith('"""The classroom JupyterHub')
    assert files["autograder/attention_hub/classroom.py"].endswith(
        "    from attention_hub.exchange_folders import problems\n"
    )
    assert files["autograder/jupyterhub/install.py"] == (
        "from attention_hub.exchange_folders import problems\n"
    )  # a command run by path stays where it is
    assert files["autograder/jupyterhub/jupyterhub_config.py"] == (
        "from attention_hub.classroom import Course\n"
    )
    assert (
        "from attention_hub import classroom  # noqa: E402\n"
        in files["tests/hub/test_classroom.py"]
    )
    assert "import install\n" in files["tests/hub/test_classroom.py"]
    assert files["tools/other.py"] == "import classroom\n"
    assert (
        files["docs/hub-admins.md"] == "Each classroom: `autograder/attention_hub/classroom.py`.\n"
    )
    assert '"attention_hub"' in files["pyproject.toml"]

    assert plan.main(["--check", "hub"]) == 0  # a second run has nothing to do
    plan.main(["hub"])
    assert snapshot(tmp_path) == files


def test_the_split_plans_and_the_old_names_kept_agree():
    """``grader-split`` and ``grader-folders`` move exactly the modules attention_grader.renamed
    keeps old names for (``_kernel_side.py`` and ``_kernel_handles.py`` aside: text sent into
    a kernel, never imported).
    """
    from attention_grader.renamed import MOVED

    from tools.layout_plans import GRADER_FOLDERS, GRADER_SPLIT

    planned = {o: n for o, n in GRADER_SPLIT.modules.items() if ".execution._kernel_" not in o}
    assert planned | GRADER_FOLDERS.modules == MOVED


FOLDER_FILES = {
    "autograder/attention_grader/term/grade.py": "from attention_grader.term import progress\n",
    "autograder/attention_grader/term/progress.py": "",
    "autograder/attention_grader/term/selfstudy.py": (
        "from attention_grader.term import grade as g, selfstudy\n"
        "from attention_grader.common import course, flags\n"
        "PATCH = 'attention_grader.term.grade.grade'\n"
    ),
    "autograder/attention_grader/common/course.py": "",
    "autograder/attention_grader/common/flags.py": "",
    "tests/attention_grader/term/test_grade.py": "from attention_grader.term.grade import grade\n",
}


def test_the_folders_plan_rewrites_modules_imported_from_their_old_package(plan, tmp_path):
    """``from attention_grader.term import grade`` names a module: it follows it to steps/,
    one line per package, while the names that stay are left where they are.
    """
    make_repo(tmp_path, FOLDER_FILES)
    assert plan.main(["grader-folders"]) == 0
    files = snapshot(tmp_path)
    assert files["autograder/attention_grader/term/selfstudy.py"] == (
        "from attention_grader.steps import grade as g\n"
        "from attention_grader.term import selfstudy\n"
        "from attention_grader.common import flags\n"
        "from attention_grader.config import course\n"
        "PATCH = 'attention_grader.steps.grade.grade'\n"
    )
    assert files["autograder/attention_grader/steps/grade.py"] == (
        "from attention_grader.steps import progress\n"
    )
    assert "tests/attention_grader/steps/test_grade.py" in files
    assert files["autograder/attention_grader/steps/__init__.py"].startswith('"""The teacher')
    assert plan.main(["--check", "grader-folders"]) == 0


def test_a_retired_package_goes_once_the_plan_empties_it(plan, tmp_path):
    """The split plan on a small repository: the emptied package loses its __init__ and its
    place in pyproject, a module it does not name stops the run.
    """
    files = {
        "autograder/attention_grader/execution/__init__.py": '"""old"""\n',
        "autograder/attention_grader/execution/trusted.py": "X = 1\n",
        "autograder/attention_grader/term/grade.py": (
            "from attention_grader.execution import trusted\n"
            "from attention_grader.execution.trusted import X\n"
        ),
        "pyproject.toml": 'packages = ["attention_grader", "attention_grader.execution"]\n',
    }
    make_repo(tmp_path, files)
    split = plan.PLANS["grader-split"]
    small = plan.Plan(**{**split.__dict__, "modules": {
        "attention_grader.execution.trusted": "attention_grader.checking.trusted"},
        "packages": {"attention_grader.checking": '"""checking"""\n'}, "tests": {
        "tests/attention_grader/execution/test_trusted.py":
        "tests/attention_grader/checking/test_trusted.py"}})  # fmt: skip
    plan.PLANS["grader-split"] = small
    assert plan.main(["--check", "grader-split"]) == 1
    assert plan.main(["grader-split"]) == 0
    moved = snapshot(tmp_path)
    assert "autograder/attention_grader/execution/__init__.py" not in moved
    assert moved["autograder/attention_grader/term/grade.py"] == (
        "from attention_grader.checking import trusted\n"
        "from attention_grader.checking.trusted import X\n"
    )
    assert moved["pyproject.toml"] == (
        'packages = ["attention_grader", "attention_grader.checking"]\n'
    )
    assert plan.main(["--check", "grader-split"]) == 0
    (tmp_path / "autograder/attention_grader/execution").mkdir()
    (tmp_path / "autograder/attention_grader/execution/stray.py").write_text("")
    (tmp_path / "autograder/attention_grader/execution/__init__.py").write_text("")
    assert plan.main(["--check", "grader-split"]) == 1


# -- the tests' helpers -------------------------------------------------------------------------

HELPER_FILES = {
    "tests/graded_classes.py": (
        '"""Built once per run (tests/run_cache.py)."""\n'
        "from pathlib import Path\n"
        "from grading_course import DUE\n"
        "from run_cache import once_per_run\n"
        "DRIVER = Path(__file__).parent / 'fixtures' / 'driver.py'\n"
    ),
    "tests/grading_course.py": "DUE = 1\n",
    "tests/run_cache.py": "def once_per_run(): ...\n",
    "tests/attention_grader/term/test_grade.py": (
        "import run_cache\nfrom graded_classes import DRIVER\nfrom graded_classes_extra import X\n"
    ),
    "CONTRIBUTING.md": (
        "The graded classes: `tests/graded_classes.py`; the grader's own "
        "`run_cache.py` is another module.\n"
    ),
}


def test_the_tests_plan_makes_the_helpers_one_package_imported_by_dotted_name(plan, tmp_path):
    make_repo(tmp_path, HELPER_FILES)
    assert plan.main(["--check", "tests"]) == 1
    assert plan.main(["tests"]) == 0
    got = snapshot(tmp_path)

    assert "tests/graded_classes.py" not in got
    assert got["tests/support/__init__.py"] == ""
    assert got["tests/support/graded_classes.py"] == (
        '"""Built once per run (tests/support/run_cache.py)."""\n'
        "from pathlib import Path\n"
        "from tests.support.grading_course import DUE\n"
        "from tests.support.run_cache import once_per_run\n"
        "DRIVER = Path(__file__).parents[1] / 'fixtures' / 'driver.py'\n"  # still tests/
    )
    test = got["tests/attention_grader/term/test_grade.py"]
    assert "from tests.support import run_cache\n" in test
    assert "from tests.support.graded_classes import DRIVER\n" in test
    assert "from graded_classes_extra import X\n" in test  # another module's name, kept
    assert got["CONTRIBUTING.md"] == (
        "The graded classes: `tests/support/graded_classes.py`; the grader's own "
        "`run_cache.py` is another module.\n"
    )
    assert plan.main(["--check", "tests"]) == 0  # a second run has nothing to do
    plan.main(["tests"])
    assert snapshot(tmp_path) == got
