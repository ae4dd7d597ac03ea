"""What a read-only cell binds is the teacher's; data the student's cells change is hers.

Through trusted checking against a stand-in kernel (``test_answer_channel.kernel``), compared
with what plain nbgrader gives.
"""

from __future__ import annotations

from attention_grader.channel.answer_channel import AnswerChannel
from attention_grader.checking.locked_names import locked_bindings, student_changes
from attention_grader.checking.trusted import TrustedChecker
from attention_grader.checking.trusted_cells import TrustedCells

from tests.support.stand_in_kernel import graded, kernel

SETUP = "import numpy as np\nfrom math import pi as PI\ncoin_flips = [1, 0, 1, 1]\ndef helper():\n    pass"


def checker(student: dict, test: str, locked: dict, student_sources=()) -> TrustedChecker:
    cells = TrustedCells(tests={"t": test}, locked=locked, answers=frozenset({"heads"}))
    check = TrustedChecker(cells, AnswerChannel(kernel(student)))
    check.student_data = student_changes(student_sources, cells.locked_data - cells.answers)
    return check


def test_read_only_bindings_are_split_into_code_and_data():
    names, data = locked_bindings([SETUP, "for i in range(2):\n    seen = i"])
    assert names == {"np", "PI", "coin_flips", "helper", "i", "seen"}
    assert data == {"coin_flips", "i", "seen"}


def test_what_counts_as_the_student_changing_data():
    data = {"coin_flips", "grid", "other"}
    assert student_changes(["coin_flips = coin_flips[:2]"], data) == {"coin_flips"}
    assert student_changes(["grid[0] = 1"], data) == {"grid"}
    assert student_changes(["coin_flips.append(1)\nnp.random.shuffle(grid)"], data) == {
        "coin_flips",
        "grid",
    }
    assert student_changes(["heads = coin_flips[0] + 1\nx = other"], data) == set()


def test_a_read_only_cell_that_failed_in_the_grader_is_never_replaced_by_the_students_binding():
    """The student's own `checks` (every call passes) must not stand in for the teacher's."""

    class Yes:
        def __getattr__(self, name):
            return lambda *a, **k: None

    student = {"checks": Yes(), "heads": 0}
    locked = {"setup": "from no_such_module_here import checks"}
    check = checker(student, "checks.check_heads(heads)", locked)
    assert check.run_locked("setup") is not None  # failed in the grader
    assert graded(check.run_test("t"), points=1.0) == 0.0
    assert "read-only cell" in check.needs_teacher["t"]


def test_data_the_student_rebinds_is_her_value_as_in_plain_nbgrader():
    """``coin_flips = coin_flips[:2]`` in her cell: plain nbgrader tests her 2 flips."""
    code = "coin_flips = coin_flips[:2]\nheads = sum(coin_flips)"
    student = {"coin_flips": [1, 0], "heads": 1}
    check = checker(student, "assert heads == sum(coin_flips)", {"setup": SETUP}, [code])
    assert check.run_locked("setup") is None
    assert graded(check.run_test("t"), points=1.0) == 1.0
    assert list(check.rebound_data) == ["coin_flips"]
    assert check.namespace["coin_flips"] == [1, 0, 1, 1]  # the teacher's stays for read-only code


def test_data_the_student_does_not_change_is_the_teachers():
    student = {"coin_flips": [1, 0], "heads": 1}  # changed in a way no cell of hers shows
    check = checker(student, "assert heads == sum(coin_flips)", {"setup": SETUP}, ["heads = 1"])
    assert check.run_locked("setup") is None
    assert graded(check.run_test("t"), points=1.0) == 0.0 and not check.rebound_data


def test_read_only_data_rebound_to_something_not_data_needs_a_teacher():
    code = "def coin_flips():\n    return 3\nheads = 3"
    student = {"coin_flips": lambda: 3, "heads": 3}
    check = checker(student, "assert heads == sum(coin_flips)", {"setup": SETUP}, [code])
    assert check.run_locked("setup") is None
    assert graded(check.run_test("t"), points=1.0) == 0.0
    assert "not plain data" in check.needs_teacher["t"]


def test_code_a_read_only_cell_binds_is_never_the_students():
    """Her own ``np`` (rebound in her cell) is not asked for: the test uses the teacher's."""
    student = {"np": None, "heads": 3}
    check = checker(student, "assert np.sum([1, 2]) == heads", {"setup": SETUP}, ["np = None"])
    assert check.run_locked("setup") is None
    assert graded(check.run_test("t"), points=1.0) == 1.0


def test_read_only_data_that_is_no_data_on_either_side_stays_the_teachers():
    """A teacher's object (a DataFrame, here a class instance) her code only calls a method of:
    the teacher's, as before, never a handle to hers and never a cell needing a teacher.
    """
    setup = "class Table:\n    rows = 3\n    def head(self):\n        return self\ntable = Table()"
    student = {"table": object(), "heads": 3}
    check = checker(student, "assert table.rows == heads", {"setup": setup}, ["table.head()"])
    assert check.student_data == {"table"}
    assert check.run_locked("setup") is None
    assert graded(check.run_test("t"), points=1.0) == 1.0 and check.needs_teacher == {}
