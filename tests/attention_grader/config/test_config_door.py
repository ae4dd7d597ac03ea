"""One config door: make grade's route reads the user's files and the command line as nbgrader does."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import nbformat
import pytest
from attention_grader.cli import _settings, build_parser
from attention_grader.config.config_door import load_config
from attention_grader.config.course import load_course
from attention_grader.config.environment import VARIABLES, apply_environment, variable_value
from attention_grader.config.settings import Intake, Protections
from attention_grader.exchange.exchange_mounts import ExchangeLayout
from nbformat.v4 import new_code_cell, new_notebook
from traitlets.config import Config


@pytest.fixture
def course(tmp_path, monkeypatch) -> Path:
    """A course folder whose file sets only its id; no user or system config but a temp HOME's."""
    root = tmp_path / "course"
    root.mkdir()
    (root / "nbgrader_config.py").write_text(
        "c = get_config()\nc.CourseDirectory.course_id = 'c1'\n"
    )
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("JUPYTER_CONFIG_DIR", raising=False)
    monkeypatch.setenv("JUPYTER_CONFIG_PATH", str(tmp_path / "no-system-config"))
    monkeypatch.chdir(root)  # where nbgrader's own apps are run
    return root


def user_file(folder: Path, text: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "nbgrader_config.py").write_text("c = get_config()\n" + text)


def nbgrader_app_config(root: Path, argv: list[str]) -> Config:
    """What ``nbgrader autograde <argv>`` loads, run in the course folder (no grading)."""
    from nbgrader.apps.autogradeapp import AutogradeApp

    app = AutogradeApp()
    app.initialize(argv)
    assert Path(app.coursedir.root).resolve() == root.resolve()
    config: Config = app.config
    return config


def max_cells(config: Config) -> int:
    return int(Intake(config=config).max_cells)


def test_a_user_file_in_home_reaches_make_grade_as_nbgrader(course, tmp_path):
    user_file(tmp_path / "home" / ".jupyter", "c.Intake.max_cells = 77\n")
    assert max_cells(nbgrader_app_config(course, [])) == 77
    assert max_cells(load_course(course).config) == 77  # was 2000: the course file alone


def test_jupyter_config_dir_is_the_user_folder_for_both(course, tmp_path, monkeypatch):
    user_file(tmp_path / "conf", "c.Intake.max_cells = 66\n")
    monkeypatch.setenv("JUPYTER_CONFIG_DIR", str(tmp_path / "conf"))
    assert max_cells(nbgrader_app_config(course, [])) == 66
    assert max_cells(load_course(course).config) == 66


def test_the_command_line_wins_over_files_on_both_routes(course, tmp_path):
    user_file(tmp_path / "home" / ".jupyter", "c.Intake.max_cells = 77\n")
    argv = ["--Intake.max_cells=55"]
    settings = _settings(build_parser(), argv)  # python -m attention_grader grade a1 --Intake...
    assert max_cells(nbgrader_app_config(course, argv)) == 55
    assert max_cells(load_course(course, settings=settings).config) == 55
    spaced = _settings(build_parser(), ["--Intake.max_cells", "44"])
    assert max_cells(load_course(course, settings=spaced).config) == 44


def test_the_course_file_wins_over_the_user_file(course, tmp_path):
    user_file(tmp_path / "home" / ".jupyter", "c.Intake.max_cells = 77\n")
    with open(course / "nbgrader_config.py", "a") as f:
        f.write("c.Intake.max_cells = 88\n")
    assert max_cells(nbgrader_app_config(course, [])) == 88
    assert max_cells(load_course(course).config) == 88


def test_a_course_without_user_files_loads_without_a_warning(course, caplog):
    with caplog.at_level(logging.DEBUG):
        load_course(course)
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


def test_an_argument_that_is_not_a_setting_is_refused(capsys):
    with pytest.raises(SystemExit):
        _settings(build_parser(), ["--max-cells=5"])
    assert "--Class.trait=value" in capsys.readouterr().err


def test_a_broken_config_file_stops_loading(course, tmp_path):
    user_file(tmp_path / "home" / ".jupyter", "c.Intake.max_cells = undefined_name\n")
    with pytest.raises(NameError):
        load_config(course)


# ---------------------------------------------------------------- the gradebook


def test_the_instructors_gradebook_is_used_not_a_local_sqlite(course, tmp_path):
    """A hub's instructor file names the shared gradebook; make grade used <course>/gradebook.db."""
    url = "postgresql://grader@db.example/grades"
    user_file(tmp_path / "home" / ".jupyter", f"c.CourseDirectory.db_url = {url!r}\n")
    assert load_course(course).db_url == url


def test_the_course_files_gradebook_and_the_flag(course):
    url = f"sqlite:///{course / 'elsewhere.db'}"
    with open(course / "nbgrader_config.py", "a") as f:
        f.write(f"c.CourseDirectory.db_url = {url!r}\n")
    assert load_course(course).db_url == url
    assert load_course(course, db_url="postgresql://x/y").db_url == "postgresql://x/y"


def test_the_gradebook_variable_reaches_the_course_config(course, monkeypatch):
    url = "postgresql://grader@db.example/grades"
    monkeypatch.setenv("ATTENTION_LAB_GRADEBOOK", url)
    with open(course / "nbgrader_config.py", "a") as f:
        f.write("from attention_grader.config.environment import apply_environment\n")
        f.write("apply_environment(c)\n")
    assert load_course(course).db_url == url
    assert nbgrader_app_config(course, []).CourseDirectory.db_url == url


def test_the_real_course_reads_the_gradebook_variable(monkeypatch):
    repo = Path(__file__).resolve().parents[3]
    monkeypatch.setenv("ATTENTION_LAB_GRADEBOOK", "postgresql://grader@db/g")
    monkeypatch.setenv("ATTENTION_LAB_EXCHANGE", "/srv/nbgrader/exchange")
    config = load_config(repo)
    assert config.CourseDirectory.db_url == "postgresql://grader@db/g"
    assert config.Exchange.root == "/srv/nbgrader/exchange"


# ---------------------------------------------------------------- the environment


def test_every_variable_names_a_setting_with_help():
    assert len({v.name for v in VARIABLES}) == len(VARIABLES)
    for v in VARIABLES:
        assert v.name.startswith("ATTENTION_LAB_") and v.help.endswith(".")
        assert v.section and v.trait


def test_variables_are_defaults_a_config_overrides(monkeypatch):
    monkeypatch.setenv("ATTENTION_LAB_PER_STUDENT_MOUNTS", "1")
    monkeypatch.setenv("ATTENTION_LAB_ALLOW_UNSANDBOXED", "1")
    assert ExchangeLayout().per_student_mounts is True
    assert Protections().allow_unsandboxed_in_pod is True
    off = Config()
    off.ExchangeLayout.per_student_mounts = False
    off.Protections.allow_unsandboxed_in_pod = False
    assert ExchangeLayout(config=off).per_student_mounts is False
    assert Protections(config=off).allow_unsandboxed_in_pod is False
    monkeypatch.setenv("ATTENTION_LAB_PER_STUDENT_MOUNTS", "yes")  # only 1 turns it on
    assert ExchangeLayout().per_student_mounts is False


def test_apply_environment_writes_only_what_is_set():
    c = Config()
    apply_environment(c, {"ATTENTION_LAB_EXCHANGE": "/srv/x", "ATTENTION_LAB_GRADEBOOK": ""})
    assert c.Exchange.root == "/srv/x" and "db_url" not in c.CourseDirectory
    assert variable_value("ATTENTION_LAB_ROSTER", {}) is None


# ---------------------------------------------------------------- one run, one value


def submitted(course: Path, cells: int) -> Path:
    """A submission of ``cells`` cells in submitted/eve/a1/ and its source."""
    nb = new_notebook(cells=[new_code_cell(f"x = {i}") for i in range(cells)])
    (course / "source" / "a1").mkdir(parents=True)
    (course / "source" / "a1" / "a1.ipynb").write_text(json.dumps(nb))
    folder = course / "submitted" / "eve" / "a1"
    folder.mkdir(parents=True)
    nbformat.write(nb, folder / "a1.ipynb")
    return folder / "a1.ipynb"


def test_the_intake_hook_reads_the_run_config_as_intake_guard(course):
    """The hook, called by nbgrader with no config, reads its converter's, as IntakeGuard."""
    from attention_grader.intake.intake_guard import (
        IntakeGuard,
        UnsafeSubmission,
        hooks_see_run_config,
        intake_hook,
    )
    from nbgrader.converters import Autograde
    from nbgrader.coursedir import CourseDirectory

    hooks_see_run_config()  # what the course's nbgrader_config.py does (pipeline.configure)
    path = submitted(course, cells=5)
    config = load_course(course, settings=["--Intake.max_cells=3"]).config  # not in any file
    conv = Autograde(coursedir=CourseDirectory(config=config), config=config)
    conv.pre_convert_hook = intake_hook
    conv.notebooks = [str(path)]
    conv.run_pre_convert_hook()
    assert conv.notebooks == [] and not path.exists()  # refused by the hook: 5 cells > 3
    with pytest.raises(UnsafeSubmission, match="limit 3"):
        IntakeGuard(parent=conv).preprocess(
            new_notebook(cells=[new_code_cell() for _ in range(5)]), {}
        )


def test_a_teachers_own_hook_hands_the_run_config_to_the_intake(course):
    """However deep a teacher's hook calls the intake, it reads its run's config; after the
    run the hook called alone reads the course's again (nothing of a run is left behind).
    """
    from attention_grader.intake.intake_guard import hooks_see_run_config, intake_hook, run_config
    from nbgrader.converters import Autograde
    from nbgrader.coursedir import CourseDirectory

    hooks_see_run_config()
    seen = []

    def logged(hook):
        def wrapper(**kwargs):
            seen.append(kwargs["student"])
            return hook(**kwargs)

        return wrapper

    path = submitted(course, cells=5)
    config = load_course(course, settings=["--Intake.max_cells=3"]).config
    conv = Autograde(coursedir=CourseDirectory(config=config), config=config)
    conv.pre_convert_hook = logged(logged(logged(lambda **kw: intake_hook(**kw))))
    conv.notebooks = [str(path)]
    conv.run_pre_convert_hook()
    assert len(seen) == 3 and conv.notebooks == [] and not path.exists()
    assert "max_cells" not in run_config(course).Intake  # the course's file sets no cap


def test_the_hook_called_alone_reads_the_course_through_the_door(course, tmp_path):
    from attention_grader.intake.intake_guard import intake_hook

    user_file(tmp_path / "home" / ".jupyter", "c.Intake.max_cells = 3\n")
    path = submitted(course, cells=5)
    notebooks = [str(path)]
    intake_hook(assignment="a1", student="eve", notebooks=notebooks)
    assert notebooks == []


def test_the_docs_list_every_variable():
    from attention_grader.config.environment import variables_table

    docs = (Path(__file__).resolve().parents[3] / "docs" / "teachers.md").read_text()
    assert variables_table() in docs, (
        "docs/teachers.md's environment table is out of date: paste "
        "`python -m attention_grader.config.environment` under 'The environment'"
    )


def test_collects_clock_slack_is_a_setting(course, tmp_path):
    from attention_grader.exchange.safe_exchange import CLOCK_SLACK, SafeExchangeCollect

    user_file(tmp_path / "home" / ".jupyter", "c.SafeExchangeCollect.clock_slack = 5\n")
    assert SafeExchangeCollect(config=Config()).clock_slack == CLOCK_SLACK == 600
    assert SafeExchangeCollect(config=load_course(course).config).clock_slack == 5
