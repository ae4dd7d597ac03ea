"""The teacher's order of read-only and test cells is the order that counts (cell_order.py)."""

from __future__ import annotations

from attention_grader.executor.cell_order import restore_missing, restore_order, teacher_order
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook


def cell(grade_id, markdown=False):
    make = new_markdown_cell if markdown else new_code_cell
    return make(grade_id or "", metadata={"nbgrader": {"grade_id": grade_id}} if grade_id else {})


TEACHER = new_notebook(
    cells=[
        cell("intro", markdown=True),
        cell("setup"),
        cell(None),
        cell("answer_sm"),
        cell("sm1"),
        cell("sm2"),
        cell("answer_att"),
        cell("att1"),
        cell("att2"),
        cell("answer_cm"),
        cell("cm1"),
    ]
)
TRUSTED = {"setup", "sm1", "sm2", "att1", "att2", "cm1"}


def submitted(*ids):
    return new_notebook(cells=[cell(i, markdown=i == "intro") for i in ids])


def ids(nb):
    return [c.metadata.get("nbgrader", {}).get("grade_id") for c in nb.cells]


def test_a_setup_cell_dragged_below_the_tests_goes_back_above_them():
    nb = submitted("intro", None, "answer_sm", "sm1", "sm2", "answer_att", "att1", "att2",
                   "answer_cm", "cm1", "setup")  # fmt: skip
    assert restore_order(nb, teacher_order(TEACHER), TRUSTED) == ["setup"]
    assert ids(nb) == ["intro", "setup", None, "answer_sm", "sm1", "sm2", "answer_att", "att1",
                       "att2", "answer_cm", "cm1"]  # fmt: skip


def test_tests_moved_below_later_tests_go_back_in_the_teachers_order():
    nb = submitted("intro", "setup", "answer_sm", "answer_att", "att1", "att2", "att3", "sm1",
                   "sm2", "answer_cm", "cm1")  # fmt: skip
    teacher = teacher_order(TEACHER)
    teacher.insert(teacher.index("att2") + 1, "att3")
    assert restore_order(nb, teacher, TRUSTED | {"att3"}) == ["sm1", "sm2"]
    assert ids(nb) == ["intro", "setup", "answer_sm", "sm1", "sm2", "answer_att", "att1", "att2",
                       "att3", "answer_cm", "cm1"]  # fmt: skip


def test_the_students_own_cells_stay_where_she_put_them():
    """Her cells moved among the tests keep their place: only the teacher's cells move."""
    nb = submitted("setup", "answer_att", "answer_sm", None, "sm1", "sm2", "att1", "att2",
                   "cm1", "answer_cm")  # fmt: skip
    assert restore_order(nb, teacher_order(TEACHER), TRUSTED) == []
    assert ids(nb)[:4] == ["setup", "answer_att", "answer_sm", None]


def test_cells_the_teacher_does_not_have_are_left_alone():
    nb = submitted("setup", "sm1", "forged", "sm2")
    assert restore_order(nb, teacher_order(TEACHER), TRUSTED | {"forged"}) == []
    assert ids(nb) == ["setup", "sm1", "forged", "sm2"]


def test_a_deleted_setup_cell_comes_back_in_its_place():
    """The set-up cell comes back too (nbgrader re-adds deleted graded cells only)."""
    nb = submitted("intro", None, "answer_sm", "sm1", "sm2", "answer_att", "att1", "att2",
                   "answer_cm", "cm1")  # fmt: skip
    assert restore_missing(nb, TEACHER, TRUSTED) == ["setup"]
    assert ids(nb)[:3] == ["intro", "setup", None]
    assert nb.cells[1].source == "setup" and nb.cells[1].outputs == []
