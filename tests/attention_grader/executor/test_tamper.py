"""Tampering flags: the static scan, the structure checks and the sanitise step.

These flags change no grade (the checks run in the grader: tests/test_attacks.py proves what an
attack earns); they tell the teacher where to look.
"""

from __future__ import annotations

import pytest
from attacks.batch import HONEST
from attention_grader.common.flag_store import read_flags
from attention_grader.executor import tamper
from nbformat.v4 import new_code_cell, new_notebook

# --------------------------------------------------------------------------- static scan


@pytest.mark.parametrize(
    ("source", "kind"),
    [
        ("import builtins\nbuiltins.len = lambda x: 3", "builtins"),
        ("AssertionError = Exception", "builtins"),
        ("np.allclose = lambda *a, **k: True", "monkeypatch"),
        ("f.__code__ = (lambda: None).__code__", "monkeypatch"),
        ("checks.check_weights = print", "monkeypatch"),
        ("import sys\nsys.modules['numpy'] = None", "sys_modules"),
        ("import os\nos._exit(0)", "exit"),
        ("sys.exit()", "exit"),
        ("get_ipython().showtraceback = None", "traceback"),
        ("print('All tests passed!')", "fake_output"),
        ("open('../../../gradebook.db')", "grading_files"),
        ("class A:\n    def __eq__(self, o):\n        return True", "fake_answer"),
        ("get_ipython().events.register('pre_run_cell', f)", "kernel_hook"),
        ("import ctypes", "introspection"),
        ("import socket", "network"),
        ("import subprocess", "subprocess"),
    ],
)
def test_scan_source_names_the_tampering_kind(source, kind):
    kinds = {k for k, _ in tamper.scan_source(source)}
    assert kind in kinds
    assert set(kinds) <= set(tamper.TAMPER_KINDS)


def test_scan_source_leaves_honest_answers_alone():
    for source in HONEST.values():
        assert tamper.scan_source(source) == []
    assert tamper.scan_source("total = sum(x)\nif np.allclose(a, b):\n    print(a == b)") == []


def test_scan_notebook_skips_locked_cells():
    locked = new_code_cell("import sys\nsys.exit()")
    locked.metadata["nbgrader"] = {"locked": True, "grade_id": "setup", "solution": False}
    student = new_code_cell("np.allclose = None")
    flags = tamper.scan_notebook(new_notebook(cells=[locked, student]))
    assert [f.kind for f in flags] == ["monkeypatch"]
    assert "cell 2" in flags[0].detail


# --------------------------------------------------------------------------- structure


def _src(name, released, is_test=True, locked=True):
    return tamper._SourceCell(name, "code", locked, is_test, released)


def _cell(grade_id, source):
    cell = new_code_cell(source)
    cell.metadata["nbgrader"] = {"grade_id": grade_id}
    return cell


def test_test_cell_changes_flags_edits_and_deletions_only():
    cells = [_src("t1", "assert x == 1"), _src("t2", "assert y == 2"), _src("t3", "assert z")]
    nb = new_notebook(cells=[_cell("t1", "assert x == 1\n"), _cell("t2", "pass")])
    flags = {(f.kind, f.detail.split(":")[0]) for f in tamper.test_cell_changes(nb, cells)}
    assert flags == {("edited_test_cell", "t2"), ("deleted_test_cell", "t3")}


def test_released_source_drops_hidden_tests():
    source = "assert a\n### BEGIN HIDDEN TESTS\nassert secret\n### END HIDDEN TESTS"
    assert tamper._released_source(source) == "assert a"


def test_scan_submission_drops_forged_metadata_and_records_flags(tmp_path):
    """A student's own ``attention_grader`` metadata (fake flags, a fake "execution" record) is
    gone after the sanitise step; what the scan found is recorded once.
    """
    student = new_code_cell("np.allclose = lambda *a, **k: True")
    student.metadata["attention_grader"] = {"guard": "after"}
    nb = new_notebook(cells=[student])
    nb.metadata["attention_grader"] = {"flags": [["late", "forged"]], "execution": {"x": 1}}
    nb, _ = tamper.ScanSubmission().preprocess(nb, {"metadata": {"path": str(tmp_path)}})
    nb, _ = tamper.ScanSubmission().preprocess(nb, {"metadata": {"path": str(tmp_path)}})
    assert "attention_grader" not in nb.cells[0].metadata
    assert set(nb.metadata["attention_grader"]) == {"flags"}
    assert [f.kind for f in read_flags(nb)] == ["monkeypatch"]


def test_handed_in_files_named_like_installed_modules_are_flagged(tmp_path):
    for name in ("numpy.py", "ipykernel_launcher.py", "my_helpers.py", "data.csv"):
        (tmp_path / name).write_text("")
    (tmp_path / "attention_lab").mkdir()
    (tmp_path / "attention_lab" / "__init__.py").write_text("")
    flagged = {f.detail.split()[1] for f in tamper.shadowing_files(tmp_path)}
    assert flagged == {"numpy.py", "ipykernel_launcher.py", "attention_lab"}


def test_the_teachers_released_code_raises_no_flag_on_a_student():
    """A plain cell that prints "Success!", a keyword argument on its own line: the teacher's."""
    from attention_grader.executor.tamper import released_lines, scan_notebook
    from nbformat.v4 import new_code_cell, new_notebook

    given = (
        "from ipywidgets import IntSlider\n"
        "slider = IntSlider(\n    min=1,\n    max=10,\n)\n"
        'print("Success! The data is loaded.")'
    )
    teachers = released_lines([given])
    nb = new_notebook(cells=[new_code_cell(given)])
    assert scan_notebook(nb, teachers=teachers) == []
    assert {f.kind for f in scan_notebook(nb)} >= {"builtins", "fake_output"}  # without: flagged
    mine = new_notebook(cells=[new_code_cell(given + '\nprint("All tests passed!")')])
    (flag,) = scan_notebook(mine, teachers=teachers)
    assert (
        flag.kind == "fake_output" and "All tests passed" in flag.detail and "line 7" in flag.detail
    )
