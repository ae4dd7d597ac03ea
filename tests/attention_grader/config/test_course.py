"""attention_grader.config.course: the course folder, its nbgrader config and overrides."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from attention_grader.config.course import GradingStepError, check_result, load_course

REPO = Path(__file__).resolve().parents[3]


def test_the_repository_is_the_course_and_the_exchange_is_inside_it(monkeypatch):
    monkeypatch.delenv("ATTENTION_LAB_EXCHANGE", raising=False)
    course = load_course(REPO)
    assert course.course_id == "attention-lab"
    assert course.exchange == REPO / "exchange"
    assert course.db_url == f"sqlite:///{REPO / 'gradebook.db'}"


def test_one_setting_moves_the_exchange_to_a_shared_path(monkeypatch, tmp_path):
    monkeypatch.setenv("ATTENTION_LAB_EXCHANGE", str(tmp_path / "srv-exchange"))
    assert load_course(REPO).exchange == tmp_path / "srv-exchange"


def test_the_course_config_installs_the_one_grading_pipeline():
    """nbgrader_config.py is the one place: trusted tests and sandboxed kernels."""
    from attention_grader.executor.execute import GradingExecute
    from attention_grader.executor.tamper import ScanSubmission

    config = load_course(REPO).config
    assert config.Autograde.autograde_preprocessors[0] is GradingExecute
    assert config.Autograde.sanitize_preprocessors[0] is ScanSubmission
    assert GradingExecute(config=config).sandbox_kernels is True
    assert config.OverwriteCells.add_missing_cells is True
    from attention_grader.pages.html_safety import SanitizeStudentContent

    # what the formgrader shows is sanitised last, after grades are saved (changes no score)
    assert config.Autograde.autograde_preprocessors[-1] is SanitizeStudentContent


def test_the_course_config_refuses_to_load_without_the_grader(monkeypatch):
    """Run from a Python without attention_grader, the config says what to do (nbgrader logs it as
    an ERROR) instead of a bare ModuleNotFoundError.
    """
    from traitlets.config.loader import PyFileConfigLoader

    monkeypatch.setitem(sys.modules, "attention_grader.plugins", None)  # import now fails
    with pytest.raises(ImportError, match="make setup"):
        PyFileConfigLoader("nbgrader_config.py", path=str(REPO)).load_config()


def test_overrides_win_over_the_config_file(tmp_path):
    (tmp_path / "nbgrader_config.py").write_text(
        "c = get_config()\nc.CourseDirectory.root = '/elsewhere'\nc.CourseDirectory.course_id = 'x'\n"
    )
    course = load_course(tmp_path, exchange=tmp_path / "ex", db_url="postgresql://h/grades")
    assert course.root == tmp_path and course.course_id == "x"
    assert course.exchange == tmp_path / "ex"
    assert course.db_url == "postgresql://h/grades"
    assert course.coursedir().root == str(tmp_path)


def test_missing_course_folder_says_so(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        load_course(tmp_path / "nope")


def test_venv_scripts_are_on_path_for_nbgraders_alembic(tmp_path, monkeypatch):
    import sys

    monkeypatch.setenv("PATH", "/usr/bin")
    load_course(tmp_path)
    assert os.environ["PATH"].split(os.pathsep)[0] == os.path.dirname(sys.executable)


def test_new_gradebook_is_stamped_with_nbgraders_schema_head(tmp_path):
    import sqlite3

    course = load_course(tmp_path)
    with course.gradebook():
        pass
    (version,) = (
        sqlite3.connect(tmp_path / "gradebook.db")
        .execute("select version_num from alembic_version")
        .fetchone()
    )
    import nbgrader

    versions = Path(nbgrader.__file__).parent / "alembic" / "versions"
    heads = [p.name for p in versions.glob(f"{version}_*.py")]
    assert heads, f"{version} is not one of nbgrader's revisions"


def test_check_result_raises_with_the_log_tail():
    assert check_result({"success": True}, "x") == {"success": True}
    with pytest.raises(GradingStepError, match="release a failed:\nline\nboom"):
        check_result({"success": False, "log": "line\nboom"}, "release a")


def test_only_nbgraders_autoflush_warning_is_hidden():
    import warnings

    from attention_grader.config.course import quiet_autoflush_warning
    from sqlalchemy.exc import SAWarning

    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        with quiet_autoflush_warning():
            warnings.warn("Object of type <X> not in session, ...", SAWarning, stacklevel=1)
            warnings.warn("some other SQLAlchemy problem", SAWarning, stacklevel=1)
    assert [str(w.message) for w in seen] == ["some other SQLAlchemy problem"]
