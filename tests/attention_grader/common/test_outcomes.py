"""attention_grader.common.outcomes: what went wrong in an autograded notebook, read from its outputs."""

from __future__ import annotations

from attention_grader.common.outcomes import notebook_outcomes, one_line_reason, student_line
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from tests.support.student_outputs import SQROOT_TRACEBACK


def cell(gid, outputs, grade=False, solution=False):
    meta = {"nbgrader": {"grade_id": gid, "grade": grade, "solution": solution}} if gid else {}
    return new_code_cell("...", metadata=meta, outputs=outputs)


def error(ename, evalue="", traceback=()):
    return new_output("error", ename=ename, evalue=evalue, traceback=list(traceback))


def test_the_students_own_line_is_found_not_the_librarys():
    assert student_line(SQROOT_TRACEBACK) == (2, "y = np.sqroot(x)")
    assert student_line(["AttributeError: no frame at all"]) is None


def test_each_kind_of_failure_is_told_apart():
    nb = new_notebook(
        cells=[
            new_markdown_cell("text"),
            cell(
                "practice_attention",
                [error("AttributeError", "no sqroot", SQROOT_TRACEBACK)],
                solution=True,
            ),  # fmt: skip
            cell("loop", [error("KeyboardInterrupt"), error("CellTimeoutError", "timeout")]),
            cell(
                "q1_test",
                [error("Misconception", "[sum_normalised] x: divided by the sum")],
                grade=True,
            ),  # fmt: skip
            cell("q2_test", [error("WrongAnswer", "not yet")], grade=True),
            cell(None, [error("NotebookTimeout", "budget ran out")]),
            cell("fine", []),
        ]
    )
    found = notebook_outcomes(nb, "nb")
    assert [(o.cell, o.kind) for o in found] == [
        ("practice_attention", "exception"),
        ("loop", "timeout"),
        ("q1_test", "misconception"),
        ("q2_test", "wrong"),
        ("cell 6", "timeout"),
    ]
    assert found[0].line == (2, "y = np.sqroot(x)") and found[1].ename == "CellTimeoutError"
    assert one_line_reason(found) == (
        "raised AttributeError in cell practice_attention; cell loop ran over the time limit; "
        "the notebook ran out of time"
    )


def test_failed_tests_alone_give_no_reason_and_names_are_printable():
    nb = new_notebook(cells=[cell("q1_test", [error("WrongAnswer", "no")], grade=True)])
    assert one_line_reason(notebook_outcomes(nb, "nb")) == ""
    evil = new_notebook(cells=[cell("a\x1b[2Jb", [error("ValueError\n", "x")])])
    assert "\x1b" not in one_line_reason(notebook_outcomes(evil, "nb"))


def test_a_stopped_kernel_is_said_once():
    nb = new_notebook(cells=[cell(f"c{i}", [error("KernelDied", "did not run")]) for i in range(4)])
    assert one_line_reason(notebook_outcomes(nb, "nb")) == "the kernel died"
