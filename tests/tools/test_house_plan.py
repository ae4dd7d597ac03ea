"""tools/house_plan.py: moves what is at an old place, rewrites every reference, and a second
run changes nothing (the integrator re-runs it after each merge). Tried on a small temporary git
repository holding a few files at their old places, then on this repository (``--check``).
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def plan(monkeypatch, tmp_path):
    spec = importlib.util.spec_from_file_location("house_plan", ROOT / "tools" / "house_plan.py")
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


def make_repo(root: Path) -> None:
    for path, text in OLD_FILES.items():
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
    assert plan.main(["--check"]) == 1  # things are at old places: make lint fails
    assert plan.main([]) == 0
    files = snapshot(tmp_path)

    grader = "autograder/attention_grader"
    assert f"{grader}/trusted.py" not in files and f"{grader}/intake.py" not in files
    assert f"{grader}/sandbox/library_stub/README.md" in files
    assert files[f"{grader}/execution/trusted.py"] == (
        '"""See :func:`~attention_grader.execution.needs_teacher.record_cells`."""\n'
        "from attention_grader.execution.needs_teacher import CannotGrade\n"
        "from attention_grader.pipeline import configure\n"
    )
    assert files[f"{grader}/pipeline.py"] == "from attention_grader.pages import html_safety\n"
    assert files[f"{grader}/execution/__init__.py"].startswith('"""Grading one notebook')

    test = files["tests/attention_grader/execution/test_trusted.py"]
    assert "from attention_grader.execution import trusted\n" in test
    assert "from attention_grader.intake import intake\n" in test
    assert "from attention_grader.intake.intake import prepare_submission\n" in test
    assert "Path(__file__).resolve().parents[3]" in test  # still the repository
    assert "Path(__file__).parents[2] / 'fixtures'" in test  # still tests/fixtures
    assert "'attention_grader.execution.trusted.CannotGrade'" in test
    assert "from test_answers import kernel\n" in test  # a helper from a moved test module
    assert "tests/attention_grader/execution/test_answers.py" in files

    assert files["docs/design.md"] == (
        "`autograder/attention_grader/execution/trusted.py` and `attention_grader.intake`'s "
        "rules; `python -m attention_grader.pages.html_safety`; tests in "
        "`tests/attention_grader/execution/test_trusted.py`.\n"
    )
    assert files["jupyter-settings/server.json"] == '{"attention_grader.pages.html_safety": true}\n'
    assert files["CHANGELOG.md"] == OLD_FILES["CHANGELOG.md"]


def test_a_second_run_changes_nothing(plan, tmp_path):
    make_repo(tmp_path)
    plan.main([])
    first = snapshot(tmp_path)
    assert plan.main(["--check"]) == 0
    assert plan.main([]) == 0
    assert snapshot(tmp_path) == first


def test_a_file_added_at_an_old_place_after_the_move_is_moved_too(plan, tmp_path):
    """What the integrator meets: a merged branch brings an edit to a file at its old place."""
    make_repo(tmp_path)
    plan.main([])
    old = tmp_path / "autograder/attention_grader/needs_teacher.py"
    old.write_text("from .trusted import X\n")
    subprocess.run(["git", "add", "-A"], cwd=tmp_path, check=True)
    (tmp_path / "autograder/attention_grader/execution/needs_teacher.py").unlink()
    assert plan.main(["--check"]) == 1
    plan.main([])
    moved = tmp_path / "autograder/attention_grader/execution/needs_teacher.py"
    assert not old.exists()
    assert moved.read_text() == "from attention_grader.execution.trusted import X\n"


@pytest.mark.slow
def test_this_repository_has_nothing_left_at_an_old_place():
    """What `make lint` runs: every grader module and test is where the plan puts it."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "house_plan.py"), "--check"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
