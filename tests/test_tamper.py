"""Tamper resistance: static scan, structure checks, the kernel guard, and the attack suite.

The attack suite (``tests/attacks/``) is graded once per session by ``attacks.batch.graded_batch``
(plain ``nbgrader autograde`` configured by ``attention_grader.tamper.configure``, sandbox on);
each attack asserts its grade and its flag, and honest students in the same batch keep full marks.
"""

from __future__ import annotations

import shutil
import types
from pathlib import Path

import nbformat
import numpy as np
import pytest
from attacks.batch import ASSIGNMENT, HONEST, MAX_SCORE, graded_batch, load_attacks
from attention_grader import tamper
from nbformat.v4 import new_code_cell, new_notebook
from nbgrader.utils import determine_grade

ATTACKS = load_attacks()
HONEST_NAMES = {"honest_full", "honest_wrong"}


# --------------------------------------------------------------------------- static scan


@pytest.mark.parametrize(
    ("source", "kind"),
    [
        ("import builtins\nbuiltins.len = lambda x: 3", "builtins"),
        ("AssertionError = Exception", "builtins"),
        ("np.allclose = lambda *a, **k: True", "monkeypatch"),
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


def test_insert_guards_discards_forged_metadata_and_wraps_every_test():
    test = _cell("t1", "assert x == 1")
    test.metadata["nbgrader"].update(grade=True, solution=False, locked=True, points=1)
    fake_guard = new_code_cell("x = 1")
    fake_guard.metadata["attention_grader"] = {"guard": "after", "for": "t1"}
    nb = new_notebook(cells=[fake_guard, test])
    nb.metadata["attention_grader"] = {"token": "forged", "execution": {"stopped": "KernelDied"}}
    nb, resources = tamper.InsertGuards().preprocess(nb, {})
    phases = [c.metadata.get("attention_grader", {}).get("guard") for c in nb.cells]
    assert phases == ["init", None, "before", None, "after"]
    assert "execution" not in nb.metadata["attention_grader"]
    assert nb.metadata["attention_grader"]["token"] != "forged"


# --------------------------------------------------------------------------- guard reports


def _guard(outputs):
    cell = new_code_cell("guard")
    cell.outputs = [nbformat.from_dict(o) for o in outputs]
    return cell


def _report_line(nonce, changes=()):
    return f'ATTENTION-GUARD {nonce} {{"phase": "before", "cell": "t", "changes": {list(changes)}}}'


def _canary(nonce):
    return {"output_type": "error", "ename": "GuardCanary", "evalue": nonce, "traceback": []}


def test_read_report_accepts_exactly_one_report_and_the_canary():
    ok = _guard([{"output_type": "stream", "name": "stdout", "text": _report_line("n1")}])
    ok.outputs.append(nbformat.from_dict(_canary("n1")))
    report, problem = tamper._read_report(ok, "n1")
    assert problem == "" and report["changes"] == []


@pytest.mark.parametrize(
    ("outputs", "why"),
    [
        ([_canary("n1")], "found 0"),
        (
            [
                {"output_type": "stream", "name": "stdout", "text": _report_line("n1") + "\n"},
                {"output_type": "stream", "name": "stdout", "text": _report_line("n1")},
                _canary("n1"),
            ],
            "found 2",
        ),
        ([{"output_type": "stream", "name": "stdout", "text": _report_line("n1")}], "swallowed"),
        (
            [{"output_type": "stream", "name": "stdout", "text": _report_line("forged")}]
            + [_canary("n1")],
            "found 1",
        ),
    ],
)
def test_read_report_rejects_missing_forged_or_swallowed_guards(outputs, why):
    report, problem = tamper._read_report(_guard(outputs), "n1")
    assert report is None and why in problem


def _test_cell(outputs):
    cell = new_code_cell("check(x)")
    cell.metadata["nbgrader"] = {"grade": True, "solution": False, "points": 2, "grade_id": "t"}
    cell.outputs = [nbformat.from_dict(o) for o in outputs]
    return cell


def test_zero_makes_nbgrader_score_a_passing_cell_zero():
    result = {"output_type": "execute_result", "data": {"text/plain": "2"}, "metadata": {}}
    cell = _test_cell([result])
    cell.outputs[0]["execution_count"] = 1
    assert determine_grade(cell)[0] == 2
    tamper._zero(cell, "tampered")
    assert determine_grade(cell)[0] == 0


def test_smuggled_result_before_an_error_is_removed():
    result = {"output_type": "execute_result", "data": {"text/plain": "1.0"}, "metadata": {}}
    result["execution_count"] = 1
    error = {"output_type": "error", "ename": "WrongAnswer", "evalue": "no", "traceback": []}
    cell = _test_cell([result, error])
    assert determine_grade(cell)[0] == 1.0  # nbgrader's partial-credit path
    flags = tamper._smuggled_results(cell, 0)
    assert [f.kind for f in flags] == ["fake_output"]
    assert determine_grade(cell)[0] == 0


# --------------------------------------------------------------------------- kernel guard


@pytest.fixture(scope="module")
def guard():
    """The kernel-side guard loaded as a private module, as the hidden first cell does."""
    mod = types.ModuleType("_ag_test")
    exec(compile(tamper._GUARD_SOURCE, "<attention-guard>", "exec"), mod.__dict__)
    return mod


def test_clean_keeps_plain_answers(guard):
    for value in (1, 2.5, "values", [1.0, 2.0], (1, 2), np.arange(3.0), np.float64(1), None):
        cleaned, why = guard._clean(value)
        assert why is None and cleaned is value


def test_clean_neutralises_objects_that_fake_equality(guard):
    ns = {"np": np}
    code = (
        "class Anything:\n    def __eq__(self, o):\n        return True\n"
        "class Yes(str):\n    def __eq__(self, o):\n        return True\n"
        "class Sneaky(np.ndarray):\n    def __eq__(self, o):\n        return True\n"
    )
    exec(compile(code, "<student>", "exec"), ns)
    cleaned, why = guard._clean(ns["Anything"]())
    assert isinstance(cleaned, guard.RejectedAnswer) and "__eq__" in why
    cleaned, why = guard._clean(ns["Yes"]("keys"))
    assert type(cleaned) is str and cleaned == "keys" and cleaned != "values" and why
    cleaned, why = guard._clean(np.zeros(3).view(ns["Sneaky"]))
    assert type(cleaned) is np.ndarray and not np.allclose(cleaned, 1.0) and why
    cleaned, why = guard._clean([1.0, ns["Anything"]()])
    assert isinstance(cleaned[1], guard.RejectedAnswer) and why


def test_answer_names_and_import_bindings():
    assert tamper._answer_names("import numpy as np\ny = 2\nassert np.allclose(x, y)") == ["x"]
    cell = new_code_cell("import numpy as np\nfrom attention_lab import checks as c\n%matplotlib")
    bindings = tamper._import_bindings([cell])
    assert ("np", "numpy", None) in bindings
    assert ("c", "attention_lab", "checks") in bindings


# --------------------------------------------------------------------------- the attack suite


@pytest.fixture(scope="module")
def batch():
    return graded_batch()


@pytest.mark.slow
@pytest.mark.parametrize("attack", ATTACKS, ids=[a.name for a in ATTACKS])
def test_attack_gets_only_what_it_earned_and_is_flagged(batch, attack):
    kinds = {f.kind for f in batch.flags[attack.name]}
    assert batch.scores[attack.name] == attack.expect_score, (attack.doc, batch.flags[attack.name])
    assert attack.expect_flags <= kinds, f"{attack.doc}: flags {kinds}"
    if attack.name in HONEST_NAMES:
        assert kinds == set(), batch.flags[attack.name]


@pytest.mark.slow
def test_honest_students_in_every_course_keep_full_marks(batch):
    assert len(batch.honest_copies) >= 2
    for key in batch.honest_copies:
        assert batch.scores[key] == MAX_SCORE
        assert batch.flags[key] == []


@pytest.mark.slow
def test_every_attack_that_could_gain_points_is_flagged(batch):
    harmless = HONEST_NAMES | {"memory_hog", "infinite_loop"}
    unflagged = [a.name for a in ATTACKS if a.name not in harmless and not batch.flags[a.name]]
    assert unflagged == []


@pytest.mark.slow
def test_batch_summary_lists_attempts_by_student_and_kind(batch):
    text = tamper.format_flags({k: v for k, v in batch.flags.items() if v})
    for attack in ATTACKS:
        for kind in attack.expect_flags:
            assert f"{attack.name}: {kind} -- " in text
    assert "honest_full:" not in text


@pytest.mark.slow
def test_guard_cells_are_removed_and_tampered_tests_show_why(batch):
    nb = nbformat.read(batch.paths["skip_guard_cells"], as_version=4)
    assert not any(c.metadata.get("attention_grader", {}).get("guard") for c in nb.cells)
    assert not any("ATTENTION-GUARD" in str(c.get("outputs", "")) for c in nb.cells)
    tests = [
        c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id", "")[:5] == "test_"
    ]
    assert len(tests) == 3
    for cell in tests:
        assert cell.outputs[0]["ename"] == "TamperDetected"


# --------------------------------------------------------------------------- attention_grader.grade


@pytest.mark.slow
def test_grade_hooks_wire_the_checks_into_parallel_grading(tmp_path, batch):
    """The teacher's ``grade()`` with :func:`tamper.grade_hooks`: same scores, flags in summary."""
    from attention_grader.course import load_course
    from attention_grader.grade import GradeOptions, grade
    from nbgrader.api import Gradebook

    root = tmp_path / "course"
    skip = shutil.ignore_patterns("autograded", "feedback", "submitted")
    shutil.copytree(batch.roots[0], root, ignore=skip)
    (root / "nbgrader_config.py").write_text(
        f"c = get_config()\nc.CourseDirectory.root = {str(root)!r}\n"
        "c.CourseDirectory.course_id = 'attack-course'\n"
    )
    # sys_exit and kill_kernel end their kernel: the points earned before it stay (as with plain
    # nbgrader + configure(c)), the guard reports collected before it still count
    chosen = [
        *("honest_full", "patch_numpy", "fake_answer_array", "delete_test_cell"),
        *("sys_exit", "kill_kernel"),
    ]
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}", "attack-course") as gb:
        for student in [s.id for s in gb.students]:
            gb.remove_student(student)  # fresh scores: nothing left over from the batch
    for name in chosen:
        src = next(r / "submitted" / name for r in batch.roots if (r / "submitted" / name).exists())
        shutil.copytree(src, root / "submitted" / name)
    options = GradeOptions(jobs=2, force=True, cell_timeout=30, progress=False)
    summary = grade(load_course(root), ASSIGNMENT, options, tamper.grade_hooks())
    results = summary.by_student()
    expected = {a.name: a for a in ATTACKS if a.name in chosen}
    for name, attack in expected.items():
        result = results[name]
        assert result.status == "graded", result.reason
        assert result.score == attack.expect_score, result.flags
        assert attack.expect_flags <= {f.kind for f in result.flags}
    assert results["honest_full"].flags == []


# --------------------------------------------------------------------------- the course itself

COURSE_SOURCE = sorted((Path(__file__).resolve().parents[1] / "source").glob("*/*.ipynb"))


@pytest.mark.slow
@pytest.mark.parametrize("path", COURSE_SOURCE, ids=[p.stem for p in COURSE_SOURCE])
def test_course_assignments_pass_their_tests_under_the_guards_without_flags(path):
    """The instructor's solutions, run sandboxed with every guard: all tests pass, no flag."""
    from attention_grader.sandbox import SandboxedKernelManager
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    nb, resources = tamper.InsertGuards().preprocess(nb, {})
    client = NotebookClient(
        nb,
        kernel_manager_class=SandboxedKernelManager,
        timeout=120,
        allow_errors=True,
        shutdown_kernel="immediate",
        resources={"metadata": {"path": str(path.parent)}},
    )
    client.execute()
    nb, resources = tamper.CollectGuardReports().preprocess(nb, resources)
    assert nb.metadata["attention_grader"].get("tamper_flags", []) == []
    tests = [c for c in nb.cells if tamper._is_test(c)]
    assert tests, "no autograder tests found"
    for cell in tests:
        assert determine_grade(cell)[0] == determine_grade(cell)[1], cell.outputs


def test_handed_in_files_named_like_installed_modules_are_flagged(tmp_path):
    for name in ("numpy.py", "ipykernel_launcher.py", "my_helpers.py", "data.csv"):
        (tmp_path / name).write_text("")
    (tmp_path / "attention_lab").mkdir()
    (tmp_path / "attention_lab" / "__init__.py").write_text("")
    flagged = {f.detail.split()[1] for f in tamper.shadowing_files(tmp_path)}
    assert flagged == {"numpy.py", "ipykernel_launcher.py", "attention_lab"}
